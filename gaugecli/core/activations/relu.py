"""ReLU ``σ(z) = max(z, 0)`` (degree 1): the arc-cosine kernel of :mod:`gaugecli.core.kernels.arccos`, unchanged.

    K(w, w') = ‖w‖‖w'‖ (sin φ + (π − φ) cos φ) / (2π),
    ∂K/∂w   = ((π − φ) w' + sin φ ‖w'‖ ŵ) / (2π).

Every method delegates to :mod:`gaugecli.core.kernels.arccos`, so the two agree bit for bit (the
Hessian blocks and their finiteness at ``φ = 0, π`` are documented there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from gaugecli.core.activations.base import Activation
from gaugecli.core.kernels.arccos import (
    arccos_kernel,
    arccos_kernel_and_grad,
    arccos_kernel_and_grad_sum,
    arccos_kernel_grad,
    arccos_kernel_hessians,
)
from gaugecli.core.types import Array

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class ReLU(Activation):
    """``σ(z) = max(z, 0)``; ``σ'(0) = 0`` (as torch)."""

    name: ClassVar[str] = "relu"
    degree: ClassVar[int | None] = 1

    def parts(self) -> tuple[str, tuple[float, float]] | None:
        return "relu", (1.0, 0.0)

    def sigma(self, z: Array) -> Array:
        return np.maximum(z, 0.0)

    def derivative(self, z: Array) -> Array:
        return (np.asarray(z) > 0.0).astype(np.float64)

    def sigma_torch(self, z: torch.Tensor) -> torch.Tensor:
        import torch

        return torch.relu(z)

    def derivative_torch(self, z: torch.Tensor) -> torch.Tensor:
        return (z > 0).to(z.dtype)

    def kernel(self, W1: Array, W2: Array) -> Array:
        return arccos_kernel(W1, W2)

    def kernel_grad(self, W1: Array, W2: Array) -> Array:
        return arccos_kernel_grad(W1, W2)

    def kernel_hessians(self, W1: Array, W2: Array) -> tuple[Array, Array]:
        return arccos_kernel_hessians(W1, W2)

    def kernel_and_grad(self, W1: Array, W2: Array) -> tuple[Array, Array]:
        return arccos_kernel_and_grad(W1, W2)

    def kernel_and_grad_sum(self, W1: Array, W2: Array, weights: Array) -> tuple[Array, Array]:
        return arccos_kernel_and_grad_sum(W1, W2, weights)
