"""The two stages of an IKL fit at large n (sipkl.kernel_learning.large_n): its draws of
points, and the one call against the continuation a user writes by hand (exact IKL on the
subsample, then ``warm_start=True`` with Nyström columns on the training points), scored on
the held-out points by scikit-learn. The sizes that start the two stages are made small here
(``EXACT_MAX_N``, ``SUBSAMPLE_POINTS``, ``LANDMARKS`` patched), so the path runs in seconds."""
import numpy as np
import pytest

from sipkl import GaussianARD, GaussianIso, IKLClassifier
from sipkl.kernel_learning import large_n
from sipkl.kernel_learning.large_n import auto_landmarks, one_stage_landmarks, two_stages
from boards import chessboard


@pytest.fixture
def small_stages(monkeypatch):
    """Two stages above 300 points: 150 exact, 40 landmarks."""
    monkeypatch.setattr(large_n, "EXACT_MAX_N", 300)
    monkeypatch.setattr(large_n, "SUBSAMPLE_POINTS", 150)
    monkeypatch.setattr(large_n, "LANDMARKS", 40)
    monkeypatch.setattr(large_n, "MIN_LANDMARKS", 10)


def test_the_stages_points_are_stratified_disjoint_and_drawn_once():
    y = np.repeat([0.0, 1.0, 2.0], [7000, 2500, 500])
    stages = two_stages(y, "auto", np.random.SeedSequence(3))
    held, train, sub = stages.held_out, stages.train, stages.subsample
    assert len(held) == 1000 and len(train) == 9000 and len(sub) == 3000
    np.testing.assert_array_equal(np.union1d(held, train), np.arange(len(y)))
    assert np.intersect1d(held, train).size == 0 and np.all(np.isin(sub, train))
    for part, size in [(held, 1000), (sub, 3000)]:  # the classes' shares, to one point
        counts = np.bincount(y[part].astype(int))
        np.testing.assert_allclose(counts, size * np.array([0.7, 0.25, 0.05]), atol=1)
    again = two_stages(y, "auto", np.random.SeedSequence(3))
    np.testing.assert_array_equal(again.subsample, sub)
    np.testing.assert_array_equal(again.held_out, held)
    assert not np.array_equal(two_stages(y, "auto", np.random.SeedSequence(4)).held_out, held)
    assert stages.n_landmarks == 400 and two_stages(y, 123, np.random.SeedSequence(3)
                                                    ).n_landmarks == 123
    assert two_stages(y[:5000], "auto", np.random.SeedSequence(3)) is None


def test_a_class_of_one_point_trains_in_both_stages():
    y = np.zeros(8000)
    y[4321] = 1.0
    stages = two_stages(y, "auto", np.random.SeedSequence(0))
    assert 4321 in stages.train and 4321 in stages.subsample and 4321 not in stages.held_out


