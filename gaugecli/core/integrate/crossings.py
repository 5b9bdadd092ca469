"""Where a flow's states are stored and where its crossings lie: the declared grid of
:func:`gaugecli.core.integrate.flow.gradient_flow` (log-spaced times and the located ``T_spec``), and the
crossings ``α_j = 1 − ε`` located on a solver's dense output, every crossing of an ensemble at once.

Both depend on the configuration and the trajectory only — never on the solver's own steps — so a
stored number does not move with batching, chunking or the machine beyond the solver's tolerance.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gaugecli.core.integrate.trajectory import log_time_grid
from gaugecli.core.types import Array, Indices

GRID_DECADES = 12.0
"""The stored grid spans this many decades below ``t_max`` (log-spaced; the fast relaxation of the
coefficient at rate ~D and the slow turn of the direction at rate ~c/D lie inside it)."""


def declared_grid(t_max: float, points: int, crossing: Array) -> Array:
    """The times a flow's states are stored at: ``0``, ``points − 1`` log-spaced times from
    ``t_max·10^-GRID_DECADES`` to ``t_max``, and each member's crossing ``T_spec`` (root-found on
    the dense output) inside ``(0, t_max)``.

    Only the configuration (``t_max``, ``points``) and the located crossings decide it — never the
    solver's own steps, nor where the solve ended (a flow stopped at its convergence event holds
    its final state on the rest of the grid). The crossings are roots of the trajectory, so they
    move only within the solver's tolerance from one machine to the next; crossings closer than
    the tolerance they are located to (:data:`CROSSING_XTOL` + :data:`CROSSING_RTOL`·t) are one
    time — the tied neurons of a symmetric start cross together, whatever the round-off that
    separates their roots by an ulp."""
    grid = log_time_grid(t_max * 10.0**-GRID_DECADES, t_max, points)
    events = np.unique(crossing[np.isfinite(crossing) & (crossing > 0) & (crossing < t_max)])
    if events.size > 1:
        distinct = np.diff(events) > CROSSING_XTOL + CROSSING_RTOL * events[1:]
        events = events[np.concatenate([[True], distinct])]
    return np.unique(np.concatenate([grid, events]))


def first_crossings(
    t_steps: Array, align: Array, threshold: float, aligned_at: Callable[[Array, Indices, Indices], Array]
) -> Array:
    """``(n, m)``: the first time each neuron's ``α_j`` reaches ``threshold`` (NaN: never; 0: at the
    start), from ``align (steps, n, m)`` at the solver's stored steps ``t_steps``.

    The first step at or above the threshold brackets the crossing with the step before it; the
    crossing is then located on the dense output (as ``solve_ivp``'s own event location does), where
    ``aligned_at(t, members, neurons)`` gives ``α`` of those neurons at the times ``t``."""
    crossing = np.full(align.shape[1:], np.nan)
    members, neurons = np.nonzero(np.any(align >= threshold, axis=0))
    first = np.argmax(align[:, members, neurons] >= threshold, axis=0)  # the first step at or above
    crossing[members[first == 0], neurons[first == 0]] = 0.0
    later = first > 0
    members, neurons, first = members[later], neurons[later], first[later]
    if members.size:

        def gaps(t: Array, k: Indices) -> Array:
            return aligned_at(t, members[k], neurons[k]) - threshold

        crossing[members, neurons] = locate_crossings(gaps, t_steps[first - 1], t_steps[first])
    return crossing


def locate_crossing(gap: Callable[[float], float], lo: float, hi: float) -> float:
    """The root of ``gap`` (α − (1 − ε) on the dense output) in the step ``[lo, hi]`` whose stored
    states bracket it (:func:`locate_crossings` for one crossing)."""
    return float(locate_crossings(lambda t, _: np.array([gap(float(t[0]))]), np.array([lo]), np.array([hi]))[0])


def locate_crossings(gaps: Callable[[Array, Indices], Array], lo: Array, hi: Array) -> Array:
    """The roots of several increasing gaps at once, each in its bracket ``[lo_k, hi_k]``, to
    :data:`CROSSING_XTOL` + :data:`CROSSING_RTOL`·t: ``gaps(t, k)`` is ``gap_k(t_k)`` for the crossings
    ``k`` (indices) at their times ``t`` — one evaluation of the dense output serves them all.

    Each bracket ``[lo, hi]`` is a solver step whose stored states bracket the crossing. The dense
    output at a step's end equals the stored state to round-off only: where the state sits within
    ulps of the threshold the two may disagree about its sign, and the crossing is then that end of
    the step. Otherwise false position with the Illinois modification narrows the bracket, with a
    bisection every third step (so the bracket at least halves every three), until its half-width is
    within the tolerance; the result is its midpoint, within that tolerance of the root."""
    lo, hi = np.array(lo, float), np.array(hi, float)
    everyone = np.arange(lo.size)
    f_lo, f_hi = gaps(lo, everyone), gaps(hi, everyone)
    out = np.full(lo.size, np.nan)
    out[f_lo >= 0.0] = lo[f_lo >= 0.0]  # above at the start on the dense output (or exactly on it)
    out[f_hi <= 0.0] = hi[f_hi <= 0.0]  # below at the end (or exactly on it): the end
    active = np.flatnonzero(np.isnan(out))
    a, b, fa, fb = lo[active], hi[active], f_lo[active], f_hi[active]
    kept = np.zeros(active.size, int)  # +1: the last step moved the lower end (kept the upper), −1: the upper
    for step in range(1, 400):
        done = (b - a) / 2.0 <= CROSSING_XTOL + CROSSING_RTOL * np.abs(a)
        if np.any(done):
            out[active[done]] = 0.5 * (a[done] + b[done])
            active, kept = active[~done], kept[~done]
            a, b, fa, fb = a[~done], b[~done], fa[~done], fb[~done]
        if active.size == 0:
            return out
        x = b - fb * (b - a) / (fb - fa) if step % 3 else 0.5 * (a + b)
        outside = ~((x > a) & (x < b))  # rounding put it on an end: bisect
        x[outside] = 0.5 * (a[outside] + b[outside])
        fx = gaps(x, active)
        root = fx == 0.0
        out[active[root]] = x[root]
        below = fx < 0.0
        # Illinois: an end kept twice in a row has its value halved, so that the next secant moves it
        fb = np.where(below & (kept == 1), 0.5 * fb, fb)
        fa = np.where(~below & (kept == -1), 0.5 * fa, fa)
        a, fa = np.where(below, x, a), np.where(below, fx, fa)
        b, fb = np.where(below, b, x), np.where(below, fb, fx)
        kept = np.where(below, 1, -1)
        active, kept = active[~root], kept[~root]
        a, b, fa, fb = a[~root], b[~root], fa[~root], fb[~root]
        if active.size == 0:
            return out
    raise RuntimeError("locate_crossings: no convergence in 400 steps")  # pragma: no cover - halving every 3


CROSSING_XTOL = 1e-14
CROSSING_RTOL = 1e-13
"""The crossing ``T_spec`` is located on the dense output (:func:`locate_crossings`) to
``|t − t*| ≤ CROSSING_XTOL + CROSSING_RTOL·|t*|``."""
