"""The hidden gauge: function coordinates ``(c, u)`` and the imbalance ``δ``.

Each neuron ``a relu(w·x)`` is the function ``c relu(u·x)`` with coefficient
``c = a‖w‖`` and direction ``u = w/‖w‖``. The rescaling ``(a, w) → (a/λ, λw)``
leaves ``(c, u)`` unchanged; the imbalance ``δ = a² − ‖w‖²`` (conserved by gradient
flow) fixes it. Given ``(c, u, δ)`` the parameters are unique:

    ‖w‖² = (−δ + √(δ² + 4c²)) / 2,   a = sign(c) √(δ + ‖w‖²),   w = ‖w‖ u.
"""

from __future__ import annotations

from enum import Enum

import numpy as np

from gaugecli.core.teacher import Teacher
from gaugecli.core.types import Array


class Gauge(str, Enum):
    """Named gauges; the gauge strength ``D > 0`` sets the size of ``δ``."""

    favorable = "favorable"  # δ = +D: output-heavy, large |a| and small ‖w‖
    unfavorable = "unfavorable"  # δ = −D: input-heavy
    balanced = "balanced"  # δ = 0


_SIGN = {Gauge.favorable: 1.0, Gauge.unfavorable: -1.0, Gauge.balanced: 0.0}


def gauge_imbalance(gauge: Gauge | str | float, strength: float) -> float:
    """δ for a gauge word (scaled by ``strength`` = D) or an explicit signed δ."""
    if isinstance(gauge, (int, float)) and not isinstance(gauge, bool):
        return float(gauge)
    return _SIGN[Gauge(gauge)] * float(strength)


def owner_imbalances(m: int, strength: float, owner: int = 0) -> Array:
    """The paper's selection setting: neuron ``owner`` gets ``+D``, all others ``−D``."""
    if not 0 <= owner < m:
        raise ValueError(f"owner must be in [0, {m - 1}] for m={m} (got {owner})")
    deltas = np.full(m, -float(strength))
    deltas[owner] = float(strength)
    return deltas


def imbalance(a: Array, W: Array) -> Array:
    """``δ_j = a_j² − ‖w_j‖²``, shape of ``a``."""
    return a**2 - np.sum(W**2, axis=-1)


def function_coordinates(a: Array, W: Array) -> tuple[Array, Array]:
    """``(c, U)`` with ``c_j = a_j ‖w_j‖`` and unit directions ``u_j = w_j/‖w_j‖``."""
    norm = np.linalg.norm(W, axis=-1)
    return a * norm, W / norm[..., None]


def parameters_from_function(c: Array, U: Array, delta: Array) -> tuple[Array, Array]:
    """Invert ``(a, w) → (c, u, δ)``.

    Written without cancellation: with ``s = √(δ² + 4c²)``, the larger of
    ``a², ‖w‖²`` is ``(|δ| + s)/2`` and the smaller is ``2c²/(|δ| + s)``.
    """
    c, delta = np.broadcast_arrays(np.asarray(c, float), np.asarray(delta, float))
    s = np.hypot(delta, 2.0 * c)
    big = 0.5 * (np.abs(delta) + s)
    small = np.divide(2.0 * c**2, np.abs(delta) + s, out=np.zeros_like(s), where=(np.abs(delta) + s) > 0)
    a_sq = np.where(delta >= 0, big, small)
    w_sq = np.where(delta >= 0, small, big)
    a = np.where(c < 0, -1.0, 1.0) * np.sqrt(a_sq)
    U = np.asarray(U, float)
    return a, np.sqrt(w_sq)[..., None] * U / np.linalg.norm(U, axis=-1, keepdims=True)


