"""Leaky ReLU ``σ(z) = max(z, 0) + β min(z, 0)`` (degree 1): the arc-cosine kernel plus a linear one.

Write ``σ = (1 − β) relu + β id`` and ``u = w·x``, ``v = w'·x``. Then

    E[σ(u)σ(v)] = (1 − β)² E[relu(u) relu(v)] + β(1 − β)(E[relu(u) v] + E[u relu(v)]) + β² E[uv].

For zero-mean jointly Gaussian ``(u, v)``, ``E[relu(u) v] = E[uv 1(u > 0)] = E[uv]/2 = w·w'/2``
(the sign flip ``x → −x`` maps ``u > 0`` onto ``u < 0`` and leaves ``uv`` unchanged), so the
cross terms sum to ``β(1 − β) w·w'`` and

    K(w, w') = (1 − β)² κ(w, w') + β w·w',
    ∂K/∂w = (1 − β)² ∂κ/∂w + β w',
    ∂²K/∂w² = (1 − β)² ∂²κ/∂w²,     ∂²K/∂w∂w' = (1 − β)² ∂²κ/∂w∂w' + β I,

with ``κ`` the degree-one arc-cosine kernel of :mod:`gaugecli.core.kernels.arccos`. ``β = 0`` is ReLU and
``β = 1`` the identity. The default ``β = 0.01`` is that of ``torch.nn.LeakyReLU``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from gaugecli.core.activations.base import Activation, filled, inner, pair_shape, right
from gaugecli.core.kernels.arccos import (
    arccos_kernel,
    arccos_kernel_and_grad,
    arccos_kernel_grad,
    arccos_kernel_hessians,
)
from gaugecli.core.types import Array

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class LeakyReLU(Activation):
    """``σ(z) = z`` for ``z > 0`` and ``β z`` otherwise (``β = negative_slope``); ``σ'(0) = β`` (as torch)."""

    negative_slope: float = 0.01

    name: ClassVar[str] = "leaky-relu"
    degree: ClassVar[int | None] = 1

    def __post_init__(self) -> None:
        if not math.isfinite(self.negative_slope):
            raise ValueError(f"leaky-relu: negative_slope must be finite (got {self.negative_slope})")

    def parts(self) -> tuple[str, tuple[float, float]] | None:
        return "relu", (1.0 - self.negative_slope, self.negative_slope)

    def describe(self) -> str:
        return f"leaky-relu (β = {self.negative_slope:g})"

    def sigma(self, z: Array) -> Array:
        return np.where(z > 0.0, z, self.negative_slope * z)

    def derivative(self, z: Array) -> Array:
        return np.where(np.asarray(z) > 0.0, 1.0, self.negative_slope)

    def sigma_torch(self, z: torch.Tensor) -> torch.Tensor:
        import torch

        return torch.nn.functional.leaky_relu(z, self.negative_slope)

    def derivative_torch(self, z: torch.Tensor) -> torch.Tensor:
        import torch

        return torch.where(z > 0, torch.ones_like(z), torch.full_like(z, self.negative_slope))

    def kernel(self, W1: Array, W2: Array) -> Array:
        beta = self.negative_slope
        return (1.0 - beta) ** 2 * arccos_kernel(W1, W2) + beta * inner(W1, W2)

    def kernel_grad(self, W1: Array, W2: Array) -> Array:
        beta = self.negative_slope
        # w' on every pair: broadcast to (..., p, q, d) before adding so shapes match kernels.py
        linear = filled(pair_shape(W1, W2) + (W1.shape[-1],), right(W2))
        return (1.0 - beta) ** 2 * arccos_kernel_grad(W1, W2) + beta * linear

    def kernel_and_grad(self, W1: Array, W2: Array) -> tuple[Array, Array]:
        # the same sums as kernel() and kernel_grad(), from one pair geometry (the gradient's hot path)
        beta = self.negative_slope
        k, g = arccos_kernel_and_grad(W1, W2)
        linear = filled(pair_shape(W1, W2) + (W1.shape[-1],), right(W2))
        return (1.0 - beta) ** 2 * k + beta * inner(W1, W2), (1.0 - beta) ** 2 * g + beta * linear

    def kernel_hessians(self, W1: Array, W2: Array) -> tuple[Array, Array]:
        beta = self.negative_slope
        h11, h12 = arccos_kernel_hessians(W1, W2)
        return (1.0 - beta) ** 2 * h11, (1.0 - beta) ** 2 * h12 + beta * np.eye(W1.shape[-1])
