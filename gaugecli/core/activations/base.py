"""The Activation interface: σ, its derivative, and its Gaussian kernel with closed-form derivatives.

For an activation ``σ`` and ``x ~ N(0, I_d)`` the population quantities of the network
``f(x) = Σ_j a_j σ(w_j·x)`` are sums of the kernel

    K(w, w') = E[σ(w·x) σ(w'·x)],

which depends on ``w, w'`` only through ``‖w‖², ‖w'‖²`` and ``w·w'`` (the covariance of the jointly
Gaussian pair ``(w·x, w'·x)``). An :class:`Activation` supplies ``K``, its gradient in the first
argument ``∂K/∂w`` and the two Hessian blocks ``(∂²K/∂w², ∂²K/∂w∂w')``, all in closed form and
finite at ``φ = 0`` (duplicate neurons) and ``φ = π`` (antipodal ones).

Shapes follow :mod:`gaugecli.core.kernels.arccos`: ``W1`` is ``(..., p, d)`` and ``W2`` is ``(..., q, d)``;
``kernel`` is ``(..., p, q)``, ``kernel_grad`` ``(..., p, q, d)`` and each Hessian block
``(..., p, q, d, d)``, indexed ``[..., i, j, a, b] = ∂²K(w1_i, w2_j)/∂w_a ∂w_b`` (resp. ``∂w_a ∂w'_b``).
Leading axes broadcast.

The helpers below are the pair-broadcasting conventions every activation shares.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from gaugecli.core.types import Array

if TYPE_CHECKING:  # torch is imported lazily by sigma_torch: the kernels do not need it
    import torch


class Activation(ABC):
    """An elementwise activation ``σ`` with its Gaussian kernel ``K(w, w') = E[σ(w·x) σ(w'·x)]``.

    ``degree`` is the homogeneity degree ``p`` (``σ(cz) = c^p σ(z)`` for every ``c > 0``), or
    ``None`` when ``σ`` is not positively homogeneous. For degree ``p`` the kernel is
    ``‖w‖^p ‖w'‖^p g(φ)`` and the neuron ``a σ(w·x)`` has the gauge ``(a, w) → (a/λ^p, λw)``.
    """

    name: ClassVar[str]
    degree: ClassVar[int | None]
    even: ClassVar[bool] = False
    """``σ(−z) = σ(z)``: the neuron ``a σ(w·x)`` is also ``a σ(−w·x)``, so ``u`` and ``−u`` are one feature."""

    @abstractmethod
    def sigma(self, z: Array) -> Array:
        """``σ(z)`` elementwise."""

    @abstractmethod
    def derivative(self, z: Array) -> Array:
        """``σ'(z)`` elementwise (at a kink, the value torch's autograd uses)."""

    @abstractmethod
    def sigma_torch(self, z: torch.Tensor) -> torch.Tensor:
        """``σ(z)`` on a torch tensor (differentiable by autograd)."""

    @abstractmethod
    def derivative_torch(self, z: torch.Tensor) -> torch.Tensor:
        """``σ'(z)`` on a torch tensor (the finite-sample gradients are written with it, not autograd)."""

    def curvature_torch(self, z: torch.Tensor) -> torch.Tensor | None:
        """``σ''(z)`` on a torch tensor, or ``None`` where it vanishes off a null set (a piecewise-linear
        σ): the finite-sample Hessian then skips its ``a σ'' x xᵀ`` term."""
        return None

    @abstractmethod
    def kernel(self, W1: Array, W2: Array) -> Array:
        """``K(w1_i, w2_j) = E[σ(w1_i·x) σ(w2_j·x)]`` for all pairs, shape ``(..., p, q)``."""

    @abstractmethod
    def kernel_grad(self, W1: Array, W2: Array) -> Array:
        """``∂K/∂w`` (first argument) for all pairs, shape ``(..., p, q, d)``."""

    @abstractmethod
    def kernel_hessians(self, W1: Array, W2: Array) -> tuple[Array, Array]:
        """``(∂²K/∂w², ∂²K/∂w∂w')`` for all pairs, each ``(..., p, q, d, d)``."""

    def kernel_and_grad(self, W1: Array, W2: Array) -> tuple[Array, Array]:
        """``(K, ∂K/∂w)`` together: the gradient's hot path (an activation may share their geometry)."""
        return self.kernel(W1, W2), self.kernel_grad(W1, W2)

    def kernel_and_grad_sum(self, W1: Array, W2: Array, weights: Array) -> tuple[Array, Array]:
        """``(K, Σ_j c_j ∂K(w1_i, w2_j)/∂w1_i)`` for weights ``c (..., q)``: the population gradient's
        contraction, shape ``(..., p, d)`` (an activation may form it without the pairs' gradients)."""
        return kernel_and_grad_sum(self, W1, W2, weights)

    @property
    def homogeneous(self) -> bool:
        """``σ(λz) = λ^p σ(z)`` for ``λ > 0``: the neuron has a gauge and ``δ = a² − ‖w‖²/p`` is conserved."""
        return self.degree is not None

    @property
    def gauge_degree(self) -> int:
        """The ``p`` of the gauge quantities ``δ = a² − ‖w‖²/p`` and ``c = a‖w‖^p``: the degree, and 1
        for an activation that has none (its δ and c are then the ReLU network's, not conserved)."""
        return self.degree if self.degree is not None else 1

    def parts(self) -> tuple[str, tuple[float, float]] | None:
        """σ in a family whose cross kernels are closed forms (:mod:`~gaugecli.core.activations.cross`):
        ``("relu", (α, β))`` for ``σ = α relu + β id``, ``("relu2", (A, B))`` for
        ``σ(z) = A relu(z)² + B relu(−z)²``; ``None``: none (it can teach only a student like itself)."""
        return None

    def describe(self) -> str:
        """Its name with its parameters as a reader writes them: ``leaky-relu (β = 0.01)``."""
        return self.name


