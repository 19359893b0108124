"""Robust (affine-in-t) semi-infinite programs: sipkl's default against RSOME and PyROS.

Each problem is written once as data: a linear objective cᵀx, finite linear constraints, and
robust constraints

    g(x, t) = aᵀx − b + tᵀM x ≤ 0    for all t ∈ T,

T a box, ball, ellipsoid, simplex, budget set, polytope {A t ≤ b} or a product of those.
Problems (fixed seeds): portfolio-15 and portfolio-8 (the worst-case return over an ellipsoid,
data of examples/robust_portfolio.py), box-lp, budget-lp (Γ = 2), simplex-lp, robust-lad
(least absolute deviations, coefficients in a 4-D polytope) and eight-sets (one LP, one row
over each of eight sets, products included).
From that data each tool builds its own model, in the same process:

* **sipkl**: ``SemiInfiniteProgram(...).solve()`` with nothing set (a g affine in t is
  imposed by its exact robust counterpart); its status is reported;
* **RSOME** (``rsome.ro``): one random variable per set, ``(g <= 0).forall(uset)``; solved by
  SciPy's HiGHS (``lpg_solver``) where the counterpart is an LP, by ECOS (``eco_solver``)
  where a ball or ellipsoid makes it conic (no licensed solver is used);
* **PyROS** (``pyomo.contrib.pyros``, defaults but ``solve_master_globally=True`` and
  ``objective_focus=worst_case``, the same here: the objective is certain): all x
  first-stage, the uncertain parameters of all sets in one ``CartesianProductSet``, HiGHS
  (``appsi_highs``) as local and global subsolver. Separation over a ball or ellipsoid is a
  quadratically constrained program, which HiGHS does not take (its error is shown), and
  Pyomo has no NLP solver here (no ``ipopt`` executable; its ``cyipopt`` interface needs the
  PyNumero ASL library, absent): those problems have no PyROS result;
* **cvxpy by hand**: the counterpart a cvxpy user writes row by row (a norm, the largest
  coordinate of a simplex, LP duality over a polytope or a budget set), solved by cvxpy's
  default solver — the floor of any model that goes through cvxpy's compilation, as
  sipkl's does.

References, independent of all four: the same LP with every robust constraint written at
every vertex of its polytope (box corners; 0 and size·eᵢ of a simplex; c + r∘z of a budget
set, z with ⌊Γ⌋ entries ±1 and one ±(Γ − ⌊Γ⌋); a general polytope by solving every p-subset
of its rows and keeping the feasible points), a ball or ellipsoid {c + P u : ‖u‖ ≤ 1} by its
closed form cᵀMx + ‖PᵀMx‖₂ (a product: the sum over its blocks), solved by SciPy's HiGHS
(dual simplex: a vertex, exact to round-off) where no ball or ellipsoid makes it conic, else
by cvxpy with CLARABEL at tight tolerances. Reported for each tool: the median time of ``--repeats``
runs (model building included; the tools take turns, each run after a garbage
collection), the error |f − f_ref| / max(1, |f_ref|), and the violation
at its x: the exact worst case max_t g(x, t) of every robust constraint, by the same vertices
and closed forms, and the residuals of the finite constraints (the largest, 0 if none > 0).

Needs RSOME, Pyomo and HiGHS (not dependencies of sipkl: the extra ``sip-peers``,
``pip install -e '.[sip-peers]'``).

Run:  .venv/bin/python benchmarks/sip_robust.py [--repeats 3] [--only NAME[,NAME]]
Writes benchmarks/results/sip_robust.md.
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import itertools
import logging
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import cvxpy as cp
import numpy as np
from scipy.optimize import linprog

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "examples"))
from robust_portfolio import market  # noqa: E402

TIGHT = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}


# ----------------------------------------------------------------------------- the data

class Robust(NamedTuple):
    """g(x, t) = aᵀx − b + tᵀM x ≤ 0 for all t in the problem's set ``sets[k]``."""
    a: np.ndarray
    b: float
    M: np.ndarray
    k: int = 0


