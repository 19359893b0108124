"""Adjustable variables with affine decision rules: sipkl against RSOME and PyROS.

The two-stage capacity and transport problem of ``tests/sip/test_decision_rules.py`` at
several sizes: capacities x ≥ 0 of P plants bought now (cost c), the demands t of C
customers in a box, shipments z(t) ≥ 0 decided once t is known (cost q), each plant's
shipments within its capacity and each customer's demand met:

    min_{x, z(·)} max_{t ∈ T} cᵀx + Σ q_ij z_ij(t)
    s.t. z(t) ≥ 0,  Σ_j z_ij(t) ≤ x_i,  Σ_i z_ij(t) ≥ t_j    for all t ∈ T,

z restricted to affine functions of t (the same class in the three tools). Data from a fixed
seed per size. Each tool builds its own model, in the same process:

* **sipkl**: ``decision_rule(P·C, T)``, one ``SemiInfiniteConstraint`` per row, the cost
  as ``Minimize(max_over(...))``, ``solve()`` with nothing set (every g is affine in t:
  imposed by its robust counterpart);
* **RSOME** (``rsome.ro``): ``model.ldr((P, C))`` adapted to t, ``minmax`` over the box,
  SciPy's HiGHS (``lpg_solver``);
* **PyROS**: x first-stage, z second-stage with ``decision_rule_order=1``, the demands
  uncertain parameters in a ``BoxSet``, ``objective_focus=worst_case``, HiGHS
  (``appsi_highs``) as local and global subsolver.

The reference, independent of the three: the same program at the box's 2^C corners, where
every constraint affine in t attains its worst case, as one LP in (x, the rule's
coefficients, the epigraph τ) by SciPy's HiGHS. Reported per tool: the median time of
``--repeats`` runs (the tools take turns), the error |f − f_ref| / max(1, |f_ref|).

Second, Ben-Tal, Goryashko, Guslitzer & Nemirovski's (2004) inventory over K periods
(:class:`Inventory`), with non-anticipative rules — the order of period k reads the demands
d₁ … d_{k−1}, the epigraph of its cost d₁ … d_k (sipkl's ``depends_on``, RSOME's
``adapt``) — beside RSOME (PyROS's rules read every uncertain parameter: another
program); the reference its corner program in cvxpy by HiGHS up to ``CORNER_PERIODS``,
RSOME's optimum beyond.

Needs RSOME, Pyomo and HiGHS (the extra ``sip-peers``).

Run:  .venv/bin/python benchmarks/sip_adjustable.py [--repeats 3] [--problems transport inventory]
Writes benchmarks/results/sip_adjustable.md.
"""
from __future__ import annotations

import argparse
import itertools
import logging
import os
import platform
import statistics
from pathlib import Path
from typing import NamedTuple

import cvxpy as cp
import numpy as np
from scipy.optimize import linprog

from sip_robust import take_turns
from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram, decision_rule, max_over

HERE = Path(__file__).resolve().parent
SIZES = [(3, 2), (5, 4), (8, 6)]
INVENTORY_PERIODS = [4, 8, 12]
#: the most periods whose corner program is the reference (2^K corners)
CORNER_PERIODS = 8


class Transport(NamedTuple):
    c: np.ndarray       # capacity costs (P,)
    q: np.ndarray       # shipping costs (P, C)
    lo: np.ndarray      # demand box (C,)
    hi: np.ndarray


def instance(plants: int, customers: int, seed: int = 0) -> Transport:
    rng = np.random.default_rng(seed)
    lo = rng.uniform(5.0, 15.0, customers)
    return Transport(rng.uniform(3.0, 6.0, plants), rng.uniform(0.5, 3.0, (plants, customers)),
                     lo, lo + rng.uniform(2.0, 10.0, customers))


