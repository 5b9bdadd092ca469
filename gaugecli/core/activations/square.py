"""Square ``σ(z) = z²`` (degree 2): the Gaussian fourth-moment kernel.

By Isserlis' theorem, for ``u = w·x`` and ``v = w'·x``, ``E[u²v²] = E[u²]E[v²] + 2E[uv]²``, so with
``c = w·w'``

    K(w, w') = ‖w‖²‖w'‖² + 2c² = ‖w‖²‖w'‖² (1 + 2 cos²φ),
    ∂K/∂w = 2‖w'‖² w + 4c w',
    ∂²K/∂w² = 2‖w'‖² I + 4 w' w'ᵀ,      ∂²K/∂w∂w' = 4c I + 4 w w'ᵀ + 4 w' wᵀ.

A polynomial in ``w, w'``: no angle, nothing singular at ``φ = 0`` or ``π``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from gaugecli.core.activations.base import Activation, filled, inner, left, outer, pair_shape, right, squared_norms
from gaugecli.core.types import Array

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class Square(Activation):
    """``σ(z) = z²``, ``σ'(z) = 2z``."""

    name: ClassVar[str] = "square"
    degree: ClassVar[int | None] = 2
    even: ClassVar[bool] = True

    def parts(self) -> tuple[str, tuple[float, float]] | None:
        return "relu2", (1.0, 1.0)

    def sigma(self, z: Array) -> Array:
        return np.asarray(z) ** 2

    def derivative(self, z: Array) -> Array:
        return 2.0 * np.asarray(z)

    def sigma_torch(self, z: torch.Tensor) -> torch.Tensor:
        return z**2

    def derivative_torch(self, z: torch.Tensor) -> torch.Tensor:
        return 2.0 * z

    def curvature_torch(self, z: torch.Tensor) -> torch.Tensor | None:
        import torch

        return torch.full_like(z, 2.0)

    def kernel(self, W1: Array, W2: Array) -> Array:
        c = inner(W1, W2)
        return squared_norms(W1)[..., :, None] * squared_norms(W2)[..., None, :] + 2.0 * c**2

    def kernel_grad(self, W1: Array, W2: Array) -> Array:
        c = inner(W1, W2)[..., None]
        n2sq = squared_norms(W2)[..., None, :, None]
        return 2.0 * n2sq * left(W1) + 4.0 * c * right(W2)

    def kernel_hessians(self, W1: Array, W2: Array) -> tuple[Array, Array]:
        d = W1.shape[-1]
        c = inner(W1, W2)[..., None, None]
        eye = np.eye(d)
        w1, w2 = left(W1), right(W2)
        n2sq = squared_norms(W2)[..., None, :, None, None]
        # ∂²K/∂w² does not depend on w: broadcast it onto the p axis so both blocks are (..., p, q, d, d)
        h11 = filled(pair_shape(W1, W2) + (d, d), 2.0 * n2sq * eye + 4.0 * outer(w2, w2))
        h12 = 4.0 * c * eye + 4.0 * outer(w1, w2) + 4.0 * outer(w2, w1)
        return h11, h12
