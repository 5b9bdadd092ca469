"""fig1 (c): the gap ``‖f_{+D} − f_{−D}‖ / ‖y‖`` (L² over N(0, I)) between the two students, at the
times both runs store, and the window where it exceeds ½ — whose ends are a cached run of the reduced
flow (:mod:`gaugecli.experiments.reduced_window`) that both runs then store their states at."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots.venue import Layout

if TYPE_CHECKING:
    from gaugecli.experiments.reduced_window import ReducedWindow

GAP_T_FIRST = 1e-2
"""Panel (c) starts here: before, the gap grows ∝ t from 0 to about 1 % of ‖y‖."""
GAP_FLOOR = 1e-6
"""Below this the gap in (c) is round-off: the stored α = cos θ fixes θ only to ~1e-8 near
α = 1, and the L² distance is the square root of a difference of O(1) kernel terms (measured
≤ 4e-8 once both runs have converged)."""


def gap_series(plus: Any, minus: Any, a_star: float) -> tuple[np.ndarray, np.ndarray]:
    """``‖f_{+D} − f_{−D}‖ / ‖y‖`` at every time ``≥ GAP_T_FIRST`` that *both* runs store: their
    common grid (equal |δ|, equal horizons), each other's T_spec and the window's ends, all declared
    (:func:`gaugecli.plots.fig1.followups`); nothing is interpolated between stored samples."""
    from gaugecli.core.model.metrics import function_distance

    t, i_plus, i_minus = np.intersect1d(plus.t, minus.t, assume_unique=True, return_indices=True)
    keep = t >= GAP_T_FIRST
    t, i_plus, i_minus = t[keep], i_plus[keep], i_minus[keep]

    def state(run: Any, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        alpha = np.clip(run.alignment[index, 0], -1.0, 1.0)
        W = np.stack([alpha, np.sqrt(1.0 - alpha**2)], axis=-1)[:, None, :]
        return run.coefficient[index, 0][:, None], W  # the function c relu(u·x): any gauge gives the same distance

    return t, function_distance(*state(plus, i_plus), *state(minus, i_minus)) / (abs(a_star) / np.sqrt(2.0))


def panel_gap(
    ax: Any, runs: dict[str, Any], a_star: float, window: ReducedWindow, level: float, layout: Layout
) -> dict[str, Any]:
    """(c) the gap against t, each gauge's T_spec, and the window where the gap exceeds ``level``
    (shaded), with the runs' own gap at its ends."""
    t, gap = gap_series(runs["favorable"], runs["unfavorable"], a_star)
    gap = style.clip_to_floor(gap, GAP_FLOOR)  # once both have converged the gap is round-off: not drawn
    ax.plot(t, gap, color=style.THEORY, lw=1.4, zorder=3)
    out: dict[str, Any] = {"gap": style.series(t, gap)}
    for g in runs:
        ts = runs[g].t_spec
        if ts is not None:
            ax.axvline(ts, color=style.GAUGE_COLORS[g], ls=":", lw=1.0, zorder=1)
            ax.plot(
                [ts],
                [1.08],
                ls="none",
                marker=style.GAUGE_MARKERS[g],
                ms=4,
                color=style.GAUGE_COLORS[g],
                clip_on=False,
                zorder=4,
            )
    peak = int(np.nanargmax(gap))
    out.update(peak=float(gap[peak]), t_peak=float(t[peak]), t_spec={g: runs[g].t_spec for g in runs})
    ax.axhline(level, color=style.GUIDE, ls=(0, (1, 2)), lw=0.8, zorder=0)
    out["window_above_half"] = list(window.ends) if window.ends else None
    if window.ends is not None:
        lo, hi = window.ends
        # the runs' own gap at the ends: both store their states at exactly these times
        at_ends = [float(gap[np.flatnonzero(t == end)[0]]) for end in window.ends]
        ax.axvspan(lo, hi, color="0.92", lw=0, zorder=0)
        ax.plot([lo, hi], at_ends, ls="none", marker="|", ms=7, mew=1.2, color=style.THEORY, zorder=5)
        out["window"] = style.series(
            [lo, hi],
            at_ends,
            level=level,
            method="brentq on the reduced (c, θ) flow's dense output; gap read from both runs at these declared times",
            xtol=window.xtol,
            reduced_gap_at_ends=[window.gap_at_crossings[0], window.gap_at_crossings[-1]],
            crossings=list(window.crossings),
        )
        style.note(
            ax,
            r"gap $>\frac{1}{2}$ on" + "\n" + rf"$[{lo:.4f},\,{hi:.2f}]$",
            (float(np.sqrt(lo * hi)), 0.24),
            layout,
            ha="center",
            va="center",
            color=None,
            bbox={"fc": "0.92", "ec": "none", "pad": 0.3},
            zorder=2,  # over the T_spec lines, under the gap
        )
    ax.set_xscale("log")
    # the stored grid runs to the horizon; the axis ends soon after the gap has fallen to round-off
    resolved = t[np.isfinite(gap)]
    t_right = min(float(t[-1]), 2.0 * float(resolved[-1])) if resolved.size else float(t[-1])
    out["t_axis_end"] = t_right
    ax.set_xlim(GAP_T_FIRST, t_right)
    ax.set_ylim(0.0, 1.15)
    ax.set_yticks([0.0, 0.5, 1.0])
    ax.set_xlabel(style.LABELS["t"])
    ax.set_ylabel(r"$\|f_{+D}-f_{-D}\|\,/\,\|y\|$")
    style.panel_label(ax, "c")
    return out
