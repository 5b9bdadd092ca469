"""The random starts of ``gaugecli predict``: Gaussian weights as a practitioner draws them, with δ as
drawn or set apart from the visible function, in the coordinates of each start's invariant subspace.

A start of ``m`` neurons for a teacher of ``k`` features ``v_l = e_l`` is drawn from
``default_rng(SeedSequence(seed, spawn_key=(k, m)))``: ``ã_j ~ N(0, σ_a²)``, ``w_j ~ N(0, σ_w² I/d)``
and ``ξ_j ~ N(0, 1)``, in that order; the output weights are ``a_j = |ã_j|`` (or ``ã_j``: signs below). Its visible function is
``c_j = a_j‖w_j‖``, ``u_j = w_j/‖w_j‖``. Its gauge is either **natural**, ``δ_j = a_j² − ‖w_j‖²`` (the
draw's own), or **set apart**, ``δ_j = ρ σ_vis ξ_j`` with ``σ_vis = σ_a σ_w/√d`` (the spread of
``c_j α_jk``), the parameters rebuilt from ``(c_j, u_j, δ_j)`` — the same visible function for every
ρ (claim C1), and the same ``ξ`` (common random numbers across the spreads).

**Signs.** By default ``a_j = |ã_j|``; with ``mixed_signs`` the drawn sign is kept. A neuron with
``a < 0 < δ`` keeps ``a² ≥ δ > 0`` and can never change sign; it can reach ``w = 0``, the ReLU's kink,
where the population flow absorbs it and lets it go again (:mod:`gaugecli.core.integrate.absorption`). An
empirical loss's flow has no such rule (its solver stalls at the kink), so mixed signs are for the
population flow.

**Coordinates.** The population flow stays in ``S = span(v_1 … v_k, w_1 … w_m)`` (docs/theory.md §5) and depends
on inner products only. With ``W = [W_∥, W_⊥]`` (the first ``k`` coordinates and the rest) and the QR
factorisation ``W_⊥ᵀ = Q R``, the coordinates ``[W_∥, Rᵀ]`` (``r = k + m``) have the same Gram matrix
with each other and with the teacher, whose directions stay ``e_1 … e_k`` — one model for every start
of a cell, so that its starts integrate as one ensemble in ``r`` dimensions instead of ``d``.
"""

from __future__ import annotations

import numpy as np

from gaugecli.core.model.gauge import function_coordinates, imbalance, parameters_from_function
from gaugecli.core.model.state import Network
from gaugecli.core.types import Array


def gaussian_start(
    seed: int,
    k: int,
    m: int,
    d: int,
    scale_a: float,
    scale_w: float,
    spread: float | None,
    mixed_signs: bool = False,
) -> tuple[Array, Array]:
    """``(a (m,), W (m, d))`` of one start (module docstring); ``spread``: ρ, or ``None`` for δ as drawn;
    ``mixed_signs``: ``a_j = ã_j`` as drawn instead of ``|ã_j|``."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(k, m)))
    a = rng.normal(0.0, scale_a, m)
    if not mixed_signs:
        a = np.abs(a)
    W = rng.normal(0.0, scale_w / np.sqrt(d), (m, d))
    xi = rng.standard_normal(m)
    if spread is None:
        return a, W
    c, U = function_coordinates(Network(a, W))
    return parameters_from_function(c, U, spread * scale_a * scale_w / np.sqrt(d) * xi)


def subspace_coordinates(W: Array, k: int) -> Array:
    """``[W_∥, Rᵀ]`` (module docstring), shape ``(m, min(d, k + m))``; ``W`` itself when ``k + m ≥ d``."""
    m, d = W.shape
    if k + m >= d:
        return np.asarray(W, float)
    _, R = np.linalg.qr(W[:, k:].T)  # W_⊥ᵀ = Q R, Q (d − k, m): W_⊥ Q = Rᵀ
    return np.concatenate([W[:, :k], R.T], axis=1)


def draw(
    seeds: list[int],
    k: int,
    m: int,
    d: int,
    scale_a: float,
    scale_w: float,
    spread: float | None,
    mixed_signs: bool = False,
) -> tuple[Array, Array, Array]:
    """The starts of ``seeds`` in subspace coordinates: ``(a0 (B, m), W0 (B, m, r), δ (B, m))``."""
    starts = [gaussian_start(s, k, m, d, scale_a, scale_w, spread, mixed_signs) for s in seeds]
    a0 = np.stack([a for a, _ in starts])
    W0 = np.stack([subspace_coordinates(W, k) for _, W in starts])
    return a0, W0, imbalance(Network(a0, W0))