def reference(pb: Transport) -> float:
    """The program at the box's corners as one LP in (x, C, τ): z(t) = C₀ + C₁ t entry by
    entry (its coefficients in t's own units; the same class of rules)."""
    P, K = pb.q.shape
    corners = np.array(list(itertools.product(*zip(pb.lo, pb.hi))))
    m, k = len(corners), K + 1
    basis = np.column_stack([np.ones(m), corners])
    n = P + P * K * k + 1

    def ship(i, j):
        block = np.zeros((m, n))
        start = P + (i * K + j) * k
        block[:, start:start + k] = basis
        return block
    rows, rhs = [], []
    for i, j in itertools.product(range(P), range(K)):
        rows.append(-ship(i, j)), rhs.append(np.zeros(m))
    for i in range(P):
        block = sum(ship(i, j) for j in range(K))
        block[:, i] -= 1.0
        rows.append(block), rhs.append(np.zeros(m))
    for j in range(K):
        rows.append(-sum(ship(i, j) for i in range(P))), rhs.append(-corners[:, j])
    cost = sum(pb.q[i, j] * ship(i, j) for i, j in itertools.product(range(P), range(K)))
    cost[:, :P] += pb.c
    cost[:, -1] = -1.0
    rows.append(cost), rhs.append(np.zeros(m))
    objective = np.zeros(n)
    objective[-1] = 1.0
    lp = linprog(objective, A_ub=np.vstack(rows), b_ub=np.concatenate(rhs),
                 bounds=[(0, None)] * P + [(None, None)] * (n - P), method="highs")
    assert lp.status == 0, lp.message
    return float(lp.fun)


def solve_sipkl(pb: Transport):
    P, K = pb.q.shape
    T = Box(pb.lo, pb.hi)
    x, z = cp.Variable(P, nonneg=True), decision_rule(P * K, T)

    def row(f, name):
        return SemiInfiniteConstraint(f, x, T, vectorized=True, name=name)
    sics = [row(lambda x, t, e=e: -z(t)[:, e], f"ship{e}") for e in range(P * K)]
    sics += [row(lambda x, t, i=i: cp.sum(z(t)[:, i * K:(i + 1) * K], axis=1) - x[i],
                 f"plant{i}") for i in range(P)]
    sics += [row(lambda x, t, j=j: t[:, j] - cp.sum(z(t)[:, j::K], axis=1), f"customer{j}")
             for j in range(K)]
    cost = max_over(lambda x, t: pb.c @ x + z(t) @ pb.q.ravel(), x, T, vectorized=True)
    result = SemiInfiniteProgram(cp.Minimize(cost), sics).solve()
    return result.objective, result.status.value


def solve_rsome(pb: Transport):
    from rsome import lpg_solver, ro
    P, K = pb.q.shape
    model = ro.Model()
    x, z, t = model.dvar(P), model.ldr((P, K)), model.rvar(K)
    z.adapt(t)
    box = (t >= pb.lo, t <= pb.hi)
    model.minmax(pb.c @ x + (pb.q * z).sum(), box)
    model.st(x >= 0, z >= 0, z.sum(axis=1) <= x, z.sum(axis=0) >= t)
    model.solve(lpg_solver, display=False)
    return model.get(), f"HiGHS (SciPy): {model.solution.status}"


