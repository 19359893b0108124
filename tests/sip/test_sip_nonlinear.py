"""Smooth, non-convex semi-infinite programs in NumPy (sipkl.sip.nonlinear_program, its
constraints, master and derivatives) on the engine, and their NLP back-end
(sipkl.solvers.nlp).

Every number is checked against something the code under test does not produce: closed
forms (Watson 2, the bound and finite-constraint variants, their multipliers), SciPy's SLSQP
on a fine grid followed by the finite program at its active points (TFI1, Watson 6), a proof
by a fine grid and a Lipschitz bound (the fseminf example's optimum 0), the cvxpy path on
convex problems, closed-form derivatives, and the same run in other units.
"""
import json
import os
import re
import subprocess
import sys
import warnings

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import Bounds, minimize, minimize_scalar, nnls

from sipkl.core.run_status import RunStatus
from sipkl.sip import Box, FiniteConstraint, NonlinearConstraint, NonlinearSemiInfiniteProgram
from sipkl.sip.constraints.derivatives import (central_differences, complex_step,
                                               measured_differences)
from sipkl.solvers import Status, ipopt, nlp
from sipkl.sip.library.nonlinear import NONLINEAR_PROBLEMS, NONLINEAR_PROBLEMS_2D
from sipkl.sip.phases.saddle import canonical_directions, negative_curvature
from sipkl.sip.library.convex import PROBLEMS, get_problem

import nonlinear_runs
from ipopt_stand_in import ending

#: the outcomes here follow nonconvex paths: ``make test-threads`` runs them again with
#: OPENBLAS_NUM_THREADS=1 and =2
pytestmark = pytest.mark.roundoff


def reference(f, grad_f, g, jac_g, x0, grid, fine):
    """An independent solution in SciPy alone: SLSQP on the constraints at ``grid`` (m × 1),
    then on the grid points active there (≥ −10⁻⁶), polished to 10⁻¹⁴ (where SLSQP may end
    on "positive directional derivative": it can do no better); checked: feasible on the
    grid ``fine``, and a KKT point (∇f + Σ λ_i ∇g_i = 0 with λ ≥ 0 by NNLS, to 10⁻⁶).
    Returns x, f(x) and the active points."""
    def solve(points, start, ftol):
        return minimize(f, start, jac=grad_f, method="SLSQP",
                        options={"ftol": ftol, "maxiter": 1000},
                        constraints=[{"type": "ineq", "fun": lambda x: -g(x, points),
                                      "jac": lambda x: -jac_g(x, points)}])
    coarse = solve(grid, np.asarray(x0, float), 1e-12)
    active = grid[g(coarse.x, grid) >= -1e-6]
    polished = solve(active, coarse.x, 1e-14)
    assert polished.status in (0, 8), polished.message
    x = polished.x
    assert g(x, fine).max() <= 1e-10 * max(1.0, abs(polished.fun))
    _, residual = nnls(jac_g(x, active).T, -grad_f(x))
    assert residual <= 1e-6 * np.linalg.norm(grad_f(x))
    return x, float(f(x)), active


GRID, FINE = np.linspace(0, 1, 2001)[:, None], np.linspace(0, 1, 200001)[:, None]


# -- 1. the literature: TFI1, Watson 2 and 6, the fseminf example -------------------------
@pytest.mark.parametrize("derivatives", [True, False])
def test_tfi1_matches_scipy_on_a_fine_grid_and_the_sif_solution(derivatives):
    """CUTEst TFI1 (read in the S2MPJ translation of the SIF file): the value of SciPy's
    SLSQP on 2001 points refined at their active set, x to 10⁻⁷, f to 10⁻⁹; the SIF file's
    solution line 5.3346872 (its grid holds the one active point t = 1) to its 8 digits."""
    problem = NONLINEAR_PROBLEMS["tfi1"]
    (c,) = problem.constraints
    x_ref, f_ref, active = reference(problem.f, problem.grad_f, c.g, c.jac_g, problem.x0,
                                     GRID, FINE)
    np.testing.assert_allclose(active.ravel(), [1.0])
    result = problem.build(derivatives).solve(tol=1e-9)
    assert result.status == "converged_local" and result.success
    assert abs(result.objective - f_ref) <= 1e-9 * f_ref
    np.testing.assert_allclose(result.x, x_ref, atol=1e-7)
    assert abs(result.objective - 5.3346872) <= 1e-7
    assert result.max_violation <= 1e-9 * result.scales[0]
    assert result.differences == ({"f": "stated", "g": "stated"} if derivatives else
                                  {"f": "complex-step", "g": "complex-step"})


def test_watson2_reaches_its_closed_form_with_its_multiplier():
    """Watson's problem 2 (not convex in x): f* = (3 − √5)/2 − 3/16 at x = (−3/4, (1 − √5)/2)
    with the active point t = 0, whose multiplier λ = −2x₂/(1 − 2x₂) solves ∂f/∂x₂ + λ ∂g/∂x₂
    = 0."""
    problem = NONLINEAR_PROBLEMS["watson2"]
    result = problem.build(derivatives=False).solve()
    assert result.status == "converged_local"
    assert abs(result.objective - problem.optimum) <= 1e-8 * problem.optimum
    np.testing.assert_allclose(result.x, problem.x_optimum, atol=1e-8)
    (points,), (multipliers,) = result.points, result.multipliers
    x2 = problem.x_optimum[1]
    # the maximizer t = 0, where ∂g/∂t = 0 (g depends on t²), as the local reduction's Newton
    # steps locate it with differenced t-gradients: to 10⁻⁹ of the interval
    np.testing.assert_allclose(points.ravel(), [0.0], atol=1e-9)
    np.testing.assert_allclose(multipliers, [-2 * x2 / (1 - 2 * x2)], rtol=1e-7)


def test_watson6_matches_scipy_on_a_fine_grid():
    """Watson's problem 6 (the Freudenstein–Roth objective): SciPy on 2001 points refined at
    their active set (t = 0), feasible on 200001 points; the same value from both starts."""
    problem = NONLINEAR_PROBLEMS["watson6"]
    (c,) = problem.constraints
    x_ref, f_ref, active = reference(problem.f, problem.grad_f, c.g, c.jac_g, problem.x0,
                                     GRID, FINE)
    np.testing.assert_allclose(active.ravel(), [0.0])
    for x0 in (problem.x0, (0.0, 0.0)):
        program = NonlinearSemiInfiniteProgram(problem.f, NonlinearConstraint(
            c.g, Box(c.lower, c.upper)), x0)
        result = program.solve(tol=1e-9)
        assert result.status == "converged_local"
        assert abs(result.objective - f_ref) <= 1e-10 * f_ref
        np.testing.assert_allclose(result.x, x_ref, atol=1e-7)
    assert abs(f_ref - problem.optimum) <= 1e-10 * f_ref


def test_fseminf_example_optimum_is_zero_not_the_printed_local_value():
    """MATLAB's fseminf example prints f = 0.0771 at x = (0.6675, 0.3012, 0.4022): a
    feasible point (its K's are below 0 on a fine grid), but not the optimum. f ≥ 0, and the
    unconstrained minimizer (½, ½, ½) is feasible — proved here: on a grid of spacing h the
    largest K_i is −0.2163, and |∂K_i/∂w| ≤ L = Σ|x_i| + 0.1, so K_i ≤ max + L·h/2 < 0 on
    [1, 100]. From the documentation's start the run reaches 0 at (½, ½, ½); with the
    Lipschitz constants, whose proof makes it ``stationary_point`` (a local master: never
    ``certified_optimal``)."""
    problem = NONLINEAR_PROBLEMS["fseminf"]
    w = np.linspace(1.0, 100.0, 99001)[:, None]
    h = w[1, 0] - w[0, 0]
    centre, printed = np.full(3, 0.5), np.array([0.6675, 0.3012, 0.4022])
    for c in problem.constraints:
        assert c.g(centre, w).max() + c.lipschitz(centre) * h / 2 < -0.2
        assert c.g(printed, w).max() < 0
    assert abs(problem.f(printed) - 0.0771) < 1e-4
    result = problem.build(derivatives=False).solve(tol=1e-9)
    assert result.status == "converged_local"
    assert result.objective <= 1e-14 and result.max_violation < 0
    np.testing.assert_allclose(result.x, centre, atol=1e-7)
    proved = problem.build().solve(lipschitz=problem.lipschitz())
    assert proved.status == "stationary_point" and proved.violation_proved
    assert proved.upper_bound <= 0 and proved.objective <= 1e-14


