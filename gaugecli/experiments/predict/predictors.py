"""The predictors of ``gaugecli predict``: the neuron each rule names, from the start alone, as the
owner of each teacher feature ``v_k`` (:data:`~gaugecli.experiments.params.PREDICTORS`).

With ``c_j, u_j, δ_j`` the start in function coordinates and ``α_jk = u_j·v̂_k``:

* ``delta`` — ``argmax_{j ∈ B_k} δ_j``, the largest δ among the neurons of feature ``k``'s basin
  ``B_k = {j : argmax_l α_jl(0) = k}`` (at ``k = 1`` every neuron: C6's rule beyond the paper, argmax δ;
  for ``k > 1`` the plain argmax would name one neuron for every feature, which can own one of them only),
  leaving out (with mixed signs) a neuron with ``a_j < 0 < δ_j``, which can never turn positive;
* ``alignment`` — ``argmax_j α_jk``: the neuron pointing closest to ``v_k``;
* ``c-alpha`` — ``argmax_j c_j α_jk``: the instantaneous owner (docs/theory.md, the model) ``o(0)``;
* ``angular-speed`` — ``argmax_j ω_jk`` with ``ω_jk = −θ̇_jk = (u̇_j·v̂_k)/√(1 − α_jk²)`` the initial
  angular speed toward ``v_k``, from the exact transport ``u̇_j = −M^u_j grad_{u_j} L``,
  ``M^u_j = 1/‖w_j‖²`` (:func:`gaugecli.core.population.dynamics.function_gradient`);
* ``race`` — the neuron that, **alone with feature k**, aligns first: the smallest ``T_jk``, the time
  at which ``α = 1 − ε_align`` in the ``m = 1`` reduced equations (:mod:`gaugecli.core.reduced.planar`)
  ``ċ = −√(δ² + 4c²)(c/2 − a*_k g(θ))``, ``θ̇ = −M^u c (π − θ) sin θ / (2π)`` from
  ``(c_j, θ_jk = arccos α_jk, δ_j)``, integrated as ``m = 1`` population flows in the plane of
  ``v_k`` and ``u_j`` (:data:`RACE_METHOD`; ``None`` if no neuron aligns alone by the horizon);
* ``race-matched`` — the same race times, with one neuron per feature: the pairing of the ``k``
  features with distinct neurons whose race times sum least (the same as ``race`` at ``k = 1``).

**The race rule, derived.** While the student's function is small (``f ≈ 0`` at a small start) the
residual every neuron sees is the teacher's, and the equations of different neurons decouple:
each ``(c_j, θ_jk)`` follows the single-neuron flow against feature ``k``, which couples the two
things the other rules take one at a time — the reaction (``c`` grows at rate ``M^c = √(δ² + 4c²)``)
and the transport (``θ`` turns at ``M^u c``, fast for ``δ > 0``). The first neuron to align takes
``v_k``'s coefficient; the residual along ``v_k`` then vanishes and stops the others (C6, C7). What it
leaves out, and so does not claim: the pull of the other features on the direction (``k > 1``) and
the competition once the student's function is O(1). The study measures it beside the others.

**Several features: one neuron each.** At ``k > 1`` the plain race often names one neuron for two
features — the neuron fastest alone is fastest toward both — yet a neuron that takes one feature's
coefficient leaves the residual along it at 0 and cannot own another. ``race-matched`` keeps the race
times and adds that exclusivity: the assignment of features to distinct neurons with the least total
time (a linear assignment problem).

A rule whose maximum is attained by several neurons names none (``NONE``): ``delta`` at ρ = 0 (unless the basin holds one neuron), where every
δ is 0 up to the round-off of rebuilding ``(a, w)`` from ``(c, u, δ)`` (:data:`DELTA_TIE`).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from gaugecli.core.model.gauge import function_coordinates, parameters_from_function
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population.dynamics import function_gradient, transport_mobility
from gaugecli.core.types import Array
from gaugecli.experiments.common import integrate_ensemble
from gaugecli.experiments.config import DynamicsConfig, ModelConfig

NONE = -1
"""The index of "no neuron": a rule that names none, or a feature without an owner."""
DELTA_TIE = 1e-12
"""Imbalances within ``1e-12 (a² + ‖w‖²)`` of the largest count as tied with it: δ = a² − ‖w‖² of a
start rebuilt from ``(c, u, δ)`` is exact to a few ε_machine of ``a² + ‖w‖²``."""


def unique_argmax(x: Array, axis: int, tol: Array | float = 0.0) -> Array:
    """``argmax`` along ``axis``, :data:`NONE` where the maximum is attained (within ``tol``) more than once."""
    x = np.asarray(x, float)
    best = np.argmax(x, axis=axis)
    top = np.max(x, axis=axis, keepdims=True)
    return np.where(np.sum(x >= top - tol, axis=axis) > 1, NONE, best)


def gauge_pick(theta: Network, alpha: Array) -> Array:
    """The ``delta`` rule: per start and feature, the largest δ in the feature's basin among the neurons
    that can carry the teacher's (positive) function, ``(B, k)``: a neuron with ``a < 0 < δ`` never can
    (``a² ≥ δ`` keeps its sign), and is left out."""
    a, W = theta.a, theta.W
    delta = a**2 - np.sum(W**2, axis=-1)
    tol = DELTA_TIE * np.max(a**2 + np.sum(W**2, axis=-1), axis=-1, keepdims=True)
    nearest = np.argmax(alpha, axis=-1)  # (B, m)
    able = (a > 0.0) | (delta <= 0.0)
    k = alpha.shape[-1]
    out = np.full((delta.shape[0], k), NONE)
    for f in range(k):
        basin = (nearest == f) & able
        masked = np.where(basin, delta, -np.inf)
        pick = unique_argmax(masked, axis=-1, tol=tol)
        out[:, f] = np.where(np.any(basin, axis=-1), pick, NONE)
    return out


def alignments(W: Array, model: Model) -> Array:
    """``α_jk``, shape ``(B, m, k)``."""
    U = W / np.linalg.norm(W, axis=-1, keepdims=True)
    return U @ model.unit_directions().T


def angular_speed(theta: Network, model: Model) -> Array:
    """``ω_jk = (u̇_j·v̂_k)/√(1 − α_jk²)``, ``u̇_j = −M^u_j grad_{u_j} L``, shape ``(B, m, k)``."""
    a, W = theta.a, theta.W
    c, U = function_coordinates(theta)
    delta = a**2 - np.sum(W**2, axis=-1)
    u_dot = -transport_mobility(c, delta)[..., None] * function_gradient(c, U, model).direction
    alpha = U @ model.unit_directions().T
    toward = u_dot @ model.unit_directions().T
    return toward / np.sqrt(np.maximum(1.0 - alpha**2, 1e-300))


RACE_METHOD = "dop853-bdf"
"""The race's one-neuron flows, each on its own compiled DOP853 steps (BDF's where it turns stiff:
:mod:`gaugecli.core.integrate.dop853_flow`, phase's cells' solver), not LSODA on rows shared by the ensemble,
which stepped on to the horizon (t ≈ 222) long after most members had crossed (t ≈ 11–18): fig10's 32
chunks' race times 2.6–3.2 → 1.25–1.33 CPU-s. The times agree with LSODA's within 1.1e-6 relative at
rtol 1e-7 (both solvers' tolerance), and every pick of fig10's and fig11's studies is the same."""


def race_times(theta: Network, model: Model, eps_align: float, rtol: float, t_max: float) -> Array:
    """``T_jk`` of the race rule (module docstring), shape ``(B, m, k)``, ``inf`` where the neuron does
    not align alone by ``t_max``; every ``(b, j, k)`` one member of one ensemble of ``m = 1`` flows in
    the plane ``(v_k, u_j)`` (teacher ``a*_k = model.coefficients[k]``)."""
    a, W = theta.a, theta.W
    c, U = function_coordinates(theta)
    delta = a**2 - np.sum(W**2, axis=-1)
    alpha = np.clip(U @ model.unit_directions().T, -1.0, 1.0)  # (B, m, k)
    B, m, k = alpha.shape
    times = np.full((B, m, k), np.inf)
    # a neuron with c < 0 < δ keeps its sign and never takes a positive feature: it does not race
    racing = ~((c < 0.0) & (delta > 0.0)).reshape(-1)
    for f in range(k):
        plane = np.stack([alpha[..., f], np.sqrt(1.0 - alpha[..., f] ** 2)], axis=-1).reshape(-1, 1, 2)
        a0, W0 = parameters_from_function(c.reshape(-1, 1)[racing], plane[racing], delta.reshape(-1, 1)[racing])
        solo = ModelConfig(d=2, k=1, a_star=float(model.coefficients[f]), eps_align=eps_align)
        dynamics = DynamicsConfig(rtol=rtol, t_max=t_max, grid_points=3)
        crossing = np.full(B * m, np.nan)
        if np.any(racing):
            traj, _ = integrate_ensemble(solo, dynamics, Network(a0, W0), flow_method=RACE_METHOD)
            crossing[racing] = np.asarray(traj.crossing_times, float).reshape(-1)
        times[..., f] = np.where(np.isnan(crossing), np.inf, crossing).reshape(B, m)
    return times


def predictions(theta: Network, model: Model, eps_align: float, rtol: float, t_max: float) -> dict[str, Array]:
    """Each rule's named neuron per start (``θ``: ``a (B, m)``, ``W (B, m, d)``) and feature, ``(B, k)``
    integers (:data:`NONE`: none)."""
    c, _ = function_coordinates(theta)
    alpha = alignments(theta.W, model)
    times = race_times(theta, model, eps_align, rtol, t_max)
    raced = np.where(np.all(np.isinf(times), axis=1), NONE, np.argmin(times, axis=1))
    return {
        "delta": gauge_pick(theta, alpha),
        "alignment": unique_argmax(alpha, axis=1),
        "c-alpha": unique_argmax(c[..., None] * alpha, axis=1),
        "angular-speed": unique_argmax(angular_speed(theta, model), axis=1),
        "race": raced,
        "race-matched": matched_race(times),
    }


def matched_race(times: Array) -> Array:
    """The ``race-matched`` rule (module docstring): per start, the features paired with distinct
    neurons so that the sum of the race times ``T_jk`` is least (:func:`scipy.optimize.linear_sum_assignment`),
    ``(B, k)``; :data:`NONE` for a feature whose neuron does not align alone, or where ``m < k``."""
    B, m, k = times.shape
    out = np.full((B, k), NONE)
    if m < k:
        return out
    finite = np.isfinite(times)
    # a neuron that never aligns alone costs more than every finite pairing together
    cost = np.where(finite, times, 1.0 + np.sum(np.where(finite, times, 0.0), axis=(1, 2), keepdims=True) * 2.0)
    for b in range(B):
        neurons, features = linear_sum_assignment(cost[b])
        out[b, features] = np.where(finite[b, neurons, features], neurons, NONE)
    return out


__all__ = [
    "DELTA_TIE",
    "NONE",
    "alignments",
    "angular_speed",
    "gauge_pick",
    "matched_race",
    "predictions",
    "race_times",
    "unique_argmax",
]
