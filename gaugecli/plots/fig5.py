"""Figure 5 — functional pruning (claim C7): the non-owners' function vanishes, and where it stops.

One ``prune`` run (:mod:`gaugecli.experiments.prune`, the model's defaults ``d = 16``, ``c0 = 0.1``,
``θ0 = π/2``): owner 0 at ``+D``, the others at ``−D``, for ``D ∈ {1, 4, 16, 64, 256}`` and
``m ∈ {2, 5}``, population flow and finite-sample flow (gradient flow on ``L_n``, same solver);
and the boundary sweep, ``m = 2``, owner at ``δ = +4``, the non-owner's δ from −4 to +4.

(a) the boundary: the non-owner norm ``P`` at the end of the run against the non-owner's δ. Below 0
    it is pruned to round-off (drawn on the floor band, as censored values); for δ > 0 it
    co-aligns with the owner and keeps a share of the coefficient that has settled by the horizon,
    up to the equal split at the tie δ = +4. At δ = 0 (balanced) P is still falling at the horizon,
    algebraically (its log slope over the last decade is in the sidecar): the boundary itself,
    drawn apart (no line joins it to the δ > 0 branch).
(b) the pruning time (first ``P ≤ 10⁻⁶``) of the population flow against D on log–log axes, with
    a ``1/D`` guide and least-squares lines over ``D ≥ 4``; the asymptotic slope (last local slope,
    its change as error) and ``D·T_prune`` in the sidecar. Below, on the same D: the finite-sample
    flow's time over the population's, minus 1, in per cent (the mean of :data:`SEEDS` samples and
    a bar for their range; on the log axes above the two would coincide).
(c) ``P(t)`` against ``D t`` on linear time (m = 2): for every D the decay is exponential at
    the rate of the flow linearised at the pruned minimum, ``λ → 0.2036 D``
    (:func:`gaugecli.core.analyses.pruning.pruning_rate_limit`; the D → ∞ rate, 0.2099 D at D = 4), so the
    curves collapse. Below each
    dynamics' resolution (:data:`gaugecli.experiments.prune.RESOLUTION`) nothing is drawn.
(d) ``P(t)`` of the sweep for δ near the boundary, on linear time: slopes ``∝ |δ|`` below 0,
    plateaus from 0 on.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from gaugecli.core.analyses.pruning import pruning_rate_limit
from gaugecli.core.analyses.separation import asymptotic_slope, power_law_fit
from gaugecli.experiments.prune import PruneResult, SweepPoint
from gaugecli.plots import style
from gaugecli.plots._fig5_readings import CAPTION as CAPTION
from gaugecli.plots._fig5_readings import CLAIM as CLAIM
from gaugecli.plots._fig5_readings import READINGS as READINGS
from gaugecli.plots._fig5_readings import SIDECAR_TOLERANCES as SIDECAR_TOLERANCES
from gaugecli.plots._fig5_time import (
    FIT_MIN,
    FLOOR,
    M_COLORS,
    M_MARKERS,
    _panel_decay,
    _panel_traces,
    _sign_style,
)
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

MIN_WIDTH = 5.0
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""


STRENGTHS = {False: (1.0, 4.0, 16.0, 64.0, 256.0), True: (4.0, 16.0, 64.0)}
MS = {False: (2, 5), True: (2,)}
SEEDS = {False: (0, 1, 2), True: (0,)}
"""Finite-sample draws of (b): the time at each D is their mean, the bar their range."""
N_SAMPLES = {False: 2000, True: 1000}
"""Finite-sample size: the flow on ``L_n`` costs ∝ n (n = 10⁴ takes ~4× longer for the same picture:
its pruning times differ from n = 2000's by < 2 %)."""
SWEEP = {
    False: None,  # the experiment's default grid, −4 … 4
    True: (-4.0, -1.0, -0.25, -0.1, 0.0, 0.25, 1.0, 4.0),
}


def needs(quick: bool) -> dict[str, Need]:
    """One ``prune`` run: the D × m grid, population and finite-sample flow, and the δ sweep."""
    from gaugecli.experiments.prune import PruneConfig

    config = PruneConfig(strengths=STRENGTHS[quick], ms=MS[quick], n_samples=N_SAMPLES[quick], seeds=SEEDS[quick])
    sweep = SWEEP[quick]
    if sweep is not None:
        config = replace(config, sweep_deltas=sweep)
    return {"prune": Need("prune", config)}


# ------------------------------------------------------------------------------------------
# panels


def _panel_boundary(ax: Any, sweep: list[SweepPoint], owner_delta: float, layout: Layout) -> dict[str, Any]:
    """(a) P at the end against the non-owner's δ; pruned runs (below the floor) as censored markers."""
    out: dict[str, Any] = {"owner_delta": owner_delta, "floor": FLOOR}
    delta = np.array([s.delta for s in sweep])
    final = np.array([s.final for s in sweep])
    resolved = final > FLOOR
    for sign, keep in (("negative", delta < 0), ("zero", delta == 0), ("positive", delta > 0)):
        if not np.any(keep):
            continue
        color, marker = _sign_style({"negative": -1.0, "zero": 0.0, "positive": 1.0}[sign])
        shown = keep & resolved
        if np.any(shown):
            y = style.clip_to_floor(final[shown], FLOOR)
            ax.plot(delta[shown], y, ls="none", marker=marker, color=color, ms=4.5, zorder=3)
            out[sign] = style.series(delta[shown], y)
        censored = keep & ~resolved
        if np.any(censored):  # below round-off: drawn on the floor's edge, open, pointing down
            x = delta[censored]
            ax.plot(x, np.full(x.size, FLOOR), ls="none", marker="v", mfc="white", mec=color, ms=4.5, zorder=3)
            out[f"{sign}-below-floor"] = style.series(x, np.full(x.size, FLOOR))
    # the co-aligned branch joined by a thin line: δ > 0 only — δ = 0 is the boundary, still falling
    # at the horizon (not a settled share), so no line crosses the boundary to it
    co = delta > 0
    ax.plot(delta[co], final[co], color=style.GUIDE, lw=0.7, zorder=2)
    out["coaligned-line"] = style.series(delta[co], final[co])
    style.floor_band(ax, FLOOR, None)
    style.threshold_line(ax, 1e-6)
    style.threshold_line(ax, 0.0, axis="x")
    style.note(ax, r"pruned: $P\leq10^{-6}$", (-4.1, 1e-6), layout, offset=(0, 2), va="bottom")
    style.note(ax, "below round-off", (4.3, FLOOR), layout, offset=(0, -2), ha="right", va="top")
    i0 = int(np.flatnonzero(delta == 0)[0]) if np.any(delta == 0) else None
    if i0 is not None:
        s0 = sweep[i0]
        style.note(
            ax,
            f"balanced: {100 * s0.share:.1f} % of $c$\nat $t={float(s0.t[-1]):g}$, falling",
            (0.0, s0.final),
            layout,
            offset=(5, -3),
            va="top",
            color=style.BALANCED,
        )
        out["balanced_share"] = s0.share
        out["balanced_final"] = s0.final
    tie = [s for s in sweep if s.delta == owner_delta]
    if tie:
        style.note(
            ax,
            "tie: equal split",
            (tie[0].delta, tie[0].final),
            layout,
            offset=(0, 6),
            ha="right",
            va="bottom",
            color=style.PLUS,
        )
    ax.set_yscale("log")
    ax.set_ylim(FLOOR / 8.0, 3.0)
    ax.set_xlim(-4.4, 4.4)
    ax.set_xticks([-4, -2, 0, 2, 4])
    ax.set_xlabel(rf"non-owner imbalance $\delta$ (owner $\delta=+{owner_delta:g}$)")
    ax.set_ylabel(r"$P$ at the end of the run")
    style.tidy_log_axis(ax, "y")
    style.panel_label(ax, "a")
    return out


def _panel_delay(ax: Any, result: PruneResult, ms: list[int], n_samples: int | None, layout: Layout) -> dict[str, Any]:
    """(b)'s lower axes: the finite-sample pruning time over the population flow's, minus 1, in
    per cent, against D — the mean over the samples and the bar their range, per width (on the
    log–log axes above the two sets of markers coincide)."""
    out: dict[str, Any] = {}
    ax.axhline(0.0, color=style.GUIDE, lw=0.7, zorder=1)
    for k, m in enumerate(ms):
        color = M_COLORS.get(m, style.GREY)
        D, T, spread = _times(result, "sample", m)
        D_flow, T_flow, _ = _times(result, "flow", m)
        flow = dict(zip(D_flow.tolist(), T_flow.tolist(), strict=True))
        keep = np.array([d in flow for d in D.tolist()], dtype=bool)
        if not np.any(keep):
            continue
        ref = np.array([flow[d] for d in D[keep].tolist()])
        x = D[keep] * 2.0 ** (0.12 * (k - 0.5 * (len(ms) - 1)))  # widths side by side at each D
        y = 100.0 * (T[keep] / ref - 1.0)
        if spread is not None:
            low, high = 100.0 * (spread[0][keep] / ref - 1.0), 100.0 * (spread[1][keep] / ref - 1.0)
            ax.vlines(x, low, high, color=color, lw=0.9, zorder=3)
        ax.plot(x, y, ls="none", marker=M_MARKERS.get(m, "D"), mfc="white", mec=color, ms=4.0, mew=1.0, zorder=4)
        out[f"m{m}"] = style.series(
            x,
            y,
            D=D[keep],
            **({} if spread is None else {"min": low, "max": high}),
        )
    ax.set_ylabel("sample/flow\n$-\\,1$ (%)", fontsize=layout.small)
    high = max((max(v["max"] if "max" in v else v["y"]) for v in out.values()), default=1.0)
    ax.set_ylim(-0.25 * high, 1.9 * high)  # room above for the note
    k = len(_seeds(result, "sample"))
    text = f"$n={n_samples}$" + (f", {k} samples: mean, range" if k > 1 else "")
    style.note(ax, text, (0.02, 0.95), layout, xycoords="axes fraction", va="top", color="0.15")
    return out


def _panel_times(ax: Any, result: PruneResult, n_samples: int | None, layout: Layout) -> dict[str, Any]:
    """(b) pruning time against D, both widths, population (filled) and finite sample (open)."""
    out: dict[str, Any] = {"fit_min": FIT_MIN}
    ms = sorted({p.m for p in result.points})
    modes = [mode for mode in ("flow", "sample") if any(p.mode == mode for p in result.points)]
    handles = []
    all_D: list[float] = []
    for m in ms:
        color = M_COLORS.get(m, style.GREY)
        for mode in modes:
            D, T, spread = _times(result, mode, m)
            all_D += D.tolist()
            filled = mode == "flow"
            if filled:  # the finite sample's times coincide with these here: its delay is drawn below
                ax.plot(D, T, ls="none", marker=M_MARKERS.get(m, "D"), color=color, ms=4.0, mew=1.0, zorder=3)
                entry = style.series(D, T, compensated=D * T)
            else:
                entry = {"D": style.tolist(D), "time": style.tolist(T), "compensated": style.tolist(D * T)}
            if spread is not None:
                entry.update(seeds=len(_seeds(result, mode)), min=style.tolist(spread[0]), max=style.tolist(spread[1]))
            fit_range = D >= FIT_MIN
            fit = power_law_fit(D[fit_range], T[fit_range])
            entry.update(slope=fit.slope, stderr=fit.stderr)
            if filled and fit_range.sum() >= 3:
                slope, error = asymptotic_slope(D[fit_range], T[fit_range])
                entry.update(asymptotic_slope=slope, asymptotic_error=error)
                x = D[fit_range]
                ax.plot(x, fit(x), color=color, lw=0.9, zorder=2)
                out[f"m{m}-fit"] = style.series(x, fit(x))
            out[f"{mode}-m{m}"] = entry
        handles.append(style.line_handle(color, "-", M_MARKERS.get(m, "D"), f"$m={m}$"))
    D_all = np.array(sorted(set(all_D)))
    anchor = out[f"flow-m{ms[0]}"]
    through = (float(anchor["x"][0]), float(anchor["y"][0]) * 3.0)
    gx, gy = style.power_law_guide(ax, [D_all.min(), D_all.max()], -1.0, through)
    out["guide"] = style.series(gx, gy)
    handles.append(style.line_handle(style.GUIDE, ":", None, r"$\propto 1/D$"))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    ax.xaxis.set_major_locator(FixedLocator(D_all.tolist()))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel(r"gauge strength $D$")
    ax.set_ylabel(r"time to $P\leq10^{-6}$")
    ax.legend(handles=handles, loc="lower left", handlelength=1.6)
    slopes = [
        rf"$m={m}$: ${out[f'flow-m{m}']['asymptotic_slope']:.4f}\pm{out[f'flow-m{m}']['asymptotic_error']:.4f}$"
        for m in ms
        if "asymptotic_slope" in out.get(f"flow-m{m}", {})
    ]
    if slopes:
        style.note(
            ax,
            "slope as $D\\to\\infty$ (population)\n" + "\n".join(slopes),
            (0.98, 0.97),
            layout,
            xycoords="axes fraction",
            ha="right",
            va="top",
            color=style.THEORY,
        )
    low = min(min(v["y"]) for k, v in out.items() if k.startswith("flow"))
    high = max(max(v["y"]) for k, v in out.items() if k.startswith("flow"))
    ax.set_ylim(low / 12.0, float(gy.max()) * 1.5)
    out["time_range"] = [low, high]
    style.panel_label(ax, "b")
    return out


def _seeds(result: PruneResult, mode: str) -> list[int]:
    return sorted({p.seed for p in result.points if p.mode == mode})


def _times(
    result: PruneResult, mode: str, m: int
) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
    """(b)'s pruning times by increasing D: the mean over the mode's seeds where every seed pruned,
    and (several seeds) their range; the population flow has one seed."""
    by_D: dict[float, list[float | None]] = {}
    for p in result.points:
        if p.mode == mode and p.m == m:
            by_D.setdefault(p.strength, []).append(p.time_below)
    D = np.array([d for d in sorted(by_D) if all(t is not None for t in by_D[d])])
    times = [np.array(by_D[d], dtype=float) for d in D]
    T = np.array([t.mean() for t in times])
    several = len(_seeds(result, mode)) > 1
    spread = (np.array([t.min() for t in times]), np.array([t.max() for t in times])) if several else None
    return D, T, spread


def _horizon(s: SweepPoint) -> dict[str, float | None]:
    """Where a sweep run stops and whether its P still moves there: ``t_end`` and the log slope
    ``d ln P / d ln t`` over its last decade (interpolated in ln t on the saved grid; 0 = settled).
    ``None`` where P at either end of that decade is below :data:`FLOOR`: a pruned run's P there is
    the solver's round-off, and so would its slope be."""
    t, P = np.asarray(s.t, float), np.asarray(s.nonowner_norm, float)
    t_end = float(t[-1])
    ok = (t > 0) & (P > 0)
    if t_end <= 0 or not np.any(ok & (t <= t_end / 10)) or P[-1] <= FLOOR:
        return {"t_end": t_end, "log_slope_last_decade": None}
    before = float(np.interp(np.log(t_end / 10), np.log(t[ok]), np.log(P[ok])))
    if before <= np.log(FLOOR):
        return {"t_end": t_end, "log_slope_last_decade": None}
    return {"t_end": t_end, "log_slope_last_decade": (float(np.log(P[-1])) - before) / float(np.log(10.0))}


def _key_numbers(result: PruneResult, panels: dict[str, Any]) -> dict[str, Any]:
    """What the README cites: the boundary, the 1/D law, the decay rates."""
    sweep = result.sweep
    pruned = [s for s in sweep if s.time_below is not None]
    kept = [s for s in sweep if s.time_below is None]
    out: dict[str, Any] = {
        "level": result.level,
        "largest_pruned_delta": max((s.delta for s in pruned), default=None),
        "smallest_coaligned_delta": min((s.delta for s in kept), default=None),
        "sweep": {
            f"{s.delta:g}": {
                "final": s.final,
                "share": s.share,
                "alignment": s.alignment,
                "time_below": s.time_below,
                "decay_rate": s.decay_rate,
                "predicted_rate": s.predicted_rate,
                **_horizon(s),
            }
            for s in sweep
        },
        "rate_limit_per_D": {f"m{m}": pruning_rate_limit(m - 1) for m in sorted({p.m for p in result.points})},
    }
    grid = {}
    for p in result.points:
        grid[f"{p.mode}-m{p.m}-D{p.strength:g}-seed{p.seed}"] = {
            "time_below": p.time_below,
            "compensated": None if p.time_below is None else p.strength * p.time_below,
            "t_spec": p.t_spec,
            "final": p.final,
            "decay_rate": p.decay_rate,
            "predicted_rate": p.predicted_rate,
        }
    out["grid"] = grid
    # how much later each finite-sample flow prunes than the population flow (one, seed-free), per m and D
    flow_times = {(p.m, p.strength): p.time_below for p in result.points if p.mode == "flow"}
    delay: dict[str, dict[str, float]] = {}
    for p in result.points:
        flow_time = flow_times.get((p.m, p.strength))
        if p.mode == "sample" and p.time_below is not None and flow_time:
            delay.setdefault(f"m{p.m}", {})[f"D{p.strength:g}-seed{p.seed}"] = p.time_below / flow_time - 1.0
    out["sample_delay"] = delay
    out["sample_delay_range"] = {m: [min(d.values()), max(d.values())] for m, d in delay.items()}
    b = panels["b"]
    out["slopes"] = {
        name: {k: b[name].get(k) for k in ("slope", "stderr", "asymptotic_slope", "asymptotic_error")}
        for name in b
        if isinstance(b[name], dict) and "slope" in b[name]
    }
    return out


MAIN_PANELS: tuple[str, ...] = ("a", "c")
"""The main-text version: the boundary at δ = 0 (a) and the exponential decay at the linearised
rate on the 1/D clock (c)."""


def _axes(layout: Layout) -> tuple[Any, dict[str, Any], Any]:
    """The figure, its axes by letter — (b) split into the times and the finite sample's delay
    (``"b-delay"``) — and a scratch figure for the panels a main-text version does not draw (the
    sidecar stays the full figure's), or ``None``."""
    if layout.panels is None:
        fig, grid = style.new_figure(layout.width, layout.height(0.9), nrows=2, ncols=2)
        axes = {"a": grid[0, 0], "b": grid[0, 1], "c": grid[1, 0], "d": grid[1, 1]}
        scratch = None
    else:
        letters = [p for p in layout.panels if p in "abcd"]
        fig, _ = style.new_figure(layout.width, layout.height(0.42 if len(letters) <= 2 else 0.36))
        fig.clear()
        axes = fig.subplot_mosaic([letters])
        scratch, _ = style.new_figure(layout.width, layout.height(0.9))
        scratch.clear()
        axes |= {p: scratch.add_subplot(2, 2, i + 1) for i, p in enumerate("abcd") if p not in axes}
    # (b): the times above, the finite sample's relative delay below, sharing D
    host = axes["b"].get_figure()
    spec = axes["b"].get_subplotspec().subgridspec(2, 1, height_ratios=[2.6, 1.0], hspace=0.05)
    axes["b"].remove()
    axes["b"] = host.add_subplot(spec[0])
    axes["b-delay"] = host.add_subplot(spec[1], sharex=axes["b"])
    return fig, axes, scratch


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    """The four panels at the layout's width (two rows), or the panels ``layout.panels`` in one
    row; the sidecar is the full figure's either way."""
    result: PruneResult = inputs["prune"]
    config = inputs.configs["prune"]
    n_samples = config.sample_dynamics.sample_size if config.sample else None
    fig, axes, scratch = _axes(layout)
    ax_times, ax_delay = axes["b"], axes["b-delay"]
    panels: dict[str, Any] = {
        "a": _panel_boundary(axes["a"], result.sweep, result.sweep_strength, layout),
        "b": _panel_times(ax_times, result, n_samples, layout),
        "c": _panel_decay(axes["c"], result, layout),
        "d": _panel_traces(axes["d"], result.sweep, result.sweep_strength, layout),
    }
    if config.sample:
        panels["b"]["delay"] = _panel_delay(ax_delay, result, sorted({p.m for p in result.points}), n_samples, layout)
        ax_delay.set_xlabel(ax_times.get_xlabel())
        ax_times.set_xlabel("")
        ax_times.tick_params(labelbottom=False)
    else:
        ax_delay.remove()
    for letter in "abcd":
        if layout.wants(letter):
            style.panel_label(axes[letter], layout.label(letter))
    if scratch is not None:
        scratch.clear()
    panels["key"] = _key_numbers(result, panels)
    return fig, panels
