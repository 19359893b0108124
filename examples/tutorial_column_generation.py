"""Column generation with kernels: one IKL run, iteration by iteration (the docs' tutorial).

Two interleaved half-moons in two dimensions, standardized; the kernel family is
``GaussianIso``, k_s(x, x′) = exp(−s ‖x − x′‖²) with s ∈ [0, 900]. The restricted master is
the MKL SVM over the current columns (``HingeMKLNewton``); the pricing oracle is the DC
branch and bound (``DCGaussianOracle``), global over s, so the run ends with a certificate.
One column enters per iteration (``n_price=1``) and the objective-stall rule is off
(``obj_tol=0``): the run stops only when the oracle proves that no s prices above λ(1 + tol).

After every master solve the estimator's callback keeps the intermediate result (columns,
weights, the master solution with its price matrix W and threshold λ, and the oracle's answer);
the landscape s ↦ <W, K(s)> of each iteration is recomputed from it afterwards with
:func:`sipkl.plotting.pricing_landscape`.

Run ``python examples/tutorial_column_generation.py`` (100 points) or with ``--quick`` (40);
``--out DIR`` writes the figures there as PNG.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from sklearn.datasets import make_moons
from sklearn.preprocessing import StandardScaler

from sipkl import GaussianIso, IKLClassifier
from sipkl.plotting import pricing_landscape

#: the scales s at which every landscape is drawn (the data are standardized)
GRID = np.geomspace(1e-3, 900.0, 400)


def run(n_samples: int = 100, C: float = 10.0, seed: int = 0) -> dict:
    """Fit IKL on the moons and keep every iteration: ``{"X", "y", "classifier",
    "snapshots", "landscapes"}`` (one snapshot and one landscape per iteration)."""
    X, y = make_moons(n_samples, noise=0.25, random_state=seed)
    X = StandardScaler().fit_transform(X)
    # --8<-- [start:run]
    snapshots = []
    classifier = IKLClassifier(family=GaussianIso(), C=C, oracle="dc", n_price=1, obj_tol=0.0,
                               random_state=seed, callback=snapshots.append).fit(X, y)
    # --8<-- [end:run]
    landscapes = [pricing_landscape(s, GaussianIso(), X, grid=GRID)[0] for s in snapshots]
    return {"X": X, "y": y, "classifier": classifier, "snapshots": snapshots,
            "landscapes": landscapes}


def table(story: dict) -> str:
    """The iterations as a Markdown table."""
    rows = [("| iteration | columns s (weight) | objective | λ | best price (at s) | "
             "DC upper bound |"), "|---|---|---|---|---|---|"]
    for it, snap in enumerate(story["snapshots"]):
        columns = ", ".join(f"{c.theta[0]:.3g} ({w:.2f})"
                            for c, w in zip(snap.columns, snap.weights))
        pricing = snap.pricing
        best = f"{pricing.scores[0]:.5g} (s = {pricing.columns[0].theta[0]:.3g})" \
            if len(pricing.scores) else "none"
        rows.append(f"| {it} | {columns} | {snap.objective:.5g} | {snap.threshold:.5g} | "
                    f"{best} | {pricing.upper_bound:.5g} |")
    return "\n".join(rows)


def landscape_figure(story: dict, it: int):
    """The landscape of iteration ``it``: price curve, λ, current columns (dots) and the
    column the oracle found (star)."""
    import matplotlib.pyplot as plt

    from sipkl.plotting import plot_pricing_landscape
    snap, X = story["snapshots"][it], story["X"]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    plot_pricing_landscape(snap, GaussianIso(), X, ax=ax, grid=GRID)
    if len(snap.pricing.scores):
        ax.plot(snap.pricing.columns[0].theta[0], snap.pricing.scores[0], "r*", ms=14,
                label="argmax (next column)" if it + 1 < len(story["snapshots"])
                else "argmax (≤ λ: stop)")
    ax.set_xlabel("scale s")
    ax.set_title(f"iteration {it}: {len(snap.columns)} column(s), λ = {snap.threshold:.4g}")
    ax.legend(loc="upper left", fontsize="small")
    fig.tight_layout()
    return fig


def decision_figure(story: dict):
    """The learned classifier's decision function on the data."""
    import matplotlib.pyplot as plt
    X, y, classifier = story["X"], story["y"], story["classifier"]
    a, b = np.meshgrid(*(np.linspace(X[:, d].min() - 0.5, X[:, d].max() + 0.5, 120)
                         for d in (0, 1)))
    scores = classifier.decision_function(np.column_stack([a.ravel(), b.ravel()]))
    fig, ax = plt.subplots(figsize=(4.8, 4.0))
    ax.contourf(a, b, scores.reshape(a.shape), levels=20, cmap="RdBu", alpha=0.6)
    ax.contour(a, b, scores.reshape(a.shape), levels=[0.0], colors="k")
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu", edgecolors="k", s=18)
    ax.set_title("learned kernel, SVM decision function")
    fig.tight_layout()
    return fig


def figures(story: dict) -> dict:
    """Every figure of the tutorial, by file name: ``landscape-<k>.png`` per iteration,
    ``landscape-final.png`` (the last one), ``convergence.png``, ``weights.png`` and
    ``decision.png``."""
    from sipkl.plotting import plot_convergence, plot_kernel_weights
    last = len(story["snapshots"]) - 1
    out = {f"landscape-{it}.png": landscape_figure(story, it) for it in range(last)}
    out["landscape-final.png"] = landscape_figure(story, last)
    out["convergence.png"] = plot_convergence(story["classifier"].result_)
    out["weights.png"] = plot_kernel_weights(story["classifier"].kernel_)
    out["decision.png"] = decision_figure(story)
    return out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="40 points instead of 100")
    parser.add_argument("--out", type=Path, help="write the figures (PNG) to this folder")
    args = parser.parse_args(argv)
    story = run(n_samples=40 if args.quick else 100)
    result = story["classifier"].result_
    print(table(story))
    print(f"\nstatus: {result.status} ({result.message})")
    if args.out is not None:
        import matplotlib
        matplotlib.use("Agg")
        args.out.mkdir(parents=True, exist_ok=True)
        for name, figure in figures(story).items():
            figure.savefig(args.out / name, dpi=100)
        print(f"figures written to {args.out}")
    return {"status": result.status, "result": result, "snapshots": story["snapshots"],
            "landscapes": story["landscapes"],
            "train_accuracy": story["classifier"].score(story["X"], story["y"])}


if __name__ == "__main__":
    main()