def solve_pyros(pb: Transport):
    import pyomo.environ as pe
    from pyomo.contrib import pyros
    P, K = pb.q.shape
    m = pe.ConcreteModel()
    m.x = pe.Var(range(P), bounds=(0, None))
    m.z = pe.Var(range(P), range(K), bounds=(0, None))
    m.t = pe.Param(range(K), mutable=True, initialize=dict(enumerate(0.5 * (pb.lo + pb.hi))))
    m.plant = pe.Constraint(range(P), rule=lambda m, i: sum(m.z[i, j] for j in range(K))
                            <= m.x[i])
    m.customer = pe.Constraint(range(K), rule=lambda m, j: sum(m.z[i, j] for i in range(P))
                               >= m.t[j])
    m.cost = pe.Objective(expr=sum(pb.c[i] * m.x[i] for i in range(P)) + sum(
        pb.q[i, j] * m.z[i, j] for i in range(P) for j in range(K)))
    highs = pe.SolverFactory("appsi_highs")
    res = pe.SolverFactory("pyros").solve(
        m, first_stage_variables=list(m.x.values()), second_stage_variables=list(m.z.values()),
        uncertain_params=list(m.t.values()),
        uncertainty_set=pyros.BoxSet(bounds=list(zip(pb.lo, pb.hi))),
        local_solver=highs, global_solver=highs, solve_master_globally=True,
        decision_rule_order=1, objective_focus=pyros.ObjectiveType.worst_case)
    return float(res.final_objective_value), str(res.pyros_termination_condition).split(".")[-1]


class Inventory(NamedTuple):
    """Ben-Tal, Goryashko, Guslitzer & Nemirovski's (2004) inventory: K periods, demands in
    [lo, hi], orders in [0, cap] at cost 1, holding 2 and backlog 5 per unit."""
    K: int
    lo: float = 80.0
    hi: float = 120.0
    cap: float = 150.0


def inventory_reference(pb: Inventory) -> float:
    """The non-anticipative program at the 2^K corners, in cvxpy (HiGHS, a vertex)."""
    D = np.array(list(itertools.product((pb.lo, pb.hi), repeat=pb.K)))
    q0, y0 = cp.Variable(pb.K), cp.Variable(pb.K)
    qa, ya = [cp.Variable(k) for k in range(pb.K)], [cp.Variable(k + 1) for k in range(pb.K)]
    q = [q0[k] + (D[:, :k] @ qa[k] if k else 0) for k in range(pb.K)]
    y = [y0[k] + D[:, :k + 1] @ ya[k] for k in range(pb.K)]
    tau, rows = cp.Variable(), []
    for k in range(pb.K):
        stock = sum(q[:k + 1]) - D[:, :k + 1].sum(1)
        rows += [y[k] >= 2 * stock, y[k] >= -5 * stock, q[k] >= 0, q[k] <= pb.cap]
    problem = cp.Problem(cp.Minimize(tau), rows + [sum(q) + sum(y) <= tau])
    problem.solve(solver="HIGHS")
    return float(problem.value)


def solve_inventory_sipkl(pb: Inventory):
    T = Box(np.full(pb.K, pb.lo), np.full(pb.K, pb.hi))
    orders = [decision_rule(1, T, depends_on=range(k)) for k in range(1, pb.K)]
    costs = [decision_rule(1, T, depends_on=range(k + 1)) for k in range(pb.K)]
    now = cp.Variable()

    def q(x, t):  # every period's order at the points t: (m, K)
        return cp.hstack([cp.multiply(np.ones((len(t), 1)), x)] + [rule(t) for rule in orders])

    def stock(x, t):  # the inventory after each period
        return cp.cumsum(q(x, t) - t, axis=1)

    def y(t):
        return cp.hstack([rule(t) for rule in costs])
    sics = [SemiInfiniteConstraint(g, now, T, vectorized=True) for g in [
        *(lambda x, t, k=k: 2 * stock(x, t)[:, k] - y(t)[:, k] for k in range(pb.K)),
        *(lambda x, t, k=k: -5 * stock(x, t)[:, k] - y(t)[:, k] for k in range(pb.K)),
        *(lambda x, t, k=k: -q(x, t)[:, k] for k in range(1, pb.K)),
        *(lambda x, t, k=k: q(x, t)[:, k] - pb.cap for k in range(1, pb.K))]]
    total = max_over(lambda x, t: cp.sum(q(x, t) + y(t), axis=1), now, T, vectorized=True)
    result = SemiInfiniteProgram(cp.Minimize(total), sics, [now >= 0, now <= pb.cap]).solve()
    return result.objective, result.status.value