@dataclass
class Problem:
    """min (or max) cᵀx s.t. lb ≤ x ≤ ub, A_eq x = b_eq and the robust rows. A set is a
    tuple: ("box", lo, hi), ("ball", c, r), ("ellipsoid", c, P) for {c + P u : ‖u‖ ≤ 1},
    ("simplex", p, size), ("budget", c, r, Γ), ("polytope", A, b), ("product", [sets])."""
    name: str
    c: np.ndarray
    maximize: bool
    sets: list
    robust: list
    lb: np.ndarray
    ub: np.ndarray
    A_eq: np.ndarray = None
    b_eq: np.ndarray = None

    @property
    def dims(self) -> list:
        return [sum(dim(leaf) for leaf in leaves(s)) for s in self.sets]

    @property
    def conic(self) -> bool:
        return any(leaf[0] in ("ball", "ellipsoid") for s in self.sets for leaf in leaves(s))


def leaves(s) -> list:
    return [leaf for block in s[1] for leaf in leaves(block)] if s[0] == "product" else [s]


def dim(leaf) -> int:
    return leaf[1] if leaf[0] == "simplex" else np.shape(leaf[1])[-1]


def random_polytope(rng, p: int, cuts: int):
    """[−1, 1]^p cut by ``cuts`` random halfspaces aᵀt ≤ β, β ∈ [0.3, 0.8]: 0 is inside."""
    A = rng.normal(size=(cuts, p))
    A /= np.linalg.norm(A, axis=1)[:, None]
    return ("polytope", np.vstack([np.eye(p), -np.eye(p), A]),
            np.r_[np.ones(2 * p), 0.3 + 0.5 * rng.random(cuts)])


def portfolio(n: int) -> Problem:
    """max z s.t. z ≤ tᵀw for all t ∈ {μ + L u : ‖u‖ ≤ 1}, Σw = 1, w ≥ 0 (x = (w, z))."""
    mu, L = market(n)
    e_z = np.r_[np.zeros(n), 1.0]
    return Problem(f"portfolio-{n}", e_z, True, [("ellipsoid", mu, L)],
                   [Robust(e_z, 0.0, np.c_[-np.eye(n), np.zeros(n)])],
                   np.r_[np.zeros(n), -np.inf], np.full(n + 1, np.inf),
                   A_eq=np.r_[np.ones(n), 0.0][None], b_eq=np.ones(1))


def row_lp(name, seed, sets, rows_per_set, n, shift) -> Problem:
    """max cᵀx, 0 ≤ x ≤ 1, rows (a_i + M_iᵀt)ᵀx ≤ b_i over each of ``sets`` (a_i in
    [1, 10], b_i = 0.3 Σ a_i, M_i = ``shift(rng, a_i, p)``)."""
    rng, robust = np.random.default_rng(seed), []
    for k, s in enumerate(sets):
        p = sum(dim(leaf) for leaf in leaves(s))
        for _ in range(rows_per_set):
            a = 1.0 + 9.0 * rng.random(n)
            robust.append(Robust(a, 0.3 * a.sum(), shift(rng, a, p), k))
    return Problem(name, 1.0 + 4.0 * rng.random(n), True, sets, robust, np.zeros(n),
                   np.ones(n))


def deviation(rng, a, p):
    """M_i = diag(0.2 a_i): the coefficients a_i + 0.2 a_i∘t."""
    return np.diag(0.2 * a)


def robust_lad(K: int = 12, f: int = 3, p: int = 4) -> Problem:
    """min Σ z_k s.t. ±((a_k + B_k t)ᵀβ − y_k) ≤ z_k for all t in a random polytope ⊂ R^4
    (a box cut by 6 halfspaces); x = (β, z), 2K robust rows over one set."""
    rng = np.random.default_rng(6)
    A, beta = rng.normal(size=(K, f)), np.array([1.0, -2.0, 0.5])
    y = A @ beta + 0.1 * rng.normal(size=K)
    robust = []
    for k in range(K):
        B = 0.1 * rng.normal(size=(f, p))
        e = np.zeros(K)
        e[k] = 1.0
        for s in (1.0, -1.0):
            robust.append(Robust(np.r_[s * A[k], -e], s * y[k], s * np.c_[B.T, np.zeros((p, K))]))
    return Problem("robust-lad", np.r_[np.zeros(f), np.ones(K)], False,
                   [random_polytope(rng, p, 6)], robust, np.r_[np.full(f, -10.0), np.zeros(K)],
                   np.full(f + K, np.inf))