def test_a_convex_program_gives_the_cvxpy_value():
    """Two convex programs of sipkl.sip.library.convex, each solved by the cvxpy path
    (SemiInfiniteProgram: conic master, local reduction) and by the NLP path (the same g in
    NumPy): the two values agree to 10⁻⁶ relative, and each its closed form."""
    for name, f in (("tanaka_tan3", lambda x: x @ (1.0 / np.arange(1, 4))),
                    ("disc_projection", lambda x: np.sum((x - [2.0, 1.0]) ** 2))):
        problem = get_problem(name)
        (c,) = problem.constraints
        convex = problem.solve("dense")
        program = NonlinearSemiInfiniteProgram(f, NonlinearConstraint(
            c.g, Box(c.lower, c.upper), grad_t=c.grad_t), np.zeros(problem.n))
        local = program.solve(initial_points=problem.initial_points(), tol=1e-9)
        assert convex.success and local.status == "converged_local"
        assert abs(local.objective - convex.objective) <= 1e-6 * abs(convex.objective), name
        assert abs(local.objective - problem.optimum) <= 1e-6 * abs(problem.optimum), name
        # x is known to the square root of the objective's accuracy (quadratic growth)
        np.testing.assert_allclose(local.x, convex.x["x"], atol=1e-3)


def _local_maxima(v, tol):
    """Indices of the local maxima of v along a 1-D grid with v ≥ −tol (a run of equal values
    counted once)."""
    left, right = np.r_[-np.inf, v[:-1]], np.r_[v[1:], -np.inf]
    return np.flatnonzero((v > left) & (v >= right) & (v >= -tol))


def chebyshev_reference(problem, x0, bound=None):
    """SciPy alone for a Chebyshev problem on an interval, min u s.t. ±φ(x, t) − u ≤ 0
    (x = (u, …), f = u, two constraints):

    1. SLSQP on 2001 points, from x0;
    2. four times SLSQP from the last x on the distinct local maxima (≥ −u/2) of each
       constraint on 200001 points, each refined by a bounded scalar search;
    3. Newton's method on g(x, t_i) = 0 at the maxima with a positive KKT multiplier (NNLS),
       each t_i refined anew at each step (Remez's last stage, quadratic; variables at the
       bound held): SLSQP meets the constraints to 3·10⁻⁹ only (it ends on "positive
       directional derivative" there: its line search meets the rounding), Newton to it.

    Checked: KKT (NNLS) to 10⁻⁶. Returns x, f and the largest g on the 200001 points
    (measured: at most 8·10⁻¹⁶ from every start of ``OET_STARTS`` moved by 10⁻⁹ in 10 ways,
    where SLSQP's last answer violated by up to 3·10⁻⁹)."""
    cs = problem.constraints
    lower, upper = cs[0].lower[0], cs[0].upper[0]
    fine = np.linspace(lower, upper, 200001)[:, None]
    h = fine[1, 0] - fine[0, 0]

    def solve(points, start, ftol):
        return minimize(problem.f, start, jac=problem.grad_f, method="SLSQP",
                        bounds=None if bound is None else [(-bound, bound)] * len(start),
                        options={"ftol": ftol, "maxiter": 3000},
                        constraints=[{"type": "ineq", "fun": lambda x, c=c, q=q: -c.g(x, q),
                                      "jac": lambda x, c=c, q=q: -c.jac_g(x, q)}
                                     for c, q in zip(cs, points) if len(q)])

    def peak(c, x, t, width):  # the largest g near t: a bounded scalar search, or an end
        a, b = max(t - width, lower), min(t + width, upper)
        inside = minimize_scalar(lambda s: -c.g(x, np.array([[s]]))[0], method="bounded",
                                 bounds=(a, b), options={"xatol": 1e-14}).x
        candidates = np.array([[inside], [a], [b]])
        return candidates[np.argmax(c.g(x, candidates))]

    def maxima(c, x):  # the local maxima on ``fine`` at least −u/2, refined, 10 steps apart
        values = c.g(x, fine)
        peaks = fine[_local_maxima(values, x[0] / 2), 0]
        found = np.vstack([peak(c, x, t, 2 * h) for t in peaks] + [[lower], [upper]])
        distinct = []
        for i in np.argsort(-c.g(x, found), kind="stable"):
            if all(abs(found[i, 0] - found[k, 0]) > 10 * h for k in distinct):
                distinct.append(i)
        found = found[sorted(distinct)]
        return found[c.g(x, found) >= -x[0] / 2]

    with np.errstate(over="ignore", invalid="ignore"):  # SLSQP steps back from overflows
        x = solve([np.linspace(lower, upper, 2001)[:, None]] * 2, np.asarray(x0, float),
                  1e-12).x
        for _ in range(4):
            x = solve([maxima(c, x) for c in cs], x, 1e-15).x
    active = [maxima(c, x) for c in cs]
    jac = np.vstack([c.jac_g(x, q) for c, q in zip(cs, active)])
    weights, _ = nnls(jac.T, -problem.grad_f(x))
    held = np.zeros(len(x), bool) if bound is None else np.abs(x) >= bound * (1 - 1e-6)
    split = np.cumsum([len(q) for q in active])[:-1]
    active = [q[w > 1e-9 * weights.max()] for q, w in zip(active, np.split(weights, split))]
    for _ in range(20):
        active = [np.array([peak(c, x, t, 1e-3) for t in q[:, 0]]).reshape(-1, 1)
                  for c, q in zip(cs, active)]
        residual = np.concatenate([c.g(x, q) for c, q in zip(cs, active)])
        jac = np.vstack([c.jac_g(x, q) for c, q in zip(cs, active)])
        step = np.zeros(len(x))
        step[~held] = np.linalg.lstsq(jac[:, ~held], -residual, rcond=None)[0]
        x = x + step
        if np.abs(step).max() <= 1e-15 * np.abs(x).max():
            break
    violation = max(c.g(x, fine).max() for c in cs)
    if not held.any():
        jac = np.vstack([c.jac_g(x, q) for c, q in zip(cs, active)])
        _, residual = nnls(jac.T, -problem.grad_f(x))
        assert residual <= 1e-6
    return x, float(problem.f(x)), violation


OET_STARTS = {"oet2": [(0.0, 0.0, 0.0), (-1.27, -0.62, 0.04), (-0.73, -0.54, -0.32)],
              "oet4": [(0.0,) * 4, (0.91, 0.45, -0.54, 0.58), (-2.71, -1.89, -0.17, -0.42)],
              "oet6": [(0.35, 0.82, 0.33, -1.3, 0.91), (0.45, -0.54, 0.58, 0.36, 0.29)],
              "oet7": [(0.0, 0.75, 0.004, 0.24, -0.45, -7.5, -2.6)]}


@pytest.mark.parametrize("name", list(OET_STARTS))
def test_oettershagen_references_by_scipy(name):
    """CUTEst OET2, OET4, OET6, OET7 as continuous Chebyshev programs: SciPy on 2001 points
    refined at the local maxima on 200001 points and polished by Newton's method, KKT-checked,
    from the starts listed: the module's reference to 10⁻⁸ (relative; OET4's is given to 8
    digits, 9·10⁻¹⁰ from SciPy's from all three starts). OET6 and OET7 from the SIF start 0
    (symmetric in their exponential terms) end at OET2's value, a KKT point: larger than the
    reference.

    OET7 starts at its minimizer to two digits: SLSQP's path on 2001 points from afar is
    chaotic. From (0.36, −0.65, −0.13, 0.78, 1.49, −1.26, 1.51), moved by 10⁻⁹ in 20 ways
    (another machine's rounding), 3 of its 600-step paths converged, the others stalled at up
    to 4.6 times the reference or diverged (exp overflowing); even from the minimizer to one
    digit, 2 of 20 diverged ("singular matrix E"); from this start all of 40 converge, in 14
    steps. OET2, OET4 and OET6 from each start listed, moved likewise in 10 ways, end within
    10⁻¹³ of one value, violating by 10⁻¹⁵ at most."""
    problem = NONLINEAR_PROBLEMS[name]
    runs = [chebyshev_reference(problem, x0) for x0 in OET_STARTS[name]]
    assert all(violation <= 1e-9 for _, _, violation in runs)
    assert abs(min(f for _, f, _ in runs) - problem.optimum) <= 1e-8 * problem.optimum
    if name in ("oet6", "oet7"):
        _, symmetric, violation = chebyshev_reference(problem, problem.x0)
        assert violation <= 1e-7
        assert abs(symmetric - NONLINEAR_PROBLEMS["oet2"].optimum) <= 1e-6 * symmetric


