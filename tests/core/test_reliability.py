"""Solver faults, limits, interrupts, checkpoint/resume and persistence (engine and IKL)."""
import json
import os
import pickle
import re
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import cvxpy as cp
import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

import sipkl.persistence as persistence
from sipkl import ColumnGeneration, GaussianARD, GaussianIso, IKLClassifier
from sipkl.core.contracts import Column
from sipkl.kernel_learning.estimators.base import initial_column
from sipkl.kernel_learning.masters import HingeMKLNewton, HingeMKLQCQP
from sipkl.pricing import GridOracle, MultiStartOracle
from sipkl.persistence import (kernel_from_json, kernel_to_json, load_checkpoint, load_model,
                               save_model)
from sipkl.solvers import SolverError, Status, ipopt, maximize_box, solve_cvxpy
from sipkl.kernel_learning.space import KernelSpace


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(100, noise=0.25, random_state=0)
    return X, np.where(y == 1, 1.0, -1.0)


def engine(y, master=None, oracle=None, **kw):
    return ColumnGeneration(master or HingeMKLNewton(y, 10.0), oracle or MultiStartOracle(),
                            random_state=0, **kw)


class FailingAt:
    """Wraps a master or oracle; from call number ``at`` on, ``fail(call)`` replaces it."""

    def __init__(self, inner, method, at, fail):
        self.inner, self.method, self.at, self.fail, self.calls = inner, method, at, fail, 0
        setattr(self, method, self._call)

    def _call(self, *args):
        self.calls += 1
        if self.calls >= self.at:
            return self.fail(self.inner, *args)
        return getattr(self.inner, self.method)(*args)


def _raise(*_):
    raise SolverError("injected solver crash")


def test_master_crash_keeps_best_iterate(moons):
    X, y = moons
    master = FailingAt(HingeMKLNewton(y, 10.0), "solve", 3, _raise)
    res = engine(y, master).run(KernelSpace(X, GaussianIso()), [initial_column(GaussianIso(), X)])
    assert res.status == "master_failed" and "injected" in res.message
    assert res.nit == 3 and len(res.history["objective"]) == 2
    assert any(a.status is Status.SOLVER_ERROR and "injected" in a.message for _, a in res.attempts)
    assert np.isfinite(res.objective) and len(res.columns) >= 1


def test_master_infeasible_status_stops_explicitly(moons):
    X, y = moons

    def infeasible(inner, grams, warm):
        sol = inner.solve(grams, warm)
        sol.status = Status.INFEASIBLE
        return sol

    master = FailingAt(HingeMKLNewton(y, 10.0), "solve", 2, infeasible)
    res = engine(y, master).run(KernelSpace(X, GaussianIso()), [initial_column(GaussianIso(), X)])
    assert res.status == "master_failed" and "infeasible" in res.message
    assert res.nit == 2 and len(res.history["objective"]) == 1


def test_stale_optimal_is_caught_outside_the_solver(moons):
    """A master claiming "optimal" with a large duality gap is downgraded and recorded."""
    X, y = moons

    def stale(inner, grams, warm):
        sol = inner.solve(grams, warm)
        sol.gap = 0.5 * abs(sol.objective)
        return sol

    master = FailingAt(HingeMKLNewton(y, 10.0), "solve", 1, stale)
    with pytest.warns(RuntimeWarning, match="inaccurate"):
        res = engine(y, master, max_iter=2).run(KernelSpace(X, GaussianIso()),
                                                [initial_column(GaussianIso(), X)])
    assert any(a.status is Status.OPTIMAL_INACCURATE and "gap" in a.message
               for _, a in res.attempts)


def test_oracle_crash_keeps_master_solution(moons):
    X, y = moons
    oracle = FailingAt(MultiStartOracle(), "price", 2, _raise)
    res = engine(y, oracle=oracle).run(KernelSpace(X, GaussianIso()), [initial_column(GaussianIso(), X)])
    assert res.status == "oracle_failed" and res.nit == 2
    assert np.isfinite(res.objective)


