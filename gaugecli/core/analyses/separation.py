"""The Θ(D²) separation of claim C4, measured: power-law fits over the gauge strength D and
the angular-speed ratio of a ``+D`` and a ``−D`` run of one neuron (``m = 1``).

**Power laws.** ``T_spec(±D)`` and the ratio ``T_spec(−D)/T_spec(+D)`` are deterministic
functions of D with corrections ``O(1/D²)`` (:mod:`gaugecli.core.reduced.planar`). A least-squares
slope over a finite window therefore carries a *bias* from those corrections that its standard
error (the scatter about the line) does not measure; the asymptotic exponent is read from the
local slopes ``d ln y / d ln D`` between consecutive D, which converge geometrically.

**Why the ratio is not the mobility ratio at c0.** For ``m = 1`` in the teacher's plane the
angle obeys ``θ̇ = −M^u(c, δ) · a* c (π − θ) sin θ / (2π)`` (reduced equations), so at equal
θ the torque cancels and the ratio of the angular speeds of the ``±D`` runs is

    S(θ) = [M^u(+D, c₊) / M^u(−D, c₋)] · (c₊ / c₋),     c± = c(θ) along each run.

Since ``T_spec(δ) = ∫_{θ_ε}^{θ0} dθ / |θ̇_δ|``, exactly

    T_spec(−D) / T_spec(+D) = (1/T₊) ∫₀^{T₊} S(θ₊(t)) dt,    T₊ = T_spec(+D):

the ratio is the time average of ``S`` over the ``+D`` run. At ``t = 0`` both coefficients are
``c0`` and ``S`` is the closed-form mobility ratio at ``c = c0``; afterwards ``c₋`` relaxes at
once to ``≈ 2a* g(θ)`` and ``c₊`` grows, so ``S`` (≈ ``D²/(c₊c₋)`` for ``D ≫ c``) falls well
below it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import integrate

from gaugecli.core.defaults import C0, EPS_ALIGN, THETA0
from gaugecli.core.population.dynamics import transport_mobility
from gaugecli.core.types import Array


class PowerLawFit(NamedTuple):
    """``log y = slope · log x + intercept`` by least squares over ``n`` points;
    ``stderr`` is the slope's standard error ``√(Σr²/(n − 2) / Σ(log x − mean)²)`` (NaN if n < 3)."""

    slope: float
    intercept: float
    stderr: float
    n: int

    def __call__(self, x: ArrayLike) -> Array:
        """The fitted line ``exp(intercept) · x^slope``."""
        return np.exp(self.intercept) * np.asarray(x, float) ** self.slope


def power_law_fit(x: ArrayLike, y: ArrayLike) -> PowerLawFit:
    """Least-squares power law through the finite positive pairs of ``(x, y)`` (NaNs if < 2)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    n = int(np.count_nonzero(ok))
    if n < 2:
        return PowerLawFit(float("nan"), float("nan"), float("nan"), n)
    X, Y = np.log(x[ok]), np.log(y[ok])
    slope, intercept = np.polyfit(X, Y, 1)
    if n < 3:
        return PowerLawFit(float(slope), float(intercept), float("nan"), n)
    r = Y - (slope * X + intercept)
    stderr = np.sqrt(np.sum(r**2) / (n - 2) / np.sum((X - X.mean()) ** 2))
    return PowerLawFit(float(slope), float(intercept), float(stderr), n)


def local_slopes(x: ArrayLike, y: ArrayLike) -> tuple[Array, Array]:
    """``d ln y / d ln x`` between consecutive points, at their geometric midpoints ``√(x_k x_{k+1})``."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    return np.sqrt(x[1:] * x[:-1]), np.diff(np.log(y)) / np.diff(np.log(x))


def asymptotic_slope(x: ArrayLike, y: ArrayLike) -> tuple[float, float]:
    """The exponent of ``y ∝ x^p`` as ``x → ∞``: the last local slope, and as its error the change
    from the previous one. With corrections ``O(x^{−q})`` the local slopes converge geometrically
    with ratio ``r^{−q}`` (``r`` the spacing of ``x``); for ``r^{−q} ≤ ½`` the remaining error is
    ``≤ r^{−q}/(1 − r^{−q})`` times that change, hence below it. Needs three points."""
    _, s = local_slopes(x, y)
    if s.size < 2:
        raise ValueError("asymptotic_slope needs at least three points")
    return float(s[-1]), float(abs(s[-1] - s[-2]))


class LogLaw(NamedTuple):
    """``y = coefficient · ln D + constant``, the law of ``T_spec(−D)/D`` where ``T(−D) = Θ(D ln D)``, by least
    squares over ``fitted`` (the strengths from the fit's lower end on); ``increments`` (at the geometric
    midpoints ``mid``) are ``Δy/Δ ln D`` between every consecutive pair of the series: they settle to the
    coefficient where the law holds, and show from where it does."""

    coefficient: float
    constant: float
    fitted: Array
    mid: Array
    increments: Array

    def __call__(self, D: ArrayLike) -> Array:
        """The fitted ``coefficient · ln D + constant``."""
        return self.coefficient * np.log(np.asarray(D, float)) + self.constant


def log_law_fit(D: ArrayLike, y: ArrayLike, D_min: float) -> LogLaw:
    """Least-squares ``y = A ln D + B`` over the finite points with ``D ≥ D_min`` (at least two), and the
    local increments of the whole series. No extrapolation in ``1/D``: ``y`` diverges like ``ln D``."""
    D, y = np.asarray(D, float), np.asarray(y, float)
    keep = np.isfinite(y) & (D >= D_min)
    if np.count_nonzero(keep) < 2:
        raise ValueError(f"log_law_fit: needs two finite points with D >= {D_min:g}")
    A, B = np.polyfit(np.log(D[keep]), y[keep], 1)
    mid = np.sqrt(D[1:] * D[:-1])
    return LogLaw(float(A), float(B), D[keep], mid, np.diff(y) / np.diff(np.log(D)))


