"""Panels (c) and (d) of fig6 — the two checks of the dissipation: ``−dL/dt`` from the loss alone
against ``R + T`` from the decomposition, and the identity residual ``|‖∇L‖² − (R + T)| / ‖∇L‖²``.
Each y-axis spans its data (a decade of margin) and the bound it is read against, not the empty
decades down to double precision."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from gaugecli.core.analyses.observables import RunObservables
from gaugecli.core.model.metrics import loss_decay_rate
from gaugecli.plots import style
from gaugecli.plots.venue import Layout

ROUND_OFF = float(np.finfo(float).eps)
"""Relative residuals below double precision are drawn as a band."""
CLAIM_BOUND = 1e-10
"""Claim C3's bound on the relative identity residual."""
LOSS_FLOOR = 1e-12
"""−dL/dt from the loss is resolved only while L is above this (:func:`loss_decay_rate`)."""
PARITY_EVERY = 3
"""Panel (c) draws every third sample (the grid has ~400; the points would overlap)."""
PARITY_FLOOR = 1e-8
"""(c) draws the relative difference while ``L ≥`` this; its largest value is over every ``L ≥`` :data:`LOSS_FLOOR`."""
DECOMPOSITION_ERROR_LIMIT = 1e-3
"""What the loss route must match ``R + T`` to (relative), wherever ``L ≥`` :data:`LOSS_FLOOR`."""
MARGIN = 3.0
"""A log axis reaches this factor beyond the data (or the bound) at each end."""

Runs = Iterable[tuple[str, str, RunObservables]]
"""``(sidecar name, gauge, run)`` of every run drawn."""


def window(x: np.ndarray, x_max: float) -> np.ndarray:
    """Samples with ``x ≤ x_max`` and the first beyond it (so that a line reaches the edge)."""
    keep = x <= x_max
    beyond = np.flatnonzero(~keep)
    if beyond.size:
        keep[beyond[0]] = True
    return keep


def _decades(low: float, high: float) -> tuple[float, float]:
    """Log-axis limits: :data:`MARGIN` beyond ``low`` and ``high``."""
    return low / MARGIN, high * MARGIN


def panel_parity(ax: Any, runs: Runs, x_max: float, layout: Layout) -> dict[str, Any]:
    """(c) ``|−dL/dt − (R + T)| / (R + T)`` over time, every run, while ``L ≥`` :data:`PARITY_FLOOR`;
    the y-axis from the smallest drawn value to the limit :data:`DECOMPOSITION_ERROR_LIMIT`."""
    out: dict[str, Any] = {}
    worst, lowest = 0.0, math.inf
    for name, g, run in sorted(runs, key=lambda r: r[1] == "favorable"):  # +D last, on top of −D
        rate = loss_decay_rate(run.t, run.loss, LOSS_FLOOR)
        total = run.reaction + run.transport
        x = run.t / style.spec_time(run)
        ok = np.flatnonzero(np.isfinite(rate) & (total > 0))
        error = np.abs(rate[ok] - total[ok]) / total[ok]
        worst = max(worst, float(np.max(error)))
        # drawn while L ≥ PARITY_FLOOR, where the loss's round-off moves it by ≤ 4e-7 (SIDECAR_TOLERANCES)
        shown = (x[ok] <= x_max) & (np.arange(ok.size) % PARITY_EVERY == 0) & (run.loss[ok] >= PARITY_FLOOR)
        y = style.clip_to_floor(error[shown], ROUND_OFF)
        if np.any(np.isfinite(y)):
            lowest = min(lowest, float(np.nanmin(y)))
        ax.plot(
            x[ok][shown],
            y,
            ls="none",
            marker=style.GAUGE_MARKERS[g],
            ms=2.2,
            mew=0.0,
            alpha=0.8,
            color=style.GAUGE_COLORS[g],
        )
        out[name] = style.series(x[ok][shown], y)
    out["max_relative_deviation"] = worst
    out["loss_floor"] = LOSS_FLOOR
    out["limit"] = DECOMPOSITION_ERROR_LIMIT
    ax.set_yscale("log")
    bottom, top = _decades(lowest if math.isfinite(lowest) else ROUND_OFF, DECOMPOSITION_ERROR_LIMIT)
    ax.set_ylim(bottom, top)
    if bottom < ROUND_OFF:
        style.floor_band(ax, ROUND_OFF, None)
    style.threshold_line(ax, DECOMPOSITION_ERROR_LIMIT)
    style.note(
        ax,
        rf"largest over every run: {worst:.1e}".replace("e-0", "e-"),
        (0.99, DECOMPOSITION_ERROR_LIMIT),
        layout,
        offset=(0, -2),
        xycoords=("axes fraction", "data"),
        ha="right",
        va="top",
    )
    out["ylim"] = [bottom, top]
    ax.set_xlim(0.0, x_max)
    ax.set_xlabel(r"$t\,/\,T_{\rm spec}$")
    ax.set_ylabel("relative difference")
    ax.set_title(r"$|{-d\mathcal{L}/dt}-(R+T)|\,/\,(R+T)$", loc="right", fontsize=layout.small)
    return out