@pytest.mark.slow  # SciPy's references: ``make test-threads`` and ``make test-slow`` run it
def test_oet5_has_no_minimizer_in_reach_and_its_conjectured_infimum():
    """OET5: with |x| ≤ 10 SciPy's value is 0.0036235 at the bound x4 = −10 (so not a
    minimizer of the program); E₂ = 0.0035025, the least uniform error of √t by quadratics on
    [¼, 1], is the conjectured infimum (x3 → ∞, x4 → −∞), below that value."""
    from scipy.optimize import linprog
    problem = NONLINEAR_PROBLEMS["oet5"]
    x, value, violation = chebyshev_reference(problem, problem.x0, bound=10.0)
    assert violation <= 1e-9
    assert abs(value - 0.0036235227) <= 1e-8 and x[4] == pytest.approx(-10.0)
    w = np.linspace(0.25, 1.0, 4001)
    a = np.column_stack([np.ones_like(w), w, w ** 2, -np.ones_like(w)])
    lp = linprog([0, 0, 0, 1.0], A_ub=np.vstack([-a * [1, 1, 1, -1], a]),
                 b_ub=np.r_[-np.sqrt(w), np.sqrt(w)], bounds=[(None, None)] * 4)
    assert abs(lp.fun - problem.optimum) <= 1e-9 and problem.optimum < value


@pytest.fixture(scope="module")
def default_runs():
    """The default runs of ``tests/sip/nonlinear_runs.py``, ``{"name derivatives": result}``."""
    return nonlinear_runs.default_runs()


def _violation(problem, result):
    """The largest g_j(x, t)/s_j of ``result``'s x on 200001 points of each interval."""
    x = np.asarray(result.x, float)
    return max(c.g(x, Box(c.lower, c.upper).tensor_grid(200001)).max() / s
               for c, s in zip(problem.constraints, result.scales))


@pytest.mark.parametrize("name", ["oet2", "oet4", "oet6", "oet7"])
def test_oettershagen_default_run_reaches_the_reference(name, default_runs):
    """``problem.build().solve()`` with default settings from the SIF start: the reference
    to 10⁻⁸ (relative), violation ≤ 10⁻⁸ of the scale on 200001 points. OET6 and OET7 from
    their symmetric start 0 pass OET2's KKT point 0.0871596 (a saddle, left along a direction
    of negative curvature: the message says so for OET7); OET4's tolerance is relative to
    u* ≈ 4.3·10⁻³, not to g's terms (about 6.5)."""
    problem, result = NONLINEAR_PROBLEMS[name], default_runs[f"{name} True"]
    violation = _violation(problem, result)
    assert result.status == "converged_local"
    assert abs(result.objective - problem.optimum) <= 1e-8 * problem.optimum
    assert violation <= 1e-8
    assert result.reduction is not None
    if name == "oet7":
        assert "restarted from a saddle point at f = 0.08715964" in result.message


@pytest.fixture(scope="module")
def default_answers(default_runs):
    return {key: float(result.objective) for key, result in default_runs.items()}


def test_each_default_run_reaches_the_reference(default_answers):
    """``problem.build(derivatives).solve()`` of every program with a minimizer
    (``tests/sip/nonlinear_runs.py``: OET6 and OET7 also without derivatives, as a user writes
    them): the reference value to 10⁻⁸ (relative; the fseminf example's 0 exactly)."""
    problems = {**NONLINEAR_PROBLEMS, **NONLINEAR_PROBLEMS_2D}
    for key, value in default_answers.items():
        optimum = problems[key.split()[0]].optimum
        assert abs(value - optimum) <= 1e-8 * abs(optimum), (key, value, optimum)


@pytest.mark.slow  # 50 s: ``make test-threads`` runs it with one and two BLAS threads
def test_the_default_runs_do_not_hang_on_round_off(default_answers):
    """The same default runs from their starts moved by 10⁻¹² of the variables' sizes
    (max(|x0_k|, 1)), and in another process with the other BLAS thread count (1 or 2):
    the same optima to 10⁻⁸. Round-off decides where a run from a symmetric start leaves
    the symmetric subspace (OET6, OET7); the saddle's rules (:mod:`sipkl.sip.phases.saddle`) must
    not let it decide the answer."""
    threads = "2" if os.environ.get("OPENBLAS_NUM_THREADS") == "1" else "1"
    other = subprocess.Popen([sys.executable, nonlinear_runs.__file__], text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env={**os.environ, "OPENBLAS_NUM_THREADS": threads})
    perturbed = nonlinear_runs.default_answers(1e-12)  # while the other process runs
    out, err = other.communicate()
    assert other.returncode == 0, err
    for answers in (perturbed, json.loads(out)):
        for key, value in default_answers.items():
            assert answers[key] == pytest.approx(value, rel=1e-8, abs=1e-300), key


def test_oet5_default_run_ends_feasible_near_its_infimum():
    """OET5 has no minimizer (its infimum E₂, conjectured above, is approached as x₃ → ∞,
    x₄ → −∞): the default run ends at a point feasible on 200001 points (so its value lies
    above the infimum) within 10⁻⁵ of E₂, with x₄ far out. On the way a master is solved
    inaccurately (IPOPT: the search direction becomes too small, x running off), with a
    warning."""
    with pytest.warns(RuntimeWarning, match="master solution inaccurate"):
        problem = NONLINEAR_PROBLEMS["oet5"]
        result = problem.build().solve()
        violation = _violation(problem, result)
    assert result.status == "converged_local" and violation <= 0.0
    assert 0 < result.objective - problem.optimum <= 1e-5 * problem.optimum
    assert result.x[4] < -10.0


def test_hettich_zencke_closed_form_by_brute_force_and_the_default_run(default_runs):
    """HET-Z: max_t |φ(x, t)| on 4001 points of t for 4001 values of x in [−2, 2] is least,
    1, at x = 0 (the closed form); the default run from the SIF start reaches it to 10⁻⁸
    with the one active point t = 0 (multiplier 1: ∂f/∂u = 1)."""
    problem = NONLINEAR_PROBLEMS["hetz"]
    up, lo = problem.constraints
    t = np.linspace(-1.0, 1.0, 4001)[:, None]
    xs = np.linspace(-2.0, 2.0, 4001)
    worst = np.array([max(up.g(np.array([0.0, x]), t).max(), lo.g(np.array([0.0, x]), t).max())
                      for x in xs])
    assert worst.min() == pytest.approx(1.0, abs=1e-12) and xs[worst.argmin()] == 0.0
    result = default_runs["hetz True"]
    violation = _violation(problem, result)
    assert result.status == "converged_local" and violation <= 1e-8
    assert abs(result.objective - 1.0) <= 1e-8 and abs(result.x[1]) <= 1e-4
    (active,) = [p[m > 0] for p, m in zip(result.points, result.multipliers) if np.any(m > 0)]
    np.testing.assert_allclose(active.ravel(), [0.0], atol=1e-4)
    assert sum(m.sum() for m in result.multipliers) == pytest.approx(1.0, rel=1e-6)


