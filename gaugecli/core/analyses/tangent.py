"""The network's tangent kernel ``K(x, x') = ∇_θ f(x) · ∇_θ f(x')`` on a set of probe inputs, and two
measures of how it moves between parameter points ``θ₀`` and ``θ₁``.

For ``f(x) = Σ_j a_j σ(w_j·x)`` and ``θ = (a, W)`` the gradient at ``x`` has the entries
``∂f/∂a_j = σ(w_j·x)`` and ``∂f/∂w_j = a_j σ'(w_j·x) x``, so on probes ``X (P, d)`` the kernel
``K = J Jᵀ (P, P)``, ``J`` the ``P × m(d+1)`` Jacobian, is in closed form

    K = S Sᵀ + ((σ'(Z) · a²) σ'(Z)ᵀ) ∘ (X Xᵀ),    Z = X Wᵀ,  S = σ(Z),

computed without forming ``J``. The two measures:

* :func:`kernel_change`, ``‖K(θ₁) − K(θ₀)‖_F / ‖K(θ₀)‖_F``: the kernel's relative Frobenius change.
  It is 0 when the kernel does not move, but it counts a change of the kernel's *size* as fully as
  a change of its *shape*: a kernel that grows c-fold without turning reads ``c − 1``. It is not a
  rich/lazy measure.
* :func:`kernel_distance_cos`, ``S = 1 − ⟨K(θ₁), K(θ₀)⟩_F / (‖K(θ₁)‖_F ‖K(θ₀)‖_F)``: the cosine
  kernel distance of Kunin et al. (2024, "Get rich quick", their ``kernel_distance`` on the training
  set). It is blind to the kernel's scale, 0 for a kernel that only rescales (lazy) and grows
  towards 1 as the kernel turns (rich); for positive semidefinite kernels ``S ∈ [0, 1]``.
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


def _change(K0: Array, K1: Array) -> float:
    return float(np.linalg.norm(K1 - K0) / np.linalg.norm(K0))


def _distance_cos(K0: Array, K1: Array) -> float:
    cosine = np.vdot(K1, K0) / (np.linalg.norm(K1) * np.linalg.norm(K0))
    return float(1.0 - cosine)


def kernel_change(theta0: Network, theta1: Network, X: Array, activation: Activation) -> float:
    """``‖K(θ₁) − K(θ₀)‖_F / ‖K(θ₀)‖_F`` on the probes ``X``, ``θ = (a (m,), W (m, d))``: the
    kernel's relative change, its growth in size included."""
    return _change(tangent_kernel(theta0, X, activation), tangent_kernel(theta1, X, activation))


def kernel_distance_cos(theta0: Network, theta1: Network, X: Array, activation: Activation) -> float:
    """Kunin et al.'s ``S = 1 − ⟨K(θ₁), K(θ₀)⟩_F / (‖K(θ₁)‖_F ‖K(θ₀)‖_F)`` on the inputs ``X``
    (their training set, or probes), ``θ = (a (m,), W (m, d))``: how far the kernel turned,
    whatever its size."""
    return _distance_cos(tangent_kernel(theta0, X, activation), tangent_kernel(theta1, X, activation))


def kernel_measures(theta0: Network, theta1: Network, X: Array, activation: Activation) -> tuple[float, float]:
    """``(kernel_change, kernel_distance_cos)`` of the same two kernels, each computed once (the same
    arithmetic as the two functions, half the kernels)."""
    K0, K1 = tangent_kernel(theta0, X, activation), tangent_kernel(theta1, X, activation)
    return _change(K0, K1), _distance_cos(K0, K1)
