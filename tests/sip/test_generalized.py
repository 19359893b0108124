"""Generalized semi-infinite programs (sipkl.sip.generalized): five design-centering problems
of the literature at their published optima with default settings (Stein & Still's four, as
MacMPEC's table gives them, and the Steiner inellipse's closed form), two of them also
against a second formulation solved by another solver — the body written as c + A·(unit
disc or square), its boundary sampled at 4000 points, SciPy's SLSQP — and the run in other
units."""
import numpy as np
import pytest
from scipy.optimize import minimize

from sipkl.sip import Box, GeneralizedSemiInfiniteProgram, LowerLevelConstraint
from sipkl.sip.library.generalized import PROBLEMS, STEIN_STILL

#: local solutions of nonconvex programs (IPOPT's and SLSQP's paths)
pytestmark = pytest.mark.roundoff


@pytest.mark.parametrize("name", list(PROBLEMS))
def test_design_centering_reaches_its_published_optimum(name):
    problem = PROBLEMS[name]
    result = problem.solve()
    assert result.status.value == "converged_local", result.message
    assert result.max_violation <= 1e-6
    if problem.decimals is None:  # a closed form
        assert result.fun == pytest.approx(problem.optimum, rel=1e-8)
    else:
        assert round(result.fun, problem.decimals) == problem.optimum


def boundary_program(body, n_params, x0, size=4000):
    """max vol(x) s.t. g_k(y) ≤ 0 at ``size`` points y(x) of the body's boundary, by SLSQP:
    ``body(x, s)`` maps the parameters s ∈ [0, 1) of the boundary to points (size × 2)."""
    s = np.arange(size) / size

    def rows(x):
        y = body(x, s).T
        return -np.concatenate([g(y) for g in STEIN_STILL])
    return rows


def disc_boundary(x, s):
    theta = 2 * np.pi * s
    return x[:2] + x[2] * np.column_stack([np.cos(theta), np.sin(theta)])


def box_boundary(x, s):  # [x₃, x₁] × [x₄, x₂], its perimeter walked at the parameters s
    corners = np.array([[x[2], x[3]], [x[0], x[3]], [x[0], x[1]], [x[2], x[1]], [x[2], x[3]]])
    side, along = np.divmod(4 * s, 1.0)
    side = side.astype(int)
    return corners[side] + along[:, None] * (corners[side + 1] - corners[side])


@pytest.mark.slow
@pytest.mark.parametrize("name, boundary, volume", [
    ("design_cent_1", disc_boundary, lambda x: np.pi * x[2] ** 2),
    ("design_cent_4", box_boundary, lambda x: (x[0] - x[2]) * (x[1] - x[3]))])
def test_design_centering_against_the_sampled_boundary(name, boundary, volume):
    """Over G each g_k(y) here attains its maximum on the body at the boundary (−y₁ − y₂²
    and the affine ones have no stationary point), so sampling the boundary is the program
    up to the sample's spacing: the optima agree to 10⁻⁵."""
    problem = PROBLEMS[name]
    rows = boundary_program(boundary, len(problem.x0), problem.x0)
    found = minimize(lambda x: -volume(x), np.array(problem.x0), method="SLSQP",
                     constraints=[{"type": "ineq", "fun": rows}],
                     options={"maxiter": 500, "ftol": 1e-12})
    assert found.success, found.message
    assert problem.solve().fun == pytest.approx(found.fun, rel=1e-5)


@pytest.mark.slow
def test_the_same_run_in_other_units():
    """design_cent_1 with y and x in units 10³ times smaller (G and the box scaled): the same
    relaxations, the volume 10⁶ times larger, the same x scaled."""
    problem, k = PROBLEMS["design_cent_1"], 1e3
    G = [lambda y, g=g: g(y / k) for g in STEIN_STILL]
    disc = lambda x, y: np.array([(y[0] - x[0]) ** 2 + (y[1] - x[1]) ** 2 - x[2] ** 2])  # noqa
    box = Box([-3 * k, -3 * k], [3 * k, 3 * k])
    scaled = GeneralizedSemiInfiniteProgram(
        lambda x: -np.pi * x[2] ** 2, [LowerLevelConstraint(lambda x, y, g=g: g(y), disc, box)
                                        for g in G], 3).solve(k * np.array(problem.x0))
    reference = problem.solve()
    assert scaled.nit == reference.nit
    assert scaled.fun == pytest.approx(k**2 * reference.fun, rel=1e-8)
    np.testing.assert_allclose(scaled.x, k * reference.x, rtol=1e-6)


def test_bad_input_is_named():
    box = Box([0.0], [1.0])
    c = LowerLevelConstraint(lambda x, t: t[0] - x[0], lambda x, t: t[0] - 1.0, box)
    with pytest.raises(TypeError, match="v must be a callable"):
        LowerLevelConstraint(lambda x, t: 0.0, 1.0, box)
    with pytest.raises(TypeError, match="box must be a sipkl.sip.Box"):
        LowerLevelConstraint(lambda x, t: 0.0, lambda x, t: 0.0, (0.0, 1.0))
    with pytest.raises(TypeError, match="constraints must be a LowerLevelConstraint"):
        GeneralizedSemiInfiniteProgram(lambda x: x[0], [], 1)
    with pytest.raises(ValueError, match="n must be an integer ≥ 1"):
        GeneralizedSemiInfiniteProgram(lambda x: x[0], c, 0)
    with pytest.raises(ValueError, match="x0 must be 1 finite numbers"):
        GeneralizedSemiInfiniteProgram(lambda x: x[0], c, 1).solve([0.0, 1.0])