# ----------------------------------------------------------------------------------------
# pair broadcasting shared by the activations


def kernel_and_grad_sum(kernel: Any, W1: Array, W2: Array, weights: Array) -> tuple[Array, Array]:
    """``(K, Σ_j c_j ∂K(w1_i, w2_j)/∂w1_i)`` from ``kernel.kernel_and_grad``'s pair gradients (the
    general route; :class:`Activation.kernel_and_grad_sum` and the cross kernels use it)."""
    K, G = kernel.kernel_and_grad(W1, W2)
    return K, np.einsum("...jid,...i->...jd", G, weights)


def pair_shape(W1: Array, W2: Array) -> tuple[int, ...]:
    """``(..., p, q)``: the broadcast leading axes followed by the pair axes."""
    return np.broadcast_shapes(W1.shape[:-2], W2.shape[:-2]) + (W1.shape[-2], W2.shape[-2])


def inner(W1: Array, W2: Array) -> Array:
    """``w1_i·w2_j`` for all pairs, ``(..., p, q)``."""
    return W1 @ np.swapaxes(W2, -1, -2)


def squared_norms(W: Array) -> Array:
    """``‖w_i‖²``, ``(..., p)``."""
    return np.einsum("...i,...i->...", W, W)


def left(W1: Array) -> Array:
    """``w1_i`` placed on the pair axes: ``(..., p, 1, d)``."""
    return W1[..., :, None, :]


def right(W2: Array) -> Array:
    """``w2_j`` placed on the pair axes: ``(..., 1, q, d)``."""
    return W2[..., None, :, :]


def outer(a: Array, b: Array) -> Array:
    """``a bᵀ`` over the last axis: ``(..., d) × (..., d) → (..., d, d)``."""
    return a[..., :, None] * b[..., None, :]


def filled(shape: tuple[int, ...], block: Array) -> Array:
    """A writable array of ``shape`` holding ``block`` broadcast (pair-independent outputs)."""
    return np.array(np.broadcast_to(block, shape), dtype=np.float64)
