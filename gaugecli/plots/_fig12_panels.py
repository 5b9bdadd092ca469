"""Figure 12's panels — the gauge under the optimizers (runs: :mod:`gaugecli.plots._fig12_runs`).

(a) δ(t) of one neuron at ``δ(0) = ±4`` under GD, momentum, Adam and AdamW, against GD's clock
(momentum's ``t/(1 − β)``), each run's T_spec marked: GD and momentum keep δ to O(η); Adam and AdamW
move it (docs/theory.md §13). (b) ``T_spec(−D)/T_spec(+D)`` against D under the population flow, the
heavy-ball flow and Adam, with the guides D², D^{3/2} and D through each law's largest D; (c) their
local slopes ``Δ ln r/Δ ln D`` between neighbouring D, against the laws' 2, 3/2 and 1. (d) The outcome of
selection (m = 5, owner +D, the others −D) under Adam over (D, η), the class edges drawn in white: the
boundary where exclusive selection stops; (e, f) the same over (D, β) under heavy-ball momentum and over
(D, β1) under Adam, at one learning rate.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots._fig12_runs import GAUGE_STRENGTH, HORIZON, OPTIMIZERS, clock
from gaugecli.plots.venue import Layout

OPTIMIZER_COLORS = {"sgd": style.THEORY, "momentum": style.GREEN, "adam": style.ORANGE, "adamw": style.PURPLE}
"""(a)'s rules; the ±D colours stay the gauges' (here the sign of δ tells the gauge)."""
OPTIMIZER_LABELS = {"sgd": "GD", "momentum": "momentum", "adam": "Adam", "adamw": "AdamW"}
LAWS = ("flow", "heavy-ball", "adam")
LAW_COLORS = {"flow": style.THEORY, "heavy-ball": style.GREEN, "adam": style.ORANGE}
LAW_MARKERS = {"flow": "o", "heavy-ball": "^", "adam": "D"}
LAW_SLOPES = {"flow": 2.0, "heavy-ball": 1.5, "adam": 1.0}
"""The separation laws (docs/theory.md §13): the flow's Θ(D²), heavy-ball's Θ(γD^{3/2}), Adam's Θ(D)."""
LAW_LABELS = {"flow": "flow", "heavy-ball": "heavy ball", "adam": "Adam"}
GUIDE_LABELS = {"flow": r"$D^2$", "heavy-ball": r"$D^{3/2}$", "adam": r"$D$"}


def _delta_at(t: np.ndarray, delta: np.ndarray, when: float | None) -> float | None:
    return None if when is None or not np.isfinite(when) else float(np.interp(when, t, delta))


def panel_gauge(ax: Any, runs: dict[str, Any], layout: Layout) -> dict[str, Any]:
    """``runs[f"{optimizer}-{gauge}"]``: (a)'s simulate results."""
    out: dict[str, Any] = {}
    for name in OPTIMIZERS:
        color = OPTIMIZER_COLORS[name]
        out[name] = {}
        for gauge in ("favorable", "unfavorable"):
            run = runs[f"{name}-{gauge}"]
            t = np.asarray(run.t, float) * clock(name)
            delta = np.asarray(run.imbalance, float)[:, 0]
            keep = t > 0
            ls = "-" if gauge == "favorable" else "--"
            ax.plot(t[keep], delta[keep], color=color, ls=ls, lw=1.1)
            t_spec = None if run.t_spec is None else float(run.t_spec) * clock(name)
            at = _delta_at(t, delta, t_spec)
            if t_spec is not None and at is not None:
                ax.plot([t_spec], [at], marker=style.GAUGE_MARKERS[gauge], color=color, ms=3.5, ls="none")
            out[name][gauge] = {
                **style.series(t, delta),
                "t_spec": t_spec,
                "delta_at_t_spec": at,
                "delta_end": float(delta[-1]),
                "relative_drift": float(run.imbalance_drift),
            }
    ax.axhline(0.0, color=style.GUIDE, lw=0.6, ls=":", zorder=0)
    ax.set(
        xscale="log",
        xlim=(1e-2, HORIZON),
        xlabel=r"time $t$ (momentum: $t/(1-\beta)$)",
        ylabel=r"imbalance $\delta = a^2 - \|w\|^2$",
    )
    handles = [style.line_handle(OPTIMIZER_COLORS[n], label=OPTIMIZER_LABELS[n]) for n in OPTIMIZERS]
    ax.legend(handles=handles, loc="lower right", fontsize=layout.small, handlelength=1.2, ncol=2, columnspacing=0.8)
    for sign in (1.0, -1.0):
        text = rf"$\delta(0)={sign * GAUGE_STRENGTH:+g}$"
        style.note(ax, text, (0.012, sign * GAUGE_STRENGTH), layout, offset=(0.0, 9.0 * sign), va="center", color=None)
    ax.set_ylim(-3.2 * GAUGE_STRENGTH, 2.0 * GAUGE_STRENGTH)  # room below the curves for the legend
    ax.set_yticks([-GAUGE_STRENGTH, 0.0, GAUGE_STRENGTH])  # the starts ±D; no tick label in the legend's rows
    return out