def test_auto_landmarks_fit_the_memory_of_a_column():
    assert auto_landmarks(5 * 10 ** 4) == 400
    assert auto_landmarks(10 ** 5) == 2 ** 28 // (8 * 10 ** 5) == 335
    assert auto_landmarks(10 ** 7) == 50
    assert one_stage_landmarks(5000, "auto") is None
    assert one_stage_landmarks(5001, "auto") == 400
    assert one_stage_landmarks(10 ** 6, 77) == 77 and one_stage_landmarks(10 ** 6, None) is None


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_the_one_call_is_the_continuation_by_hand(small_stages):
    """Stage 1 is exact IKL on the subsample; stage 2 keeps the round whose model scores best
    on the held-out points, which is the continuation by hand (``warm_start=True``) stopped
    after that round: each round's continuation is fitted and scored here by
    scikit-learn's ``score``."""
    X, y = chessboard(420, seed=2, noise=2)
    settings = dict(family=GaussianARD(), C=10.0, random_state=0, max_iter=4)
    model = IKLClassifier(**settings).fit(X, y)
    first, second = model.stages_
    held = model.held_out_
    assert len(held) == 42 and len(first["points"]) == 150 and second["n_landmarks"] == 40
    np.testing.assert_array_equal(np.union1d(held, second["points"]), np.arange(len(y)))
    by_hand = IKLClassifier(**settings, n_landmarks=None).fit(X[first["points"]],
                                                              y[first["points"]])
    exact = dict(accuracy=by_hand.score(X[held], y[held]), scores=by_hand.decision_function(X),
                 status=by_hand.result_.status.value)
    assert first["held_out_accuracy"] == exact["accuracy"] and first["best_round"] == [None]
    continued = []
    for rounds in range(1, 5):  # stage 2 stopped after each of its rounds
        fit = IKLClassifier(**settings, n_landmarks=None).fit(X[first["points"]],
                                                              y[first["points"]])
        fit.set_params(n_landmarks=40, warm_start=True, max_iter=rounds)
        continued.append(fit.fit(X[second["points"]], y[second["points"]]))
    accuracies = [fit.score(X[held], y[held]) for fit in continued]
    best = second["best_round"][0]
    assert second["held_out_accuracy"] == accuracies[best] == max(accuracies)
    assert all(a < accuracies[best] for a in accuracies[:best])  # the first of equals
    assert second["selected"] == (second["held_out_accuracy"] >= exact["accuracy"])
    assert first["selected"] != second["selected"]
    kept = continued[best] if second["selected"] else None
    scores = exact["scores"] if kept is None else kept.decision_function(X)
    np.testing.assert_allclose(model.decision_function(X), scores, rtol=1e-10, atol=1e-12)
    assert model.exact_kernel_gap_ == continued[best].exact_kernel_gap_
    assert model.result_.status.value == (exact["status"] if kept is None
                                          else continued[-1].result_.status.value)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_callback_that_stops_the_exact_stage_ends_the_fit(small_stages):
    X, y = chessboard(420, seed=2, noise=2)

    def stop(intermediate_result):
        raise StopIteration
    model = IKLClassifier(family=GaussianARD(), C=10.0, random_state=0, callback=stop).fit(X, y)
    assert len(model.stages_) == 1 and model.stages_[0]["selected"]
    assert model.result_.status.value == "callback"


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_warm_start_above_the_exact_size_continues_on_nystrom_columns(small_stages):
    X, y = chessboard(420, seed=2, noise=2)
    model = IKLClassifier(family=GaussianARD(), C=10.0, random_state=0, max_iter=2)
    model.set_params(n_landmarks=None).fit(X[:200], y[:200])
    model.set_params(n_landmarks="auto", warm_start=True).fit(X, y)
    assert model.stages_ is None and model.expansions_[0].points.shape[0] == 40


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_auto_takes_exact_columns_where_nystrom_columns_do_not_serve(small_stages):
    """oracle="dc" proves bounds on exact prices: above the two stages' size "auto" keeps
    exact columns on all points (the fit without landmarks), where a number is refused."""
    X, y = chessboard(320, seed=2, noise=0)
    settings = dict(family=GaussianIso(), C=10.0, oracle="dc", max_iter=2)
    model = IKLClassifier(**settings).fit(X, y)
    exact = IKLClassifier(**settings, n_landmarks=None).fit(X, y)
    assert model.stages_ is None and not hasattr(model, "exact_kernel_gap_")
    np.testing.assert_array_equal(model.decision_function(X), exact.decision_function(X))
    with pytest.raises(ValueError, match="bounds exact prices"):
        IKLClassifier(**settings, n_landmarks=40).fit(X, y)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_stage_two_stops_after_rounds_without_a_better_held_out_accuracy(small_stages):
    X, y = chessboard(420, seed=2, noise=2)
    model = IKLClassifier(family=GaussianARD(), C=10.0, random_state=0, max_iter=30).fit(X, y)
    second = model.stages_[1]
    assert second["status"] == ["callback"] and "stopped early" in model.result_.message
    assert second["rounds"][0] == second["best_round"][0] + large_n.PATIENCE + 1 < 30
