"""The ``D → ∞`` limits of the reduced equations as cached runs: the constants
``F = lim D·T_spec(+D)`` and ``U = lim T_spec(−D)/D`` (one ODE and one quadrature), and the limiting
paths of both gauges in the ``(c, θ)`` plane with the clock-free gap ``Δ_∞`` between them
(:mod:`gaugecli.core.reduced.limits`, docs/theory.md §7–8) — what fig2 and fig3 draw as ``D → ∞``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaugecli.core.defaults import C0, EPS_ALIGN, THETA0
from gaugecli.core.types import Progress
from gaugecli.experiments.declare import require, require_finite


def _check_model(c0: float, theta0: float, a_star: float) -> None:
    require_finite(c0, "c0", low=0.0)
    require_finite(a_star, "a_star", low=0.0)
    require(0.0 < theta0 < np.pi, "theta0", f"must be in (0, π) (got {theta0!r})")


@dataclass(frozen=True)
class LimitConstantsConfig:
    """The model ``(c0, θ0, a*)`` and the alignment threshold ``ε_align`` the runs stop at."""

    c0: float = C0
    theta0: float = THETA0
    eps_align: float = EPS_ALIGN
    a_star: float = 1.0

    def __post_init__(self) -> None:
        _check_model(self.c0, self.theta0, self.a_star)
        require(0.0 < self.eps_align < 1.0, "eps_align", f"must be in (0, 1) (got {self.eps_align!r})")


@dataclass(frozen=True)
class LimitConstants:
    """``favorable`` ``F = lim D·T_spec(+D)``, ``unfavorable`` ``U = lim T_spec(−D)/D``; the ratio
    ``T_spec(−D)/T_spec(+D) ≈ (U/F)·D²``."""

    favorable: float
    unfavorable: float


def limit_constants(config: LimitConstantsConfig, progress: Progress | None = None) -> LimitConstants:
    """:func:`gaugecli.core.reduced.limits.favorable_limit` and :func:`~gaugecli.core.reduced.limits.unfavorable_limit`
    at ``config`` (milliseconds)."""
    from gaugecli.core.reduced.limits import favorable_limit, unfavorable_limit

    favorable = favorable_limit(config.c0, config.theta0, config.eps_align, config.a_star)
    unfavorable = unfavorable_limit(config.theta0, config.eps_align, config.a_star)
    if progress is not None:
        progress(1.0)
    return LimitConstants(favorable, unfavorable)


@dataclass(frozen=True)
class LimitPathsConfig:
    """The model ``(c0, θ0, a*)``; ``points`` samples of each path; the gap's loss ``floor`` (loss
    levels at or below it are round-off, :func:`gaugecli.core.model.metrics.clock_free_gap`)."""

    c0: float = C0
    theta0: float = THETA0
    a_star: float = 1.0
    points: int = 4001
    floor: float = 1e-14

    def __post_init__(self) -> None:
        _check_model(self.c0, self.theta0, self.a_star)
        require(self.points >= 8, "points", f"must be ≥ 8 (got {self.points!r})")
        require_finite(self.floor, "floor", low=0.0, strict=False)


@dataclass(frozen=True)
class LimitPaths:
    """Each gauge's ``D → ∞`` path as ``points`` samples of the coefficient ``c`` and the angle
    ``θ`` (``α = cos θ``), in the order the flow visits them, and ``clock_free_gap`` ``Δ_∞``
    between the two paths sampled as finely (:func:`gaugecli.core.reduced.limits.limit_clock_free_gap`)."""

    favorable_coefficient: np.ndarray
    favorable_angle: np.ndarray
    unfavorable_coefficient: np.ndarray
    unfavorable_angle: np.ndarray
    clock_free_gap: float


def limit_paths(config: LimitPathsConfig, progress: Progress | None = None) -> LimitPaths:
    """Both ``D → ∞`` paths at ``config.points`` samples (the favorable one an ODE, the unfavorable
    one closed form) and ``Δ_∞`` between them."""
    from gaugecli.core.reduced import limits

    args = (config.c0, config.theta0, config.a_star)
    plus = limits.favorable_limit_path(*args, points=config.points)
    minus = limits.unfavorable_limit_path(*args, points=config.points)
    gap = limits.limit_clock_free_gap(*args, floor=config.floor, points=config.points)
    if progress is not None:
        progress(1.0)
    return LimitPaths(plus.coefficient, plus.angle, minus.coefficient, minus.angle, gap)
