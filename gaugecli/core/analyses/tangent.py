"""The network's tangent kernel ``K(x, x') = ∇_θ f(x) · ∇_θ f(x')`` on a set of probe inputs, and how
far it moves between two parameter points (the rich/lazy measure of Kunin et al. 2024).

For ``f(x) = Σ_j a_j σ(w_j·x)`` and ``θ = (a, W)`` the gradient at ``x`` has the entries
``∂f/∂a_j = σ(w_j·x)`` and ``∂f/∂w_j = a_j σ'(w_j·x) x``, so on probes ``X (P, d)`` the kernel
``K = J Jᵀ (P, P)``, ``J`` the ``P × m(d+1)`` Jacobian, is in closed form

    K = S Sᵀ + ((σ'(Z) · a²) σ'(Z)ᵀ) ∘ (X Xᵀ),    Z = X Wᵀ,  S = σ(Z),

computed without forming ``J``. Its relative distance ``‖K(θ₁) − K(θ₀)‖_F / ‖K(θ₀)‖_F`` is ≈ 0 for a
lazy run (the kernel stays where it started) and O(1) for a rich one (features move).
"""

from __future__ import annotations

import numpy as np

from gaugecli.core.activations.base import Activation
from gaugecli.core.model.state import Network
from gaugecli.core.types import Array


def gaussian_probes(d: int, n: int, seed: int) -> Array:
    """``n`` probe inputs ``x ~ N(0, I_d)`` from ``default_rng(seed)``: ``X (n, d)``."""
    return np.random.default_rng(seed).standard_normal((n, d))


def tangent_kernel(theta: Network, X: Array, activation: Activation) -> Array:
    """``K = J Jᵀ (P, P)`` of ``f`` at ``θ`` (``a (m,)``, ``W (m, d)``) on the probes ``X (P, d)``."""
    a, W = theta.a, theta.W
    Z = X @ W.T
    S = activation.sigma(Z)
    G = activation.derivative(Z)
    return S @ S.T + ((G * a**2) @ G.T) * (X @ X.T)


def kernel_distance(theta0: Network, theta1: Network, X: Array, activation: Activation) -> float:
    """``‖K(θ₁) − K(θ₀)‖_F / ‖K(θ₀)‖_F`` on the probes ``X``, ``θ = (a (m,), W (m, d))``."""
    K0 = tangent_kernel(theta0, X, activation)
    K1 = tangent_kernel(theta1, X, activation)
    return float(np.linalg.norm(K1 - K0) / np.linalg.norm(K0))
