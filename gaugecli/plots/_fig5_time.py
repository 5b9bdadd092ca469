"""Panels (c) and (d) of fig5 — pruning in time: the exponential decay at the linearised rate, and the δ sweep's traces — and the helpers and styles the panels share."""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.core.analyses.pruning import pruning_rate_limit
from gaugecli.core.model.metrics import first_time_below
from gaugecli.experiments.prune import RESOLUTION, PrunePoint, PruneResult, SweepPoint
from gaugecli.plots import style
from gaugecli.plots.venue import Layout

FIT_MIN = 4.0
"""Least-squares slopes over ``D ≥ FIT_MIN`` (D = 1 is pre-asymptotic)."""


SHOWN_M = 2
"""Panel (c) draws the runs with this width."""


TRACES = (-1.0, -0.25, -0.1, 0.0, 1.0)
"""The sweep's δ drawn over time in (d)."""


TRACE_LABEL_AT = {-1.0: 1e-9, -0.25: 1e-10, -0.1: 1e-10}
"""(d) labels the pruned curves at these P (where their neighbours are far)."""


FLOOR = RESOLUTION["flow"]
"""The round-off band: P below the population flow's resolution."""


M_COLORS = {2: style.PURPLE, 5: style.ORANGE}
"""Widths in (b) (neither gauge's colour: every run has both gauges)."""


M_MARKERS = {2: "o", 5: "^"}
"""m = 2, 5 in (b): circles and triangles (squares are kept for the −D gauge in every figure)."""


TRACE_STYLES = {-1.0: "-", -0.25: (0, (5, 1.5)), -0.1: (0, (1.5, 1.2)), 0.0: "-", 0.25: (0, (5, 1.5)), 1.0: "-"}


SAMPLE_LS: style.LineStyleType = (0, (3.5, 1.5))


def _grid(result: PruneResult, mode: str, m: int) -> list[PrunePoint]:
    """The runs of one mode and width, by increasing D (first seed only)."""
    seed = min(p.seed for p in result.points if p.mode == mode)
    return sorted(
        (p for p in result.points if p.mode == mode and p.m == m and p.seed == seed), key=lambda p: p.strength
    )


def _sign_style(delta: float) -> tuple[str, str]:
    """Colour and marker of a non-owner by the sign of its δ (the gauges' fixed colours)."""
    g = style.gauge_of(delta)
    return style.GAUGE_COLORS[g], style.GAUGE_MARKERS[g]


