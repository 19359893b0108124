"""Plots of column-generation runs and learned kernels (matplotlib: the optional extra ``plot``).

* :func:`plot_pricing_landscape` — the price θ ↦ <W, K(θ)>_F of one restricted-master
  solution over a kernel family, with the threshold λ as a horizontal line (afkanpour Fig. 3,
  gehler_nowozin Fig. 1). A column is worth adding where the curve rises above λ; at the
  optimum of the restricted master every column with a positive weight prices at λ
  (complementary slackness), so the current columns sit on the line. The values come from
  :func:`pricing_landscape`, which recomputes them from the solution's price matrix W and the
  training points: nothing is stored during the run.
* :func:`plot_convergence` — objective, λ and best price, and master gap, against the
  iteration and against time; for a semi-infinite program's
  :class:`~sipkl.sip.SIPResult`, the relaxation and the largest violation per round.
* :func:`plot_kernel_weights` — the weights d_m of a learned kernel against the parameters.
* :func:`plot_ard_scales` — the per-dimension scales Σ_m d_m s_{m,d} of a learned Gaussian
  kernel (which input dimensions the kernel uses).

Every ``plot_*`` function returns the matplotlib ``Figure`` it drew on (``fig.axes`` holds its
axes; ``fig.savefig("file.png")`` writes it); pass ``ax=`` (``fig=`` for
:func:`plot_convergence`) to draw into an existing one. Axis labels name the family's
parameter (:attr:`~sipkl.kernel_learning.families.base.KernelFamily.param_name`: ``s`` for the scale of a
Gaussian, θ when families differ).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .core.contracts import MasterSolution, PricingRound
from .kernel_learning.families import GaussianARD, GaussianIso, KernelFamily, LearnedKernel
from .kernel_learning.space import KernelSpace
from .sip.program import SIPResult


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("sipkl.plotting needs matplotlib: pip install 'sipkl[plot]'") from None
    return plt


def _axes(ax):
    return _pyplot().subplots()[1] if ax is None else ax


# -- the pricing landscape -------------------------------------------------------------
@dataclass
class Landscape:
    """Prices of one concrete family on a grid of parameters.

    ``axes`` holds one grid per varying parameter (``dims``): ``values`` has shape
    ``(len(axes[0]),)`` for one, ``(len(axes[1]), len(axes[0]))`` for two (rows: the second
    parameter). ``columns`` are the θ of the current columns of this family and
    ``column_values`` their prices.
    """

    family: KernelFamily
    dims: tuple
    axes: tuple
    values: np.ndarray
    threshold: float
    columns: np.ndarray = field(default_factory=lambda: np.empty((0, 0)))
    column_values: np.ndarray = field(default_factory=lambda: np.empty(0))


def _problems(source, family, X):
    """``(pricing problems, threshold, current columns, X)`` of a round, solution or result."""
    if isinstance(source, PricingRound):
        return source.problems, source.threshold, source.columns, source.X
    columns = list(source.get("columns", [])) if isinstance(source, dict) else []
    solution = source["master"] if isinstance(source, dict) else source
    if not isinstance(solution, MasterSolution):
        raise TypeError(f"expected a PricingRound, a MasterSolution or a CGResult, got "
                        f"{type(source).__name__}")
    if family is None or X is None:
        raise ValueError("family and X (the training points of the run) are needed to price "
                         "a MasterSolution or a CGResult")
    X = np.asarray(X, dtype=float)
    if solution.price.n != len(X):
        raise ValueError(f"X has {len(X)} points but the price matrix W is "
                         f"{solution.price.n} × {solution.price.n}: pass the training points")
    space = KernelSpace(X)
    problems = [space.pricing_problem(member, solution.price)
                for member in family.members(X.shape[1])]
    return problems, solution.threshold, columns, X


def default_axis(problem, X, d: int, size: int) -> np.ndarray:
    """``size`` values of parameter ``d``, inside the box: from a hundredth of the smallest
    to a hundred times the largest of the family's deterministic starting points (its sense
    of the scale of the data ``X``), log-spaced when that spans more than two decades. A
    finite family: its whole candidate list."""
    if problem.family.finite:
        return np.unique(problem.family.grid(X, size, 0)[:, d])
    start = problem.family.starting_points(X, 5, 0)[:, d]
    start = start[start > 0]
    lo, hi = problem.lower[d], problem.upper[d]
    a = max(start.min() / 100, lo) if len(start) else lo
    b = min(start.max() * 100, hi) if len(start) else hi
    if a > 0 and b / a > 100:
        return np.geomspace(a, b, size)
    return np.linspace(a, b, size)


def pricing_landscape(source, family: KernelFamily | None = None, X=None, *, grid=None,
                      size: int = 200, dims=(0, 1), at=None) -> list[Landscape]:
    """The price ``θ ↦ <W, K(θ)>_F`` (minus the pricing regularizer, if any) on a grid.

    Parameters
    ----------
    source : PricingRound, MasterSolution or CGResult
        A round (what an oracle receives) carries its pricing problems; a solution or a result
        (its last ``master``) carries the price matrix W and the threshold λ, and is priced on
        ``family`` and ``X``, the training points of the run. A result also gives the current
        columns (drawn as markers by :func:`plot_pricing_landscape`).
    family : KernelFamily, optional
    X : array (n, p), optional
    grid : array, or pair of arrays, optional
        Parameter values: one array for one-parameter families, a pair for a 2-D slice.
        Default: :func:`default_axis` of each parameter.
    size : int
        Grid points per parameter (for a 2-D slice, ``size // 4`` per parameter).
    dims : pair of int
        For families with several parameters (``GaussianARD``): the two that vary.
    at : array, optional
        For families with several parameters: the value of the others (default: the lower
        end of the box, 0 for Gaussian scales — those dimensions switched off).

    Returns
    -------
    list of Landscape, one per concrete family (``GaussianSeparate`` has one per dimension).
    """
    problems, threshold, columns, X = _problems(source, family, X)
    out = []
    for problem in problems:
        p = len(problem.lower)
        own = np.array([c.theta for c in columns if c.family == problem.family]).reshape(-1, p)
        if p == 1:
            axes = (np.asarray(grid if grid is not None else default_axis(problem, X, 0, size),
                               dtype=float).ravel(),)
            values = problem.values(axes[0][:, None])
            used = (0,)
        else:
            used = tuple(int(d) for d in dims)
            if len(used) != 2 or len(set(used)) != 2 or not all(0 <= d < p for d in used):
                raise ValueError(f"dims must be two distinct parameter indices in 0 … {p - 1}, "
                                 f"got {dims!r}")
            axes = tuple(np.asarray(g, dtype=float).ravel() for g in grid) if grid is not None \
                else tuple(default_axis(problem, X, d, max(size // 4, 2)) for d in used)
            base = problem.lower.copy() if at is None else np.asarray(at, dtype=float).copy()
            if base.shape != (p,):
                raise ValueError(f"at must have {p} values, got shape {base.shape}")
            A, B = np.meshgrid(*axes)
            thetas = np.tile(base, (A.size, 1))
            thetas[:, used[0]], thetas[:, used[1]] = A.ravel(), B.ravel()
            values = problem.values(thetas).reshape(A.shape)
        out.append(Landscape(problem.family, used, axes, values, float(threshold), own,
                             problem.values(own) if len(own) else np.empty(0)))
    return out


def _param_name(families) -> str:
    """The parameter's name shared by ``families`` (``"s"`` for Gaussians), else ``"θ"``."""
    names = {family.param_name for family in families}
    return names.pop() if len(names) == 1 else "θ"


def _family_label(family: KernelFamily) -> str:
    name = type(family).__name__
    return name if family.features is None else f"{name}, features {list(family.features)}"


def plot_pricing_landscape(source, family: KernelFamily | None = None, X=None, *, ax=None,
                           **options):
    """Draw :func:`pricing_landscape` (same arguments; ``options`` go to it).

    One-parameter families: one curve per concrete family, λ as a dashed horizontal line,
    the current columns as dots (on the line at the optimum of the restricted master). A
    two-parameter slice (one family only): filled contours of the price with the level λ as
    a black contour line. Returns the ``Figure``.
    """
    landscapes = pricing_landscape(source, family, X, **options)
    ax = _axes(ax)
    name = _param_name(land.family for land in landscapes)
    if len(landscapes[0].dims) == 2:
        if len(landscapes) > 1:
            raise ValueError("a 2-D slice is drawn for a family with one member only")
        land = landscapes[0]
        A, B = np.meshgrid(*land.axes)
        filled = ax.contourf(A, B, land.values, levels=20, cmap="viridis")
        ax.figure.colorbar(filled, ax=ax, label=f"price <W, K({name})>")
        if land.values.min() < land.threshold < land.values.max():
            ax.contour(A, B, land.values, levels=[land.threshold], colors="k")
        if len(land.columns):  # projected on the slice: their other parameters may differ
            ax.plot(land.columns[:, land.dims[0]], land.columns[:, land.dims[1]], "wo",
                    mec="k", label="columns (projected)")
        for axis, values in zip("xy", land.axes):
            if values.min() > 0 and values.max() / values.min() > 100:
                getattr(ax, f"set_{axis}scale")("log")
            getattr(ax, f"set_{axis}lim")(values.min(), values.max())
        ax.set_xlabel(f"{name}[{land.dims[0]}]")
        ax.set_ylabel(f"{name}[{land.dims[1]}]")
        ax.set_title(f"price over a 2-D slice, λ = {land.threshold:.4g} (black line)")
        return ax.figure
    for land in landscapes:
        line, = ax.plot(land.axes[0], land.values, "s:" if land.family.finite else "-",
                        label=_family_label(land.family) if len(landscapes) > 1 else "price")
        if len(land.columns):
            ax.plot(land.columns[:, 0], land.column_values, "o", color=line.get_color())
    ax.axhline(landscapes[0].threshold, color="k", ls="--", lw=1,
               label=f"λ = {landscapes[0].threshold:.4g}")
    theta = np.concatenate([land.axes[0] for land in landscapes])
    if theta.min() > 0 and theta.max() / theta.min() > 100:
        ax.set_xscale("log")
    ax.set_xlabel(name if len(landscapes) > 1 else
                  f"{name} of {_family_label(landscapes[0].family)}")
    ax.set_ylabel(f"price <W, K({name})>")
    ax.legend(loc="best", fontsize="small")
    return ax.figure


# -- convergence -----------------------------------------------------------------------
def plot_convergence(result, fig=None):
    """Objective, λ and best price, and master gap, against iteration and time.

    ``result`` is a :class:`~sipkl.core.engine.CGResult` or any mapping with its ``"history"``
    (e.g. a checkpoint read with :func:`sipkl.persistence.load_checkpoint`). Returns the
    ``Figure`` (3 rows × 2 columns). A :class:`~sipkl.sip.SIPResult`, whose λ is 0 and gap
    0, is drawn by :func:`plot_sip_convergence` instead.
    """
    if isinstance(result, SIPResult):
        return plot_sip_convergence(result, fig)
    history = _history(result)
    plt = _pyplot()
    fig = plt.figure(figsize=(9, 7)) if fig is None else fig
    axes = fig.subplots(3, 2, sharex="col")
    n = len(history["objective"])
    best = np.asarray(history["best_price"], dtype=float)
    best[~np.isfinite(best)] = np.nan  # a round without candidate
    gap = np.asarray(history["gap"], dtype=float)
    for col, (x, label) in enumerate(((np.arange(n), "iteration"),
                                      (np.asarray(history["time"]), "time (s)"))):
        axes[0, col].plot(x, history["objective"], "o-")
        axes[0, col].set_ylabel("objective")
        axes[1, col].plot(x, history["threshold"], "o-", label="λ")
        axes[1, col].plot(x, best, "s--", label="best price")
        if np.all(np.asarray(history["threshold"]) > 0) and np.all(best[np.isfinite(best)] > 0):
            axes[1, col].set_yscale("log")
        axes[1, col].set_ylabel("price")
        axes[1, col].legend(fontsize="small")
        axes[2, col].plot(x, gap, "o-")
        if np.all(gap > 0):
            axes[2, col].set_yscale("log")
        axes[2, col].set_ylabel("master gap")
        axes[2, col].set_xlabel(label)
    fig.tight_layout()
    return fig


def plot_sip_convergence(result, fig=None):
    """A semi-infinite program's run (a :class:`~sipkl.sip.SIPResult`) round by round.

    Top: the restricted master's value (the relaxation, ``history["objective"]``), with the
    answer's ``objective`` as a dashed line and ``bracket``, where the run has one, as a
    band [lower, upper] that holds the optimum. Bottom: the largest relative violation
    max_j max_t g_j(x_k, t)/s_j the oracle found (``history["best_price"]``, log scale:
    a round without a violation, ≤ 0, is left out) with the ``cut`` (``tol + atol``) as a
    dashed line. Returns the ``Figure`` (2 rows).
    """
    history = _history(result)
    fig = _pyplot().figure(figsize=(7, 6)) if fig is None else fig
    top, bottom = fig.subplots(2, 1, sharex=True)
    rounds = np.arange(len(history["objective"]))
    top.plot(rounds, history["objective"], "o-", label="restricted master (relaxation)")
    top.axhline(result["objective"], color="k", ls="--", lw=1, label="objective")
    if result.get("bracket") is not None:
        top.axhspan(result["bracket"]["lower"], result["bracket"]["upper"], color="C2",
                    alpha=0.3, label="bracket")
    top.set_ylabel("f")
    top.legend(fontsize="small")
    violation = np.asarray(history["best_price"], dtype=float)
    bottom.plot(rounds, np.where(violation > 0, violation, np.nan), "s-",
                label="largest violation g/s")
    if result.get("cut") is not None:
        bottom.axhline(result["cut"], color="k", ls="--", lw=1, label="cut")
    bottom.set_yscale("log")
    bottom.set_ylabel("relative violation")
    bottom.set_xlabel("round")
    bottom.legend(fontsize="small")
    fig.tight_layout()
    return fig


def _history(result) -> dict:
    """``result["history"]``, a ``ValueError`` where it holds no iteration."""
    history = result["history"]
    if not history.get("objective"):
        raise ValueError("the run has no iteration to plot (empty history)")
    return history


# -- learned kernels ---------------------------------------------------------------------
def _check_kernel(kernel) -> LearnedKernel:
    if not isinstance(kernel, LearnedKernel):
        raise TypeError(f"kernel must be a LearnedKernel (e.g. a fitted estimator's kernel_), "
                        f"got {type(kernel).__name__}")
    if len(kernel) == 0:
        raise ValueError("the kernel has no column")
    return kernel


def plot_kernel_weights(kernel: LearnedKernel, ax=None):
    """The weights d_m of a learned kernel against the parameter θ_m of each column.

    One marker series per concrete family; columns with several parameters are drawn
    against their index instead. Returns the ``Figure``.
    """
    kernel = _check_kernel(kernel)
    ax = _axes(ax)
    scalar = all(len(c.theta) == 1 for c in kernel.columns)
    families = list(dict.fromkeys(c.family for c in kernel.columns))
    for family in families:
        index = [m for m, c in enumerate(kernel.columns) if c.family == family]
        x = np.array([kernel.columns[m].theta[0] for m in index]) if scalar else np.array(index)
        ax.vlines(x, 0, kernel.weights[index], color="0.6", lw=1)
        ax.plot(x, kernel.weights[index], "o", label=_family_label(family))
    if scalar:
        theta = np.array([c.theta[0] for c in kernel.columns])
        if theta.min() > 0 and theta.max() / theta.min() > 100:
            ax.set_xscale("log")
    ax.set_xlabel(_param_name(families) if scalar else "column")
    ax.set_ylabel("weight d")
    ax.set_ylim(bottom=0)
    if len(families) > 1:
        ax.legend(fontsize="small")
    return ax.figure


def gaussian_scales(kernel: LearnedKernel, n_features: int | None = None) -> np.ndarray:
    """Σ_m d_m s_{m,d} for every input dimension d of a learned Gaussian kernel.

    A ``GaussianARD`` column adds d_m s_{m,d} on its dimensions, a ``GaussianIso`` column
    its one scale d_m s_m on each of its dimensions (all of them without ``features``; one
    for a member of ``GaussianSeparate``). ``n_features`` defaults to the largest dimension
    the columns name.
    """
    kernel = _check_kernel(kernel)
    parts = []
    for d, column in zip(kernel.weights, kernel.columns):
        family, theta = column.family, np.asarray(column.theta)
        if not isinstance(family, (GaussianARD, GaussianIso)):
            raise TypeError(f"per-dimension scales are defined for Gaussian columns only, "
                            f"got {family!r}")
        parts.append((d, family.features, theta))
    if n_features is None:
        named = [max(f) + 1 for _, f, _ in parts if f is not None]
        named += [len(t) for _, f, t in parts if f is None and len(t) > 1]
        if not named:
            raise ValueError("the columns do not say how many input dimensions there are: "
                             "pass n_features")
        n_features = max(named)
    scales = np.zeros(n_features)
    for d, features, theta in parts:
        dims = list(range(n_features)) if features is None else list(features)
        scales[dims] += d * (theta if len(theta) == len(dims) else theta[0])
    return scales


def plot_ard_scales(kernel: LearnedKernel, n_features: int | None = None, ax=None):
    """Bar chart of :func:`gaussian_scales`: the dimensions a learned Gaussian kernel uses
    (dimensions numbered from 0, as ``features``). Returns the ``Figure``."""
    scales = gaussian_scales(kernel, n_features)
    ax = _axes(ax)
    ax.bar(np.arange(len(scales)), scales)
    ax.set_xlabel("input dimension")
    ax.set_ylabel("Σ_m d_m s_m,d")
    return ax.figure