def initial_direction(teacher: Teacher, theta0: float) -> Array:
    """Unit ``u0`` at angle ``θ0`` from the first teacher feature, in the plane it spans
    with the first coordinate axis orthogonal to every teacher feature (``e2`` by default).

    The axes are tried one at a time (never ``I_d`` as a matrix: that is d² numbers)."""
    V = teacher.unit_directions()
    v = V[0]
    # projector onto span(V)ᵀ from an orthonormal basis of the k teacher features
    Q, _ = np.linalg.qr(V.T)
    perp = None
    for j in range(teacher.d):
        e = np.zeros(teacher.d)
        e[j] = 1.0
        r = e - Q @ (Q.T @ e)
        if np.linalg.norm(r) > 1e-12:
            perp = r / np.linalg.norm(r)
            break
    if perp is None:  # pragma: no cover - impossible when d > k
        raise ValueError("no direction orthogonal to the teacher: increase d")
    return np.cos(theta0) * v + np.sin(theta0) * perp


def duplicate_initial_condition(
    teacher: Teacher, deltas: Array, c0: float = 0.1, theta0: float = np.pi / 2
) -> tuple[Array, Array]:
    """The complete initial function: ``m = len(deltas)`` duplicates, each with direction
    ``u0`` and coefficient ``c0/m``, so ``f0 = c0 relu(u0·x)`` for every gauge.

    Returns ``(a, W)`` with shapes ``(..., m)`` and ``(..., m, d)`` (``deltas`` may be batched).
    """
    deltas = np.asarray(deltas, dtype=np.float64)
    m = deltas.shape[-1]
    u0 = initial_direction(teacher, theta0)
    U = np.broadcast_to(u0, deltas.shape + (teacher.d,))
    return parameters_from_function(np.full(deltas.shape, c0 / m), U, deltas)


def random_initial_condition(teacher: Teacher, deltas: Array, c0: float = 0.1, seed: int = 0) -> tuple[Array, Array]:
    """``m = deltas.shape[-1]`` neurons with independent uniformly random unit directions
    (normalised Gaussians from ``default_rng(seed)``) and coefficients ``c0/m`` each, so that
    ``f0 = (c0/m) Σ_j relu(u_j·x)``. The directions are shared by every member of a batched
    ``deltas`` (members differ in δ only). Generic directions span ``S`` of dimension ``min(d, k + m)``."""
    deltas = np.asarray(deltas, dtype=np.float64)
    m = deltas.shape[-1]
    U = np.random.default_rng(seed).standard_normal((m, teacher.d))
    U = np.broadcast_to(U / np.linalg.norm(U, axis=-1, keepdims=True), deltas.shape + (teacher.d,))
    return parameters_from_function(np.full(deltas.shape, c0 / m), U, deltas)


def perturbed_duplicates(
    teacher: Teacher,
    deltas: Array,
    eps: float,
    *,
    c0: float = 0.1,
    theta0: float = np.pi / 2,
    adversarial: bool = False,
    seed: int = 0,
) -> tuple[Array, Array]:
    """Duplicates made visibly different by ``ε`` (SPEC C8 a), for one member ``deltas (m,)``.

    Random: ``u_j ∝ u0 + ε ξ_j`` with ``ξ_j ~ N(0, I_d/d)`` and ``c_j = (c0/m) e^{ε ζ_j}``,
    ``ζ_j ~ N(0, 1)``, from ``default_rng(seed)`` (``ε = 0``: the duplicates themselves).
    Adversarial: the favorable neuron (argmax δ) turns to angle ``θ0 + ε`` from the teacher
    with coefficient ``(c0/m) e^{−ε}``; the others turn to ``θ0 − ε`` with ``(c0/m) e^{ε}``.
    """
    deltas = np.asarray(deltas, dtype=np.float64)
    m = deltas.shape[-1]
    if adversarial:
        sign = np.where(np.arange(m) == int(np.argmax(deltas)), 1.0, -1.0)
        U = np.stack([initial_direction(teacher, theta0 + s * eps) for s in sign])
        c = c0 / m * np.exp(-sign * eps)
    else:
        rng = np.random.default_rng(seed)
        U = initial_direction(teacher, theta0) + eps * rng.standard_normal((m, teacher.d)) / np.sqrt(teacher.d)
        c = c0 / m * np.exp(eps * rng.standard_normal(m))
    return parameters_from_function(c, U, deltas)