def panel_residual(ax: Any, runs: Runs, x_max: float, layout: Layout) -> dict[str, Any]:
    """(d) the identity residual at every saved time: the y-axis spans the drawn values and the
    round-off band under them; the claim's bound :data:`CLAIM_BOUND`, decades above, is named at the
    top with its distance rather than drawn across the empty decades."""
    out: dict[str, Any] = {}
    shown_max = 0.0
    for name, g, run in runs:
        x = run.t / style.spec_time(run)
        keep = window(x, x_max)
        y = style.clip_to_floor(run.identity_residual[keep], ROUND_OFF)
        ax.plot(
            x[keep],
            y,
            ls="none",
            marker=style.GAUGE_MARKERS[g],
            ms=2.0,
            mew=0.0,
            alpha=0.7,
            color=style.GAUGE_COLORS[g],
        )
        out[name] = style.series(x[keep], y)
        inside = y[x[keep] <= x_max]  # the one sample past the edge only carries the line there
        shown_max = max(shown_max, float(np.nanmax(inside)) if np.any(np.isfinite(inside)) else 0.0)
    ax.set_yscale("log")
    top = max(shown_max, ROUND_OFF) * MARGIN * 3.0  # room above the data for the note
    ax.set_ylim(ROUND_OFF / MARGIN, top)
    style.floor_band(ax, ROUND_OFF, None)
    style.note(
        ax,
        "below double precision",
        (0.99, ROUND_OFF),
        layout,
        offset=(0, -2),
        xycoords=("axes fraction", "data"),
        ha="right",
        va="top",
    )
    if CLAIM_BOUND > top:
        factor = CLAIM_BOUND / shown_max if shown_max > 0 else math.inf
        text = (
            rf"claimed bound $10^{{{round(math.log10(CLAIM_BOUND))}}}$, off the top:" + f"\n{factor:.0f}× the largest"
        )
        style.note(ax, text, (0.01, 0.97), layout, xycoords="axes fraction", va="top")
    else:
        style.threshold_line(ax, CLAIM_BOUND)
    ax.set_xlim(0.0, x_max)
    ax.set_xlabel(r"$t\,/\,T_{\rm spec}$")
    ax.set_ylabel("identity residual")
    ax.set_title(
        r"$|\,\|\nabla\mathcal{L}\|^2-(R+T)\,|\,/\,\|\nabla\mathcal{L}\|^2$", loc="right", fontsize=layout.small
    )
    out["round_off"] = ROUND_OFF
    out["bound"] = CLAIM_BOUND
    out["max_shown"] = shown_max
    out["bound_over_max_shown"] = CLAIM_BOUND / shown_max if shown_max > 0 else None
    return out