#: a solver that cvxpy knows and that is not installed here
MISSING = next(name for name in cp.settings.SOLVERS if name not in cp.installed_solvers())


def test_qcqp_master_falls_back_along_its_solver_list(moons):
    X, y = moons
    K = GaussianIso().gram([1.0], X)
    reference = HingeMKLQCQP(y, 10.0, solvers=("CLARABEL",)).solve([K])
    sol = HingeMKLQCQP(y, 10.0, solvers=(MISSING, "clarabel")).solve([K])
    assert [a.solver for a in sol.attempts] == [MISSING, "CLARABEL"]
    assert sol.attempts[0].status is Status.SOLVER_ERROR
    assert sol.status is Status.OPTIMAL
    np.testing.assert_allclose(sol.objective, reference.objective, rtol=1e-7)


def test_qcqp_master_reports_total_failure(moons):
    X, y = moons
    sol = HingeMKLQCQP(y, 10.0, solvers=(MISSING,)).solve([GaussianIso().gram([1.0], X)])
    assert sol.status is Status.SOLVER_ERROR and np.isnan(sol.objective)


def test_ipopt_raising_inside_a_callback_falls_back_to_lbfgsb():
    calls = {"n": 0}

    def fun(x):  # crashes on its third call (inside IPOPT's iterations), then behaves
        calls["n"] += 1
        if calls["n"] == 3:
            raise FloatingPointError("injected")
        return -float((x[0] - 0.3) ** 2), np.array([-2 * (x[0] - 0.3)])

    res = maximize_box(fun, [[0.9]], [0.0], [1.0], method="ipopt")
    solvers = [(a.solver, a.status) for a in res.attempts]
    assert solvers[0] == ("ipopt", Status.SOLVER_ERROR) and solvers[1][0] == "lbfgsb"
    np.testing.assert_allclose(res.x[0], [0.3], atol=1e-6)


@pytest.mark.parametrize("units", [1.0, 1e-6])
def test_a_solver_ending_below_a_point_it_evaluated_returns_that_point(monkeypatch, units):
    """A solver that reports success at a point worse than one it evaluated (as IPOPT's
    barrier can, from a start near a bound): the better point is returned, with its value
    and the status ``optimal_inaccurate``; an end within ``tol`` of it is kept, ``optimal``
    (in any units of the function)."""
    def fun(x):
        return units * -float((x[0] - 0.3) ** 2), units * np.array([-2 * (x[0] - 0.3)])

    end = {}

    def downhill(negated, x0, **kwargs):  # evaluates the start, then ends at end["x"]
        negated(np.array([0.31]))
        x = np.array([end["x"]])
        return SimpleNamespace(x=x, fun=negated(x)[0], status=0,
                               message="Optimal Solution Found.")

    monkeypatch.setattr(ipopt, "minimize_ipopt", downhill)
    monkeypatch.setattr(ipopt, "available", True)  # the stand-in, even without cyipopt
    end["x"] = 0.9  # f = −0.36 against −10⁻⁴ at the start
    res = maximize_box(fun, [[0.31]], [0.0], [1.0], method="ipopt", tol=1e-5)
    assert res.x[0] == pytest.approx([0.31]) and res.fun[0] == fun(np.array([0.31]))[0]
    # the solver's "optimal" was said of the point it ended at, not of the one returned
    assert res.status is Status.OPTIMAL_INACCURATE
    assert res.attempts[0].status is Status.OPTIMAL_INACCURATE
    assert "that point is returned" in res.attempts[0].message
    end["x"] = 0.311  # f = −1.21·10⁻⁴: 0.21 (relative) below the start
    assert maximize_box(fun, [[0.31]], [0.0], [1.0], tol=1e-5).x[0] == pytest.approx([0.31])
    kept = maximize_box(fun, [[0.31]], [0.0], [1.0], tol=0.5)
    assert kept.x[0] == pytest.approx([0.311]) and kept.status is Status.OPTIMAL