def test_a_saddle_is_found_and_left_only_with_second_order():
    """From OET7's symmetric start 0 the first-order run stops at OET2's value 0.0871596 (a
    KKT point: a₁ = a₂ = a₃, b₁ = b₂ = b₃), where the Lagrangian has negative curvature on
    the active constraints' tangent space: found there, not at Watson 2's minimizer (its
    closed form), and ``second_order`` (the default) leaves the saddle. The permutations of
    the three terms map the point to itself, so the curvature's eigenspace is the
    two-dimensional one of directions whose a's and b's each sum to 0 (the symmetric group's
    standard representation): two directions, each with Σ d_a = Σ d_b = 0 and u pinned."""
    problem = NONLINEAR_PROBLEMS["oet7"]
    program = problem.build()
    stuck = program.solve(second_order=False)
    assert abs(stuck.objective - NONLINEAR_PROBLEMS["oet2"].optimum) <= 1e-8
    saddle = negative_curvature(program.master, stuck.x, stuck.points, stuck.multipliers,
                                stuck.scales, stuck.finite_multipliers)
    assert saddle is not None and saddle.directions.shape == (2, 7)
    d = saddle.directions / np.abs(saddle.directions).max(axis=1, keepdims=True)
    np.testing.assert_allclose(d[:, 0], 0.0, atol=1e-6)  # u is pinned by the rows
    np.testing.assert_allclose(d[:, 1:4].sum(axis=1), 0.0, atol=1e-6)
    np.testing.assert_allclose(d[:, 4:].sum(axis=1), 0.0, atol=1e-6)
    watson = NONLINEAR_PROBLEMS["watson2"].build()
    found = watson.solve(second_order=False)
    assert negative_curvature(watson.master, found.x, found.points, found.multipliers,
                              found.scales, found.finite_multipliers) is None
    assert program.solve().objective < 1e-3 * stuck.objective


def test_the_directions_depend_on_the_eigenspace_not_on_its_basis():
    """:func:`~sipkl.sip.phases.saddle.canonical_directions` of span{(1, −1, 0), (1, 1, −2)} from
    any orthonormal basis of it (rotated, reflected, signs flipped): the axes' projections
    tie (each of length √(2/3)), so the first is P e₁/‖P e₁‖ = (2, −1, −1)/√6, the second
    the rest of the plane, (0, 1, −1)/√2 up to its positive second entry."""
    plane = np.linalg.qr(np.array([[1.0, 1.0], [-1.0, 1.0], [0.0, -2.0]]))[0]
    expected = np.array([[2.0, -1.0, -1.0] / np.sqrt(6), [0.0, 1.0, -1.0] / np.sqrt(2)])
    for angle in (0.0, 0.3, 2.0):
        for flip in (1.0, -1.0):
            turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
            basis = plane @ turn @ np.diag([flip, 1.0])
            np.testing.assert_allclose(canonical_directions(basis), expected, atol=1e-12)


def test_fseminf_two_dimensional_printed_point_is_not_a_kkt_point(default_runs):
    """MATLAB's 2-D fseminf example prints x = (0.2523, 0.1715, 0.1938), f = 0.0036: K ≤
    1.5 − 0.039 there on the 0.05 grid, and the Lipschitz bound keeps it strictly below 1.5
    on [1, 100]² — inactive, while ∇f ≠ 0: not a KKT point. The default run goes lower."""
    problem = NONLINEAR_PROBLEMS_2D["fseminf2d"]
    (c,) = problem.constraints
    axis = np.arange(1.0, 100.0001, 0.05)
    w = np.stack(np.meshgrid(axis, axis, indexing="ij"), -1).reshape(-1, 2)
    printed = np.array([0.2523, 0.1715, 0.1938])
    top = c.g(printed, w).max()
    assert top + c.lipschitz(printed) * 0.05 * np.sqrt(2) / 2 < 0 and top < -0.039
    assert abs(problem.f(printed) - 0.0036) < 5e-5
    assert np.linalg.norm(problem.grad_f(printed)) > 0.1
    result = default_runs["fseminf2d True"]
    assert result.status == "converged_local" and result.objective < 2e-4


# -- 2. finite constraints, bounds, multipliers -------------------------------------------
X2 = (1 - 5.25 ** 0.5) / 2  # x₁ = −½ makes t = 1 the active point: x₂² − x₂ = 1 + 1/16
WATSON2_HALF = 1 / 12 + X2 ** 2 - 1 / 4
LAMBDA = -2 * X2 / (1 - 2 * X2)  # ∂/∂x₂: 2x₂ + λ(1 − 2x₂) = 0
MU = 1 / 6 + LAMBDA / 2  # ∂/∂x₁: 2x₁/3 + ½ + λ ∂g/∂x₁(t = 1) − μ = 0, ∂g/∂x₁ = ½


@pytest.mark.parametrize("option", ["bounds", "inequality", "equality"])
def test_watson2_with_x1_held_at_one_half(option):
    """Watson 2 with x₁ ≥ −½ (a bound, or a finite constraint −½ − x₁ ≤ 0) or x₁ = −½: the
    closed form x = (−½, (1 − √(21/4))/2), active point t = 1, and the finite constraint's
    multiplier μ = 1/6 + λ/2 (−μ for x₁ + ½ = 0: L = f + Σ μ c)."""
    problem = NONLINEAR_PROBLEMS["watson2"]
    (c,) = problem.constraints
    options = {"bounds": {"bounds": [(-0.5, None), (None, None)]},
               "inequality": {"constraints": FiniteConstraint(lambda x: -0.5 - x[0])},
               "equality": {"constraints": FiniteConstraint(lambda x: x[0] + 0.5,
                                                       equality=True)}}[option]
    program = NonlinearSemiInfiniteProgram(problem.f, NonlinearConstraint(
        c.g, Box(c.lower, c.upper)), [-0.4, -1.0], **options)
    result = program.solve(tol=1e-9)
    assert result.status == "converged_local"
    assert abs(result.objective - WATSON2_HALF) <= 1e-8 * WATSON2_HALF
    np.testing.assert_allclose(result.x, [-0.5, X2], atol=1e-8)
    np.testing.assert_allclose(result.points[0].ravel(), [1.0])
    np.testing.assert_allclose(result.multipliers[0], [LAMBDA], rtol=1e-6)
    expected = {"bounds": [], "inequality": [[MU]], "equality": [[-MU]]}[option]
    assert len(result.finite_multipliers) == len(expected)
    for found, value in zip(result.finite_multipliers, expected):
        np.testing.assert_allclose(found, value, rtol=1e-6)


# -- 3. the same run in any units ----------------------------------------------------------
def test_the_run_is_the_same_in_other_units():
    """TFI1 with t in milliseconds (T = [0, 1000]), f × 10³ and g × 10⁻³ (and the reverse):
    the same rounds, points, x; the objective and multipliers in the new units."""
    problem = NONLINEAR_PROBLEMS["tfi1"]
    (c,) = problem.constraints

    def solve(f_scale, g_scale, t_scale):
        program = NonlinearSemiInfiniteProgram(
            lambda x: f_scale * (x @ x),
            NonlinearConstraint(lambda x, t: g_scale * c.g(x, t / t_scale),
                                Box([0.0], [t_scale])), problem.x0)
        return program.solve(tol=1e-9)

    base = solve(1.0, 1.0, 1.0)
    for f_scale, g_scale, t_scale in ((1e3, 1e-3, 1e3), (1e-4, 1e5, 1e-3)):
        other = solve(f_scale, g_scale, t_scale)
        assert (other.status, other.nit) == (base.status, base.nit)
        assert other.history["n_columns"] == base.history["n_columns"]
        np.testing.assert_allclose(other.x, base.x, rtol=1e-9, atol=1e-12)
        assert abs(other.objective / f_scale - base.objective) <= 1e-12 * base.objective
        np.testing.assert_allclose(other.points[0] / t_scale, base.points[0], rtol=1e-12)
        np.testing.assert_allclose(other.multipliers[0] * g_scale / f_scale,
                                   base.multipliers[0], rtol=1e-8)
        np.testing.assert_allclose(np.array(other.scales) / g_scale, base.scales, rtol=1e-12)


