"""The ±D window: where the gap ``‖f_{+D} − f_{−D}‖ / ‖y‖`` between two single-neuron students
exceeds a level (½ in fig1 (c)), its ends found by root-finding (``brentq``) on the dense output of
the reduced ``(c, θ)`` flow.

For ``m = 1`` from ``u0`` in the teacher's plane the population flow *is* the reduced flow
(:mod:`gaugecli.core.reduced.planar`, docs/theory.md §6), so the gap is a smooth function of ``t`` that can be
evaluated anywhere: ``‖f₊ − f₋‖² = c₊²/2 + c₋²/2 − 2 c₊ c₋ g(|θ₊ − θ₋|)``, ``‖y‖ = a*/√2``. Its
sign changes about the level are bracketed on a log-spaced scan of that dense output and refined by
``brentq``; fig1's full runs then store their states at exactly these times (declared ``times``),
so the figure reads the gap there from the runs themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaugecli.core.defaults import C0, THETA0
from gaugecli.core.types import Progress
from gaugecli.experiments.declare import require, require_finite

SCAN_FIRST = 1e-3
"""The scan for brackets starts here (the gap grows ∝ t from 0: 0.1 % of ‖y‖ at t = 1e-3)."""
SCAN_POINTS = 401
"""Log-spaced evaluations of the dense output that bracket the crossings (the gap crosses ½ twice,
an order of magnitude in t from either end of the scan)."""
XTOL = 1e-14
"""``brentq``'s tolerances: absolute ``XTOL`` and relative ``XTOL`` (≥ 4 machine epsilons) in t."""


@dataclass(frozen=True)
class ReducedWindowConfig:
    """The ``±D`` pair (``D = strength``, ``m = 1``) started at ``(c0, θ0)`` towards the teacher
    ``a* relu(v·x)``, both flows solved to ``t_max`` (the runs' horizon) at relative tolerance
    ``rtol``; the window is where the gap exceeds ``level``."""

    strength: float = 4.0
    c0: float = C0
    theta0: float = THETA0
    a_star: float = 1.0
    t_max: float = 1000.0
    level: float = 0.5
    rtol: float = 1e-12

    def __post_init__(self) -> None:
        for name in ("strength", "c0", "a_star", "rtol", "level"):
            require_finite(getattr(self, name), name, low=0.0)
        require_finite(self.t_max, "t_max", low=SCAN_FIRST)
        require(0.0 <= self.theta0 < np.pi, "theta0", f"must be in [0, π) (got {self.theta0!r})")


@dataclass(frozen=True)
class ReducedWindow:
    """The window where the gap exceeds the level: ``ends`` (its first and last crossing, or
    ``None`` with fewer than two), every ``crossing`` found, the gap at each (the reduced flow's:
    the level to round-off), and the brentq tolerance ``xtol``."""

    ends: tuple[float, float] | None
    crossings: tuple[float, ...]
    gap_at_crossings: tuple[float, ...]
    xtol: float


def reduced_window(config: ReducedWindowConfig, progress: Progress | None = None) -> ReducedWindow:
    """The window of ``config`` (two reduced flows, then ``brentq`` on their dense output; ~0.3 s)."""
    from scipy.optimize import brentq

    from gaugecli.core.kernels.arccos import angular_profile
    from gaugecli.core.reduced.planar import solve_reduced

    strength, a_star, level = config.strength, config.a_star, config.level
    # no convergence stop: both flows to the horizon, so the dense output covers every t of the scan
    runs = [
        solve_reduced(
            np.array([sign * strength]),
            t_max=config.t_max,
            c0=config.c0,
            theta0=config.theta0,
            a_star=a_star,
            rtol=config.rtol,
            grad_tol=None,
        )
        for sign in (1.0, -1.0)
    ]
    norm_y = abs(a_star) / np.sqrt(2.0)

    def gap(t: float) -> float:
        (cp,), (tp,) = runs[0].dense(t)
        (cm,), (tm,) = runs[1].dense(t)
        square = 0.5 * cp**2 + 0.5 * cm**2 - 2.0 * cp * cm * float(angular_profile(abs(tp - tm)))
        return float(np.sqrt(max(square, 0.0))) / norm_y

    scan = np.geomspace(SCAN_FIRST, config.t_max, SCAN_POINTS)
    above = np.array([gap(t) for t in scan]) - level
    roots = tuple(
        float(brentq(lambda t: gap(t) - level, scan[i], scan[i + 1], xtol=XTOL, rtol=XTOL))
        for i in np.flatnonzero(above[:-1] * above[1:] < 0)
    )
    ends = (roots[0], roots[-1]) if len(roots) >= 2 else None
    if progress is not None:
        progress(1.0)
    return ReducedWindow(ends, roots, tuple(gap(t) for t in roots), XTOL)