def test_missing_ipopt_is_recorded(without_ipopt):
    res = maximize_box(lambda x: (-float(x[0] ** 2), -2 * x), [[0.5]], [-1.0], [1.0])
    assert res.attempts[0].solver == "ipopt"
    assert f"cyipopt unavailable ({without_ipopt})" in res.attempts[0].message
    assert res.attempts[1].solver == "lbfgsb"


def test_time_limit_returns_best_so_far_and_predicts(moons):
    X, y = moons
    clf = IKLClassifier(family=GaussianARD(), C=10.0, time_limit=1e-9, obj_tol=0.0,
                        random_state=0).fit(X, y)
    assert clf.result_.status == "time_limit" and clf.n_iter_ == 1
    assert clf.predict(X).shape == (len(X),)


def test_the_newton_master_stops_at_the_time_limit(moons):
    """A master round is not a unit the time limit waits for: the engine hands the Newton
    master its deadline, and past it the master takes no step and returns its start (status
    ``iteration_limit``; the unlimited master, which steps, ends lower and optimal); the run
    then stops with ``time_limit``."""
    X, y = moons
    family = GaussianIso()
    columns = [Column.make(family, (s,)) for s in (0.1, 1.0, 10.0)]
    grams = [family.gram(c.theta, X) for c in columns]
    full = HingeMKLNewton(y, 10.0).solve(grams, None)
    stopped_master = HingeMKLNewton(y, 10.0)
    stopped_master.deadline = 0.0  # long past
    stopped = stopped_master.solve(grams, None)
    assert full.status is Status.OPTIMAL and stopped.status is Status.ITERATION_LIMIT
    assert any("time limit" in a.message for a in stopped.attempts)
    np.testing.assert_allclose(stopped.weights, np.full(3, 1 / 3))
    assert stopped.objective > full.objective + 1e-3 * abs(full.objective)

    master = HingeMKLNewton(y, 10.0)
    res = ColumnGeneration(master, MultiStartOracle(), time_limit=1e-9).run(KernelSpace(X, family), columns)
    assert master.deadline is not None
    assert res.status == "time_limit" and res.nit == 1
    assert res.master.status is Status.ITERATION_LIMIT
    ColumnGeneration(master, MultiStartOracle(), max_iter=1).run(KernelSpace(X, family), columns)
    assert master.deadline is None


def test_keyboard_interrupt_returns_best_so_far(moons):
    X, y = moons

    def interrupt(intermediate):
        if intermediate.nit == 2:
            raise KeyboardInterrupt

    clf = IKLClassifier(C=10.0, callback=interrupt, obj_tol=0.0, random_state=0).fit(X, y)
    assert clf.result_.status == "interrupted"
    assert clf.score(X, y) > 0.8


RUN = """
import os, sys, numpy as np
from sklearn.datasets import make_moons
from sipkl import ColumnGeneration, GaussianARD
from sipkl.kernel_learning.estimators.base import initial_column
from sipkl.kernel_learning.masters import HingeMKLNewton
from sipkl.pricing import MultiStartOracle
from sipkl.kernel_learning.space import KernelSpace
X, y = make_moons(100, noise=0.25, random_state=0); y = np.where(y == 1, 1.0, -1.0)
family = GaussianARD()
def crash(intermediate):
    if KILL_AT and intermediate.nit == KILL_AT:
        os.kill(os.getpid(), 9)
engine = ColumnGeneration(HingeMKLNewton(y, 10.0), MultiStartOracle(), random_state=0,
                          checkpoint=CHECKPOINT, callback=crash)
res = engine.run(KernelSpace(X, family), [initial_column(family, X)], resume=RESUME)
np.savez(OUT, weights=res.weights, theta=np.array([c.theta for c in res.columns]),
         objective=res.history["objective"])
"""


def _run(tmp_path, kill_at, resume, out):
    code = (f"KILL_AT={kill_at!r}\nCHECKPOINT={str(tmp_path / 'ck.json')!r}\n"
            f"RESUME={resume!r}\nOUT={out!r}\n" + textwrap.dedent(RUN))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)