def solve_inventory_rsome(pb: Inventory):
    from rsome import lpg_solver, ro
    model = ro.Model()
    d, q, y = model.rvar(pb.K), model.ldr(pb.K), model.ldr(pb.K)
    for k in range(pb.K):
        if k:
            q[k].adapt(d[:k])
        y[k].adapt(d[:k + 1])
    box = (d >= pb.lo, d <= pb.hi)
    model.minmax(q.sum() + y.sum(), box)
    for k in range(pb.K):
        stock = q[:k + 1].sum() - d[:k + 1].sum()
        model.st((y[k] >= 2 * stock).forall(box), (y[k] >= -5 * stock).forall(box))
    model.st((q >= 0).forall(box), (q <= pb.cap).forall(box))
    model.solve(lpg_solver, display=False)
    return model.get(), f"HiGHS (SciPy): {model.solution.status}"


def run(tools, pb: Transport, f_ref: float, repeats: int) -> list:
    """Per tool: the median time of ``repeats`` runs, the error and the status, or "—" with
    the error a tool raised (the turns of ``sip_robust.take_turns``)."""
    times, answers = take_turns(tools, pb, repeats)
    row = []
    for tool in tools:
        if isinstance(answers[tool], Exception):
            row += ["—", "—", f"error: {type(answers[tool]).__name__}"]
            continue
        f, status = answers[tool]
        row += [f"{statistics.median(times[tool]):.3f}",
                f"{abs(f - f_ref) / max(1.0, abs(f_ref)):.1e}", status]
    return row


def main(argv=None):
    from importlib.metadata import version
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(HERE / "results" / "sip_adjustable.md"))
    parser.add_argument("--problems", nargs="+", default=["transport", "inventory"],
                        choices=["transport", "inventory"])
    args = parser.parse_args(argv)
    logging.getLogger("pyomo.contrib.pyros").setLevel(logging.ERROR)
    lines = [f"Machine: {os.cpu_count()} CPUs, {platform.platform()}, Python "
             f"{platform.python_version()}; sipkl {version('sipkl')}, RSOME {version('rsome')}, "
             f"Pyomo {version('pyomo')}. Times: median of {args.repeats} runs (s; the tools "
             "take turns), model building included; error = |f − f_ref| / max(1, |f_ref|)."]
    if "transport" in args.problems:
        lines += ["", "| plants × customers | rule coefficients | reference f | sipkl time "
                  "| error | status | RSOME time | error | status | PyROS time | error | "
                  "termination |", "|" + "---|" * 12]
    print("\n".join(lines), flush=True)
    for plants, customers in SIZES if "transport" in args.problems else ():
        pb = instance(plants, customers)
        f_ref = reference(pb)
        row = [f"{plants} × {customers}", str(plants * customers * (customers + 1)),
               f"{f_ref:.10g}"]
        row += run((solve_sipkl, solve_rsome, solve_pyros), pb, f_ref, args.repeats)
        lines.append("| " + " | ".join(row) + " |")
        print(lines[-1], flush=True)
    if "inventory" in args.problems:
        lines += ["", "| inventory periods K | reference f | sipkl time | error | status | "
                  "RSOME time | error | status |", "|" + "---|" * 8]
        print("\n".join(lines[-3:]), flush=True)
    for K in INVENTORY_PERIODS if "inventory" in args.problems else ():
        pb = Inventory(K)
        corners = K <= CORNER_PERIODS
        f_ref = inventory_reference(pb) if corners else solve_inventory_rsome(pb)[0]
        answers = run((solve_inventory_sipkl, solve_inventory_rsome), pb, f_ref, args.repeats)
        lines.append("| " + " | ".join([str(K), f"{f_ref:.10g}" + (
            "" if corners else " (RSOME's: 2^K corners are too many)")] + answers) + " |")
        print(lines[-1], flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
