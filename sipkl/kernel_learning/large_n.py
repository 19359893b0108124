"""The path of an IKL fit at large n: exact columns on a subsample, then Nyström columns on
all points, and the better of the two models on held-out points.

Above :data:`EXACT_MAX_N` points an exact column (n² entries) is too costly to hold or
sweep, and over Nyström columns the run from the family's default point is slow: under an
isotropic kernel on data with uninformative coordinates nearly every point is a support
vector, so the first SVMs span nearly all n points and every price reads them all. A fit
there (``n_landmarks="auto"``, or a number of landmarks, and no ``warm_start``) goes in two
stages, which is the continuation of :class:`~sipkl.kernel_learning.estimators.ikl.IKLClassifier`
(``warm_start``) done for the user:

1. exact IKL on a stratified subsample of :data:`SUBSAMPLE_POINTS` points, at most
   :data:`SUBSAMPLE_ROUNDS` rounds (a quarter of ``time_limit`` where one is set): the
   columns that carry the signal, found where an exact column costs 72 MB;
2. IKL over Nyström columns on all points but the held-out ones, starting from the
   columns and weights of stage 1 (their SVM has the learned kernel's support, a small
   part of n), q landmarks drawn from those points — ``n_landmarks`` where it is a number,
   else :func:`auto_landmarks` — in the rest of ``time_limit``.

:data:`HELD_OUT_FRACTION` of the points (at most :data:`HELD_OUT_MAX`, stratified) are held
out of both stages, as scikit-learn's ``HistGradientBoostingClassifier`` holds out its
validation set: each round of stage 2 is scored on them (:class:`HeldOutRounds`), its best
round's model is the stage's, and :data:`PATIENCE` rounds without a better accuracy end it;
the model of the stage with the higher accuracy on them is the one the estimator keeps (a
stage 2 cut short by its time limit does not replace a better stage 1).
The draws are made once per fit from ``random_state``: the path is the same in every process.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import train_test_split

from ..core.progress import report

#: above this many points ``n_landmarks="auto"`` takes the two stages; at most, exact columns
#: (an exact column of 5000 points is 200 MB)
EXACT_MAX_N = 5000
#: points of the exact stage (72 MB per exact column)
SUBSAMPLE_POINTS = 3000
#: rounds of column generation of the exact stage at most
SUBSAMPLE_ROUNDS = 5
#: the share of ``time_limit`` that the exact stage may take
SUBSAMPLE_TIME_SHARE = 0.25
#: the landmarks of ``n_landmarks="auto"`` where memory allows (on the chessboard of the
#: benchmarks page at n = 5·10⁴, 400 came within half a point of exact IKL on 10⁴ points
#: for three seeds of three, 200 for two)
LANDMARKS = 400
#: the fewest landmarks of ``n_landmarks="auto"``
MIN_LANDMARKS = 50
#: bytes of one Nyström column's n × q features at most under ``n_landmarks="auto"``
LANDMARK_COLUMN_BYTES = 2 ** 28
#: the share of the points held out to choose between the stages, and their number at most
HELD_OUT_FRACTION, HELD_OUT_MAX = 0.1, 2000


def auto_landmarks(n: int) -> int:
    """q for ``n_landmarks="auto"`` on n points: :data:`LANDMARKS`, fewer where one column's
    features (8nq bytes) would pass :data:`LANDMARK_COLUMN_BYTES` (n > 83 886), at least
    :data:`MIN_LANDMARKS`."""
    return int(max(MIN_LANDMARKS, min(LANDMARKS, LANDMARK_COLUMN_BYTES // (8 * n))))


def one_stage_landmarks(n: int, n_landmarks):
    """The landmarks of a fit of one stage on n points (at most :data:`EXACT_MAX_N`, or a
    ``warm_start`` continuation): ``n_landmarks`` where it is a number or None; for
    ``"auto"``, None (exact columns) up to :data:`EXACT_MAX_N` points, else
    :func:`auto_landmarks`."""
    if n_landmarks != "auto":
        return n_landmarks
    return None if n <= EXACT_MAX_N else auto_landmarks(n)


@dataclass(frozen=True)
class TwoStages:
    """The points of the two stages (sorted indices): ``subsample`` (stage 1, a part of
    ``train``), ``train`` (stage 2) and ``held_out`` (neither), and the landmarks of
    stage 2, ``n_landmarks``."""

    subsample: np.ndarray
    train: np.ndarray
    held_out: np.ndarray
    n_landmarks: int


def _with_every_class(part, pool, y) -> np.ndarray:
    """The points ``part`` with the first point of ``pool`` of each class of ``pool`` that
    ``part`` lacks."""
    missing = np.setdiff1d(y[pool], y[part])
    return np.union1d(part, [pool[np.argmax(y[pool] == c)] for c in missing]).astype(int)


def _stratified_part(index, y, size: int, seed: int) -> np.ndarray:
    """``size`` of the points ``index`` drawn with ``seed``, stratified by ``y`` where every
    class has two points there; sorted."""
    _, counts = np.unique(y[index], return_counts=True)
    part, _ = train_test_split(index, train_size=size, random_state=seed,
                               stratify=y[index] if counts.min() >= 2 else None)
    return np.sort(part)


def two_stages(y, n_landmarks, seed) -> TwoStages | None:
    """The stages of a fit on the labels ``y`` with ``n_landmarks`` ("auto" or a number),
    the draws made with the :class:`numpy.random.SeedSequence` ``seed``; ``None`` where the
    fit takes one stage (at most :data:`EXACT_MAX_N` points)."""
    n = len(y)
    if n <= EXACT_MAX_N:
        return None
    held_seed, sub_seed = (int(s.generate_state(1)[0]) for s in seed.spawn(2))
    everything = np.arange(n)
    held_out = _stratified_part(everything, y, min(HELD_OUT_MAX, int(HELD_OUT_FRACTION * n)),
                                held_seed)
    train = np.setdiff1d(everything, held_out, assume_unique=True)
    train = _with_every_class(train, held_out, y)  # a class held out whole trains after all
    held_out = np.setdiff1d(held_out, train, assume_unique=True)
    subsample = _with_every_class(_stratified_part(train, y, SUBSAMPLE_POINTS, sub_seed),
                                  train, y)
    q = auto_landmarks(len(train)) if n_landmarks == "auto" else int(n_landmarks)
    return TwoStages(subsample, train, held_out, q)


#: rounds of stage 2 in a row without a better held-out accuracy, after which it stops
PATIENCE = 4


class HeldOutRounds:
    """The callback of one binary problem's run in stage 2: after each round, the accuracy
    on the held-out points ``X`` (labels ±1 ``target``) of that round's model, ``model_of(
    intermediate_result)``, a callable scoring points; the best (the first of equals) is
    kept, with the result it was made of (``best_result``) and its round (``best_round``,
    counted from 0); a result of the master solution just scored is not scored again. :data:`PATIENCE` rounds in a row without a better accuracy end the run
    (``StopIteration``: status ``callback``, the message says why), as scikit-learn's
    ``HistGradientBoostingClassifier`` stops on its validation set. ``callback``: the
    user's, called first; ``verbose`` ≥ 1 prints each round's accuracy
    (:func:`~sipkl.core.progress.report`)."""

    def __init__(self, model_of, X, target, callback=None, verbose=0):
        self.model_of, self.X, self.target, self.callback = model_of, X, target, callback
        self.verbose = verbose
        self.best, self.best_round, self.best_result, self.model = -np.inf, None, None, None
        self.rounds, self.last = 0, None

    def consider(self, result) -> None:
        """Score the model of ``result`` (a round's, or the run's end) and keep the best."""
        if self.last is not None and result.master is self.last.master:
            return  # the run ended at the round it scored last
        self.last = result
        model = self.model_of(result)
        accuracy = float(np.mean(np.where(model(self.X) > 0, 1.0, -1.0) == self.target))
        if accuracy > self.best:
            self.best, self.best_round, self.best_result = accuracy, self.rounds, result
            self.model = model
        report(self.verbose, f"          held-out accuracy {accuracy:.4f}  (best {self.best:.4f}"
                             f" in round {self.best_round})")
        self.rounds += 1

    def __call__(self, intermediate_result) -> None:
        if self.callback is not None:
            self.callback(intermediate_result)
        self.consider(intermediate_result)
        if self.rounds - 1 - self.best_round >= PATIENCE:
            raise StopIteration(f"stopped early: the held-out accuracy was not above "
                                f"{self.best:.4f} (round {self.best_round}) in {PATIENCE} "
                                "rounds")
