"""What each master hands the estimators to predict with: one typed model per master
(:attr:`sipkl.core.contracts.MasterSolution.model`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np


@dataclass
class HingeModel:
    """The SVM of the combined kernel K(d) (the hinge-loss masters): the dual α, the bias b,
    the labels y in {−1, +1} and C; predict with Σ_i α_i y_i K(d)(x_i, ·) + b."""

    alpha: np.ndarray
    bias: float
    y: np.ndarray
    C: float


@dataclass
class SquareLossModel:
    """The kernel ridge regression of Argyriou et al.'s square-loss master: predict with
    Σ_j α_j K(x_j, ·); c = c_K of eq. (16), μ, and the line searches taken."""

    alpha: np.ndarray
    c: np.ndarray
    mu: float
    line_searches: int


@dataclass
class NKRRModel:
    """The non-linear combination's kernel ridge regression (Cortes et al.): predict with
    Σ_j α_j K_µ(x_j, ·); the degree of the combination and the last step η."""

    alpha: np.ndarray
    degree: int
    eta: float


@dataclass
class AlignmentModel:
    """The centred alignment of the combined kernel (the alignment masters; the kernel itself
    is the prediction model, two-stage): ``v`` the non-negative combination of alignf,
    ``ridge`` and ``steps`` the ε of K₀ = εI and the step sizes of FSAM."""

    alignment: float
    v: Optional[np.ndarray] = None
    ridge: Optional[float] = None
    steps: Optional[np.ndarray] = None
