"""Index sets as conic programs' data: what an exact robust counterpart is made of.

A convex index set ``T = {c + F z : z ∈ Z}`` (c its centre, F its frame) states Z as

    Z = {z ∈ R^p : ∃ u ∈ R^k,  h − G z − H u ∈ K},      K = R₊^m × Q^{q₁} × … × Q^{q_s},

Q^q = {(s₀, s) ∈ R × R^{q−1} : ‖s‖₂ ≤ s₀} the second-order cone (:class:`ConicForm`, the
rows of the nonnegative orthant first). Its support function is then a conic program's
value, by conic duality (Ben-Tal, El Ghaoui and Nemirovski, "Robust optimization", 2009,
ch. 1–2; K is self-dual, and the duality is strong where Z has an interior point or K is
polyhedral):

    max_{z ∈ Z} Δᵀz  =  min { hᵀy :  Gᵀy = Δ,  Hᵀy = 0,  y ∈ K }.              (D)

(Weak duality in one line: Δᵀz = yᵀGz = yᵀh − yᵀ(h − Gz − Hu) ≤ hᵀy for y ∈ K, z ∈ Z.)
A constraint g(x, c + Fz) = g(x, c) + Δ(x)ᵀz ≤ 0 for all z ∈ Z, Δ affine in x, is thus
g(x, c) + hᵀy ≤ 0 with (D)'s constraints: finitely many conic ones, jointly in (x, y)
(:mod:`sipkl.sip.robust`). Each set states its own form
(:meth:`~sipkl.sip.sets.base.IndexSet.conic_form`); a product stacks its blocks'
(:func:`stacked`), an intersection its parts', restated in its own frame (:func:`moved`,
:func:`intersected`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ConicForm:
    """``Z = {z : ∃u, h − G z − H u ∈ R₊^nonneg × Q^{cones[0]} × …}`` (module docstring):
    ``G`` is r × p, ``H`` r × k (k auxiliary variables u, possibly 0), ``h`` has r entries;
    the first ``nonneg`` rows lie in the orthant, the next ``cones[0]`` in a second-order
    cone (its first row the bound s₀), and so on (r = nonneg + Σ cones)."""
    G: np.ndarray
    h: np.ndarray
    nonneg: int
    cones: tuple = ()
    H: np.ndarray = None

    def __post_init__(self):
        G, h = np.asarray(self.G, dtype=float), np.asarray(self.h, dtype=float)
        H = np.zeros((len(h), 0)) if self.H is None else np.asarray(self.H, dtype=float)
        cones = tuple(int(q) for q in self.cones)
        if not (G.ndim == 2 and h.shape == (len(G),) and H.ndim == 2 and len(H) == len(G)
                and self.nonneg >= 0 and all(q >= 2 for q in cones)
                and self.nonneg + sum(cones) == len(G)):
            raise ValueError(f"ConicForm: G ({G.shape}), h ({h.shape}) and H ({H.shape}) "
                             f"must have one row per cone row (nonneg = {self.nonneg}, "
                             f"second-order cones {cones})")
        for name, value in (("G", G), ("h", h), ("H", H), ("cones", cones)):
            object.__setattr__(self, name, value)

    @property
    def rows(self) -> int:
        """r, the number of rows (and of dual variables y per constraint)."""
        return len(self.h)

    def cone_starts(self) -> list[int]:
        """The first row of each second-order cone."""
        return (self.nonneg + np.cumsum((0,) + self.cones[:-1])).tolist() if self.cones else []


def stacked(forms) -> ConicForm:
    """The form of the product Z₁ × Z₂ × … (z and u stacked block by block): G and H block
    diagonal, the orthant rows of every block first, then every block's cones."""
    return _joined(forms, product=True)


def intersected(forms) -> ConicForm:
    """The form of the intersection Z₁ ∩ Z₂ ∩ … of sets stated in the same coordinates z:
    G stacked, the auxiliary u side by side (H block diagonal), the orthant rows first."""
    return _joined(forms, product=False)


def moved(form: ConicForm, centre, frame, new_centre, new_frame) -> ConicForm:
    """``form``, stated for t = c + F z (``centre``, ``frame``), restated for
    t = c′ + F′z′ (``new_centre``, ``new_frame``): z = F⁻¹(c′ − c) + F⁻¹F′ z′."""
    M = np.linalg.solve(frame, new_frame)
    shift = np.linalg.solve(frame, np.asarray(new_centre) - np.asarray(centre))
    return ConicForm(form.G @ M, form.h - form.G @ shift, form.nonneg, form.cones, form.H)


def _joined(forms, product: bool) -> ConicForm:
    """:func:`stacked` (``product``: z block by block) or :func:`intersected` (z shared)."""
    def rows(form, part):
        cut = slice(0, form.nonneg) if part == 0 else slice(form.nonneg, form.rows)
        return form.G[cut], form.H[cut], form.h[cut]

    G, H, h = [], [], []
    widths = [f.G.shape[1] for f in forms], [f.H.shape[1] for f in forms]
    for part in (0, 1):
        for k, form in enumerate(forms):
            g_k, h_k, rhs = rows(form, part)
            G.append(_placed(g_k, k, widths[0]) if product else g_k)
            H.append(_placed(h_k, k, widths[1]))
            h.append(rhs)
    return ConicForm(np.vstack(G), np.concatenate(h), sum(f.nonneg for f in forms),
                     sum((f.cones for f in forms), ()), np.vstack(H))


def _placed(block: np.ndarray, k: int, widths: list) -> np.ndarray:
    """``block`` in the columns of the k-th of consecutive column ranges of ``widths``."""
    out = np.zeros((len(block), sum(widths)))
    start = sum(widths[:k])
    out[:, start:start + widths[k]] = block
    return out


def cube(p: int) -> ConicForm:
    """``[−1, 1]^p``: ``1 ∓ z ≥ 0``."""
    return ConicForm(np.vstack([np.eye(p), -np.eye(p)]), np.ones(2 * p), 2 * p)


def unit_ball(p: int) -> ConicForm:
    """``{‖z‖₂ ≤ 1}``: ``(1, z) ∈ Q^{p+1}``."""
    return ConicForm(np.vstack([np.zeros((1, p)), -np.eye(p)]), np.r_[1.0, np.zeros(p)], 0,
                     (p + 1,))


__all__ = ["ConicForm", "cube", "intersected", "moved", "stacked", "unit_ball"]