def eight_sets() -> Problem:
    """One robust row over each of 8 sets in one LP, n = 6."""
    rng = np.random.default_rng(7)
    P3 = 0.5 * rng.normal(size=(3, 3)) + np.eye(3)
    sets = [("box", -np.ones(3), np.ones(3)), ("ball", np.zeros(3), 1.0),
            ("ellipsoid", np.zeros(3), P3), ("simplex", 3, 1.0),
            ("budget", np.zeros(4), np.ones(4), 1.5), random_polytope(rng, 3, 4),
            ("product", [("ball", np.zeros(2), 1.0), ("box", -np.ones(2), np.ones(2))]),
            ("product", [("simplex", 2, 1.0), ("ellipsoid", np.zeros(2), np.diag([1.0, 0.5]))])]
    return row_lp("eight-sets", 8, sets, 1, 6,
                  lambda rng, a, p: 0.15 * a * rng.uniform(-1, 1, (p, len(a))))


PROBLEMS = {p.name: p for p in [
    portfolio(15), portfolio(8),
    # 3 rows (a_i + 0.2 a_i∘t)ᵀx ≤ b_i over t ∈ [−1, 1]^4, n = 4
    row_lp("box-lp", 3, [("box", -np.ones(4), np.ones(4))], 3, 4, deviation),
    # Bertsimas–Sim: 4 rows over |t_j| ≤ 1, Σ|t_j| ≤ Γ = 2 in R^6, n = 6
    row_lp("budget-lp", 4, [("budget", np.zeros(6), np.ones(6), 2.0)], 4, 6, deviation),
    # 3 rows (a_i + D_iᵀt)ᵀx ≤ b_i, D_i ≥ 0, over the simplex {t ≥ 0, Σt ≤ 1} ⊂ R^4, n = 5
    row_lp("simplex-lp", 5, [("simplex", 4, 1.0)], 3, 5,
           lambda rng, a, p: 0.5 * a * rng.random((p, len(a)))),
    robust_lad(), eight_sets()]}


# ------------------------------------------------------------------- references and checks

def vertices(leaf) -> np.ndarray:
    """The vertices of a polytope-like leaf (rows)."""
    kind = leaf[0]
    if kind == "box":
        return np.array(list(itertools.product(*zip(leaf[1], leaf[2]))))
    if kind == "simplex":
        return np.vstack([np.zeros(leaf[1]), leaf[2] * np.eye(leaf[1])])
    if kind == "budget":
        c, r, gamma = leaf[1], leaf[2], leaf[3]
        p, whole = len(c), min(int(np.floor(gamma)), len(c))
        frac, z = gamma - whole, []
        for S in itertools.combinations(range(p), whole):
            rest = [j for j in range(p) if j not in S] if frac > 0 else [None]
            for j, signs in itertools.product(rest, itertools.product((-1, 1), repeat=whole)):
                v = np.zeros(p)
                v[list(S)] = signs
                z += [v] if j is None else [v + frac * np.eye(p)[j], v - frac * np.eye(p)[j]]
        return c + r * np.array(z)
    A, b = leaf[1], leaf[2]
    found = []
    for S in itertools.combinations(range(len(A)), A.shape[1]):
        if abs(np.linalg.det(A[list(S)])) > 1e-12:
            t = np.linalg.solve(A[list(S)], b[list(S)])
            if np.all(A @ t <= b + 1e-9):
                found.append(t)
    return np.unique(np.round(found, 12), axis=0)


