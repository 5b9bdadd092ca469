"""Gaussian-CDF activation ``σ(z) = erf(z/√2) = 2Φ(z) − 1`` (not homogeneous): Williams' arcsine kernel.

With ``c = w·w'``, ``P = 1 + ‖w‖²``, ``P' = 1 + ‖w'‖²`` (the ``1`` is the erf's own Gaussian width),

    K(w, w') = (2/π) arcsin(c / √(P P')).

Since ``c² ≤ ‖w‖²‖w'‖² < P P'``, the discriminant ``D = P P' − c²`` is positive for every pair,
duplicates and antipodes included, and everything below is finite:

    ∂K/∂w = (2/π) D^{-1/2} v,   v = w' − (c/P) w,

    ∂²K/∂w²  = (2/π) D^{-1/2} (−(c/P) I − w (w'/P − 2c w/P²)ᵀ − v (P' w − c w')ᵀ / D),
    ∂²K/∂w∂w' = (2/π) D^{-1/2} (I − w wᵀ/P − v (P w' − c w)ᵀ / D),

using ``∂D/∂w = 2(P' w − c w')`` and ``∂D/∂w' = 2(P w' − c w)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from scipy.special import erf

from gaugecli.core.activations.base import Activation, inner, left, outer, right, squared_norms
from gaugecli.core.types import Array

if TYPE_CHECKING:
    import torch

_SQRT2 = math.sqrt(2.0)


def _pair_terms(W1: Array, W2: Array) -> tuple[Array, Array, Array, Array]:
    """``(c, P, P', D)`` on the pair axes ``(..., p, q)``."""
    c = inner(W1, W2)
    P1 = 1.0 + squared_norms(W1)[..., :, None]
    P2 = 1.0 + squared_norms(W2)[..., None, :]
    return c, P1, P2, P1 * P2 - c**2


@dataclass(frozen=True)
class Erf(Activation):
    """``σ(z) = erf(z/√2)``, ``σ'(z) = √(2/π) exp(−z²/2)``: a smooth odd saturating activation."""

    name: ClassVar[str] = "erf"
    degree: ClassVar[int | None] = None

    def sigma(self, z: Array) -> Array:
        return np.asarray(erf(np.asarray(z, dtype=np.float64) / _SQRT2), dtype=np.float64)

    def derivative(self, z: Array) -> Array:
        return math.sqrt(2.0 / math.pi) * np.exp(-0.5 * np.asarray(z, dtype=np.float64) ** 2)

    def sigma_torch(self, z: torch.Tensor) -> torch.Tensor:
        import torch

        return torch.erf(z / _SQRT2)

    def derivative_torch(self, z: torch.Tensor) -> torch.Tensor:
        import torch

        return math.sqrt(2.0 / math.pi) * torch.exp(-0.5 * z * z)

    def curvature_torch(self, z: torch.Tensor) -> torch.Tensor | None:
        return -z * self.derivative_torch(z)

    def kernel(self, W1: Array, W2: Array) -> Array:
        c, P1, P2, _ = _pair_terms(W1, W2)
        return (2.0 / np.pi) * np.arcsin(c / np.sqrt(P1 * P2))

    def kernel_grad(self, W1: Array, W2: Array) -> Array:
        c, P1, _, D = _pair_terms(W1, W2)
        v = right(W2) - (c / P1)[..., None] * left(W1)
        return (2.0 / np.pi) * v / np.sqrt(D)[..., None]

    def kernel_and_grad(self, W1: Array, W2: Array) -> tuple[Array, Array]:
        # kernel() and kernel_grad() from one evaluation of the pair terms (the gradient's hot path)
        c, P1, P2, D = _pair_terms(W1, W2)
        v = right(W2) - (c / P1)[..., None] * left(W1)
        return (2.0 / np.pi) * np.arcsin(c / np.sqrt(P1 * P2)), (2.0 / np.pi) * v / np.sqrt(D)[..., None]

    def kernel_hessians(self, W1: Array, W2: Array) -> tuple[Array, Array]:
        c, P1, P2, D = _pair_terms(W1, W2)
        w1, w2 = left(W1), right(W2)
        eye = np.eye(W1.shape[-1])
        v = w2 - (c / P1)[..., None] * w1
        pre = ((2.0 / np.pi) / np.sqrt(D))[..., None, None]
        c4, P14, D4 = (x[..., None, None] for x in (c, P1, D))

        dv_dw = -(c4 / P14) * eye - outer(w1, w2 / P1[..., None] - 2.0 * (c / P1**2)[..., None] * w1)
        h11 = pre * (dv_dw - outer(v, P2[..., None] * w1 - c[..., None] * w2) / D4)
        h12 = pre * (eye - outer(w1, w1) / P14 - outer(v, P1[..., None] * w2 - c[..., None] * w1) / D4)
        return h11, h12