def test_killed_run_resumes_to_the_same_result(tmp_path):
    full = _run(tmp_path, None, None, str(tmp_path / "full.npz"))
    assert full.returncode == 0, full.stderr
    killed = _run(tmp_path, 3, None, str(tmp_path / "never.npz"))
    assert killed.returncode == -9 and not (tmp_path / "never.npz").exists()
    checkpoint = json.loads((tmp_path / "ck.json").read_text())
    assert checkpoint["iteration"] == 2  # written after iterations 0 and 1; killed in 2
    resumed = _run(tmp_path, None, str(tmp_path / "ck.json"), str(tmp_path / "resumed.npz"))
    assert resumed.returncode == 0, resumed.stderr
    a, b = np.load(tmp_path / "full.npz"), np.load(tmp_path / "resumed.npz")
    for key in ("weights", "theta", "objective"):
        np.testing.assert_array_equal(a[key], b[key])


def test_damaged_checkpoint_is_rejected(tmp_path, moons):
    X, y = moons
    path = tmp_path / "ck.json"
    engine(y, max_iter=2, checkpoint=str(path)).run(KernelSpace(X, GaussianIso()),
                                                     [initial_column(GaussianIso(), X)])
    data = json.loads(path.read_text())
    data["weights"] = data["weights"][:-1] + [float("nan")]
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="weights"):
        engine(y).run(KernelSpace(X, GaussianIso()), None, resume=str(path))
    data["version"] = 99
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="version"):
        engine(y).run(KernelSpace(X, GaussianIso()), None, resume=str(path))


def _edited(**edits):
    """A damage: the checkpoint's JSON with each entry ``name`` replaced by ``edit(data)``."""
    def damage(path, data):
        path.write_text(json.dumps({**data, **{k: edit(data) for k, edit in edits.items()}}))
    return damage


DAMAGES = {
    "not UTF-8": lambda path, data: path.write_bytes(b"\xff\xfe\x00\x81"),
    "not a checkpoint": lambda path, data: path.write_text("[1, 2]"),
    "iteration a word": _edited(iteration=lambda d: "two"),
    "iteration a fraction": _edited(iteration=lambda d: 1.5),
    "weights words": _edited(weights=lambda d: ["a"] * len(d["weights"])),
    "theta of two numbers": _edited(columns=lambda d: [{**c, "theta": [1.0, 2.0]}
                                                       for c in d["columns"]]),
    "random state cut": _edited(rng_state=lambda d: {"bit_generator": "PCG64"}),
    "random state unknown": _edited(rng_state=lambda d: {**d["rng_state"],
                                                        "bit_generator": "Nope"}),
    "history without time": _edited(history=lambda d: {k: v for k, v in d["history"].items()
                                                       if k != "time"}),
    "history too short": _edited(history=lambda d: {k: v[:-1]
                                                    for k, v in d["history"].items()}),
    "previous objective a word": _edited(previous_objective=lambda d: "x"),
    "no fingerprint": lambda path, data: path.write_text(json.dumps(
        {k: v for k, v in data.items() if k != "fingerprint"})),
}


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=DAMAGES.keys())
def test_a_damaged_checkpoint_is_refused_naming_the_file(tmp_path, moons, damage):
    X, y = moons
    path = tmp_path / "ck.json"
    engine(y, max_iter=2, checkpoint=str(path)).run(KernelSpace(X, GaussianIso()),
                                                     [initial_column(GaussianIso(), X)])
    damage(path, json.loads(path.read_text()))
    with pytest.raises(ValueError, match=f"checkpoint {re.escape(str(path))}"):
        engine(y).run(KernelSpace(X, GaussianIso()), None, resume=str(path))


def test_a_checkpoint_of_other_data_is_refused(tmp_path, moons):
    """The same family and master on other training points is another program."""
    X, y = moons
    path = tmp_path / "ck.json"
    engine(y, max_iter=2, checkpoint=str(path)).run(KernelSpace(X, GaussianIso()),
                                                     [initial_column(GaussianIso(), X)])
    with pytest.raises(ValueError, match=f"checkpoint {re.escape(str(path))} belongs to "
                                         r"another program: .*'X': \[100, 2\]"):
        engine(y[:60]).run(KernelSpace(X[:60], GaussianIso()), None, resume=str(path))


