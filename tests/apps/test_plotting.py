"""sipkl.plotting: the recomputed pricing landscape is the one the oracle saw, and every plot
renders to PNG (Agg backend)."""
import io
import sys

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.preprocessing import StandardScaler

from sipkl import Dirichlet, GaussianARD, GaussianIso, GaussianSeparate, IKLClassifier
from sipkl.kernel_learning.families import LearnedKernel
from sipkl.kernel_learning.dc_oracle import DCGaussianOracle
from sipkl.plotting import (gaussian_scales, plot_ard_scales, plot_convergence,
                            plot_kernel_weights, plot_pricing_landscape, pricing_landscape)
from sipkl.core.contracts import Column

matplotlib.use("Agg")

TOL = 1e-4  # IKLClassifier's default relative pricing tolerance


class Recording:
    """An oracle that keeps every round it prices (what the oracle saw)."""

    def __init__(self, oracle):
        self.oracle, self.rounds = oracle, []

    def price(self, pricing_round):
        self.rounds.append(pricing_round)
        return self.oracle.price(pricing_round)


@pytest.fixture(scope="module")
def run():
    X, y = make_moons(40, noise=0.25, random_state=0)
    X = StandardScaler().fit_transform(X)
    oracle, snapshots = Recording(DCGaussianOracle()), []
    clf = IKLClassifier(family=GaussianIso(), C=10.0, oracle=oracle, n_price=1, obj_tol=0.0,
                        tol=TOL, random_state=0, callback=snapshots.append).fit(X, y)
    return X, clf, oracle.rounds, snapshots


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def png_bytes(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=50)
    return buffer.getvalue()


def assert_png(figure):
    data = png_bytes(figure)
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000


def test_landscape_at_certified_optimum(run):
    X, clf, _, _ = run
    result = clf.result_
    assert result.status == "certified_optimal"
    (land,) = pricing_landscape(result, GaussianIso(), X, size=300)
    lam = result.threshold
    # no parameter prices above the cut (the DC oracle proved it), and the columns, all with
    # positive weight, price at λ (complementary slackness of the restricted master)
    assert land.values.max() <= lam * (1 + TOL) + 1e-9
    assert len(land.columns) == len(result.columns) and np.all(result.weights > 0)
    np.testing.assert_allclose(land.column_values, lam, rtol=1e-3)
    # the ends of the landscape: s → 0 gives K → 11ᵀ, price ½(Σ α_i y_i)² = 0 (yᵀα = 0)
    assert abs(land.values[0]) < 1e-2 * lam


def test_landscape_recomputed_equals_oracle_round(run):
    X, _, rounds, snapshots = run
    assert len(rounds) == len(snapshots) >= 3
    grid = np.geomspace(1e-2, 1e2, 25)
    for round_, snapshot in zip(rounds, snapshots):
        (seen,) = pricing_landscape(round_, grid=grid)
        (again,) = pricing_landscape(snapshot, GaussianIso(), X, grid=grid)
        np.testing.assert_allclose(again.values, seen.values, rtol=1e-10, atol=1e-10)
        assert again.threshold == seen.threshold
    # before the optimum some scale prices above λ: that is the column the engine adds next
    (first,) = pricing_landscape(snapshots[0], GaussianIso(), X)
    assert first.values.max() > first.threshold * (1 + TOL)


def test_landscape_input_errors(run):
    X, clf, _, _ = run
    with pytest.raises(ValueError, match="family and X"):
        pricing_landscape(clf.result_)
    with pytest.raises(ValueError, match="training points"):
        pricing_landscape(clf.result_, GaussianIso(), X[:-1])
    with pytest.raises(TypeError, match="PricingRound"):
        pricing_landscape(object(), GaussianIso(), X)


def test_plot_landscape_and_convergence(run):
    X, clf, _, snapshots = run
    ax = plot_pricing_landscape(snapshots[1], GaussianIso(), X).axes[0]
    assert ax.get_xscale() == "log" and len(ax.lines) == 3  # curve, columns, λ
    assert ax.get_xlabel().startswith("s of GaussianIso")  # the scale, by its name
    np.testing.assert_allclose(ax.lines[-1].get_ydata(), snapshots[1].threshold)
    assert_png(ax.figure)
    fig = plot_convergence(clf.result_)
    assert len(fig.axes) == 6
    iterations = fig.axes[0].lines[0].get_xdata()
    np.testing.assert_array_equal(iterations, np.arange(clf.result_.nit))
    assert_png(fig)
    # a checkpoint-like mapping with a history is enough
    assert_png(plot_convergence({"history": clf.result_.history}))
    with pytest.raises(ValueError, match="empty history"):
        plot_convergence({"history": {"objective": []}})


def test_plot_kernel_weights(run):
    _, clf, _, _ = run
    ax = plot_kernel_weights(clf.kernel_).axes[0]
    assert ax.get_xlabel() == "s"
    x, w = ax.lines[0].get_data()
    np.testing.assert_allclose(sorted(x), sorted(c.theta[0] for c in clf.kernel_.columns))
    np.testing.assert_allclose(sorted(w), sorted(clf.kernel_.weights))
    assert_png(ax.figure)
    with pytest.raises(TypeError, match="LearnedKernel"):
        plot_kernel_weights([clf.kernel_])