# -- 4. statuses, fallbacks, failures ------------------------------------------------------
def test_the_master_says_it_is_not_convex():
    """Its solutions declare ``convex = False``: a proven pricing bound makes the run
    ``stationary_point``, never ``certified_optimal``; ``lower_bound`` is None (a local
    master's value bounds nothing)."""
    problem = NONLINEAR_PROBLEMS["watson2"]
    program = problem.build()
    solution = program.master.solve(program._initial_columns(None))
    assert solution.convex is False and solution.threshold == 0 and solution.cut_scale == 1
    result = program.solve(lipschitz=problem.lipschitz())
    assert result.status == "stationary_point" and result.lower_bound is None
    assert "local" in result.message


def test_scipy_serves_where_cyipopt_cannot_load(without_ipopt):
    """Without cyipopt every master solve records the failed try and SLSQP answers: the
    same solution of TFI1."""
    problem = NONLINEAR_PROBLEMS["tfi1"]
    result = problem.build().solve(tol=1e-9)
    assert result.status == "converged_local"
    assert abs(result.objective - 5.3346872789) <= 1e-9 * 5.34
    assert len(result.attempts) == result.nit + result.reduction["nit"]  # and the reduction's
    assert all(a.solver == "ipopt" and f"cyipopt unavailable ({without_ipopt})" in a.message
               for _, a in result.attempts)


def test_trust_constr_may_be_named():
    problem = NONLINEAR_PROBLEMS["watson2"]
    result = problem.build().solve(methods=("trust-constr",))
    assert result.status == "converged_local"
    assert abs(result.objective - problem.optimum) <= 1e-6 * problem.optimum


def test_a_local_failure_is_a_status_with_the_solvers_messages():
    """A finite constraint that no x satisfies: IPOPT stops at a point of local
    infeasibility, SLSQP fails too: ``master_failed`` (not ``infeasible``: a local method
    proves nothing), the messages in the result, each try an attempt."""
    problem = NONLINEAR_PROBLEMS["watson2"]
    (c,) = problem.constraints
    program = NonlinearSemiInfiniteProgram(problem.f, NonlinearConstraint(
        c.g, Box(c.lower, c.upper)), problem.x0, constraints=lambda x: x[0] ** 2 + 1.0)
    result = program.solve()
    assert result.status == RunStatus.MASTER_FAILED and not result.success
    assert [a.solver for _, a in result.attempts] == ["ipopt", "slsqp"]
    assert "local infeasibility" in result.attempts[0][1].message
    assert "IPOPT status 2" in result.message and "no proof" in result.message


def test_a_later_master_failure_keeps_the_last_solution(monkeypatch):
    """The first master solves, the second's IPOPT ends in a failed restoration phase: the
    run ends ``master_failed`` with the first solution and IPOPT's message; a back-end
    stopped by its iteration limit is usable but no certificate: ``master_inaccurate``."""
    Problem, calls = ipopt.Problem, []
    FailedRestoration = ending(-2, b"Restoration_Failed", 0.0)  # a failed restoration phase

    def failing_second(**arguments):
        calls.append(1)
        return (FailedRestoration if len(calls) == 2 else Problem)(**arguments)

    monkeypatch.setattr(ipopt, "Problem", failing_second)
    problem = NONLINEAR_PROBLEMS["tfi1"]
    result = problem.build().solve(methods=("ipopt",))
    assert result.status == "master_failed" and len(calls) == 2 and result.nit == 2
    assert "Restoration_Failed (IPOPT status -2)" in result.message
    assert result.x is not None  # the first solution, and the back-end's try, then the
    assert [a.solver for _, a in result.attempts][-2:] == ["ipopt", "NonlinearMaster"]  # run's
    monkeypatch.setattr(ipopt, "Problem", Problem)
    program = problem.build()
    program.master.max_iter = 2
    limited = program.solve()
    assert limited.status == "master_inaccurate" and not limited.success
    assert {a.status.value for _, a in limited.attempts} == {"iteration_limit"}


# -- 5. the run's options -----------------------------------------------------------------
def test_the_callback_sees_each_round_and_may_stop_it():
    seen = []

    def stop_after_one(intermediate):
        seen.append(intermediate)
        raise StopIteration

    result = NONLINEAR_PROBLEMS["tfi1"].build().solve(callback=stop_after_one)
    assert result.status == "callback" and len(seen) == 1
    assert seen[0].status == "running" and seen[0].x.shape == (3,)


def test_each_solve_starts_from_the_last_x_and_a_resumed_run_is_the_same(tmp_path):
    """The master starts each solve from the previous one's x (its state, which a checkpoint
    keeps): a run stopped after two rounds and resumed is the uninterrupted run."""
    problem = get_problem("tanaka_tan3")
    (c,) = problem.constraints

    def solve(**options):
        program = NonlinearSemiInfiniteProgram(
            lambda x: x @ (1.0 / np.arange(1, 4)),
            NonlinearConstraint(c.g, Box(c.lower, c.upper)), np.zeros(3))
        result = program.solve("ipopt", random_state=0, tol=1e-8,
                               initial_points=problem.initial_points(), **options)
        np.testing.assert_array_equal(program.master.get_state()["x"], result.x)
        return result

    def stop_after_two(intermediate):
        if intermediate.nit == 2:
            raise StopIteration

    full = solve()
    assert full.nit > 3
    path = tmp_path / "nlp.json"
    assert solve(checkpoint=path, callback=stop_after_two).nit == 2
    resumed = solve(resume=path)
    assert (resumed.status, resumed.nit, resumed.objective) == (full.status, full.nit,
                                                                full.objective)
    np.testing.assert_array_equal(resumed.x, full.x)
    data = json.loads(path.read_text())
    data["states"]["master"]["x"] = [0.0, 0.0]  # x has 3 entries
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=f"checkpoint {re.escape(str(path))}: the master's "
                                         "state is damaged"):
        solve(resume=path)


def test_a_fixed_grid_baseline():
    """``solve_discretized``: the master once over 101 points (TFI1's grid holds its active
    point: the same value)."""
    result = NONLINEAR_PROBLEMS["tfi1"].build().solve_discretized(101)
    assert result.status == "fixed_columns"
    assert abs(result.objective - 5.3346872789) <= 1e-8


# -- 6. derivatives: the measured choice -----------------------------------------------------
def test_complex_step_is_exact_where_central_differences_are_not():
    """The measurement behind the default: on the constraints of TFI1 and Watson 6 and the
    objective of Watson 6 at their solutions, the complex step matches the closed forms to
    10⁻¹⁴ relative, central differences to 10⁻⁸ at best (round-off and truncation)."""
    cases = [(NONLINEAR_PROBLEMS["tfi1"], "g"), (NONLINEAR_PROBLEMS["watson6"], "g"),
             (NONLINEAR_PROBLEMS["watson6"], "f"), (NONLINEAR_PROBLEMS["fseminf"], "g")]
    t = np.linspace(*(1.0, 100.0), 1025)[:, None]
    for problem, which in cases:
        program = problem.build()
        x = program.solve().x if problem.name != "fseminf" else np.array([0.6675, 0.3012, 0.4022])
        c = problem.constraints[0]
        points = t if problem.name == "fseminf" else t / 100.0
        if which == "g":
            fun, exact = (lambda z, c=c, points=points: c.g(z, points)), c.jac_g(x, points)
        else:
            fun, exact = problem.f, problem.grad_f(x)
        typical = np.abs(x)
        size = np.abs(exact).max()
        complex_error = np.abs(complex_step(fun, x, typical) - exact).max() / size
        central_error = np.abs(central_differences(fun, x, typical) - exact).max() / size
        assert complex_error <= 1e-14, (problem.name, which, complex_error)
        assert 1e-13 < central_error <= 1e-7, (problem.name, which, central_error)
        assert measured_differences(fun, x, typical) == "complex-step"