class SpeedRatio(NamedTuple):
    """The ``±D`` angular-speed ratio along the ``+D`` run, at declared times up to ``T₊``.

    ``t`` (n,) times of the ``+D`` run in ``[0, T₊]`` (``T₊`` last); ``coefficient_plus``,
    ``coefficient_minus`` (n,) ``c₊(t)`` and ``c₋`` at the same angle; ``mobility_ratio`` (n,)
    ``M^u(+D, c₊)/M^u(−D, c₋)``; ``speed_ratio`` (n,) ``S = mobility_ratio · c₊/c₋``;
    ``time_average`` ``(1/T₊) ∫₀^{T₊} S dt`` (equal to ``T_spec(−D)/T_spec(+D)``);
    ``t_spec_plus`` ``T₊`` and ``t_spec_minus`` ``∫₀^{T₊} S dt = T_spec(−D)``, both from the paired
    integration.
    """

    t: Array
    coefficient_plus: Array
    coefficient_minus: Array
    mobility_ratio: Array
    speed_ratio: Array
    time_average: float
    t_spec_plus: float
    t_spec_minus: float


def paired_speed_ratio(
    strength: float,
    times: ArrayLike,
    *,
    c0: float = C0,
    theta0: float = THETA0,
    eps_align: float = EPS_ALIGN,
    a_star: float = 1.0,
    rtol: float = 1e-12,
    atol: float = 1e-15,
) -> SpeedRatio:
    """``S(θ₊(t))`` at the declared ``times`` in ``[0, T₊]`` (``T₊`` appended) for one neuron
    (``m = 1``) started at ``(c0, θ0)`` in the teacher's plane with ``δ = ±D`` (``D = strength``).

    The two runs are paired by angle in one integration of the reduced equations, with state
    ``(c₊, θ₊, c₋, I)``: ``(ċ₊, θ̇₊)`` of the ``+D`` neuron; ``c₋`` the ``−D`` run's coefficient at
    the angle ``θ₊`` (``θ`` falls monotonically along both runs, so ``dc₋/dt = ċ₋ · θ̇₊/θ̇₋``, both
    velocities of the ``−D`` neuron at ``(c₋, θ₊)``); and ``I = ∫₀^t S dt`` with ``S = θ̇₊/θ̇₋``.
    ``T₊`` is located by root-finding ``cos θ₊ = 1 − ε`` on the dense output and every series is
    the dense output at ``times``, so nothing depends on the solver's steps or on stored samples:
    the time average ``I(T₊)/T₊`` meets ``T_spec(−D)/T_spec(+D)`` to the solver's tolerance.
    LSODA, because the system turns stiff: for ``δ = −D`` the coefficient relaxes ~``D³/c²``
    faster than ``θ₊`` turns (Radau gives the same times to ~1e-11 at 20× the cost).
    """
    from gaugecli.core.reduced.planar import reduced_velocity

    D = float(strength)
    if not (np.isfinite(D) and D > 0):
        raise ValueError(f"strength must be a positive number (got {strength!r})")
    plus, minus = np.array([D]), np.array([-D])

    def rhs(t: float, y: Array) -> Array:
        c_p, th, c_m = y[0:1], y[1:2], y[2:3]
        dc_p, dth_p = reduced_velocity(c_p, th, plus, a_star)
        dc_m, dth_m = reduced_velocity(c_m, th, minus, a_star)
        speed = dth_p / dth_m
        return np.concatenate([dc_p, dth_p, dc_m * speed, speed])

    threshold = 1.0 - eps_align

    def aligned(t: float, y: Array) -> float:
        return float(np.cos(y[1]) - threshold)

    aligned.terminal = True  # type: ignore[attr-defined]
    aligned.direction = 1  # type: ignore[attr-defined]
    # generous: T_spec(+D) ≈ 1.75/D at the defaults and ∝ 1/c0 for small c0
    t_max = 1e3 * max(1.0, 1.0 / c0) / a_star**2
    sol = integrate.solve_ivp(
        rhs,
        (0.0, t_max),
        [c0, theta0, c0, 0.0],
        method="LSODA",
        rtol=rtol,
        atol=atol,
        dense_output=True,
        events=[aligned],
    )
    if sol.status != 1 or not sol.t_events[0].size:
        raise ValueError(f"the +D run (D = {D:g}) does not align before t = {t_max:g}: {sol.message}")
    t_plus = float(sol.t_events[0][0])
    t = np.asarray(times, float)
    # a declared time within 1e-8 of T₊ is the caller's own event time for the same crossing
    # (located at rtol ≤ 1e-10, so agreeing to ~10·rtol): T₊ stands for it
    t = np.append(t[(t >= 0.0) & (t < t_plus * (1.0 - 1e-8))], t_plus)
    c_plus, _, c_minus, _ = sol.sol(t)
    integral = float(sol.sol(t_plus)[3])
    delta = np.full_like(c_plus, D)
    mobility = transport_mobility(c_plus, delta) / transport_mobility(c_minus, -delta)
    speed = mobility * c_plus / c_minus
    return SpeedRatio(t, c_plus, c_minus, mobility, speed, integral / t_plus, t_plus, integral)