def test_learned_kernel_json_round_trip_and_tampering(moons):
    X, y = moons
    clf = IKLClassifier(family=GaussianARD(), random_state=0).fit(X, y)
    text = kernel_to_json(clf.kernel_)
    again = kernel_from_json(text)
    np.testing.assert_array_equal(again(X), clf.kernel_(X))
    data = json.loads(text)
    for broken in ({**data, "version": 2}, {**data, "schema": "other"},
                   {**data, "weights": [-1.0] * len(data["weights"])},
                   {**data, "columns": [{"family": {"type": "Nope", "params": {}},
                                         "theta": [1.0]}]}):
        with pytest.raises(ValueError):
            kernel_from_json(json.dumps(broken))
    with pytest.raises(ValueError, match="JSON"):
        kernel_from_json("{not json")


DATA = Path(__file__).resolve().parents[1] / "data"


def test_files_written_by_the_earlier_layout_load():
    """A model (a StandardScaler and an FSAMAlignmentClassifier, as the class was called)
    and an engine checkpoint written before the estimators became a package, with the
    decision values that model gave then."""
    model = load_model(DATA / "fsam_pipeline_v2.json")
    assert type(model[-1]).__name__ == "AlignmentKernelClassifier"
    X = np.array([[0.0, 0.0], [1.0, -1.0], [-0.5, 2.0], [2.0, -2.0]])
    expected = np.loadtxt(DATA / "fsam_pipeline_v2.expected.txt")
    np.testing.assert_allclose(model[-1].decision_function(model[0].transform(X)), expected,
                               rtol=1e-12, atol=1e-12)
    state = load_checkpoint(DATA / "union_checkpoint_v1.json")
    raw = json.loads((DATA / "union_checkpoint_v1.json").read_text())
    assert state["iteration"] == raw["iteration"]
    assert state["columns"][0].family == GaussianIso()
    assert state["columns"][1].family == GaussianIso(features=(0,))
    assert [list(c.theta) for c in state["columns"]] == [c["theta"] for c in raw["columns"]]


def test_model_save_load_and_tampered_arrays(tmp_path, moons):
    X, y = moons
    clf = IKLClassifier(family=GaussianARD(), C=3.0, random_state=0).fit(X, y)
    path = tmp_path / "model.json"
    npz = save_model(clf, path)
    loaded = load_model(path)
    np.testing.assert_array_equal(loaded.decision_function(X), clf.decision_function(X))
    assert loaded.get_params()["C"] == 3.0
    with np.load(npz) as arrays:
        changed = {k: arrays[k] for k in arrays.files}
    changed["e0_coef"] = changed["e0_coef"] * 2
    with open(npz, "wb") as f:
        np.savez(f, **changed)
    with pytest.raises(ValueError, match="modified"):
        load_model(path)


def test_model_with_its_scaler_and_older_versions(tmp_path, moons):
    X, y = moons
    X = X * [1000.0, 0.001]
    pipeline = make_pipeline(StandardScaler(), IKLClassifier(C=3.0, random_state=0)).fit(X, y)
    path = tmp_path / "model.json"
    save_model(pipeline, path)
    loaded = load_model(path)
    assert isinstance(loaded, Pipeline) and isinstance(loaded[0], StandardScaler)
    np.testing.assert_array_equal(loaded.decision_function(X), pipeline.decision_function(X))
    with pytest.raises(TypeError, match="StandardScaler followed by"):
        save_model(make_pipeline(IKLClassifier()), path)
    # a version-1 file (written before models could carry a scaler, its arrays in
    # model.json.npz, no checksum of its JSON) still loads
    bare = IKLClassifier(C=3.0, random_state=0).fit(X[:, :1], y)
    os.replace(save_model(bare, path), str(path) + ".npz")
    data = json.loads(path.read_text())
    assert data["version"] == 3 and data["scaler"] is None
    for key in ("scaler", "training_data", "unsaved", "arrays", "sha256"):
        del data[key]
    path.write_text(json.dumps(dict(data, version=1)))
    np.testing.assert_array_equal(load_model(path).predict(X[:, :1]), bare.predict(X[:, :1]))
    path.write_text(json.dumps(dict(data, version=4)))
    with pytest.raises(ValueError, match="reads version 1, 2, 3"):
        load_model(path)