def worst_parts(s):
    """(V, ellipsoids): every combination of the polytope blocks' vertices with the
    ellipsoid blocks at their centre (rows of V), and (block slice, P) of each ellipsoid."""
    pieces, ellipsoids, start = [], [], 0
    for leaf in leaves(s):
        p = dim(leaf)
        if leaf[0] in ("ball", "ellipsoid"):
            P = leaf[2] * np.eye(p) if leaf[0] == "ball" else leaf[2]
            pieces.append(leaf[1][None])
            ellipsoids.append((slice(start, start + p), P))
        else:
            pieces.append(vertices(leaf))
        start += p
    V = np.array([np.concatenate(rows) for rows in itertools.product(*pieces)])
    return V, ellipsoids


def worst_case(r: Robust, V, ellipsoids, x, norm):
    """max_t g(x, t) (cvxpy or NumPy x, ``norm`` the 2-norm of either)."""
    coef = r.M @ x
    value = V @ coef + (r.a @ x - r.b)
    return value, sum(norm(P.T @ coef[block]) for block, P in ellipsoids)


def reference(pb: Problem):
    parts = [worst_parts(s) for s in pb.sets]
    rows = sum(len(parts[r.k][0]) for r in pb.robust)
    if not pb.conic:  # the vertex LP by HiGHS's dual simplex: a vertex, exact to round-off
        A = np.vstack([r.a + parts[r.k][0] @ r.M for r in pb.robust])
        b = np.concatenate([np.full(len(parts[r.k][0]), r.b) for r in pb.robust])
        result = linprog(-pb.c if pb.maximize else pb.c, A_ub=A, b_ub=b, A_eq=pb.A_eq,
                         b_eq=pb.b_eq, bounds=np.column_stack([pb.lb, pb.ub]), method="highs",
                         options={"primal_feasibility_tolerance": 1e-10,
                                  "dual_feasibility_tolerance": 1e-10})
        assert result.status == 0, result.message
        return float(pb.c @ result.x), f"rows: {rows}"
    x = cp.Variable(len(pb.c))
    cons = [con for con in finite_cvxpy(pb, x)]
    for r in pb.robust:
        value, norms = worst_case(r, *parts[r.k], x, lambda v: cp.norm(v, 2))
        cons.append(value + norms <= 0)
    problem = cp.Problem((cp.Maximize if pb.maximize else cp.Minimize)(pb.c @ x), cons)
    problem.solve(solver="CLARABEL", **TIGHT)
    normed = sum(len(parts[r.k][0]) for r in pb.robust if parts[r.k][1])
    return problem.value, f"rows: {rows}" + (f", {normed} with ‖·‖₂" if normed else "")


def violation(pb: Problem, x) -> float:
    parts = [worst_parts(s) for s in pb.sets]
    worst = []
    for r in pb.robust:
        value, norms = worst_case(r, *parts[r.k], x, np.linalg.norm)
        worst.append(value.max() + norms)
    worst += list(pb.lb - x) + list(x - pb.ub)
    if pb.A_eq is not None:
        worst += list(np.abs(pb.A_eq @ x - pb.b_eq))
    return max(0.0, max(w for w in worst if np.isfinite(w)))


def finite_cvxpy(pb: Problem, x):
    lo, hi = np.isfinite(pb.lb), np.isfinite(pb.ub)
    cons = [x[lo] >= pb.lb[lo]] if lo.any() else []
    cons += [x[hi] <= pb.ub[hi]] if hi.any() else []
    return cons + ([pb.A_eq @ x == pb.b_eq] if pb.A_eq is not None else [])


def centre(leaf) -> np.ndarray:
    """A point inside (PyROS's nominal value): a polytope's Chebyshev centre."""
    if leaf[0] in ("box", "simplex"):
        return vertices(leaf).mean(axis=0)
    if leaf[0] == "polytope":
        A, b = leaf[1], leaf[2]
        return linprog(np.r_[np.zeros(A.shape[1]), -1.0], A_ub=np.c_[A, np.linalg.norm(A, axis=1)],
                       b_ub=b, bounds=[(None, None)] * A.shape[1] + [(0, None)]).x[:-1]
    return np.asarray(leaf[1], dtype=float)


