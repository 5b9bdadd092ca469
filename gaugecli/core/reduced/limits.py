"""The D → ∞ limits of the reduced equations: the constants lim D·T_spec(+D) and lim T_spec(−D)/D, the limiting paths in the (c, α) plane and the clock-free gap between them, the dissipation shares, and Richardson extrapolation in 1/D (docs/theory.md §7–8)."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import integrate

from gaugecli.core.defaults import C0, EPS_ALIGN, THETA0
from gaugecli.core.integrate.trajectory import NumericalFault
from gaugecli.core.kernels.arccos import angular_profile
from gaugecli.core.model.metrics import clock_free_gap
from gaugecli.core.reduced.planar import planar_loss
from gaugecli.core.types import Array

_TWO_PI = 2.0 * np.pi


def _check_limit_args(theta0: float, eps_align: float, a_star: float) -> float:
    if not a_star > 0:
        raise ValueError(f"a_star must be > 0 (got {a_star!r})")
    if not 0.0 < eps_align < 1.0:
        raise ValueError(f"eps_align must be in (0, 1) (got {eps_align!r})")
    theta_eps = math.acos(1.0 - eps_align)
    if not theta_eps < theta0 < np.pi:
        raise ValueError(f"theta0 must be in (arccos(1 − ε), π) = ({theta_eps:.4g}, π) (got {theta0!r})")
    return theta_eps


def _torque(theta: float) -> float:
    """``(π − θ) sin θ / (2π) = −γ(θ)``: the teacher's pull on the angle per unit ``c a*``."""
    return (np.pi - theta) * np.sin(theta) / _TWO_PI


def favorable_limit(
    c0: float = C0, theta0: float = THETA0, eps_align: float = EPS_ALIGN, a_star: float = 1.0, rtol: float = 1e-13
) -> float:
    """``lim_{D→∞} D·T_spec(+D)``: the time of the fixed-output-weight unit ``β = c u``,
    ``c' = a* g(θ) − c/2``, ``θ' = −a* (π − θ) sin θ / (2π c)``, to reach ``θ_ε = arccos(1 − ε)``.

    Integrated with θ as the independent variable (``θ' < 0`` throughout), so the endpoint is
    exact and no event location is involved: ``dc/dθ = c'/θ'``, ``ds/dθ = 1/θ'``.
    """
    theta_eps = _check_limit_args(theta0, eps_align, a_star)

    def rhs(theta: float, y: Array) -> Array:
        c = y[0]
        inv_speed = -c / (a_star * _torque(theta))  # ds/dθ
        return np.array([(a_star * angular_profile(theta) - 0.5 * c) * inv_speed, inv_speed])

    sol = integrate.solve_ivp(rhs, (theta0, theta_eps), [c0, 0.0], method="DOP853", rtol=rtol, atol=1e-16)
    return float(sol.y[1, -1])


def unfavorable_limit(
    theta0: float = THETA0, eps_align: float = EPS_ALIGN, a_star: float = 1.0, rtol: float = 1e-13
) -> float:
    """``lim_{D→∞} T_spec(−D)/D = ∫_{θ_ε}^{θ0} π dθ / (a*² g(θ) (π − θ) sin θ)`` (adaptive
    Gauss–Kronrod quadrature): the angle turning on the slow manifold ``c = 2a* g(θ)`` with
    mobility ``1/D``. Independent of ``c0``."""
    theta_eps = _check_limit_args(theta0, eps_align, a_star)
    value, _ = integrate.quad(
        lambda th: 1.0 / (2.0 * a_star**2 * angular_profile(th) * _torque(th)),
        theta_eps,
        theta0,
        epsabs=0.0,
        epsrel=rtol,
        limit=200,
    )
    return float(value)


def _check_path_args(theta0: float, a_star: float) -> None:
    if not a_star > 0:
        raise ValueError(f"a_star must be > 0 (got {a_star!r})")
    if not 0.0 < theta0 < np.pi:
        raise ValueError(f"theta0 must be in (0, π) (got {theta0!r})")


class LimitPath(NamedTuple):
    """A ``D → ∞`` path in function coordinates: ``coefficient`` ``c`` and angle ``θ`` (``α = cos θ``)
    at the same points, in the order the flow visits them."""

    coefficient: Array
    angle: Array


def favorable_limit_path(
    c0: float = C0,
    theta0: float = THETA0,
    a_star: float = 1.0,
    *,
    s_max: float = 80.0,
    points: int = 4001,
    rtol: float = 1e-12,
) -> LimitPath:
    """The path of ``δ = +D`` as ``D → ∞``: the fixed-output-weight unit of :func:`favorable_limit`,
    ``c' = a* g(θ) − c/2``, ``θ' = −a* (π − θ) sin θ / (2π c)`` in ``s = D t``, sampled at
    ``s = 0`` and ``points − 1`` log-spaced ``s ∈ [1e-6, s_max]``.

    At finite ``D`` the full flow's path in the ``(c, θ)`` plane differs from it by ``O(1/D²)``: the
    ratio of the two mobilities is ``M^u/M^c = (1 − c²/D² + …)/c²``. By ``s_max = 80`` the state is
    ``c = a*`` to ~1e-17 (the approach is ``e^{−s/2}``)."""
    _check_path_args(theta0, a_star)

    def rhs(s: float, y: Array) -> Array:
        c, th = y
        return np.array([a_star * angular_profile(th) - 0.5 * c, -a_star * _torque(th) / c])

    s = np.concatenate([[0.0], np.geomspace(1e-6, s_max, points - 1)])
    sol = integrate.solve_ivp(rhs, (0.0, s_max), [c0, theta0], method="DOP853", t_eval=s, rtol=rtol, atol=1e-16)
    if sol.status != 0:
        raise NumericalFault(f"favorable limit path failed at s={sol.t[-1]:.4g}: {sol.message}; try a larger rtol")
    return LimitPath(sol.y[0], sol.y[1])


