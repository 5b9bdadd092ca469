"""The hidden gauge: function coordinates ``(c, u)`` and the imbalance ``δ``, at degree ``p``.

For an activation of degree ``p`` (``σ(λz) = λ^p σ(z)``, ``λ > 0``) each neuron ``a σ(w·x)`` is the
function ``c σ(u·x)`` with coefficient ``c = a‖w‖^p`` and direction ``u = w/‖w‖``. The rescaling
``(a, w) → (a/λ^p, λw)`` leaves ``(c, u)`` unchanged; the imbalance

    δ = a² − ‖w‖²/p

fixes it, and gradient flow conserves it: ``w·∇_w f = p a ∂_a f`` (Euler's identity) gives
``d(a²)/dt = −2a ∂_a L = −(2/p) w·∇_w L = d(‖w‖²/p)/dt``. Given ``(c, u, δ)`` the parameters are
unique; at ``p = 1`` (ReLU, the paper's model) in closed form,

    ‖w‖² = (−δ + √(δ² + 4c²)) / 2,   a = sign(c) √(δ + ‖w‖²),   w = ‖w‖ u,

and at ``p ≥ 2`` as the root of a convex increasing scalar equation (:func:`squared_norms`).
Every function takes ``degree`` (default 1: today's δ = a² − ‖w‖² and c = a‖w‖).
"""

from __future__ import annotations

from enum import Enum

import numpy as np

from gaugecli.core.defaults import C0, THETA0
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
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


def imbalance(theta: Network, degree: int = 1) -> Array:
    """``δ_j = a_j² − ‖w_j‖²/p`` of ``θ = (a, W)``, shape of ``a``."""
    return theta.a**2 - np.sum(theta.W**2, axis=-1) / degree


def function_coordinates(theta: Network, degree: int = 1) -> tuple[Array, Array]:
    """``(c, U)`` of ``θ = (a, W)``: ``c_j = a_j ‖w_j‖^p`` and unit directions ``u_j = w_j/‖w_j‖``."""
    return function_coefficients(theta, degree), unit_directions(theta.W)


def function_coefficients(theta: Network, degree: int = 1) -> Array:
    """``c_j = a_j ‖w_j‖^p`` of ``θ = (a, W)`` (:func:`function_coordinates`' ``c``, without the directions)."""
    norm = np.linalg.norm(theta.W, axis=-1)
    return theta.a * (norm if degree == 1 else norm**degree)


def unit_directions(W: Array) -> Array:
    """``w_j/‖w_j‖`` along the last axis; ``0`` for a neuron at ``w = 0`` (absorbed there:
    :mod:`gaugecli.core.integrate.absorption`), which has no direction — so it carries ``c = 0`` and ``α = 0``."""
    norm = np.linalg.norm(W, axis=-1, keepdims=True)
    return W / np.where(norm > 0.0, norm, 1.0)


NEWTON_ITERATIONS = 80
"""Cap on the Newton steps of :func:`squared_norms` at ``p ≥ 2``. Started from an upper bound
within a factor ``2^{1/(p+1)}`` of the root of a convex increasing function, Newton decreases
monotonically and converges quadratically: ≤ 10 steps to round-off in practice."""


def squared_norms(c: Array, delta: Array, degree: int = 1) -> tuple[Array, Array]:
    """``(a², ‖w‖²)`` of the neuron with coefficient ``c`` and imbalance ``δ`` at degree ``p``.

    Both come without cancellation. At ``p = 1``, with ``s = √(δ² + 4c²)``, the larger of the two
    is ``(|δ| + s)/2`` and the smaller ``2c²/(|δ| + s)``. At ``p ≥ 2`` the *smaller* one is solved
    for — ``‖w‖² = q`` from ``(δ + q/p) q^p = c²`` when ``δ ≥ 0``, ``a² = A`` from
    ``A (p(A − δ))^p = c²`` when ``δ < 0`` — and the other follows as a sum of positive terms
    (``a² = δ + q/p``, resp. ``‖w‖² = p(A + |δ|)``). Each equation is convex and increasing in its
    unknown, so Newton from an upper bound of the root converges monotonically from above
    (``c = 0`` gives the bound 0, the root itself)."""
    c, delta = np.broadcast_arrays(np.asarray(c, float), np.asarray(delta, float))
    if degree == 1:
        s = np.hypot(delta, 2.0 * c)
        big = 0.5 * (np.abs(delta) + s)
        small = np.divide(2.0 * c**2, np.abs(delta) + s, out=np.zeros_like(s), where=(np.abs(delta) + s) > 0)
        return np.where(delta >= 0, big, small), np.where(delta >= 0, small, big)
    p, C, D = float(degree), c**2, np.abs(delta)
    favorable = delta >= 0
    # δ ≥ 0: x = ‖w‖², g(x) = x^p (x + pD) − pC;  δ < 0: x = a², g(x) = x (x + D)^p − C/p^p
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        hi_fav = np.minimum((C / D) ** (1.0 / p), (p * C) ** (1.0 / (p + 1.0)))
        hi_unf = np.minimum(C / (p * D) ** p, (C / p**p) ** (1.0 / (p + 1.0)))
        x = np.where(favorable, hi_fav, hi_unf)
        for _ in range(NEWTON_ITERATIONS):
            value = np.where(favorable, x**p * (x + p * D) - p * C, x * (x + D) ** p - C / p**p)
            slope = np.where(
                favorable, x ** (p - 1.0) * ((p + 1.0) * x + p * p * D), (x + D) ** (p - 1.0) * ((p + 1.0) * x + D)
            )
            x_new = np.where(slope > 0, np.maximum(x - value / np.where(slope > 0, slope, 1.0), 0.0), x)
            done = np.all(np.abs(x_new - x) <= 4.0 * np.finfo(float).eps * np.abs(x_new))
            x = x_new
            if done:
                break
    a_sq = np.where(favorable, D + x / p, x)
    w_sq = np.where(favorable, x, p * (x + D))
    return a_sq, w_sq