# ---------------------------------------------------------------------------- the tools

def solve_sipkl(pb: Problem):
    from sipkl.sip import SemiInfiniteConstraint, SemiInfiniteProgram
    from sipkl.sip.sets import Ball, Box, Ellipsoid, Polytope, Product

    kinds = {"box": Box, "ball": Ball, "ellipsoid": Ellipsoid, "simplex": Polytope.simplex,
             "budget": Polytope.budget, "polytope": Polytope}

    def make(s):
        return Product(*map(make, s[1])) if s[0] == "product" else kinds[s[0]](*s[1:])

    x = cp.Variable(len(pb.c))
    sets = [make(s) for s in pb.sets]
    rows = [SemiInfiniteConstraint(lambda x, t, r=r: r.a @ x - r.b + t @ (r.M @ x),
                                   x, sets[r.k], vectorized=True) for r in pb.robust]
    objective = (cp.Maximize if pb.maximize else cp.Minimize)(pb.c @ x)
    result = SemiInfiniteProgram(objective, rows, finite_cvxpy(pb, x)).solve()
    return result.objective, x.value, result.status.value


def support_by_hand(leaf, u, extra: list) -> cp.Expression:
    """max over the leaf set of tᵀu as a cvxpy user writes it (its dual variables' constraints
    appended to ``extra``): ‖·‖₁ over a box, a norm over a ball or ellipsoid, the largest
    coordinate over a simplex, LP duality over a budget set or a polytope."""
    kind = leaf[0]
    if kind == "box":
        lo, hi = leaf[1], leaf[2]
        return (lo + hi) / 2 @ u + cp.norm(cp.multiply((hi - lo) / 2, u), 1)
    if kind == "ball":
        return leaf[1] @ u + leaf[2] * cp.norm(u, 2)
    if kind == "ellipsoid":
        return leaf[1] @ u + cp.norm(leaf[2].T @ u, 2)
    if kind == "simplex":
        return leaf[2] * cp.maximum(0, cp.max(u))
    if kind == "budget":
        c, r, gamma = leaf[1], leaf[2], leaf[3]
        lam, mu = cp.Variable(nonneg=True), cp.Variable(len(c), nonneg=True)
        extra.append(lam + mu >= cp.abs(cp.multiply(r, u)))
        return c @ u + gamma * lam + cp.sum(mu)
    A, b = leaf[1], leaf[2]
    y = cp.Variable(len(b), nonneg=True)
    extra.append(A.T @ y == u)
    return b @ y


def solve_cvxpy_by_hand(pb: Problem):
    """The robust counterpart written by hand in cvxpy, row by row (:func:`support_by_hand`
    of each block of t), solved by cvxpy's default conic solver: the floor of a model that
    goes through cvxpy's compilation, as sipkl's does."""
    x = cp.Variable(len(pb.c))
    constraints = finite_cvxpy(pb, x)
    for r in pb.robust:
        u, start, worst, extra = r.M @ x, 0, [], []
        for leaf in leaves(pb.sets[r.k]):
            worst.append(support_by_hand(leaf, u[start:start + dim(leaf)], extra))
            start += dim(leaf)
        constraints += [r.a @ x - r.b + sum(worst) <= 0] + extra
    problem = cp.Problem((cp.Maximize if pb.maximize else cp.Minimize)(pb.c @ x), constraints)
    problem.solve()
    return problem.value, x.value, problem.status