def _panel_decay(ax: Any, result: PruneResult, layout: Layout) -> dict[str, Any]:
    """(c) P(t) against D·t, m = SHOWN_M, each mode down to its resolution; the linearised rate."""
    ms = sorted({p.m for p in result.points})
    m = SHOWN_M if SHOWN_M in ms else ms[0]
    out: dict[str, Any] = {"m": m}
    flow = _grid(result, "flow", m)
    sample = _grid(result, "sample", m) if any(p.mode == "sample" for p in result.points) else []
    colors = dict(zip([p.strength for p in flow], style.sequential_colors(len(flow)), strict=True))
    x_max = 0.0
    # cividis keeps the D order colour-blind safe; a marker per D tells neighbours apart
    markers = dict(zip([p.strength for p in flow], style.SEQUENCE_MARKERS, strict=False))
    for mode, runs in (("flow", flow), ("sample", sample)):
        for p in runs:
            x = p.strength * p.t
            y = style.clip_to_floor(p.nonowner_norm, p.resolution)
            last = int(np.flatnonzero(np.isfinite(y))[-1]) + 2 if np.any(np.isfinite(y)) else x.size
            x, y = x[:last], y[:last]
            ax.plot(
                x,
                y,
                color=colors.get(p.strength, style.GREY),
                ls="-" if mode == "flow" else SAMPLE_LS,
                lw=1.2 if mode == "flow" else 1.0,
                marker=markers.get(p.strength) if mode == "flow" else None,
                markevery=(0.04 + 0.03 * list(markers).index(p.strength), 0.18) if p.strength in markers else None,
                ms=3.2,
                mfc="white",
            )
            out[f"{mode}-D{p.strength:g}"] = style.series(
                x, y, resolution=p.resolution, decay_rate=p.decay_rate, predicted_rate=p.predicted_rate
            )
            if mode == "flow":
                x_max = max(x_max, float(x[np.flatnonzero(np.isfinite(y))[-1]]))
    # the linearised rate at D → ∞, as a broad light band under the largest D's curve (anchored
    # where that curve crosses 1e-4): the data run along it
    lam = pruning_rate_limit(m - 1)
    top = flow[-1]
    x0 = top.strength * first_time_below(top.t, top.nonowner_norm, 1e-4)
    xs = np.array([x0 - np.log(10.0) / lam, x0 + np.log(1e-4 / 1e-10) / lam])
    ys = 1e-4 * np.exp(-lam * (xs - x0))
    ax.plot(xs, ys, color=style.THEORY, lw=5.0, alpha=0.22, solid_capstyle="butt", zorder=1)
    out["linearised"] = style.series(xs, ys, rate_per_D=lam)
    style.floor_band(ax, FLOOR, None)
    style.threshold_line(ax, 1e-6)
    ax.set_yscale("log")
    ax.set_ylim(FLOOR / 8.0, 1.0)
    ax.set_xlim(0.0, 1.4 * x_max)
    ax.set_xlabel(r"time $\times$ gauge strength, $D\,t$")
    ax.set_ylabel(r"non-owner norm $P(t)$")
    handles = [style.line_handle(c, "-", markers[D], f"$D={D:g}$", mfc="white") for D, c in colors.items()]
    if sample:
        handles.append(style.line_handle("0.3", SAMPLE_LS, None, "finite sample"))
    # one column at the upper right, where every curve has fallen below 1e-6: the time axis runs on
    # to 1.4 × the last curve's end and P's to 1, for the room
    ax.legend(handles=handles, loc="upper right", handlelength=1.6, handletextpad=0.4)
    style.note(
        ax,
        "grey band: linearised\nflow as $D\\to\\infty$,\n" + rf"$e^{{-\lambda t}}$, $\lambda={lam:.4f}\,D$",
        (0.02, 0.1),
        layout,
        xycoords="axes fraction",
        va="bottom",
        color=style.THEORY,
    )
    ax.set_title(f"$m={m}$", loc="right", fontsize=layout.small)
    style.panel_label(ax, "c")
    return out


def _panel_traces(ax: Any, sweep: list[SweepPoint], owner_delta: float, layout: Layout) -> dict[str, Any]:
    """(d) P(t) of the sweep near the boundary, linear time."""
    out: dict[str, Any] = {}
    by_delta = {s.delta: s for s in sweep}
    t_max = 0.0
    for d in TRACES:
        s = by_delta.get(d)
        if s is None:
            continue
        color, _ = _sign_style(d)
        y = style.clip_to_floor(s.nonowner_norm, FLOOR)
        ax.plot(s.t, y, color=color, ls=TRACE_STYLES.get(d, "-"), lw=1.2)
        out[f"delta{d:+g}"] = style.series(
            s.t, y, time_below=s.time_below, decay_rate=s.decay_rate, predicted_rate=s.predicted_rate
        )
        t_max = max(t_max, float(s.t[-1]))
        if d < 0:  # label to the right of the line, where the lines are far apart
            level = TRACE_LABEL_AT.get(d, 1e-10)
            style.note(
                ax,
                rf"$\delta={d:g}$",
                (first_time_below(s.t, s.nonowner_norm, level), level),
                layout,
                offset=(3, 0),
                color=color,
            )
        else:  # above (δ > 0) or below (δ = 0) its plateau, mid-panel
            above = d > 0
            style.note(
                ax,
                rf"$\delta={d:+g}$" if d else r"$\delta=0$ (balanced)",
                (0.55 * s.t[-1], float(s.nonowner_norm[-1])),
                layout,
                offset=(0, 2 if above else -2),
                va="bottom" if above else "top",
                color=color,
            )
    style.floor_band(ax, FLOOR, None)
    style.threshold_line(ax, 1e-6)
    ax.set_yscale("log")
    ax.set_ylim(FLOOR / 8.0, 1.0)
    ax.set_xlim(0.0, t_max)
    ax.set_xlabel(r"time $t$")
    ax.set_ylabel(r"non-owner norm $P(t)$")
    ax.set_title(rf"$m=2$, owner $\delta=+{owner_delta:g}$", loc="right", fontsize=layout.small)
    style.panel_label(ax, "d")
    return out
