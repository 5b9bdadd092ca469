"""The ``±D`` angular-speed ratio along the ``+D`` run: the two single-neuron runs paired by angle in
one integration of the reduced equations (:func:`gaugecli.core.analyses.separation.paired_speed_ratio`), read
at the ``+D`` run's declared times — fig3 (d), whose time average is ``T_spec(−D)/T_spec(+D)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaugecli.core.defaults import C0, EPS_ALIGN, THETA0
from gaugecli.core.types import Progress
from gaugecli.experiments.declare import require, require_finite


@dataclass(frozen=True)
class SpeedRatioConfig:
    """Gauge strength ``D = strength``, the model ``(c0, θ0, a*)``, the threshold ``ε_align`` and
    the ``times`` (those of the ``+D`` run) the series are read at, up to ``T_spec(+D)``."""

    strength: float = 4.0
    times: tuple[float, ...] = (0.0,)
    c0: float = C0
    theta0: float = THETA0
    eps_align: float = EPS_ALIGN
    a_star: float = 1.0

    def __post_init__(self) -> None:
        require_finite(self.strength, "strength", low=0.0)
        require_finite(self.c0, "c0", low=0.0)
        require_finite(self.a_star, "a_star", low=0.0)
        require(0.0 < self.theta0 < np.pi, "theta0", f"must be in (0, π) (got {self.theta0!r})")
        require(0.0 < self.eps_align < 1.0, "eps_align", f"must be in (0, 1) (got {self.eps_align!r})")
        require(all(np.isfinite(self.times)), "times", "must be finite numbers")


@dataclass(frozen=True)
class SpeedRatio:
    """:class:`gaugecli.core.analyses.separation.SpeedRatio` as a stored result: ``t`` the declared times in
    ``[0, T₊)`` and ``T₊`` last; ``coefficient_plus``, ``coefficient_minus`` ``c₊(t)`` and ``c₋`` at
    the same angle; ``mobility_ratio`` ``M^u(+D, c₊)/M^u(−D, c₋)``; ``speed_ratio``
    ``S = mobility_ratio · c₊/c₋``; ``time_average`` ``(1/T₊) ∫₀^{T₊} S dt``; ``t_spec_plus`` ``T₊``
    and ``t_spec_minus`` ``∫₀^{T₊} S dt = T_spec(−D)``."""

    t: np.ndarray
    coefficient_plus: np.ndarray
    coefficient_minus: np.ndarray
    mobility_ratio: np.ndarray
    speed_ratio: np.ndarray
    time_average: float
    t_spec_plus: float
    t_spec_minus: float


def speed_ratio(config: SpeedRatioConfig, progress: Progress | None = None) -> SpeedRatio:
    """One paired integration (LSODA on the reduced equations, milliseconds to a second)."""
    from gaugecli.core.analyses.separation import paired_speed_ratio

    pair = paired_speed_ratio(
        config.strength,
        np.asarray(config.times, dtype=float),
        c0=config.c0,
        theta0=config.theta0,
        eps_align=config.eps_align,
        a_star=config.a_star,
    )
    if progress is not None:
        progress(1.0)
    return SpeedRatio(*pair)