def solve_rsome(pb: Problem):
    import rsome as rso
    from rsome import eco_solver, lpg_solver, ro

    kinds = {  # the constraints on t of each kind of set
        "box": lambda t, lo, hi: [t >= lo, t <= hi],
        "ball": lambda t, c, r: [rso.norm(t - c, 2) <= r],
        "ellipsoid": lambda t, c, P: [rso.norm(np.linalg.inv(P) @ (t - c), 2) <= 1],
        "simplex": lambda t, p, size: [t >= 0, t.sum() <= size],
        "budget": lambda t, c, r, gamma: [rso.norm((t - c) * (1 / r), np.inf) <= 1,
                                          rso.norm((t - c) * (1 / r), 1) <= gamma],
        "polytope": lambda t, A, b: [A @ t <= b]}

    def uset(s, t):
        ends = np.cumsum([0] + [dim(leaf) for leaf in leaves(s)])
        return tuple(c for leaf, a, b in zip(leaves(s), ends, ends[1:])
                     for c in kinds[leaf[0]](t[a:b], *leaf[1:]))

    model = ro.Model()
    x = model.dvar(len(pb.c))
    (model.max if pb.maximize else model.min)(pb.c @ x)
    for i in np.flatnonzero(np.isfinite(pb.lb)):
        model.st(x[i] >= pb.lb[i])
    for i in np.flatnonzero(np.isfinite(pb.ub)):
        model.st(x[i] <= pb.ub[i])
    if pb.A_eq is not None:
        model.st(pb.A_eq @ x == pb.b_eq)
    ts = [model.rvar(p) for p in pb.dims]
    usets = [uset(s, t) for s, t in zip(pb.sets, ts)]
    for r in pb.robust:
        model.st((r.a @ x - r.b + ts[r.k] @ (r.M @ x) <= 0).forall(usets[r.k]))
    model.solve(eco_solver if pb.conic else lpg_solver, display=False)
    solver = "ECOS" if pb.conic else "HiGHS (SciPy)"
    return model.get(), x.get(), f"{solver}: {model.solution.status}"


def solve_pyros(pb: Problem):
    import pyomo.environ as pe
    from pyomo.contrib import pyros

    kinds = {
        "box": lambda lo, hi: pyros.BoxSet(bounds=list(zip(lo, hi))),
        "ball": lambda c, r: pyros.EllipsoidalSet(c, r ** 2 * np.eye(len(c)), 1),
        "ellipsoid": lambda c, P: pyros.EllipsoidalSet(c, P @ P.T, 1),
        "simplex": lambda p, size: pyros.PolyhedralSet(np.r_[-np.eye(p), np.ones((1, p))],
                                                       np.r_[np.zeros(p), size]),
        "budget": lambda c, r, gamma: pyros.CardinalitySet(c, r, gamma, negative_deviation=r),
        "polytope": pyros.PolyhedralSet}
    all_leaves = [leaf for s in pb.sets for leaf in leaves(s)]
    U = [kinds[leaf[0]](*leaf[1:]) for leaf in all_leaves]
    U = U[0] if len(U) == 1 else pyros.CartesianProductSet(U)
    nominal = np.concatenate([centre(leaf) for leaf in all_leaves])
    offsets, n = np.cumsum([0] + pb.dims), len(pb.c)
    m = pe.ConcreteModel()
    m.x = pe.Var(range(n), bounds=lambda m, i: tuple(v if np.isfinite(v) else None
                                                     for v in (pb.lb[i], pb.ub[i])))
    m.q = pe.Param(range(len(nominal)), mutable=True, initialize=dict(enumerate(nominal)))

    def linear(row, const=0.0):
        return pe.quicksum(float(v) * m.x[j] for j, v in enumerate(row) if v != 0) + const

    m.cons = pe.ConstraintList()
    for row, rhs in zip(*((pb.A_eq, pb.b_eq) if pb.A_eq is not None else ([], []))):
        m.cons.add(linear(row) == rhs)
    for r in pb.robust:
        q = [m.q[i] for i in range(offsets[r.k], offsets[r.k + 1])]
        m.cons.add(linear(r.a, -r.b) + pe.quicksum(qi * linear(row)
                                                   for qi, row in zip(q, r.M)) <= 0)
    m.obj = pe.Objective(expr=linear(pb.c), sense=pe.maximize if pb.maximize else pe.minimize)
    highs = pe.SolverFactory("appsi_highs")
    res = pe.SolverFactory("pyros").solve(
        m, first_stage_variables=list(m.x.values()), second_stage_variables=[],
        uncertain_params=list(m.q.values()), uncertainty_set=U, local_solver=highs,
        global_solver=highs, solve_master_globally=True,
        objective_focus=pyros.ObjectiveType.worst_case)
    x = np.array([m.x[i].value for i in range(n)], dtype=float)
    return float(pb.c @ x), x, str(res.pyros_termination_condition).split(".")[-1]


