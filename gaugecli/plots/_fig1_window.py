"""fig1's window: where the gap ``‖f_{+D} − f_{−D}‖ / ‖y‖`` between the two students exceeds ½,
its ends found by root-finding (``brentq``) on the dense output of the reduced ``(c, θ)`` flow.

For ``m = 1`` from ``u0`` in the teacher's plane the population flow *is* the reduced flow
(:mod:`gaugecli.core.reduced`, SPEC §6), so the gap is a smooth function of ``t`` that can be
evaluated anywhere: ``‖f₊ − f₋‖² = c₊²/2 + c₋²/2 − 2 c₊ c₋ g(|θ₊ − θ₋|)``, ``‖y‖ = a*/√2``. Its
sign changes about ½ are bracketed on a log-spaced scan of that dense output and refined by
``brentq``; the full runs of the figure then store their states at exactly these times (declared
``times``), so the figure reads the gap there from the runs themselves — nothing is interpolated
between stored samples and no solver step is read.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

LEVEL = 0.5
"""The window: where the gap exceeds this fraction of ‖y‖."""
SCAN_FIRST = 1e-3
"""The scan for brackets starts here (the gap grows ∝ t from 0: 0.1 % of ‖y‖ at t = 1e-3)."""
SCAN_POINTS = 401
"""Log-spaced evaluations of the dense output that bracket the crossings (the gap crosses ½ twice,
an order of magnitude in t from either end of the scan)."""
RTOL = 1e-12
"""Relative tolerance of the reduced flow whose dense output the roots are found on."""
XTOL = 1e-14
"""``brentq``'s tolerances: absolute ``XTOL`` and relative ``XTOL`` (≥ 4 machine epsilons) in t."""


class Window(NamedTuple):
    """The window where the gap exceeds :data:`LEVEL`: ``ends`` (its first and last crossing, or
    ``None`` with fewer than two), every ``crossing`` found, the gap at each (the reduced flow's,
    ½ to round-off), and the brentq tolerance."""

    ends: tuple[float, float] | None
    crossings: tuple[float, ...]
    gap_at_crossings: tuple[float, ...]
    xtol: float


@cache
def gap_window(strength: float, c0: float, theta0: float, a_star: float, t_max: float) -> Window:
    """The window of the ``±D`` pair (``D = strength``, ``m = 1``) started at ``(c0, θ0)``, up to
    ``t_max`` (the runs' horizon). Cached: :func:`gaugecli.plots.fig1.followups` asks for it to
    declare the times, ``build`` again to draw them (about 0.3 s once)."""
    from scipy.optimize import brentq

    from gaugecli.core.kernels import angular_profile
    from gaugecli.core.reduced import solve_reduced

    # no convergence stop: both flows to the horizon, so the dense output covers every t of the scan
    runs = [
        solve_reduced(
            np.array([sign * strength]), t_max=t_max, c0=c0, theta0=theta0, a_star=a_star, rtol=RTOL, grad_tol=None
        )
        for sign in (1.0, -1.0)
    ]
    norm_y = abs(a_star) / np.sqrt(2.0)

    def gap(t: float) -> float:
        (cp,), (tp,) = runs[0].dense(t)
        (cm,), (tm,) = runs[1].dense(t)
        square = 0.5 * cp**2 + 0.5 * cm**2 - 2.0 * cp * cm * float(angular_profile(abs(tp - tm)))
        return float(np.sqrt(max(square, 0.0))) / norm_y

    scan = np.geomspace(SCAN_FIRST, t_max, SCAN_POINTS)
    above = np.array([gap(t) for t in scan]) - LEVEL
    roots = tuple(
        float(brentq(lambda t: gap(t) - LEVEL, scan[i], scan[i + 1], xtol=XTOL, rtol=XTOL))
        for i in np.flatnonzero(above[:-1] * above[1:] < 0)
    )
    ends = (roots[0], roots[-1]) if len(roots) >= 2 else None
    return Window(ends, roots, tuple(gap(t) for t in roots), XTOL)