def test_code_that_is_not_analytic_gets_central_differences():
    """abs or a float cast break the complex step (a real result, or an error): the check at
    the start picks central differences, and the run is right."""
    x = np.array([0.3, -0.7])
    typical = np.ones(2)
    assert measured_differences(lambda z: np.abs(z[0]) + z[1] ** 2, x, typical) == "central"
    assert measured_differences(lambda z: float(z[0] * z[1]), x, typical) == "central"
    assert measured_differences(lambda z: np.sin(z).sum(), x, typical) == "complex-step"
    problem = NONLINEAR_PROBLEMS["watson2"]
    (c,) = problem.constraints
    program = NonlinearSemiInfiniteProgram(
        lambda x: float(x[0] ** 2 / 3 + abs(x[1]) ** 2 + x[0] / 2),
        NonlinearConstraint(c.g, Box(c.lower, c.upper)), problem.x0)
    result = program.solve()
    assert result.differences == {"f": "central", "g0": "complex-step"}
    assert abs(result.objective - problem.optimum) <= 1e-8 * problem.optimum


# -- 7. bad input --------------------------------------------------------------------------
G = NonlinearConstraint(lambda x, t: x[0] * t[:, 0] - x[1], Box([-1.0], [1.0]), name="good")


def build(**changes):
    arguments = {"f": lambda x: x @ x, "semi_infinite": G, "x0": [1.0, 2.0], **changes}
    return NonlinearSemiInfiniteProgram(**arguments)


@pytest.mark.parametrize("changes, error, words", [
    ({"x0": [[1.0, 2.0]]}, ValueError, "x0 must be a non-empty 1-D sequence"),
    ({"x0": []}, ValueError, "x0 must be a non-empty 1-D sequence"),
    ({"x0": [1.0, np.nan]}, ValueError, "x0 must be finite"),
    ({"x0": "ab"}, TypeError, "x0 must be a sequence of numbers"),
    ({"x0": [1.0]}, ValueError, "'good': g(x, t) fails both"),  # g reads x[1], shown
    ({"bounds": [(0, 1)]}, ValueError, "bounds must be 2 (lower, upper) pairs"),
    ({"x0": [1.0, 2.0, 0.5], "bounds": Bounds([0, 0], [3, 3])}, ValueError,
     "bounds: a Bounds needs lb and ub of 3 entries"),
    ({"bounds": [(1, 0), (0, 3)]}, ValueError, "bounds are inconsistent"),
    ({"bounds": [(np.nan, 2), (0, 3)]}, ValueError, "bounds are inconsistent"),
    ({"bounds": [(2, 3), (0, 3)]}, ValueError, "x0 must lie within the bounds: x0[0] = 1.0"),
    ({"f": "x @ x"}, TypeError, "f must be a callable"),
    ({"f": lambda x: x}, ValueError, "f must return one finite number"),
    ({"f": lambda x: np.inf}, ValueError, "f must return one finite number"),
    ({"grad_f": lambda x: x[:1]}, ValueError, "grad_f must return 2 finite numbers"),
    ({"grad_f": lambda x: x * np.nan}, ValueError, "grad_f must return 2 finite numbers"),
    ({"semi_infinite": []}, TypeError, "semi_infinite must be a NonlinearConstraint"),
    ({"semi_infinite": [G, G]}, ValueError, "names must be distinct"),
    ({"constraints": [FiniteConstraint(lambda x: x[0], name="c"),
                 FiniteConstraint(lambda x: x[1], name="c")]}, ValueError,
     "names must be distinct"),
    ({"constraints": FiniteConstraint(lambda x: x[0] / 0.0, name="bad")}, ValueError,
     "finite constraint 'bad': fun(x) must return finite numbers"),
    ({"constraints": FiniteConstraint(lambda x: x[0], jac=lambda x: np.ones((2, 2)), name="c")},
     ValueError, "finite constraint 'c': jac must return a (1, 2) array"),
])
def test_bad_input_names_the_argument(changes, error, words):
    with np.errstate(all="ignore"), pytest.raises(error, match=None if not words else
                                                  _escaped(words)):
        build(**changes)


def _escaped(words):
    import re
    return re.escape(words)


def test_the_keywords_of_0_1_still_work_with_a_warning():
    """``constraints=`` for the semi-infinite constraints and ``finite=`` for the finite ones
    (sipkl 0.1) warn, naming the new keywords, and build the program of the new spelling:
    min ‖x‖² s.t. x₁ ≥ x₀t on [−1, 1] and x₀ ≥ 1, solved by hand: x = (1, 1), f = 2."""
    one = FiniteConstraint(lambda x: 1.0 - x[0])
    with pytest.warns(DeprecationWarning) as caught:
        old = build(semi_infinite=None, constraints=G, finite=one)
    messages = " | ".join(str(w.message) for w in caught)
    assert "pass them as semi_infinite=" in messages and "finite constraints as constraints=" \
        in messages
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = build(constraints=one)
        positional = NonlinearSemiInfiniteProgram(lambda x: x @ x, G, [1.0, 2.0],
                                                  constraints=[one])
    results = [program.solve() for program in (old, new, positional)]
    assert results[0].objective == results[1].objective == results[2].objective
    np.testing.assert_allclose(results[0].x, [1.0, 1.0], atol=1e-7)
    np.testing.assert_allclose(results[0].objective, 2.0, rtol=1e-8)
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="both given"):
        build(constraints=one, finite=one)
    with pytest.raises(TypeError, match="x0.*required"):
        NonlinearSemiInfiniteProgram(lambda x: x @ x, G)


def test_a_non_finite_g_or_gradient_names_the_constraint_and_t():
    """At the start (g and its x-gradient at the first index points) or in the run (g where
    the pricing evaluates it, the x-gradient at each new index point)."""
    log = NonlinearConstraint(lambda x, t: x[0] * np.log(t[:, 0]), Box([0.0], [1.0]),
                              name="log")
    with np.errstate(all="ignore"), pytest.raises(
            ValueError, match=r"'log': g\(x, t\) = -inf at t = \[0.0\]"):
        build(semi_infinite=log).solve()
    bad_jac = NonlinearConstraint(lambda x, t: x[0] * t[:, 0] - x[1], Box([0.0], [1.0]),
                                  jac_g=lambda x, t: np.where(t > 0.4, np.nan, 1.0)
                                  * np.ones((len(t), 2)), name="jac")
    with pytest.raises(ValueError, match=r"'jac': jac_g\(x, t\) is not finite at t = \[0.5\]"):
        build(semi_infinite=bad_jac)
    at_zero = NonlinearConstraint(  # t = 0 becomes an index point in the first round
        lambda x, t: x[0] * (1 - t[:, 0]) - x[1], Box([0.0], [1.0]), name="zero",
        jac_g=lambda x, t: np.column_stack([1 - t[:, 0] + np.where(t[:, 0] == 0, np.nan, 0),
                                            -np.ones(len(t))]))
    with pytest.raises(ValueError, match=r"'zero': jac_g\(x, t\) is not finite at t = \[0.0\]"):
        build(f=lambda x: (x[0] - 3) ** 2 + x[1] ** 2, semi_infinite=at_zero).solve()
    shape = NonlinearConstraint(lambda x, t: x[:1], Box([0.0], [1.0]), vectorized=True,
                                name="shape")
    with pytest.raises(ValueError, match="'shape': g.x, t. must return 4 values"):
        build(semi_infinite=shape)
    wrong_jac = NonlinearConstraint(lambda x, t: x[0] * t[:, 0], Box([0.0], [1.0]),
                                    jac_g=lambda x, t: np.ones((len(t), 3)), name="wj")
    with pytest.raises(ValueError, match=r"'wj': jac_g must return an \(4, 2\) array"):
        build(semi_infinite=wrong_jac)


@pytest.mark.parametrize("arguments, error, words", [
    ({"g": 1.0, "T": Box([0.0], [1.0])}, TypeError, "g must be a callable"),
    ({"g": np.sin, "T": (0, 1)}, TypeError, "T must be an index set"),
    ({"g": np.sin, "T": Box([0.0], [1.0]), "jac_g": 3}, TypeError, "jac_g must be a callable"),
    ({"g": np.sin, "T": Box([0.0], [1.0]), "name": 3}, TypeError, "name must be a string"),
])
def test_a_bad_constraint_names_the_argument(arguments, error, words):
    with pytest.raises(error, match=words):
        NonlinearConstraint(**arguments)