def test_a_model_file_is_checked_whole(tmp_path, moons, edit_model):
    """A JSON edited after the save is rejected; signed again, a model that does not hold
    together is rejected all the same, each with the file and what is wrong."""
    X, y = moons
    path = tmp_path / "model.json"
    save_model(IKLClassifier(oracle="grid", random_state=0).fit(X, y), path)
    data = json.loads(path.read_text())
    path.write_text(json.dumps(dict(data, n_features_in=3)))
    with pytest.raises(ValueError, match=f"{re.escape(str(path))} was modified"):
        load_model(path)
    for entries, wrong in (({"n_features_in": 3}, r"e0_points has shape \(\d+, 2\), not "
                            r"\(m, 3\) for n_features_in = 3"),
                           ({"expansions": [dict(data["expansions"][0], bias=float("nan"))]},
                            "bias must be finite"),
                           ({"classes": [-1.0, 1.0, 2.0]},
                            r"1 kernel expansion\(s\) for 3 classes \(expected 3\)")):
        path.write_text(json.dumps(data))
        edit_model(path, **entries)
        with pytest.raises(ValueError, match=f"{re.escape(str(path))}: .*{wrong}"):
            load_model(path)
    path.write_text(json.dumps(data))
    np.testing.assert_array_equal(load_model(path).classes_, [-1.0, 1.0])


def test_an_interrupted_save_leaves_the_previous_model(tmp_path, moons, monkeypatch):
    X, y = moons
    path = tmp_path / "model.json"
    first, second = (IKLClassifier(C=C, oracle="grid", random_state=0).fit(X, y)
                     for C in (0.1, 100.0))
    assert not np.array_equal(first.decision_function(X), second.decision_function(X))
    save_model(first, path)

    def interrupted(*args):
        raise KeyboardInterrupt
    with monkeypatch.context() as patch:  # interrupted once the new arrays are written
        patch.setattr(persistence, "write_json_atomic", interrupted)
        with pytest.raises(KeyboardInterrupt):
            save_model(second, path)
    np.testing.assert_array_equal(load_model(path).decision_function(X),
                                  first.decision_function(X))
    arrays = save_model(second, path)
    np.testing.assert_array_equal(load_model(path).decision_function(X),
                                  second.decision_function(X))
    # the first model's arrays removed, no temporary file left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json", Path(arrays).name]


def test_model_files_get_the_permissions_of_a_new_file(tmp_path, moons):
    X, y = moons
    umask = os.umask(0o027)
    try:
        save_model(IKLClassifier(oracle="grid").fit(X, y), tmp_path / "model.json")
    finally:
        os.umask(umask)
    modes = [stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()]
    assert modes == [0o666 & ~0o027] * 2


def test_a_parameter_that_is_not_saved_is_named_on_load(tmp_path, moons):
    X, y = moons
    clf = IKLClassifier(oracle=GridOracle(), random_state=0).fit(X, y)
    save_model(clf, tmp_path / "model.json")
    with pytest.warns(UserWarning, match=r"oracle \(a GridOracle object, now 'ipopt'\)"):
        loaded = load_model(tmp_path / "model.json")
    np.testing.assert_array_equal(loaded.decision_function(X), clf.decision_function(X))


def test_save_model_names_what_it_saves(tmp_path, moons):
    X, y = moons
    search = GridSearchCV(IKLClassifier(oracle="grid"), {"C": [1.0]}, cv=2)
    with pytest.raises(TypeError, match=r"IKLClassifier.* not a GridSearchCV "
                                        r"\(save its best_estimator_\)"):
        save_model(search.fit(X, y), tmp_path / "model.json")
    with pytest.raises(NotFittedError, match="IKLClassifier"):
        save_model(IKLClassifier(), tmp_path / "model.json")
    assert list(tmp_path.iterdir()) == []


