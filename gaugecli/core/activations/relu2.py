"""Squared ReLU ``σ(z) = max(z, 0)²`` (degree 2): the degree-two arc-cosine kernel and its derivatives.

With ``ρ = cos φ``, ``s = sin φ`` (Cho & Saul's ``J_2``, halved because their kernel is ``2E[·]``),

    K(w, w') = ‖w‖²‖w'‖² (3 s ρ + (π − φ)(1 + 2ρ²)) / (2π),

which is ``3‖w‖⁴/2 = E[relu(z)⁴]‖w‖⁴`` at duplicates and ``‖w‖²‖w'‖²/4`` at right angles.

**Gradient.** ``K`` is a function of the covariance ``(‖w‖², w·w', ‖w'‖²)`` of ``(u, v) = (w·x, w'·x)``;
Price's theorem gives ``∂K/∂(w·w') = E[σ'(u)σ'(v)] = 4κ`` (``κ`` the degree-one arc-cosine kernel),
and Euler's relation ``w·∂K/∂w = 2K`` then fixes the coefficient of ``w``:

    ∂K/∂w = A w + B w',   A = ‖w'‖² (s ρ + π − φ) / π,   B = 4κ = 2‖w‖‖w'‖ (s + (π − φ) ρ) / π,

finite everywhere: ``3‖w‖‖w'‖² ŵ`` at ``φ = 0`` and ``0`` at ``φ = π``.

**Hessians.** With ``q = ŵ' − ρŵ`` and ``q' = ŵ − ρŵ'`` (norm ``s``), ``∂φ/∂w = −q/(‖w‖ s)`` and
``dA/dφ = −2‖w'‖² s²/π``, so no ``1/s`` survives:

    ∂²K/∂w²  = A I + (2/π) (‖w'‖² s ŵ qᵀ + (π − φ) w' w'ᵀ + s ‖w'‖ w' ŵᵀ),
    ∂²K/∂w∂w' = B I + w ((2/π)(s ρ + π − φ) w' + (2/π) ‖w'‖ s q')ᵀ + (2/π) w' ((π − φ) w + s ‖w‖ ŵ')ᵀ.

The angle and ``q`` come from the pair geometry of :mod:`gaugecli.core.kernels.arccos` (``φ = atan2(‖q‖, ρ)``,
accurate at tiny angles), so ReLU and squared ReLU see the same ``φ`` bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from gaugecli.core.activations.base import Activation, left, outer, right
from gaugecli.core.kernels.arccos import _pair_geometry
from gaugecli.core.types import Array

if TYPE_CHECKING:
    import torch


def _coefficients(geo: dict[str, Array]) -> tuple[Array, Array]:
    """``(A, B)`` of ``∂K/∂w = A w + B w'``, each ``(..., p, q)``."""
    n1, n2 = geo["n1"][..., :, None], geo["n2"][..., None, :]
    s, rho, phi = geo["sin"], geo["rho"], geo["phi"]
    A = n2**2 * (s * rho + np.pi - phi) / np.pi
    B = 2.0 * n1 * n2 * (s + (np.pi - phi) * rho) / np.pi
    return A, B


def _kernel(geo: dict[str, Array]) -> Array:
    s, rho, phi = geo["sin"], geo["rho"], geo["phi"]
    scale = (geo["n1"] ** 2)[..., :, None] * (geo["n2"] ** 2)[..., None, :]
    return scale * (3.0 * s * rho + (np.pi - phi) * (1.0 + 2.0 * rho**2)) / (2.0 * np.pi)


def _grad(geo: dict[str, Array], W1: Array, W2: Array) -> Array:
    A, B = _coefficients(geo)
    return A[..., None] * left(W1) + B[..., None] * right(W2)


@dataclass(frozen=True)
class ReLU2(Activation):
    """``σ(z) = max(z, 0)²``, ``σ'(z) = 2 max(z, 0)``."""

    name: ClassVar[str] = "relu2"
    degree: ClassVar[int | None] = 2

    def parts(self) -> tuple[str, tuple[float, float]] | None:
        return "relu2", (1.0, 0.0)

    def sigma(self, z: Array) -> Array:
        return np.maximum(z, 0.0) ** 2

    def derivative(self, z: Array) -> Array:
        return 2.0 * np.maximum(z, 0.0)

    def sigma_torch(self, z: torch.Tensor) -> torch.Tensor:
        import torch

        return torch.relu(z) ** 2

    def derivative_torch(self, z: torch.Tensor) -> torch.Tensor:
        import torch

        return 2.0 * torch.relu(z)

    def curvature_torch(self, z: torch.Tensor) -> torch.Tensor | None:
        return 2.0 * (z > 0).to(z.dtype)

    def kernel(self, W1: Array, W2: Array) -> Array:
        return _kernel(_pair_geometry(W1, W2))

    def kernel_grad(self, W1: Array, W2: Array) -> Array:
        return _grad(_pair_geometry(W1, W2), W1, W2)

    def kernel_and_grad(self, W1: Array, W2: Array) -> tuple[Array, Array]:
        geo = _pair_geometry(W1, W2)  # one geometry for both: the flow's hot path
        return _kernel(geo), _grad(geo, W1, W2)

    def kernel_hessians(self, W1: Array, W2: Array) -> tuple[Array, Array]:
        geo = _pair_geometry(W1, W2)
        A, B = _coefficients(geo)
        s, rho, phi, q = geo["sin"], geo["rho"], geo["phi"], geo["q"]
        n1, n2 = geo["n1"][..., :, None], geo["n2"][..., None, :]
        u1, u2 = left(geo["U1"]), right(geo["U2"])
        w1, w2 = left(W1), right(W2)
        eye = np.eye(W1.shape[-1])
        s4, pi_phi4 = s[..., None, None], (np.pi - phi)[..., None, None]

        h11 = A[..., None, None] * eye + (2.0 / np.pi) * (
            (n2**2)[..., None, None] * s4 * outer(u1, q)
            + pi_phi4 * outer(w2, w2)
            + (s * n2)[..., None, None] * outer(w2, u1)
        )

        q_prime = u1 - rho[..., None] * u2
        grad_A_w2 = (2.0 / np.pi) * ((s * rho + np.pi - phi)[..., None] * w2 + (n2 * s)[..., None] * q_prime)  # ∂A/∂w'
        grad_B_w2 = (2.0 / np.pi) * ((np.pi - phi)[..., None] * w1 + (s * n1)[..., None] * u2)  # ∂B/∂w' = 4 ∂κ/∂w'
        h12 = B[..., None, None] * eye + outer(w1, grad_A_w2) + outer(w2, grad_B_w2)
        return h11, h12