def test_two_parameter_slice_and_ard_scales():
    X, y = make_moons(30, noise=0.2, random_state=1)
    X = np.hstack([StandardScaler().fit_transform(X),
                   np.random.default_rng(0).normal(size=(30, 1))])
    clf = IKLClassifier(family=GaussianARD(), C=10.0, max_iter=3, random_state=0).fit(X, y)
    lands = pricing_landscape(clf.result_, GaussianARD(), X, size=40, dims=(0, 1))
    assert lands[0].values.shape == (10, 10) and lands[0].dims == (0, 1)
    # rows follow θ[1], columns θ[0]; θ[2] stays at the lower end of the box (0: switched off)
    a, b = lands[0].axes
    K = GaussianARD().gram(np.array([a[7], b[3], 0.0]), X)
    assert lands[0].values[3, 7] == pytest.approx(clf.result_.master.price.inner(K), rel=1e-10)
    ax = plot_pricing_landscape(clf.result_, GaussianARD(), X, size=40).axes[0]
    assert ax.get_xlabel() == "s[0]" and ax.get_ylabel() == "s[1]"
    assert_png(ax.figure)
    with pytest.raises(ValueError, match="dims"):
        pricing_landscape(clf.result_, GaussianARD(), X, dims=(0, 0))

    scales = gaussian_scales(clf.kernel_)
    expected = clf.kernel_.weights @ np.array([c.theta for c in clf.kernel_.columns])
    np.testing.assert_allclose(scales, expected)
    ax = plot_ard_scales(clf.kernel_).axes[0]
    np.testing.assert_allclose([p.get_height() for p in ax.patches], expected)
    assert_png(ax.figure)


def test_gaussian_scales_of_mixed_columns():
    iso, members = GaussianIso(), GaussianSeparate().members(3)
    kernel = LearnedKernel([Column.make(members[2], 4.0), Column.make(iso, 1.0),
                            Column.make(GaussianARD(), [1.0, 2.0, 3.0])], [0.5, 0.25, 0.25])
    np.testing.assert_allclose(gaussian_scales(kernel), [0.5, 0.75, 3.0])
    with pytest.raises(ValueError, match="n_features"):
        gaussian_scales(LearnedKernel([Column.make(iso, 1.0)], [1.0]))
    np.testing.assert_allclose(gaussian_scales(LearnedKernel([Column.make(iso, 2.0)], [0.5]),
                                               n_features=2), [1.0, 1.0])
    with pytest.raises(TypeError, match="Gaussian"):
        gaussian_scales(LearnedKernel([Column.make(Dirichlet(), 1.0)], [1.0]))
    ax = plot_kernel_weights(kernel).axes[0]  # several parameters: weights against the column index
    assert ax.get_xlabel() == "column" and len(ax.lines) == 3
    assert_png(ax.figure)


def test_missing_matplotlib_is_a_clear_error(monkeypatch, run):
    _, clf, _, _ = run
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install 'sipkl\[plot\]'"):
        plot_kernel_weights(clf.kernel_)


def test_plot_convergence_of_a_semi_infinite_program():
    """A SIPResult is drawn per round: the masters' values (the relaxation) under the
    bracket and the objective, and the largest relative violation, on a log scale, above
    the cut tol + atol; the plotted numbers are the history's."""
    import cvxpy as cp
    from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram
    c, z = cp.Variable(3), cp.Variable()
    err = lambda c, t: np.vander(t[:, 0], 3, increasing=True) @ c - np.exp(t[:, 0])  # noqa: E731
    program = SemiInfiniteProgram(cp.Minimize(z), [
        SemiInfiniteConstraint(lambda c, t: err(c, t) - z, c, Box([-1.0], [1.0])),
        SemiInfiniteConstraint(lambda c, t: -err(c, t) - z, c, Box([-1.0], [1.0]))])
    result = program.solve(tol=1e-7, atol=1e-9,
                           lipschitz=lambda c: abs(c[1]) + 2 * abs(c[2]) + np.e)
    assert result.bracket is not None and result.nit >= 3
    fig = plot_convergence(result)
    top, bottom = fig.axes
    rounds, relaxation = top.lines[0].get_data()
    np.testing.assert_array_equal(rounds, np.arange(result.nit))
    np.testing.assert_array_equal(relaxation, result.history["objective"])
    np.testing.assert_array_equal(top.lines[1].get_ydata(), result.objective)
    (band,) = top.patches
    low, high = band.get_path().get_extents(band.get_transform() - top.transData).intervaly
    np.testing.assert_allclose([low, high], [result.bracket["lower"], result.bracket["upper"]])
    best = np.asarray(result.history["best_price"])
    np.testing.assert_array_equal(bottom.lines[0].get_ydata(), np.where(best > 0, best, np.nan))
    np.testing.assert_allclose(bottom.lines[1].get_ydata(), 1e-7 + 1e-9)
    assert bottom.get_yscale() == "log"
    assert_png(fig)
