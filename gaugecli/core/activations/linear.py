"""Linear ``σ(z) = z`` (degree 1): the kernel is the inner product ``K(w, w') = w·w'``.

    ∂K/∂w = w',   ∂²K/∂w² = 0,   ∂²K/∂w∂w' = I.

The ``β = 1`` end of leaky ReLU, and the reference point where no activation bends anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from gaugecli.core.activations.base import Activation, filled, inner, pair_shape, right
from gaugecli.core.types import Array

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class Linear(Activation):
    """``σ(z) = z``, ``σ'(z) = 1``."""

    name: ClassVar[str] = "linear"
    degree: ClassVar[int | None] = 1

    def parts(self) -> tuple[str, tuple[float, float]] | None:
        return "relu", (0.0, 1.0)

    def sigma(self, z: Array) -> Array:
        return np.array(z, dtype=np.float64)

    def derivative(self, z: Array) -> Array:
        return np.ones_like(z, dtype=np.float64)

    def sigma_torch(self, z: torch.Tensor) -> torch.Tensor:
        return z.clone()

    def derivative_torch(self, z: torch.Tensor) -> torch.Tensor:
        import torch

        return torch.ones_like(z)

    def kernel(self, W1: Array, W2: Array) -> Array:
        return inner(W1, W2)

    def kernel_grad(self, W1: Array, W2: Array) -> Array:
        return filled(pair_shape(W1, W2) + (W1.shape[-1],), right(W2))

    def kernel_hessians(self, W1: Array, W2: Array) -> tuple[Array, Array]:
        d = W1.shape[-1]
        shape = pair_shape(W1, W2) + (d, d)
        return np.zeros(shape), filled(shape, np.eye(d))