def test_bad_solve_options_name_the_option():
    program = NONLINEAR_PROBLEMS["watson2"].build()
    with pytest.raises(ValueError, match="methods must be a non-empty sequence"):
        program.solve(methods=("ipopt", "newton"))
    with pytest.raises(ValueError, match="tol must be a finite number"):
        program.solve(tol=-1.0)
    with pytest.raises(ValueError, match="n_price must be an integer"):
        program.solve(n_price=0)


def test_the_cvxpy_master_refuses_a_numpy_constraint():
    import cvxpy as cp

    from sipkl.sip import SemiInfiniteProgram
    with pytest.raises(TypeError, match="written in NumPy and has no cvxpy expressions"):
        SemiInfiniteProgram(cp.Minimize(cp.Variable()), G)


# -- 8. the NLP back-end on its own (sipkl.solvers.nlp) -------------------------------------
class Closed:
    """min ‖x‖² s.t. 1 − x₁ − x₂ ≤ 0 (inactive at the solution), 2 − x₁ ≤ 0, x₁ − 2x₂ = 0:
    x* = (2, 1), and (4, 2) + λ(−1, 0) + μ(1, −2) = 0 gives λ = 5, μ = 1 (L = f + Σ λ c)."""

    n_equality = 1
    x, multipliers = np.array([2.0, 1.0]), np.array([0.0, 5.0, 1.0])

    def objective(self, x):
        return float(x @ x)

    def gradient(self, x):
        return 2 * x

    def constraints(self, x):
        return np.array([1 - x[0] - x[1], 2 - x[0], x[0] - 2 * x[1]])

    def jacobian(self, x):
        return np.array([[-1.0, -1.0], [-1.0, 0.0], [1.0, -2.0]])


FREE = np.full(2, -np.inf), np.full(2, np.inf)


@pytest.mark.skipif(not ipopt.available, reason="cyipopt cannot load")
def test_the_nlp_back_end_reaches_the_closed_form_with_its_multipliers():
    program = Closed()
    answer, attempts = nlp.minimize_nlp(program, np.array([3.0, 0.0]), *FREE)
    assert [(a.solver, a.status) for a in attempts] == [("ipopt", Status.OPTIMAL)]
    np.testing.assert_allclose(answer.x, program.x, atol=1e-8)
    np.testing.assert_allclose(nlp.active_multipliers(program, answer), program.multipliers,
                               atol=1e-7)
    np.testing.assert_allclose(nlp.kkt_multipliers(program, program.x, 2), program.multipliers,
                               atol=1e-10)
    bounded, _ = nlp.minimize_nlp(program, np.array([3.0, 0.0]), np.array([-np.inf, 1.5]),
                                  np.array([np.inf, np.inf]))  # x₂ ≥ 3/2: x = (3, 3/2)
    np.testing.assert_allclose(bounded.x, [3.0, 1.5], atol=1e-8)


def test_the_nlp_back_end_falls_back_to_scipy_and_says_so(without_ipopt):
    program = Closed()
    answer, attempts = nlp.minimize_nlp(program, np.array([3.0, 0.0]), *FREE)
    assert [(a.solver, a.status) for a in attempts] == [("ipopt", Status.SOLVER_ERROR),
                                                        ("slsqp", Status.OPTIMAL)]
    assert f"cyipopt unavailable ({without_ipopt})" in attempts[0].message
    np.testing.assert_allclose(answer.x, program.x, atol=1e-8)
    np.testing.assert_allclose(nlp.active_multipliers(program, answer)[:2],
                               program.multipliers[:2], atol=1e-7)
    trust = nlp.solve_scipy("trust-constr", program, np.array([3.0, 0.0]), *FREE, 1e-10, 3000)
    np.testing.assert_allclose(trust.x, program.x, atol=1e-4)
    with pytest.raises(ValueError, match="methods must be among"):
        nlp.minimize_nlp(program, np.array([3.0, 0.0]), *FREE, methods=("newton",))


def test_slsqp_equality_multipliers_have_the_lagrangians_sign():
    """SciPy's Lagrangian is f − λᵀc; the module's f + μᵀh: the closed-form +1."""
    program = Closed()
    answer = nlp.solve_scipy("slsqp", program, np.array([3.0, 0.0]), *FREE, 1e-10, 3000)
    np.testing.assert_allclose(answer.multipliers[2], program.multipliers[2], atol=1e-7)


@pytest.mark.slow  # SciPy's reference: ``make test-threads`` and ``make test-slow`` run it
def test_fseminf_two_dimensional_reference_is_a_verified_local_optimum():
    """The 2-D fseminf reference recomputed in SciPy alone from the documented start (0.25,
    0.25, 0.25): SLSQP (ftol 10⁻¹⁶) on the reduced constraints K(x, w_i(x)) ≤ 1.5, w_i(x) the
    local maximum of K(x, ·) (bounded L-BFGS-B, re-run at every x; ∇ₓK there is the gradient,
    by the envelope theorem) near each local maximum of the 0.05 grid of [1, 100]² within
    0.05 of 1.5, until that grid holds no point above 1.5. The value: the reference to 10⁻⁸
    (relative; SLSQP from other starts and a Newton solve of the KKT equations agree to
    10⁻¹⁴). Verified at x*: (a) K − 1.5 ≤ 10⁻⁹ on the 0.02 grid (24.5·10⁶ points, in blocks
    of rows; measured −2.5·10⁻⁶) and at its local maxima above 1.4, refined; one is active
    (≥ −10⁻⁹), the others are below 1.4. Every grid point above 1.5 − L·h/√2 (L the Lipschitz
    bound of K(x*, ·), h = 0.02) lies in a square round the active maximum where K(x*, ·) is
    strictly concave (the w-Hessian's eigenvalues ≤ −0.01 at the 0.02 grid of the square,
    measured ≤ −0.045; the third w-derivatives are < 0.2, so they move < 0.01 between its
    nodes): K ≤ 1.5 on the whole box. (b) KKT there (w* polished by Newton steps): λ > 0 by
    NNLS, residual ≤ 10⁻⁷·‖∇f‖ (measured 10⁻⁸·‖∇f‖, SLSQP's accuracy; ‖∇f‖ = 0.028 is what
    λ∇ₓK must cancel, so this is far from any non-KKT point). (c) second order: the
    Lagrangian's Hessian 2I + λ∇²φ (φ(x) the local maximum of K(x, ·) near w*, ∇²φ by central
    differences of ∇φ) has eigenvalues ≥ 1 (measured 1.18): a strict local minimizer."""
    problem = NONLINEAR_PROBLEMS_2D["fseminf2d"]
    (c,) = problem.constraints

    def scan(x, h, tol):
        """The maximum of K(x, ·) − 1.5 on the h-grid, its 8-neighbour local maxima ≥ −tol
        and all its points ≥ −tol, a block of rows at a time."""
        axis = np.linspace(1.0, 100.0, round(99 / h) + 1)
        n, peaks, near, top = len(axis), [], [], -np.inf
        for start in range(0, n, 250):
            rows = np.arange(max(start - 1, 0), min(start + 251, n))
            w = np.stack(np.meshgrid(axis[rows], axis, indexing="ij"), -1).reshape(-1, 2)
            v = c.g(x, w).reshape(len(rows), n)
            padded = np.pad(v, 1, constant_values=-np.inf)
            peak = v >= -tol
            for i in (-1, 0, 1):
                for j in (-1, 0, 1):
                    peak &= v >= padded[1 + i:len(rows) + 1 + i, 1 + j:n + 1 + j]
            own = np.repeat((rows >= start) & (rows < start + 250), n)
            top = max(top, v.ravel()[own].max())
            peaks.append(w[own & peak.ravel()])
            near.append(w[own & (v.ravel() >= -tol)])
        return top, np.vstack(peaks), np.vstack(near)

    def refine(x, w, half):  # the local maximum of K(x, ·) in a square round w
        box = np.clip(np.stack([w - half, w + half], 1), 1.0, 100.0)
        return minimize(lambda s: -c.g(x, s[None])[0], w, method="L-BFGS-B", bounds=box,
                        jac=lambda s: -c.grad_t(x, s[None])[0],
                        options={"ftol": 1e-16, "gtol": 1e-13, "maxiter": 500}).x

    def hessian_w(x, w, e=1e-5):  # central differences of ∇_w K at the rows of w: (m, 2, 2)
        h = np.stack([(c.grad_t(x, w + e * d) - c.grad_t(x, w - e * d)) / (2 * e)
                      for d in np.eye(2)], 1)
        return (h + h.transpose(0, 2, 1)) / 2

    def solve(x, points):
        maxima = {}

        def at(y):
            if y.tobytes() not in maxima:
                maxima[y.tobytes()] = np.array([refine(y, w, 3.0) for w in points])
            return maxima[y.tobytes()]
        answer = minimize(problem.f, x, jac=problem.grad_f, method="SLSQP",
                          options={"ftol": 1e-16, "maxiter": 500},
                          constraints=[{"type": "ineq", "fun": lambda y: -c.g(y, at(y)),
                                        "jac": lambda y: -c.jac_g(y, at(y))}])
        assert answer.status == 0, answer.message
        return answer.x, at(answer.x)

    x, points = np.array(problem.x0), np.empty((0, 2))
    for _ in range(10):
        top, peaks, _ = scan(x, 0.05, 0.05)
        if top <= 0 and len(points):
            break
        points = np.vstack([points, [refine(x, w, 0.1) for w in peaks]])
        x, points = solve(x, np.unique(np.round(points, 6), axis=0))
    assert top <= 0
    assert abs(problem.f(x) - problem.optimum) <= 1e-8 * problem.optimum
    np.testing.assert_allclose(x, problem.x_optimum, atol=1e-8)
    # (a) the 0.02 grid, its refined local maxima, and concavity round the active one
    h = 0.02
    top, peaks, near = scan(x, h, 0.1)
    maxima = np.array([refine(x, w, 2 * h) for w in peaks])
    k = c.g(x, maxima)
    assert top <= 1e-9 and k.max() <= 1e-9
    active = maxima[k >= -1e-9]
    assert len(active) == 1 and np.all(k[k < -1e-9] < -0.1)
    w = active[0]
    for _ in range(3):  # Newton steps on ∇_w K = 0
        w = w - np.linalg.solve(hessian_w(x, w[None])[0], c.grad_t(x, w[None])[0])
    assert np.all((w > 2) & (w < 99)) and np.linalg.norm(w - active[0]) < 1e-4
    above = near[c.g(x, near) >= -c.lipschitz(x) * h / np.sqrt(2)]
    reach = np.abs(above - w).max() + h
    axis = np.arange(-reach, reach + h / 2, h)
    square = w + np.stack(np.meshgrid(axis, axis, indexing="ij"), -1).reshape(-1, 2)
    assert np.linalg.eigvalsh(hessian_w(x, square)).max() <= -0.01
    # (b) KKT at the active maximum
    (lam,), residual = nnls(c.jac_g(x, w[None]).T, -problem.grad_f(x))
    assert lam > 0 and residual <= 1e-7 * np.linalg.norm(problem.grad_f(x))

    # (c) second order: φ(y) = K(y, w(y)), ∇φ = ∇ₓK(y, w(y)), ∇²φ by central differences
    def grad_phi(y):
        return c.jac_g(y, refine(y, w, 1.0)[None])[0]
    e = 1e-6
    hphi = np.array([(grad_phi(x + e * d) - grad_phi(x - e * d)) / (2 * e) for d in np.eye(3)])
    assert np.linalg.eigvalsh(2 * np.eye(3) + lam * (hphi + hphi.T) / 2).min() >= 1.0