def test_pickle_round_trip(moons):
    X, y = moons
    clf = IKLClassifier(random_state=0).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.decision_function(X), clf.decision_function(X))


def default_sip_run(**options):
    """A SIP over a 2-D box priced by multi-start IPOPT (the uniform approximation of
    exp(t₁t₂) by an affine function): the result and the coefficients."""
    from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram
    a, z = cp.Variable(3), cp.Variable()
    basis = lambda t: np.column_stack([np.ones(len(t)), t[:, 0], t[:, 1]])
    target = lambda t: np.exp(t[:, 0] * t[:, 1])
    T = Box([0.0, 0.0], [1.0, 1.0])
    result = SemiInfiniteProgram(cp.Minimize(z), [
        SemiInfiniteConstraint(lambda a, t: basis(t) @ a - target(t) - z, a, T,
                               vectorized=True),
        SemiInfiniteConstraint(lambda a, t: target(t) - basis(t) @ a - z, a, T,
                               vectorized=True)]).solve("ipopt", **options)
    return result, a.value


def test_default_runs_give_the_same_bits_in_every_call(moons):
    """No ``random_state``: the multi-start pricing's random starts come from the fixed
    :data:`~sipkl.core.engine.DEFAULT_SEED`, stated in the result, so that two calls give the
    same bits, and a call in another process (another hash seed) too (a SIP over a 2-D box,
    priced by multi-start IPOPT, and an IKL fit); another seed is a run of its own, stated
    too."""
    from sipkl.core.engine import DEFAULT_SEED
    (first, a1), (second, a2) = default_sip_run(), default_sip_run()
    assert first.random_state == second.random_state == DEFAULT_SEED
    assert first.objective == second.objective and np.array_equal(a1, a2)
    other = subprocess.run(
        [sys.executable, "-c", "import test_reliability as t; r, a = t.default_sip_run(); "
         "print(r.objective.hex(), *[v.hex() for v in a])"],
        cwd=Path(__file__).parent, capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONHASHSEED": "12345"})
    assert other.stdout.split() == [first.objective.hex(), *[v.hex() for v in a1]]
    assert default_sip_run(random_state=7)[0].random_state == 7
    X, y = moons
    fits = [IKLClassifier(C=10.0, max_iter=5).fit(X, y) for _ in range(2)]
    assert [f.result_.random_state.entropy for f in fits] == [DEFAULT_SEED] * 2  # spawned
    np.testing.assert_array_equal(fits[0].decision_function(X), fits[1].decision_function(X))


def test_an_inaccurate_answer_with_a_cone_constraint_is_restored_with_its_duals():
    """An ``optimal_inaccurate`` answer (Clarabel stopped early at loose reduced
    tolerances) followed by a solver that fails (SCS after one iteration) is returned with
    its values and its duals restored — a second-order cone's two dual parts too."""
    x = cp.Variable(3)
    cone = cp.SOC(cp.Constant(1.0), x)
    problem = cp.Problem(cp.Minimize(cp.sum(x)), [cone, cp.norm(x - 1, 2) <= 2])
    early = {"max_iter": 4, "reduced_tol_gap_abs": 0.1, "reduced_tol_gap_rel": 0.1,
             "reduced_tol_feas": 0.1, "reduced_tol_ktratio": 0.1}
    with pytest.warns(UserWarning, match="inaccurate"):
        problem.solve(solver="CLARABEL", **early)
    assert problem.status == "optimal_inaccurate"
    expected = [x.value.copy()] + [np.copy(part) for part in cone.dual_value]
    with pytest.warns(RuntimeWarning, match="inaccurate"):
        status, attempts = solve_cvxpy(problem, ["CLARABEL", "SCS"], CLARABEL=early,
                                       SCS={"max_iters": 1})
    assert status is Status.OPTIMAL_INACCURATE and attempts[1].status is not Status.OPTIMAL
    for value, reference in zip([x.value] + list(cone.dual_value), expected):
        np.testing.assert_array_equal(value, reference)
