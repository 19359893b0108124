"""Kernel learning as a semi-infinite program: IKL (gehler_nowozin eq. 5) written in sipkl.sip.

    max_{α, λ}  Σ_i α_i − λ   s.t.  0 ≤ α ≤ C,  yᵀα = 0,
                T(s; α) = ½ (α∘y)ᵀ K_s (α∘y) ≤ λ   for all s ∈ [0, s_max],

with K_s = exp(−s‖x_i − x_j‖²) (the bias constraint yᵀα = 0 as in IKLClassifier's master,
eq. 3). The index points are kernel scales, their multipliers the kernel weights d_s: the
exchange method on this SIP is IKL's column generation, and its optimum is
IKLClassifier's MKL objective. ``main`` solves both and prints the two objectives.
"""
import cvxpy as cp
import numpy as np
from sklearn.datasets import make_moons
from sklearn.preprocessing import StandardScaler

from sipkl import GaussianIso, IKLClassifier
from sipkl.compute.exponential import squared_distances
from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram


def ikl_sip(X, y, C: float, s_max: float) -> SemiInfiniteProgram:
    """The IKL dual (5) with the bias constraint, as a semi-infinite program."""
    D = squared_distances(X, X)
    alpha, lam = cp.Variable(len(y)), cp.Variable()

    def T(x, s):  # ½ (α∘y)ᵀ K_s (α∘y) − λ: convex in (α, λ) for every fixed s
        a, l = x
        return 0.5 * cp.quad_form(cp.multiply(y, a), cp.psd_wrap(np.exp(-s[0] * D))) - l

    kernels = SemiInfiniteConstraint(T, (alpha, lam), Box([0.0], [s_max]), name="kernels")
    return SemiInfiniteProgram(cp.Maximize(cp.sum(alpha) - lam), kernels,
                               [alpha >= 0, alpha <= C, y @ alpha == 0])


def main(argv=None) -> dict:
    import argparse

    parser = argparse.ArgumentParser(description="IKL as a semi-infinite program")
    parser.add_argument("--quick", action="store_true", help="40 points instead of 100")
    X, y = make_moons(40 if parser.parse_args(argv).quick else 100, noise=0.25, random_state=0)
    X, y, C, s_max = StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0), 10.0, 100.0
    sip = ikl_sip(X, y, C, s_max).solve("ipopt", initial_points=[[[1.0]]], random_state=0)
    ikl = IKLClassifier(GaussianIso(bounds=(0.0, s_max)), C=C, oracle="dc", obj_tol=0.0,
                        random_state=0).fit(X, y).result_
    for name, res in (("SIP (sipkl.sip)", sip), ("IKLClassifier", ikl)):
        print(f"{name:16s} {res.status:18s} objective {res.objective:.8g}  {res.nit} iterations")
    scales = sip.points[0].ravel()
    print("kernel scales s:", np.round(scales, 4), "weights d:", np.round(sip.multipliers[0], 4))
    return {"sip": sip, "ikl": ikl}


if __name__ == "__main__":
    main()