# ---------------------------------------------------------------------------- the table

@contextlib.contextmanager
def quiet():
    """Silence stdout at the file-descriptor level (ECOS prints from C)."""
    sys.stdout.flush()
    saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


def take_turns(tools, pb, repeats: int) -> tuple[dict, dict]:
    """Per tool, the seconds of each of ``repeats`` runs on ``pb`` and its last answer, or
    the exception it raised (then it runs no more). The tools take turns, each run after a
    garbage collection, so that none pays for the objects another left behind."""
    times, answers = {tool: [] for tool in tools}, {}
    for _ in range(repeats):
        for tool in tools:
            if isinstance(answers.get(tool), Exception):
                continue
            gc.collect()
            start = time.perf_counter()
            try:
                with quiet():
                    answers[tool] = tool(pb)
            except Exception as exc:  # a tool's failure is a result
                answers[tool] = exc
                continue
            times[tool].append(time.perf_counter() - start)
    return times, answers


def run(tools, pb: Problem, f_ref: float, repeats: int) -> list:
    """Per tool, [time, error, violation, status] of the median of ``repeats`` runs (the
    last run's answer), or "—" with the reason (:func:`take_turns`)."""
    times, answers = take_turns(tools, pb, repeats)
    row = []
    for tool in tools:
        if isinstance(answers[tool], Exception):
            exc = answers[tool]
            row += ["—", "—", "—", f"error: {type(exc).__name__}: {str(exc)[:80]}"]
            continue
        f, x, status = answers[tool]
        seconds = f"{statistics.median(times[tool]):.3f}"
        if x is None or f is None or not np.isfinite(f):
            row += [seconds, "—", "—", str(status)]
            continue
        row += [seconds, f"{abs(f - f_ref) / max(1.0, abs(f_ref)):.1e}",
                f"{violation(pb, np.asarray(x, dtype=float)):.1e}", str(status)]
    return row


def main(argv=None):
    from importlib.metadata import version
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default=None, help="problem names, comma-separated")
    parser.add_argument("--out", default=str(HERE / "results" / "sip_robust.md"))
    args = parser.parse_args(argv)
    logging.getLogger("pyomo.contrib.pyros").setLevel(logging.ERROR)
    names = args.only.split(",") if args.only else list(PROBLEMS)
    lines = [f"Machine: {os.cpu_count()} CPUs, {platform.platform()}, Python "
             f"{platform.python_version()}; sipkl {version('sipkl')}, RSOME {version('rsome')}, "
             f"Pyomo {version('pyomo')}. Times: median of {args.repeats} runs (s; the tools take "
             "turns, each run after a garbage collection), model building included; error = |f − f_ref| / max(1, |f_ref|); violation = the exact "
             "worst case at the tool's x (0 if ≤ 0).", "",
             "| problem | p | n | reference f (rows) | sipkl time | error | violation | status "
             "| RSOME time | error | violation | solver: status | PyROS time | error | "
             "violation | termination | cvxpy by hand: time | error | violation | status |",
             "|" + "---|" * 20]
    print("\n".join(lines), flush=True)
    for name in names:
        pb = PROBLEMS[name]
        f_ref, rows = reference(pb)
        row = [name, "+".join(map(str, pb.dims)), str(len(pb.c)), f"{f_ref:.10g} ({rows})"]
        row += run((solve_sipkl, solve_rsome, solve_pyros, solve_cvxpy_by_hand), pb, f_ref,
                   args.repeats)
        lines.append("| " + " | ".join(row) + " |")
        print(lines[-1], flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")  # included by docs/sip-catalogue.md


if __name__ == "__main__":
    main()
