"""The BLAS routines called without the GIL (:mod:`sipkl.utils.blas`): NumPy's arithmetic, and the
very bits of SciPy's wrappers of the same routines."""
import numpy as np
import pytest
from scipy.linalg import blas as scipy_blas

from sipkl.utils.blas import axpy, spmv


@pytest.mark.parametrize("release_gil", [True, False])
@pytest.mark.parametrize("size", [1, 7, 1000, 4097])
def test_axpy_adds_a_multiple_in_place(size, release_gil):
    rng = np.random.default_rng(size)
    x, y = rng.normal(size=size), rng.normal(size=size)
    expected = y + 0.37 * x
    wrapped = scipy_blas.daxpy(x, y.copy(), a=0.37)
    axpy(0.37, x, y, release_gil)
    np.testing.assert_allclose(y, expected, rtol=1e-15, atol=1e-15)
    assert np.array_equal(y, wrapped)


@pytest.mark.parametrize("release_gil", [True, False])
def test_axpy_reads_matrices_as_their_entries(release_gil):
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(30, 40)), rng.normal(size=(30, 40))
    expected = Y - 2.5 * X
    axpy(-2.5, X, Y, release_gil)
    np.testing.assert_allclose(Y, expected, rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("release_gil", [True, False])
@pytest.mark.parametrize("n", [1, 2, 9, 300])
def test_spmv_is_the_product_with_the_symmetric_matrix(n, release_gil):
    rng = np.random.default_rng(n)
    A = rng.normal(size=(n, n))
    A = A + A.T
    packed = A[np.tri(n, dtype=bool)]  # the lower triangle, row by row
    x = rng.normal(size=n)
    product = spmv(n, packed, x, release_gil)
    np.testing.assert_allclose(product, A @ x, rtol=1e-12, atol=1e-12 * np.abs(A).sum())
    assert np.array_equal(product, scipy_blas.dspmv(n, 1.0, packed, x))


def test_bad_arrays_are_refused_by_name():
    x = np.zeros(4)
    with pytest.raises(TypeError, match="x must be"):
        axpy(1.0, np.zeros(4, dtype=np.float32), x)
    with pytest.raises(TypeError, match="y must be"):
        axpy(1.0, x, np.zeros((4, 4))[:, 0])
    with pytest.raises(ValueError, match="one size"):
        axpy(1.0, x, np.zeros(5))
    with pytest.raises(ValueError, match="packed must have"):
        spmv(3, np.zeros(5), np.zeros(3))
