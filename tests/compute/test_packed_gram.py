"""Packed Gram matrices (their lower triangles) against the full ones, and the Newton master
on them against the same master on the full matrices."""
import numpy as np
import pytest

from sipkl import GaussianARD
from sipkl.core.contracts import Column
from sipkl.kernel_learning.masters.hinge import HingeMKLNewton
from sipkl.compute.packed_gram import PackedGrams
from sipkl.kernel_learning.space import KernelSpace
from boards import chessboard, gaussian


def symmetric(rng, n):
    A = rng.standard_normal((n, n))
    return A + A.T


def test_packed_sweeps_are_the_full_ones_as_matrices_come_and_go():
    rng = np.random.default_rng(3)
    n = 23
    X, _ = chessboard(n)
    pool = [symmetric(rng, n) for _ in range(8)] + [gaussian(X, [2.0, 0.5, 0, 0, 1.0])]
    packed = PackedGrams(n)
    # added, dropped (their triangles forgotten), reordered, all dropped but one, grown again
    for chosen in ([0, 1, 2], [2, 8, 3, 4], [5, 6, 3, 8], [8, 6, 5, 3, 2, 1, 0], [4],
                   [7, 4, 0, 1, 2, 3, 5, 6, 8]):
        grams = [pool[i] for i in chosen]
        assert packed.hold(grams) is packed
        assert len(packed) == len(grams) and all(K is L for K, L in zip(packed, grams))
        w = rng.standard_normal(n)
        np.testing.assert_allclose(packed.products(w), np.column_stack([K @ w for K in grams]),
                                   rtol=1e-13, atol=1e-13 * n)
        d = rng.uniform(0, 1, len(grams))
        d[::2] = 0.0  # only d_m > 0 counts
        np.testing.assert_allclose(packed.combined(d), sum(dm * K for dm, K in zip(d, grams)),
                                   rtol=1e-13, atol=1e-13 * n)
        assert np.array_equal(packed.combined(d), packed.combined(d).T)
    assert len(packed._packed) == len(grams)  # the dropped ones are forgotten


def test_a_matrix_with_a_non_finite_entry_is_not_packed():
    rng = np.random.default_rng(4)
    n = 9
    good = [symmetric(rng, n) for _ in range(2)]
    bad = symmetric(rng, n)
    bad[5, 2] = np.nan
    packed = PackedGrams(n)
    packed.hold(good)
    assert packed.hold(good + [bad]) is None
    # what it held is unchanged
    w = rng.standard_normal(n)
    np.testing.assert_allclose(packed.products(w), np.column_stack([K @ w for K in good]),
                               rtol=1e-13, atol=1e-13 * n)


@pytest.mark.parametrize("C", [1.0, 100.0])
def test_newton_master_on_packed_grams_is_the_unpacked_solution(budgets, C):
    """Two rounds of columns (the second solve packs only the new ones, from a warm start):
    the same solutions as the master that reads the full matrices (the budget set to 0)."""
    X, y = chessboard(80, seed=2)
    family = GaussianARD()
    thetas = ([2, 2, 0, 0, 0], [0.5] * 5, [4, 0, 0, 0, 0], [0, 4, 0, 1, 0], [1, 3, 0, 0, 0.2],
              [3, 1, 0.1, 0, 0])
    grams = KernelSpace(X, family).master_inputs([Column.make(family, t) for t in thetas])

    def two_rounds():
        master = HingeMKLNewton(y, C)
        first = master.solve(grams[:4])
        second = master.solve(grams, np.concatenate([first.weights, [0.0, 0.0]]))
        return master, first, second

    packed_master, *packed = two_rounds()
    assert isinstance(packed_master._packed, PackedGrams)  # the packed sweeps did run
    budgets(packed_gram_bytes=0)
    full_master, *full = two_rounds()
    assert full_master._packed is None
    for a, b in zip(packed, full):
        assert a.status.value == b.status.value == "optimal"
        np.testing.assert_allclose(a.weights, b.weights, atol=1e-6)  # the master's tolerance
        assert a.objective == pytest.approx(b.objective, rel=1e-10)
        np.testing.assert_allclose(a.column_prices, b.column_prices, rtol=1e-8)
    assert (packed[1].weights > 1e-3).sum() >= 2  # a mixture, not one kernel