def parameters_from_function(c: Array, U: Array, delta: Array, degree: int = 1) -> tuple[Array, Array]:
    """Invert ``(a, w) → (c, u, δ)`` at degree ``p``: ``a = sign(c) √a²``, ``w = ‖w‖ u`` with
    ``(a², ‖w‖²)`` from :func:`squared_norms` (no cancellation)."""
    c = np.asarray(c, float)
    a_sq, w_sq = squared_norms(c, delta, degree)
    a = np.where(c < 0, -1.0, 1.0) * np.sqrt(a_sq)
    U = np.asarray(U, float)
    return a, np.sqrt(w_sq)[..., None] * U / np.linalg.norm(U, axis=-1, keepdims=True)


def initial_direction(model: Model, theta0: float) -> Array:
    """Unit ``u0`` at angle ``θ0`` from the first teacher feature, in the plane it spans
    with the first coordinate axis orthogonal to every teacher feature (``e2`` by default).

    The axes are tried one at a time (never ``I_d`` as a matrix: that is d² numbers)."""
    V = model.unit_directions()
    v = V[0]
    # projector onto span(V)ᵀ from an orthonormal basis of the k teacher features
    Q, _ = np.linalg.qr(V.T)
    perp = None
    for j in range(model.d):
        e = np.zeros(model.d)
        e[j] = 1.0
        r = e - Q @ (Q.T @ e)
        if np.linalg.norm(r) > 1e-12:
            perp = r / np.linalg.norm(r)
            break
    if perp is None:  # pragma: no cover - impossible when d > k
        raise ValueError("no direction orthogonal to the model: increase d")
    return np.cos(theta0) * v + np.sin(theta0) * perp


def duplicate_initial_condition(
    model: Model, deltas: Array, c0: float = C0, theta0: float = THETA0
) -> tuple[Array, Array]:
    """The complete initial function: ``m = len(deltas)`` duplicates, each with direction
    ``u0`` and coefficient ``c0/m``, so ``f0 = c0 σ(u0·x)`` for every gauge (δ at the model's degree).

    Returns ``(a, W)`` with shapes ``(..., m)`` and ``(..., m, d)`` (``deltas`` may be batched).
    """
    return duplicates_along(initial_direction(model, theta0), deltas, c0, model.degree)


def duplicates_along(u0: Array, deltas: Array, c0: float = C0, degree: int = 1) -> tuple[Array, Array]:
    """:func:`duplicate_initial_condition` along a given unit direction ``u0 (d,)`` (its
    :func:`initial_direction`, found once for many starts of one model): ``m = len(deltas)`` neurons of
    coefficient ``c0/m`` each at imbalances ``deltas (..., m)``, at degree ``degree``."""
    deltas = np.asarray(deltas, dtype=np.float64)
    m = deltas.shape[-1]
    U = np.broadcast_to(u0, deltas.shape + np.shape(u0))
    return parameters_from_function(np.full(deltas.shape, c0 / m), U, deltas, degree)


