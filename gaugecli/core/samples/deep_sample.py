"""The empirical loss of a network with several hidden layers on a fixed Gaussian sample, its gradient
by backpropagation, and the Monte Carlo error of the loss as an estimate of the population loss.

Past the first layer the population loss ``L(θ) = ½ E_x[(f(x) − y(x))²]`` has no closed form (the
arc-cosine kernel composes only for the first layer), so a deeper network trains on a fixed large
sample ``X ∈ ℝ^{n×d}``, ``x_s ~ N(0, I)``, float64, labelled by a teacher of the same form:

    L_n(θ) = (1/2n) Σ_s (f(x_s) − y_s)²,

an unbiased estimate of ``L(θ)`` with standard error ``sd_s(½(f(x_s) − y_s)²)/√n``
(:meth:`DeepSample.loss_error`). The balances' conservation (:mod:`gaugecli.core.model.deep`) holds for
``L_n`` exactly as for ``L``: each per-sample loss is invariant under every rescaling.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaugecli.core.model.deep import DeepNetwork
from gaugecli.core.types import Array


@dataclass(frozen=True)
class DeepSample:
    """Inputs ``X (n, d)`` and labels ``y (n,)``."""

    X: Array
    y: Array

    @classmethod
    def draw(cls, teacher: DeepNetwork, n: int, seed: int) -> DeepSample:
        """``n`` standard normal inputs from numpy's generator seeded ``seed``, labelled by ``teacher``."""
        X = np.random.default_rng(seed).standard_normal((n, teacher.widths[0]))
        return cls(X, teacher(X))

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    def loss(self, net: DeepNetwork) -> float:
        """``L_n(θ) = (1/2n) Σ_s (f(x_s) − y_s)²``."""
        return float(0.5 * np.mean((net(self.X) - self.y) ** 2))

    def loss_error(self, net: DeepNetwork) -> float:
        """The Monte Carlo standard error of ``L_n`` as an estimate of ``L``: ``sd(½ r_s²)/√n``."""
        return float(np.std(0.5 * (net(self.X) - self.y) ** 2, ddof=1) / np.sqrt(self.n))

    def gradient(self, net: DeepNetwork) -> tuple[DeepNetwork, float]:
        """``∇L_n`` (as a :class:`DeepNetwork` of the same shapes) and ``L_n``, by backpropagation with
        ``σ'(0) = 0``. With ``z^ℓ = h^{ℓ−1} W_ℓᵀ``, ``h^ℓ = σ(z^ℓ)`` and ``r = (f − y)/n``:
        ``∂L/∂a = h^Lᵀ r``, ``g^L = r aᵀ ⊙ [z^L > 0]``, ``∂L/∂W_ℓ = g^ℓᵀ h^{ℓ−1}``,
        ``g^{ℓ−1} = (g^ℓ W_ℓ) ⊙ [z^{ℓ−1} > 0]``."""
        hs = [self.X]
        for W in net.weights:
            hs.append(np.maximum(hs[-1] @ W.T, 0.0))
        residual = hs[-1] @ net.a - self.y
        r = residual / self.n
        grad_a = hs[-1].T @ r
        g = np.outer(r, net.a) * (hs[-1] > 0)
        grads: list[Array] = []
        for ell in range(net.depth, 0, -1):
            grads.append(g.T @ hs[ell - 1])
            if ell > 1:
                g = (g @ net.weights[ell - 1]) * (hs[ell - 1] > 0)
        return DeepNetwork(tuple(reversed(grads)), grad_a), float(0.5 * np.mean(residual**2))

    def gradient_flat(self, z: Array, widths: tuple[int, ...]) -> Array:
        """``∇L_n`` at the flattened θ ``z`` (:meth:`DeepNetwork.flatten` order), flattened."""
        grad, _ = self.gradient(DeepNetwork.unflatten(z, widths))
        return grad.flatten()
