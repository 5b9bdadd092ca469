"""The network's tangent kernel on a fixed, seeded probe set, and how far it moves over a run:
the rich/lazy measure of Kunin et al. (2024), ``‖K(t_end) − K(0)‖_F / ‖K(0)‖_F``.

For ``f(x) = Σ_j a_j σ(w_j·x)`` the Jacobian with respect to ``θ = (a, W)`` at a probe ``x`` has the
entries ``∂f/∂a_j = σ(w_j·x)`` and ``∂f/∂w_j = a_j σ'(w_j·x) x``, so the kernel ``K = J Jᵀ`` on the
probes ``X (P, d)`` is, in closed form,

    K = S Sᵀ + ((σ'(Z) · a²) σ'(Z)ᵀ) ∘ (X Xᵀ),    Z = X Wᵀ,  S = σ(Z),

without forming ``J`` (``P × m(d+1)``). A lazy run keeps ``K`` where it started (distance ≈ 0); a
rich run moves its features and its kernel (distance O(1)).
"""

from __future__ import annotations

import numpy as np

from gaugecli.core.activations.base import Activation
from gaugecli.core.types import Array

PROBES = 256
"""Probe points of the kernel: ``x ~ N(0, I_d)``, drawn once from :data:`PROBE_SEED`."""
PROBE_SEED = 20240601
"""The seed of the probe set (fixed: every cell of every map sees the same probes)."""


def probes(d: int, n: int = PROBES, seed: int = PROBE_SEED) -> Array:
    """The probe set ``X (n, d)``."""
    return np.random.default_rng(seed).standard_normal((n, d))


def tangent_kernel(a: Array, W: Array, X: Array, activation: Activation) -> Array:
    """``K = J Jᵀ (P, P)`` of ``f`` at ``a (m,)``, ``W (m, d)`` on the probes ``X (P, d)``."""
    Z = X @ W.T
    S = activation.sigma(Z)
    G = activation.derivative(Z)
    return S @ S.T + ((G * a**2) @ G.T) * (X @ X.T)


def kernel_distance(a0: Array, W0: Array, a1: Array, W1: Array, X: Array, activation: Activation) -> float:
    """``‖K(θ₁) − K(θ₀)‖_F / ‖K(θ₀)‖_F`` on the probes ``X``."""
    K0 = tangent_kernel(a0, W0, X, activation)
    K1 = tangent_kernel(a1, W1, X, activation)
    return float(np.linalg.norm(K1 - K0) / np.linalg.norm(K0))
