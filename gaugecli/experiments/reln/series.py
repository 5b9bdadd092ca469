"""Small shared steps of the ReLN comparisons: times to a loss level, loss curves on a common grid."""

from __future__ import annotations

import numpy as np

from gaugecli.core.model.metrics import first_time_below
from gaugecli.core.types import Array

CURVE_POINTS = 160
"""Samples per stored loss curve (log-spaced in t, for the figure)."""


def finite_or_none(x: float) -> float | None:
    """``x`` as a float, or ``None`` where it is NaN/±inf (a time never reached)."""
    return float(x) if np.isfinite(x) else None


def time_to(t: Array, loss: Array, level: float) -> float | None:
    """The first time the (interpolated) loss falls below ``level``; ``None`` if it never does."""
    return finite_or_none(first_time_below(t, loss, level))


def resample(t_from: Array, values: Array, t_to: Array) -> Array:
    """Log-linear interpolation of a positive series (loss) onto ``t_to``; held beyond its end."""
    return np.exp(np.interp(t_to, t_from, np.log(np.maximum(values, 1e-300))))


def curve_grid(t_first: float, t_last: float) -> Array:
    """t = 0, then :data:`CURVE_POINTS` − 1 log-spaced times from ``t_first`` to ``t_last``."""
    return np.concatenate([[0.0], np.geomspace(t_first, t_last, CURVE_POINTS - 1)])
