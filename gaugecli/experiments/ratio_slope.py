"""The local slope of the specialization-time ratio at large D: ``d ln(T_spec(−D)/T_spec(+D)) / d ln D``
between two gauge strengths, from the reduced equations (event location on the reduced flow's dense
output, :func:`gaugecli.core.reduced.planar.reduced_specialization_time`) — C4's exponent 2, within
``O(1/D²)``, whatever the model's ``c0``, ``θ0`` and ``ε_align`` (fig3 (f)).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaugecli.core.defaults import C0, EPS_ALIGN, THETA0
from gaugecli.core.integrate.tolerance import Tolerance
from gaugecli.core.types import Progress
from gaugecli.experiments.declare import require, require_finite

SLOPE_RTOL = 1e-8
"""The reduced solves' tolerance: T_spec to ~3e-8 relative (measured against rtol 1e-12 at
θ0 = 3π/4), so the local slope to ~4e-8, far inside its O(1/D²) distance from 2, at half the cost
of rtol 1e-9 (about 0.13 s a setting)."""


@dataclass(frozen=True)
class RatioSlopeConfig:
    """The model ``(c0, θ0, a*)``, the threshold ``ε_align``, the two gauge ``strengths`` the slope
    is taken between (ascending), and the solves' relative tolerance ``rtol`` (the absolute one
    follows the package's rule, :class:`gaugecli.core.integrate.tolerance.Tolerance`)."""

    c0: float = C0
    theta0: float = THETA0
    eps_align: float = EPS_ALIGN
    a_star: float = 1.0
    strengths: tuple[float, float] = (64.0, 128.0)
    rtol: float = SLOPE_RTOL

    def __post_init__(self) -> None:
        require_finite(self.c0, "c0", low=0.0)
        require_finite(self.a_star, "a_star", low=0.0)
        require_finite(self.rtol, "rtol", low=0.0)
        require(0.0 < self.theta0 < np.pi, "theta0", f"must be in (0, π) (got {self.theta0!r})")
        require(0.0 < self.eps_align < 1.0, "eps_align", f"must be in (0, 1) (got {self.eps_align!r})")
        lo, hi = self.strengths
        require(0.0 < lo < hi, "strengths", f"must be two ascending positive numbers (got {self.strengths!r})")


@dataclass(frozen=True)
class RatioSlope:
    """``ratios`` ``T_spec(−D)/T_spec(+D)`` at each of the config's strengths, ``local_slope``
    ``ln(r₁/r₀)/ln(D₁/D₀)`` and ``ratio_over_D2`` ``r₁/D₁²``."""

    ratios: tuple[float, float]
    local_slope: float
    ratio_over_D2: float


def ratio_slope(config: RatioSlopeConfig, progress: Progress | None = None) -> RatioSlope:
    """Four reduced solves (``±D`` at both strengths; about 0.13 s at the default tolerance)."""
    from gaugecli.core.reduced.planar import reduced_specialization_time

    tolerance = Tolerance(config.rtol)

    def spec_time(delta: float) -> float:
        return reduced_specialization_time(
            delta,
            c0=config.c0,
            theta0=config.theta0,
            eps_align=config.eps_align,
            a_star=config.a_star,
            rtol=tolerance.rtol,
            atol=tolerance.atol,
        )

    lo, hi = config.strengths
    ratios = [spec_time(-D) / spec_time(D) for D in (lo, hi)]
    if progress is not None:
        progress(1.0)
    return RatioSlope(
        (ratios[0], ratios[1]),
        float(np.log(ratios[1] / ratios[0]) / np.log(hi / lo)),
        float(ratios[1] / hi**2),
    )