def unfavorable_limit_path(
    c0: float = C0, theta0: float = THETA0, a_star: float = 1.0, *, points: int = 4001
) -> LimitPath:
    """The path of ``δ = −D`` as ``D → ∞``, in closed form: the coefficient first relaxes at fixed
    angle (``c`` at rate ``~D``, ``θ`` at rate ``~1/D``) from ``c0`` to ``2a* g(θ0)``, then the
    state follows the slow manifold ``c = 2a* g(θ)`` from ``θ0`` to ``θ = 0`` (``c = a*``).
    ``points`` samples in all, a quarter on the segment (``c`` evenly spaced), the rest on the
    manifold (``θ`` evenly spaced). The full flow's path differs from it by ``O(1/D²)``."""
    _check_path_args(theta0, a_star)
    n_segment = max(points // 4, 2)
    on_manifold = 2.0 * a_star * float(angular_profile(theta0))
    c_segment = np.linspace(c0, on_manifold, n_segment)
    theta = np.linspace(theta0, 0.0, points - n_segment + 1)[1:]
    return LimitPath(
        np.concatenate([c_segment, 2.0 * a_star * angular_profile(theta)]),
        np.concatenate([np.full(n_segment, float(theta0)), theta]),
    )


def limit_clock_free_gap(
    c0: float = C0, theta0: float = THETA0, a_star: float = 1.0, *, floor: float = 1e-14, points: int = 64_001
) -> float:
    """``lim_{D→∞} Δ(D)``: the clock-free gap (:func:`gaugecli.core.model.metrics.clock_free_gap`) between
    the two limit paths, whose loss is the closed form ``L(c, θ)`` (:func:`planar_loss`). The paths
    do not depend on D, so neither does this; the runs' Δ(D) approach it like their paths, O(D⁻²)."""
    plus = favorable_limit_path(c0, theta0, a_star, points=points)
    minus = unfavorable_limit_path(c0, theta0, a_star, points=points)
    return clock_free_gap(
        planar_loss(plus.coefficient[:, None], plus.angle[:, None], a_star),
        np.cos(plus.angle),
        planar_loss(minus.coefficient[:, None], minus.angle[:, None], a_star),
        np.cos(minus.angle),
        floor=floor,
    )


class DissipationShares(NamedTuple):
    """``∫R dt`` and ``∫T dt`` over a whole run, and the reaction share ``∫R / (∫R + ∫T)``."""

    reaction: float
    transport: float

    @property
    def reaction_share(self) -> float:
        return self.reaction / (self.reaction + self.transport)


def favorable_limit_dissipation(
    c0: float = C0, theta0: float = THETA0, a_star: float = 1.0, s_max: float = 400.0, rtol: float = 1e-12
) -> DissipationShares:
    """``lim_{D→∞}`` of ``(∫R dt, ∫T dt)`` for ``δ = +D``: in ``s = D t`` the limit flow has
    ``R dt → (a* g − c/2)² ds`` and ``T dt → (a* (π − θ) sin θ / (2π))² ds`` (``M^u → D/c²``)."""

    def rhs(s: float, y: Array) -> Array:
        c, th = y[0], y[1]
        dc = a_star * angular_profile(th) - 0.5 * c
        tq = a_star * _torque(th)
        return np.array([dc, -tq / c, dc**2, tq**2])

    sol = integrate.solve_ivp(rhs, (0.0, s_max), [c0, theta0, 0.0, 0.0], method="DOP853", rtol=rtol, atol=1e-16)
    return DissipationShares(float(sol.y[2, -1]), float(sol.y[3, -1]))


def unfavorable_limit_dissipation(c0: float = C0, theta0: float = THETA0, a_star: float = 1.0) -> DissipationShares:
    """``lim_{D→∞}`` of ``(∫R dt, ∫T dt)`` for ``δ = −D``, in closed form: the fast relaxation of
    ``c`` to ``2a* g(θ0)`` at fixed θ dissipates ``(c0 − 2a* g(θ0))²/4`` through reaction (L is
    quadratic in c with curvature ½); on the slow manifold ``R = O(1/D³)``, so transport carries
    the rest, ``L(c0, θ0) − (c0 − 2a* g(θ0))²/4``."""
    reaction = 0.25 * (c0 - 2.0 * a_star * float(angular_profile(theta0))) ** 2
    loss0 = float(planar_loss(np.array([c0]), np.array([theta0]), a_star))
    return DissipationShares(reaction, loss0 - reaction)


def richardson_limit(strengths: Array, values: Array, order: float = 2.0) -> tuple[float, Array]:
    """Extrapolate ``values(D) = V∞ + C D^{−order} + …`` to ``D → ∞`` from consecutive pairs.

    ``strengths`` increasing. Returns the extrapolation of the last pair and the array of all
    pairwise extrapolations (their spread shows the remaining error)."""
    D = np.asarray(strengths, float)
    v = np.asarray(values, float)
    r = (D[1:] / D[:-1]) ** order
    table = (r * v[1:] - v[:-1]) / (r - 1.0)
    return float(table[-1]), table


def fitted_order(strengths: Array, values: Array, limit: float) -> float:
    """Slope of ``log|values − limit|`` against ``log(1/D)``: the order of convergence in ``1/D``."""
    D = np.asarray(strengths, float)
    err = np.abs(np.asarray(values, float) - limit)
    return float(np.polyfit(np.log(1.0 / D), np.log(err), 1)[0])