def test_the_reduced_rows_step_back_where_g_overflows_at_a_trial_x():
    """The local reduction's rows climb g(x, ·) at every x the back-end asks for: where g
    overflows on the way (a trial x far out), the rows are NaN — the back-end steps back —
    not an error; at a sound x the row is the maximum, here g(x, 1) = e^x − 2 at the face
    t = 1, with its x-gradient e^x (the envelope theorem's)."""
    from sipkl.sip.masters.nonlinear import ScaledProgram
    program = NonlinearSemiInfiniteProgram(lambda x: x[0] ** 2, NonlinearConstraint(
        lambda x, t: np.exp(x[0] * t[:, 0]) - 2.0, Box([0.0], [1.0])), [0.5])
    rows = ScaledProgram(program.master, [np.zeros((0, 1))], 1.0, np.ones(1), np.ones(0),
                         climbed=[np.array([[0.5]])])
    with np.errstate(over="ignore"):
        assert np.isnan(rows.constraints(np.array([1e4]))).all()
    np.testing.assert_allclose(rows.constraints(np.array([1.0])), [np.e - 2.0], rtol=1e-12)
    np.testing.assert_allclose(rows.jacobian(np.array([1.0])), [[np.e]], rtol=1e-8)
    np.testing.assert_allclose(rows.climbed_at(np.array([1.0]))[0], [[1.0]])


@pytest.mark.parametrize("disk", ["ball", "smooth"])
def test_a_nonlinear_program_over_a_disk_reaches_its_closed_form(disk):
    """max x₁ + x₂ s.t. x₁t₁ + x₂²t₂ ≤ 1 on the unit disk (a Ball, or the same disk as a
    SmoothSet): the constraint is ‖(x₁, x₂²)‖ ≤ 1, so x₁ = 2x₂³ with 4x₂⁶ + x₂⁴ = 1 (a root by
    brentq), to the default tol. No second-order check there (the maxima's motion is known
    in boxes only)."""
    from scipy.optimize import brentq
    from sipkl.sip import Ball, SmoothSet
    T = Ball([0.0, 0.0], 1.0) if disk == "ball" else SmoothSet(
        lambda t: np.sum(t ** 2, axis=1) - 1.0, [-1.5, -1.5], [1.5, 1.5])
    program = NonlinearSemiInfiniteProgram(
        lambda x: -(x[0] + x[1]), NonlinearConstraint(
            lambda x, t: x[0] * t[:, 0] + x[1] ** 2 * t[:, 1] - 1.0, T), [0.1, 0.1],
        bounds=[(-5.0, 5.0), (-5.0, 5.0)])
    result = program.solve()
    s = brentq(lambda s: 4 * s ** 6 + s ** 4 - 1.0, 0.0, 1.0, xtol=1e-15)
    assert result.status == "converged_local"
    assert abs(result.objective + 2 * s ** 3 + s) <= 1e-6


#: the longest of those runs (6–13 s each): ``make test-slow`` and ``make test-threads`` run them
SLOW_THROUGH_NONLINEAR = {"watson9", "ksip", "ksip_exp", "ksip_tan"}


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=[pytest.mark.slow] if name in SLOW_THROUGH_NONLINEAR else [],
                 id=name) for name in PROBLEMS])
def test_the_convex_literature_problems_through_the_nonlinear_path(name):
    """The 23 convex problems of ``sipkl.sip.library.convex`` (written for the cvxpy path, their
    optima closed forms or polished discretizations) as NonlinearSemiInfiniteProgram with
    default settings: f evaluated through the problem's cvxpy objective at a constant
    (derivatives by differences), g and its t-gradient the problem's NumPy ones, from x = 0
    over the problem's first index points: each optimum to 10⁻⁸ (measured: at most
    7.8·10⁻¹⁰). A master on the way may end inaccurate, with a warning (chebyshev_t10's
    first: IPOPT's search direction became too small); the last one is optimal."""
    problem = PROBLEMS[name]

    def f(x):
        return float(problem.objective(cp.Constant(np.real(x))).expr.value)
    sics = [NonlinearConstraint(c.g, Box(c.lower, c.upper), grad_t=c.grad_t, name=c.name)
            for c in problem.constraints]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "master solution inaccurate", RuntimeWarning)
        result = NonlinearSemiInfiniteProgram(f, sics, np.zeros(problem.n)).solve(
            initial_points=problem.initial_points())
    assert result.status == "converged_local"
    assert abs(result.objective - problem.optimum) <= 1e-8 * max(abs(problem.optimum), 1.0)