def separations(flow: dict[float, tuple[Any, Any]], heavy: Any, adam: dict[float, tuple[Any, Any]]) -> dict[str, Any]:
    """Each law's strengths, ``T_spec(±D)``, ratios and local slopes (the flow's and Adam's from their
    ±D simulate runs; the heavy ball's from its pair run)."""

    def from_runs(pairs: dict[float, tuple[Any, Any]]) -> dict[str, Any]:
        Ds = sorted(pairs)
        plus = [style.spec_time(pairs[D][0]) for D in Ds]
        minus = [style.spec_time(pairs[D][1]) for D in Ds]
        return {"strengths": Ds, "t_plus": plus, "t_minus": minus}

    laws = {
        "flow": from_runs(flow),
        "heavy-ball": {
            "strengths": list(heavy.strengths),
            "t_plus": list(heavy.t_plus),
            "t_minus": list(heavy.t_minus),
        },
        "adam": from_runs(adam),
    }
    for law in laws.values():
        Ds = np.asarray(law["strengths"], float)
        ratios = np.asarray(law["t_minus"], float) / np.asarray(law["t_plus"], float)
        law["ratios"] = ratios.tolist()
        law["local_slopes"] = (np.diff(np.log(ratios)) / np.diff(np.log(Ds))).tolist()
        law["midpoints"] = np.sqrt(Ds[1:] * Ds[:-1]).tolist()
    return laws


def panel_ratios(ax: Any, laws: dict[str, Any], layout: Layout) -> dict[str, Any]:
    """(b): the ratios against D, each law's guide through its largest D."""
    out: dict[str, Any] = {}
    for law in LAWS:
        Ds, ratios = np.asarray(laws[law]["strengths"]), np.asarray(laws[law]["ratios"])
        ax.plot(Ds, ratios, color=LAW_COLORS[law], marker=LAW_MARKERS[law], ms=3.5, lw=1.1, label=LAW_LABELS[law])
        gx, gy = style.power_law_guide(ax, Ds, LAW_SLOPES[law], (Ds[-1], ratios[-1]))
        out[law] = {**style.series(Ds, ratios), "guide": {**style.series(gx, gy), "slope": LAW_SLOPES[law]}}
    ax.set(xscale="log", yscale="log", xlabel=style.LABELS["D"], ylabel=style.LABELS["ratio"])
    ax.set_xlim(0.6, 1.6 * max(max(laws[law]["strengths"]) for law in LAWS))
    top = max(max(laws[law]["ratios"]) for law in LAWS)
    ax.set_ylim(top=top * 10.0 ** (0.25 * np.log10(top)))  # headroom: the legend sits above every point
    guides = ", ".join(GUIDE_LABELS[law] for law in LAWS)
    ax.legend(
        handles=[style.line_handle(style.GUIDE, ":", label=f"guides {guides}")], loc="upper left", fontsize=layout.small
    )
    return out


def panel_slopes(ax: Any, laws: dict[str, Any], layout: Layout) -> dict[str, Any]:
    """(c): local slopes at the geometric midpoints of neighbouring D, the laws' exponents dotted."""
    out: dict[str, Any] = {}
    for law in LAWS:
        mids, slopes = np.asarray(laws[law]["midpoints"]), np.asarray(laws[law]["local_slopes"])
        ax.plot(mids, slopes, color=LAW_COLORS[law], marker=LAW_MARKERS[law], ms=3.5, lw=1.1)
        style.threshold_line(ax, LAW_SLOPES[law])
        out[law] = {**style.series(mids, slopes), "law": LAW_SLOPES[law]}
    right = 1.6 * max(max(laws[law]["midpoints"]) for law in LAWS)
    for law in LAWS:
        style.note(ax, GUIDE_LABELS[law], (right, LAW_SLOPES[law]), layout, offset=(0.0, 4.0), ha="right", va="bottom")
    handles = [style.line_handle(LAW_COLORS[law], "-", LAW_MARKERS[law], label=LAW_LABELS[law]) for law in LAWS]
    ax.legend(handles=handles, loc="lower right", fontsize=layout.small, handlelength=1.2)
    ax.set(
        xscale="log",
        xlim=(1.0, right),
        ylim=(-0.7, 2.3),  # room below the slopes (≥ 0.6) for the legend
        yticks=[0.5, 1.0, 1.5, 2.0],
        xlabel=style.LABELS["D"],
        ylabel=r"local slope $\Delta\ln r/\Delta\ln D$",
    )
    return out


def panel_selection(ax: Any, fig: Any, result: Any, layout: Layout) -> dict[str, Any]:
    """(d): the outcome classes of the phase map (:mod:`gaugecli.plots.phase_map`), and per D the
    largest η at which selection is still exclusive."""
    drawn = selection_map(ax, fig, result, layout)
    drawn["exclusive_eta_max"] = drawn.pop("exclusive_max")
    drawn["etas"] = drawn.pop("rows")
    return drawn


def selection_map(ax: Any, fig: Any, result: Any, layout: Layout) -> dict[str, Any]:
    """(d, e, f): the outcome classes of a ``select`` phase map over (D, y), and per D the least and the
    largest y at which selection is exclusive (class 0; ``None``: at none)."""
    from gaugecli.plots import phase_map

    drawn = phase_map.panel(ax, fig, result, "outcome", layout)
    Z = result.map("outcome")
    rows = np.asarray(result.y.values, float)
    if result.y.scale != "log":  # a β's rows end at 0.99: ticks on the rows, no cell edge read as β > 1
        ax.set_yticks(rows, [f"{r:.3g}" for r in rows])
    lowest, highest = {}, {}
    for ix, D in enumerate(result.x.values):
        exclusive = np.flatnonzero(Z[:, ix] == 0)
        lowest[f"D{D:.4g}"] = float(rows[exclusive.min()]) if exclusive.size else None
        highest[f"D{D:.4g}"] = float(rows[exclusive.max()]) if exclusive.size else None
    drawn["exclusive_min"], drawn["exclusive_max"] = lowest, highest
    drawn["classes"] = list(result.outcomes)
    drawn["strengths"], drawn["rows"] = list(result.x.values), list(result.y.values)
    return drawn
