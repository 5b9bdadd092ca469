"""Reduced equations: neurons in the teacher's plane, in function coordinates ``(c_j, θ_j)``.

The population flow stays in ``span(v, u0)`` (docs/theory.md §5, the invariant subspace), so when every
initial direction lies in the plane of the teacher ``v`` (``‖v‖ = 1``) and ``u0`` — the
duplicate start (docs/theory.md, the model) — each neuron is described by its coefficient ``c_j`` and its
*signed* angle ``θ_j`` to ``v`` in that plane (``α_j = cos θ_j``), while ``δ_j`` is a constant
of the motion and enters only through the mobilities. With ``g(φ) = (sin φ + (π − φ) cos φ)/(2π)``
and ``Δ_ij = θ_i − θ_j`` (wrapped to ``[−π, π)``),

    L(c, θ) = ½ Σ_ij c_i c_j g(|Δ_ij|) − a* Σ_j c_j g(|θ_j|) + a*²/4,

    ∂L/∂c_i = Σ_j c_j g(|Δ_ij|) − a* g(|θ_i|),
    ∂L/∂θ_i = c_i (Σ_j c_j γ(Δ_ij) − a* γ(θ_i)),   γ(Δ) = d g(|Δ|)/dΔ = −(π − |Δ|) sin Δ / (2π),

and gradient flow in ``(a, w)`` becomes (docs/theory.md §4, reaction–transport)

    ċ_j = −M^c_j ∂L/∂c_j,   θ̇_j = −M^u_j ∂L/∂θ_j,
    M^c = √(δ² + 4c²),      M^u = 1/‖w‖² = 2/(−δ + √(δ² + 4c²)).

``γ`` is smooth through ``Δ = 0`` (``γ(Δ) ≈ −Δ/2``): unlike the angle ``arccos(u_i·u_j)``, the
signed angle has no ``0·∞`` at duplicates. For ``m = 1`` (``θ ∈ [0, π)``):
``ċ = −√(δ² + 4c²) (c/2 − a* g(θ))``, ``θ̇ = −M^u c (π − θ) sin θ / (2π)``.

**Gauge limits** (``m = 1``). With ``δ = +D`` the input weight is tiny (``a ≈ √D`` frozen) and
both equations run at rate ``D``: in ``s = D t`` they tend to the flow of one ReLU unit
``β = c u`` with its output weight fixed,

    c' = a* g(θ) − c/2,   θ' = −a* (π − θ) sin θ / (2π c),

whose time to ``α = 1 − ε`` is ``lim_{D→∞} D·T_spec(+D)`` (:func:`favorable_limit`). With
``δ = −D`` the coefficient relaxes at rate ``~D/2`` to its quasi-static value ``c = 2a* g(θ)``
while the direction turns at rate ``~c/D``; in ``τ = t/D``

    dθ/dτ = −a*² g(θ) (π − θ) sin θ / π,

so ``lim_{D→∞} T_spec(−D)/D = ∫_{θ_ε}^{θ0} π dθ / (a*² g(θ) (π − θ) sin θ)`` with
``θ_ε = arccos(1 − ε)``, independent of ``c0`` (:func:`unfavorable_limit`). Both
corrections are ``O(1/D²)`` (the mobilities expand in ``c²/D²``; the fast layer of the
unfavorable gauge lasts ``O(1/D²)`` in ``τ``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import integrate

from gaugecli.core.defaults import C0, EPS_ALIGN, THETA0
from gaugecli.core.integrate.trajectory import NumericalFault
from gaugecli.core.kernels.arccos import angular_profile
from gaugecli.core.model.gauge import parameters_from_function
from gaugecli.core.population.dynamics import reaction_mobility, transport_mobility
from gaugecli.core.types import Array

_TWO_PI = 2.0 * np.pi


def _wrap(angle: Array) -> Array:
    """Angle differences mapped to ``[−π, π)``; those already inside are returned untouched
    (``mod(Δ + π, 2π) − π`` would round a small ``Δ`` to an absolute ~4e-16)."""
    angle = np.asarray(angle, float)
    inside = (angle >= -np.pi) & (angle < np.pi)
    return np.where(inside, angle, np.mod(angle + np.pi, _TWO_PI) - np.pi)


def angular_slope(delta_angle: Array) -> Array:
    """``γ(Δ) = d/dΔ g(|Δ|) = −(π − |Δ|) sin Δ / (2π)`` for a signed angle ``Δ`` (wrapped to ``[−π, π)``).

    Finite and smooth through ``Δ = 0`` (duplicates), zero at ``Δ = 0`` and ``Δ = ±π``.
    """
    d = _wrap(np.asarray(delta_angle, float))
    return -(np.pi - np.abs(d)) * np.sin(d) / _TWO_PI


def planar_loss(c: Array, theta: Array, a_star: float = 1.0) -> Array:
    """Population loss of neurons ``c_j relu(u_j·x)`` in the teacher's plane, ``u_j`` at signed
    angle ``θ_j`` to ``v``: ``½ Σ_ij c_i c_j g(|θ_i − θ_j|) − a* Σ_j c_j g(|θ_j|) + a*²/4``.

    ``c`` and ``theta`` are ``(..., m)``; the result has shape ``(...)``.
    """
    c, theta = np.asarray(c, float), np.asarray(theta, float)
    G = angular_profile(np.abs(_wrap(theta[..., :, None] - theta[..., None, :])))
    quad = np.einsum("...i,...ij,...j->...", c, G, c)
    cross = np.sum(c * angular_profile(np.abs(_wrap(theta))), axis=-1)
    return 0.5 * quad - a_star * cross + 0.25 * a_star**2


class PlanarGradient(NamedTuple):
    """``∂L/∂c_j`` and ``∂L/∂θ_j`` (each ``(..., m)``)."""

    coefficient: Array
    angle: Array


def planar_gradient(c: Array, theta: Array, a_star: float = 1.0) -> PlanarGradient:
    """``∂L/∂c_i = Σ_j c_j g(|Δ_ij|) − a* g(|θ_i|)``, ``∂L/∂θ_i = c_i (Σ_j c_j γ(Δ_ij) − a* γ(θ_i))``."""
    c, theta = np.asarray(c, float), np.asarray(theta, float)
    diff = theta[..., :, None] - theta[..., None, :]
    G = angular_profile(np.abs(_wrap(diff)))
    dc = np.einsum("...ij,...j->...i", G, c) - a_star * angular_profile(np.abs(_wrap(theta)))
    dtheta = c * (np.einsum("...ij,...j->...i", angular_slope(diff), c) - a_star * angular_slope(theta))
    return PlanarGradient(dc, dtheta)


def reduced_velocity(c: Array, theta: Array, deltas: Array, a_star: float = 1.0) -> tuple[Array, Array]:
    """``(ċ, θ̇) = (−M^c ∂L/∂c, −M^u ∂L/∂θ)`` with ``M^c = √(δ² + 4c²)``, ``M^u = 1/‖w‖²``."""
    grad = planar_gradient(c, theta, a_star)
    return -reaction_mobility(c, deltas) * grad.coefficient, -transport_mobility(c, deltas) * grad.angle


def planar_parameters(c: Array, theta: Array, deltas: Array, d: int = 2) -> tuple[Array, Array]:
    """``(a, W)`` of the planar state ``(c, θ, δ)`` with ``v = e1`` and the plane ``(e1, e2)``:
    ``u_j = cos θ_j e1 + sin θ_j e2`` (shapes ``(..., m)`` and ``(..., m, d)``), so that any
    observable of the full model can be read along a reduced trajectory."""
    c, theta = np.asarray(c, float), np.asarray(theta, float)
    U = np.zeros(theta.shape + (d,))
    U[..., 0], U[..., 1] = np.cos(theta), np.sin(theta)
    return parameters_from_function(c, U, np.broadcast_to(np.asarray(deltas, float), c.shape))


@dataclass(frozen=True)
class ReducedSolution:
    """A solution of the reduced equations.

    ``t`` (n,), ``coefficient`` and ``angle`` (n, m) on the solver's steps (``angle`` is the
    signed θ_j; ``α_j = cos θ_j``); ``crossing_times`` (m,): first time ``α_j = 1 − ε``
    (NaN if never); ``dissipated_reaction`` = ``∫₀^{t_end} R dt`` and ``dissipated_transport``
    = ``∫₀^{t_end} T dt`` (integrated with the state, so ``R + T`` sums to the loss drop);
    ``dense(t)`` evaluates ``(c, θ)`` anywhere in ``[0, t_end]``.
    """

    t: Array
    coefficient: Array
    angle: Array
    deltas: Array
    crossing_times: Array
    dissipated_reaction: float
    dissipated_transport: float
    initial_loss: float
    final_loss: float
    converged: bool
    n_rhs: int
    _sol: object

    def dense(self, t: Array | float) -> tuple[Array, Array]:
        """``(c, θ)`` at times ``t``: shapes ``(m,)`` for a scalar, ``(len(t), m)`` otherwise."""
        Y = self._sol(np.asarray(t, float))  # type: ignore[operator]
        m = self.deltas.size
        return Y[:m].T, Y[m : 2 * m].T


def solve_reduced(
    deltas: Array,
    *,
    t_max: float,
    c0: float = C0,
    theta0: float = THETA0,
    a_star: float = 1.0,
    eps_align: float = EPS_ALIGN,
    coefficients: Array | None = None,
    angles: Array | None = None,
    rtol: float = 1e-12,
    atol: float = 1e-15,
    grad_tol: float | None = 1e-10,
    stop_at_crossing: int | None = None,
    method: str = "LSODA",
) -> ReducedSolution:
    """Integrate the reduced equations from the duplicate start (docs/theory.md, the model).

    By default ``m = len(deltas)`` duplicates at angle ``theta0`` with coefficient ``c0/m`` each;
    ``coefficients``/``angles`` override them (any start in the teacher's plane). Stops at
    ``t_max``, when ``‖∇L‖² = R + T ≤ grad_tol²`` (the full flow's convergence test), or at the
    first alignment of neuron ``stop_at_crossing``. The default LSODA switches to BDF once the
    flow turns stiff — for ``δ = −D`` the coefficient relaxes ~``D²`` times faster than the angle
    turns; Radau and BDF give the same T_spec to ~1e-12 at ``rtol = 1e-13``.
    """
    deltas = np.atleast_1d(np.asarray(deltas, float))
    m = deltas.size
    if not a_star > 0:
        raise ValueError(f"a_star must be > 0 (got {a_star!r})")
    c_init = np.full(m, c0 / m) if coefficients is None else np.asarray(coefficients, float)
    th_init = np.full(m, float(theta0)) if angles is None else np.asarray(angles, float)
    counts = [0]

    def rhs(t: float, y: Array) -> Array:
        counts[0] += 1
        c, th = y[:m], y[m : 2 * m]
        grad = planar_gradient(c, th, a_star)
        mc, mu = reaction_mobility(c, deltas), transport_mobility(c, deltas)
        return np.concatenate(
            [
                -mc * grad.coefficient,
                -mu * grad.angle,
                [np.sum(mc * grad.coefficient**2), np.sum(mu * grad.angle**2)],
            ]
        )

    thr = 1.0 - eps_align

    def crossing_event(j: int) -> Callable[[float, Array], float]:
        def event(t: float, y: Array) -> float:
            return float(np.cos(y[m + j]) - thr)

        event.direction = 1  # type: ignore[attr-defined]
        event.terminal = j == stop_at_crossing  # type: ignore[attr-defined]
        return event

    events = [crossing_event(j) for j in range(m)]
    if grad_tol is not None:

        def converged(t: float, y: Array) -> float:
            r = rhs(t, y)[2 * m :]
            return float(np.log(r[0] + r[1] + 1e-300) - 2.0 * np.log(grad_tol))

        converged.terminal = True  # type: ignore[attr-defined]
        converged.direction = -1  # type: ignore[attr-defined]
        events.append(converged)

    y0 = np.concatenate([c_init, th_init, [0.0, 0.0]])
    sol = integrate.solve_ivp(
        rhs, (0.0, t_max), y0, method=method, rtol=rtol, atol=atol, dense_output=True, events=events
    )
    if sol.status == -1:
        raise NumericalFault(f"reduced flow failed at t={sol.t[-1]:.4g}: {sol.message}; try a smaller rtol")
    crossing = np.array([te[0] if te.size else np.nan for te in sol.t_events[:m]])
    crossing[np.cos(th_init) >= thr] = 0.0
    c_end, th_end = sol.y[:m, -1], sol.y[m : 2 * m, -1]
    return ReducedSolution(
        t=sol.t,
        coefficient=sol.y[:m].T,
        angle=sol.y[m : 2 * m].T,
        deltas=deltas,
        crossing_times=crossing,
        dissipated_reaction=float(sol.y[2 * m, -1]),
        dissipated_transport=float(sol.y[2 * m + 1, -1]),
        initial_loss=float(planar_loss(c_init, th_init, a_star)),
        final_loss=float(planar_loss(c_end, th_end, a_star)),
        converged=bool(grad_tol is not None and sol.status == 1 and sol.t_events[-1].size > 0),
        n_rhs=counts[0],
        _sol=sol.sol,
    )


def reduced_specialization_time(
    delta: float,
    *,
    c0: float = C0,
    theta0: float = THETA0,
    a_star: float = 1.0,
    eps_align: float = EPS_ALIGN,
    rtol: float = 1e-12,
    atol: float = 1e-15,
    method: str = "LSODA",
) -> float:
    """``T_spec`` of a single neuron (m = 1) with imbalance ``delta``, from the reduced equations
    with event location at ``cos θ = 1 − ε`` (an independent route to the full flow's T_spec)."""
    # generous: T_spec ≈ 1.75/D (+D), ≈ 10 D (−D) at the defaults, and ∝ 1/c0 for small c0
    t_max = 1e3 * (1.0 + abs(delta)) * max(1.0, 1.0 / c0) / a_star**2
    sol = solve_reduced(
        np.array([delta]),
        t_max=t_max,
        c0=c0,
        theta0=theta0,
        a_star=a_star,
        eps_align=eps_align,
        rtol=rtol,
        atol=atol,
        grad_tol=None,
        stop_at_crossing=0,
        method=method,
    )
    return float(sol.crossing_times[0])


# ----------------------------------------------------------------------------------------
# D → ∞ limits (m = 1)