def random_initial_condition(model: Model, deltas: Array, c0: float = C0, seed: int = 0) -> tuple[Array, Array]:
    """``m = deltas.shape[-1]`` neurons with independent uniformly random unit directions
    (normalised Gaussians from ``default_rng(seed)``) and coefficients ``c0/m`` each, so that
    ``f0 = (c0/m) Σ_j σ(u_j·x)``. The directions are shared by every member of a batched
    ``deltas`` (members differ in δ only). Generic directions span ``S`` of dimension ``min(d, k + m)``."""
    deltas = np.asarray(deltas, dtype=np.float64)
    m = deltas.shape[-1]
    U = np.random.default_rng(seed).standard_normal((m, model.d))
    U = np.broadcast_to(U / np.linalg.norm(U, axis=-1, keepdims=True), deltas.shape + (model.d,))
    return parameters_from_function(np.full(deltas.shape, c0 / m), U, deltas, model.degree)


def paired_scale_ratio(scale: float, delta: float) -> float:
    """Kunin et al.'s ``α`` for scale ``τ`` and imbalance ``δ``: the neuron ``|a| = τ/α``, ``‖w‖ = τα``
    has ``|a|‖w‖ = τ²`` and ``a² − ‖w‖² = τ²(α⁻² − α²) = δ``, i.e.
    ``α² = (√(4 + r²) − r)/2`` with ``r = δ/τ²`` (their ``get_alpha``), written as ``2/(√(4 + r²) + r)``
    for ``r > 0`` so that no difference of close numbers is taken."""
    r = delta / scale**2
    root = np.hypot(2.0, r)
    alpha_sq = 2.0 / (root + r) if r > 0 else (root - r) / 2.0
    return float(np.sqrt(alpha_sq))


def paired_initial_condition(
    m: int, d: int, scale: float, deltas: Array, seed: int | np.random.SeedSequence = 0
) -> tuple[Array, Array]:
    """Kunin et al.'s start (their ``StudentNetwork(symmetrize=True)``): ``m/2`` directions ``û_i``
    uniformly random on the sphere and signs ``s_i = ±1`` from ``default_rng(seed)``, and the pairs
    ``(a, w) = (±s_i τ/α, τα û_i)``: neurons ``i`` and ``i + m/2`` share ``w`` and have opposite ``a``,
    so that ``f₀ ≡ 0``; each has ``|a|‖w‖ = τ²`` and ``a² − ‖w‖² = δ`` exactly
    (:func:`paired_scale_ratio`). ``deltas (B,)``: one δ per member (members differ in δ only);
    returns ``a (B, m)``, ``W (B, m, d)``."""
    if m % 2:
        raise ValueError(f"a paired start needs an even m (got {m})")
    half = m // 2
    rng = np.random.default_rng(seed)
    U = rng.standard_normal((half, d))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    signs = np.where(rng.standard_normal(half) >= 0.0, 1.0, -1.0)
    deltas = np.atleast_1d(np.asarray(deltas, dtype=np.float64))
    alphas = np.array([paired_scale_ratio(scale, float(delta)) for delta in deltas])
    a_half = signs[None, :] * (scale / alphas)[:, None]
    a = np.concatenate([a_half, -a_half], axis=-1)
    W = np.concatenate([U, U])[None] * (scale * alphas)[:, None, None]
    return a, W


def perturbed_duplicates(
    model: Model,
    deltas: Array,
    eps: float,
    *,
    c0: float = C0,
    theta0: float = THETA0,
    adversarial: bool = False,
    seed: int = 0,
) -> tuple[Array, Array]:
    """Duplicates made visibly different by ``ε`` (claim C8 a), for one member ``deltas (m,)``.

    Random: ``u_j ∝ u0 + ε ξ_j`` with ``ξ_j ~ N(0, I_d/d)`` and ``c_j = (c0/m) e^{ε ζ_j}``,
    ``ζ_j ~ N(0, 1)``, from ``default_rng(seed)`` (``ε = 0``: the duplicates themselves).
    Adversarial: the favorable neuron (argmax δ) turns to angle ``θ0 + ε`` from the teacher
    with coefficient ``(c0/m) e^{−ε}``; the others turn to ``θ0 − ε`` with ``(c0/m) e^{ε}``.
    """
    deltas = np.asarray(deltas, dtype=np.float64)
    m = deltas.shape[-1]
    if adversarial:
        sign = np.where(np.arange(m) == int(np.argmax(deltas)), 1.0, -1.0)
        U = np.stack([initial_direction(model, theta0 + s * eps) for s in sign])
        c = c0 / m * np.exp(-sign * eps)
    else:
        rng = np.random.default_rng(seed)
        U = initial_direction(model, theta0) + eps * rng.standard_normal((m, model.d)) / np.sqrt(model.d)
        c = c0 / m * np.exp(eps * rng.standard_normal(m))
    return parameters_from_function(c, U, deltas, model.degree)
