"""The Θ(D²) separation of claim C4, measured: power-law fits over the gauge strength D and
the angular-speed ratio of a ``+D`` and a ``−D`` run of one neuron (``m = 1``).

**Power laws.** ``T_spec(±D)`` and the ratio ``T_spec(−D)/T_spec(+D)`` are deterministic
functions of D with corrections ``O(1/D²)`` (:mod:`gaugecli.core.reduced`). A least-squares
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

from gaugecli.core.dynamics import transport_mobility
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


class SpeedRatio(NamedTuple):
    """The ``±D`` angular-speed ratio along the ``+D`` run, on its saved times up to ``T₊``.

    ``t`` (n,) times of the ``+D`` run in ``[0, T₊]`` (``T₊`` last); ``coefficient_plus``,
    ``coefficient_minus`` (n,) ``c₊(t)`` and ``c₋`` at the same angle; ``mobility_ratio`` (n,)
    ``M^u(+D, c₊)/M^u(−D, c₋)``; ``speed_ratio`` (n,) ``S = mobility_ratio · c₊/c₋``;
    ``time_average`` ``(1/T₊) ∫₀^{T₊} S dt`` (equal to ``T_spec(−D)/T_spec(+D)``).
    """

    t: Array
    coefficient_plus: Array
    coefficient_minus: Array
    mobility_ratio: Array
    speed_ratio: Array
    time_average: float


def paired_speed_ratio(
    strength: float,
    plus: tuple[ArrayLike, ArrayLike, ArrayLike],
    minus: tuple[ArrayLike, ArrayLike],
    t_spec_plus: float,
) -> SpeedRatio:
    """``S(θ₊(t))`` for ``t ∈ [0, T₊]`` from two saved ``m = 1`` runs, ``plus = (t, c, α)`` with
    ``δ = +D`` and ``minus = (c, α)`` with ``δ = −D`` (``D = strength``; its times are not needed:
    the runs are paired by angle), both started from the same ``(c0, θ0)`` with the teacher in
    their plane (the duplicate start of SPEC §1).

    The angle ``θ = arccos α`` decreases monotonically along each run (``θ̇ < 0`` for ``c > 0``),
    so ``c₋`` at the angle of the ``+D`` run is interpolated linearly in θ. The time average is
    Simpson's rule on the ``+D`` run's saved times (``T₊`` appended, its state interpolated).
    """
    t_p, c_p, a_p = (np.asarray(v, float) for v in plus)
    c_m, a_m = (np.asarray(v, float) for v in minus)
    if not (np.isfinite(t_spec_plus) and t_spec_plus > 0):
        raise ValueError(f"t_spec_plus must be a positive time (got {t_spec_plus!r})")
    keep = t_p < t_spec_plus
    t = np.append(t_p[keep], t_spec_plus)
    c_plus = np.interp(t, t_p, c_p)
    theta_plus = np.arccos(np.clip(np.interp(t, t_p, a_p), -1.0, 1.0))
    theta_minus = np.arccos(np.clip(a_m, -1.0, 1.0))
    # np.interp needs increasing abscissae: θ decreases in time, so interpolate in −θ
    c_minus = np.interp(-theta_plus, -theta_minus, c_m)
    delta = np.full_like(c_plus, strength)
    mobility = transport_mobility(c_plus, delta) / transport_mobility(c_minus, -delta)
    speed = mobility * c_plus / c_minus
    average = float(integrate.simpson(speed, x=t) / t_spec_plus)
    return SpeedRatio(t, c_plus, c_minus, mobility, speed, average)
