"""Figure ``lockin_nulls`` — the lock-in detectors that carry no signal for ReLU, from figure ``lockin``'s run.

The same ``gaugecli lockin --x2`` result as figure ``lockin`` (one run, one cached artifact), drawn in
its styles: ``select`` in purple, the aligned control (θ0 = 0) in brown; population flow (solid),
finite-sample GD with ReLU (dashed) and with σ = x² (dash-dotted). Times are in ``T_spec``.

(a) Xu's detector reads the eigenvalues of the Gram matrix of the last ``window`` updates:
    ``λ3/λ1`` (the gap's denominator) of one run per condition. Below ``10⁻¹³ λ1`` (grey band) λ3 is
    round-off and is not drawn; the raw gap ``λ2/λ3`` is noise there. The dotted line is the floor
    the floored detector puts under λ3.
(b) When the detector first fires, per run: raw (rings) and floored (dots), the run's own
    ``T_spec`` (grey ticks); at the right of each row, the share of the run's windows whose λ3 is
    round-off (``λ3 ≤ 10⁻¹³ λ1``; a range over the row's runs) — the number (a)'s band stands for.
    It fires in ReLU runs that lock nothing in, aligned controls included; only σ = x² separates
    select from control.
(c) The raw firing of the flow moves with the sampling resolution ``per``.
(d) Tian's repulsion: the owner–non-owner feature similarity falls under selection (the owner turns
    to v) and stays 1 in the aligned control. Two numbers of Tian's are stated, not drawn. The sign
    rule ``sign B_jl = −sign(f̃_jᵀP_η f̃_l)`` is an identity (``f̃_jᵀP_η f̃_l = −η² B_jl``): it holds
    in every run, to the residual the sidecar keeps. The sign rate ``frac(B_jl < 0 | S_jl > 0)``
    conditions on the feature similarity S instead, and is no identity: it is 1 in the runs that
    start from distinct neurons, selection and control alike, and below 1 (0.943 pooled, 0.7 at its
    worst epoch, at D = 16) where all duplicates share −D and round-off splits them. The sidecar keeps
    it pooled per run for every run (``d/sign_rate``), its range, and per drawn run its range over
    epochs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots.lockin import (
    CONTROL,
    LINESTYLES,
    PAIR_COLORS,
    SELECT,
    _arr,
    _name,
    _plain_ticks,
    _runs,
    _style,
    condition_handles,
    finish,
    needs,
    panel_axes,
)
from gaugecli.plots.readings import Reading
from gaugecli.plots.render import Inputs
from gaugecli.plots.venue import Layout

__all__ = [
    "CAPTION",
    "CLAIM",
    "MAIN_PANELS",
    "MIN_WIDTH",
    "READING",
    "READINGS",
    "SIDECAR_TOLERANCES",
    "build",
    "needs",
]

MIN_WIDTH = 5.0
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""

CLAIM = (
    "Related work (Xu, Tian): Xu's spectral detector and Tian's sign rate carry no lock-in signal for ReLU; "
    "only σ = x² separates selection from its aligned control"
)
READINGS = (
    Reading(
        "SelectShareFour",
        "panels/b/flow select/roundoff_fraction/0",
        ".0%",
        "(b) select flow's round-off windows, D = 4",
    ),
    Reading("SelectShareSixteen", "panels/b/flow select/roundoff_fraction/1", ".0%", "(b) the same, D = 16"),
    Reading("ControlShare", "panels/a/flow_relu_control_D4/roundoff_fraction", ".0%", "(b) aligned control flow's"),
    Reading("SquareControlShare", "panels/a/sample_x2_control_seed0/roundoff_fraction", ".0%", "(b) σ = x² control's"),
    Reading(
        "SampleSelectFires",
        "panels/b/sample select/detector_fire_floored_count",
        ".0f",
        "(b) finite-sample select runs that fire (floored)",
    ),
    Reading(
        "SampleControlFires",
        "panels/b/sample control/detector_fire_floored_count",
        ".0f",
        "(b) finite-sample controls that fire (floored)",
    ),
    Reading(
        "SquareSelectFires", "panels/b/x² select/detector_fire_floored_count", ".0f", "(b) σ = x² select runs that fire"
    ),
    Reading(
        "SquareControlFires", "panels/b/x² control/detector_fire_floored_count", ".0f", "(b) σ = x² controls that fire"
    ),
    Reading("SampleRuns", "panels/b/sample select/runs", ".0f", "(b) runs per finite-sample row (seeds)"),
    Reading(
        "CoarseFire",
        "panels/c/select_raw/y/0",
        ".2f",
        "(c) select flow's raw firing time /T_spec at the coarsest sampling",
    ),
    Reading("FineFire", "panels/c/select_raw/y/4", ".2f", "(c) the same at the finest sampling"),
    Reading(
        "SignResidual", "panels/d/sign_identity_residual_max", ".1e", "(d) largest residual of f̃_jᵀP_η f̃_l = −η²B_jl"
    ),
    Reading(
        "SignRateLow", "panels/d/informative_rate_min", ".3f", "(d) Tian's sign rate at its lowest (all −D, D = 16)"
    ),
)
"""The numbers the caption and the reading quote (:mod:`gaugecli.plots.readings`)."""
CAPTION = (
    "**Xu's spectral detector and Tian's sign rate carry no lock-in signal for ReLU: only σ = x² separates "
    "selection from its aligned control.** "
    "The run of figure lockin: select against the aligned control, population flow and finite-sample GD. "
    "(a) Xu's window Gram λ3/λ1, round-off below the grey band; "
    "(b) when his detector fires: in every ReLU run, controls included; floored, in "
    "{SampleControlFires}/{SampleRuns} finite-sample controls; "
    "(c) the flow's firing time moves with the sampling resolution, {CoarseFire} → {FineFire} T_spec; "
    "(d) Tian's similarity falls under select and stays 1 in the control; his sign rule is an identity "
    "(residual ≤ {SignResidual}). "
    "Only with σ = x² does the detector tell select from control."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""
READING = (
    "(a, b) Xu's window Gram: the share of windows with λ3 ≤ 1e-13 λ1 (round-off), printed beside each row of "
    "(b): select flow {SelectShareFour} (D = 4) and {SelectShareSixteen} (D = 16), aligned flow control "
    "{ControlShare}, σ = x² control {SquareControlShare}. (b) Xu's raw detector fires in every ReLU run, "
    "aligned controls included; floored, in {SampleSelectFires}/{SampleRuns} finite-sample select runs and "
    "{SampleControlFires}/{SampleRuns} controls; only σ = x² separates select ({SquareSelectFires}/{SampleRuns}) "
    "from control ({SquareControlFires}/{SampleRuns}). (c) The select flow's raw firing moves with the "
    "resolution ({CoarseFire} → {FineFire} T_spec for 50 → 800 epochs per T_spec). (d) The owner–non-owner "
    "similarity falls to ≈ 0 under select and stays 1 in the control; Tian's sign rule "
    "sign B_jl = −sign(f̃_jᵀP_η f̃_l) holds in every run, an identity (f̃_jᵀP_η f̃_l = −η²B_jl, residual "
    "≤ {SignResidual}); his rate frac(B < 0 | S > 0), conditioned on the feature similarity instead, is no "
    "identity: 1 in the runs that start from distinct neurons, {SignRateLow} in the all −D flow at D = 16, "
    "whose duplicates round-off splits (stated, not drawn; every run's rate in the sidecar)."
)
"""The gallery's longer reading, collapsed under the caption: ``{Name}`` fields are :data:`READINGS`."""
SIDECAR_TOLERANCES = (
    ("b/*/detector_fire_raw/*", float("inf"), 0.0, "the raw detector reads λ2/λ3 in the round-off band: round-off"),
    ("c/*_raw/*", float("inf"), 0.0, "the raw gap λ2/λ3 is round-off wherever λ3 is (what (c) shows)"),
    ("b/flow all −D/*", float("inf"), 0.0, "all −D duplicates: a symmetric start split by round-off (Λ > 36)"),
    (
        "b/roundoff_shares/flow all −D",
        float("inf"),
        0.0,
        "all −D: its round-off window share moves with the arithmetic (19–54 % here, 4–84 % on CI's second path)",
    ),
    ("d/*informative_rate*", float("inf"), 0.0, "windows at the round-off band's edge flip with the arithmetic"),
    (
        "d/sign_rate/flow, all −D*",
        float("inf"),
        0.0,
        "all −D duplicates: a symmetric start split by round-off, so which windows have S > 0 moves with the "
        "arithmetic (0.943 here, 0.819 on the second path); the sign rule itself holds in every run",
    ),
)
"""Where a number moves more than the shared default across arithmetic paths, and why (first match wins)."""
MAIN_PANELS = ("b", "d")
"""The main-text version: Xu's detector firing in runs that lock nothing in (b), and Tian's repulsion
with its sign rule (d)."""
HEIGHT = 0.78
"""Height over width: two rows of panels and the legend, 4.3 in at the default 5.5 in."""
TITLES = {"a": "Xu's window Gram", "b": "Xu's detector", "c": "sampling resolution", "d": "Tian's repulsion"}

RASTER_GROUPS = (
    ("flow", "relu", "select", False, "flow select"),
    ("flow", "relu", "reversed", False, "flow reversed"),
    ("flow", "relu", "all-plus", False, "flow all +D"),
    ("flow", "relu", "all-minus", False, "flow all −D"),
    ("flow", "relu", "select", True, "flow control"),
    ("sample", "relu", "select", False, "sample select"),
    ("sample", "relu", "select", True, "sample control"),
    ("sample", "x2", "select", False, "x² select"),
    ("sample", "x2", "select", True, "x² control"),
)
RING: dict[str, Any] = {"ms": 5.0, "mfc": "none", "mew": 1.0}
DOT: dict[str, Any] = {"ms": 2.6}
"""Marker sizes of (b): the raw detector's firing (rings), the floored detector's (dots)."""


def _exponent(x: float) -> str:
    """``10⁻¹³`` for 1e-13 (mathtext), ``3×10⁻¹¹`` otherwise."""
    mantissa, power = f"{x:.0e}".split("e")
    head = "" if mantissa == "1" else rf"{mantissa}\times"
    return rf"${head}10^{{{int(power)}}}$"


def _panel_gram(ax: Any, result: Any, floor: float, span: float, layout: Layout) -> dict[str, Any]:
    out: dict[str, Any] = {}
    level = result.roundoff_level
    D0 = result.runs[0].D
    for (mode, activation), control in [(k, c) for k in LINESTYLES for c in (False, True)]:
        runs = _runs(result, mode=mode, activation=activation, control=control, assign="select")
        for run in [r for r in runs if r.D == D0][:1]:  # one run per condition: the first D, the first seed
            t, y = _arr(run, "t"), style.clip_to_floor(_arr(run, "lambda3_over_lambda1"), level)
            ax.plot(t, y, **_style(run))
            out[_name(run)] = style.series(t, y, roundoff_fraction=run.roundoff_fraction)
    out["in_band_throughout"] = [k for k, v in out.items() if all(x is None for x in v["y"])]
    out["roundoff_level"], out["floor"] = level, floor
    bottom = level / 3e4
    style.floor_band(ax, level, None)
    style.threshold_line(ax, floor)
    # the band holds no data (values below it are not drawn): its key goes there
    style.note(
        ax,
        rf"round-off: $\lambda_3\leq${_exponent(level)}$\lambda_1$" + "\n" + "not drawn; share of windows: (b)",
        (0.02, np.sqrt(bottom * level)),
        layout,
        xycoords=("axes fraction", "data"),
        va="center",
        multialignment="left",
    )
    ax.set(yscale="log", xlim=(0, span), ylim=(bottom, 1.0), xlabel=r"$t\,/\,T_{\rm spec}$")
    ax.set_ylabel(r"window Gram $\lambda_3/\lambda_1$")
    right = ax.secondary_yaxis("right")  # the floored detector's floor, named beside the axes, not over the data
    right.set_yticks([floor], ["floor"])
    right.minorticks_off()
    right.tick_params(axis="y", length=0, labelsize=layout.small, labelcolor=style.GUIDE)
    right.spines["right"].set_visible(False)
    return out


def _share(values: list[float]) -> str:
    lo, hi = round(100 * min(values)), round(100 * max(values))
    return f"{lo} %" if lo == hi else f"{lo}–{hi} %"


def _panel_raster(ax: Any, result: Any, burn_in: float, span: float, layout: Layout) -> dict[str, Any]:
    out: dict[str, Any] = {}
    y, ticks, labels, shares = 0.0, [], [], []
    for mode, activation, assign, control, label in RASTER_GROUPS:
        runs = _runs(result, mode=mode, activation=activation, assign=assign, control=control)
        if not runs:
            continue
        rows = y - np.arange(len(runs)) * 0.8
        color = CONTROL if control else (SELECT if assign == "select" else PAIR_COLORS.get(assign, style.GUIDE))
        if assign == "reversed":
            color = "0.3"
        entry: dict[str, Any] = {"runs": len(runs)}
        for key, kw in (("detector_fire_raw", RING), ("detector_fire_floored", DOT)):
            x = np.array([np.nan if getattr(r, key) is None else getattr(r, key) for r in runs])
            ax.plot(x, rows, ls="none", marker="o", color=color, **kw)
            entry[key] = style.series(x, rows)
            entry[f"{key}_count"] = int(np.sum(np.isfinite(x)))
        ts = np.array([np.nan if not r.t_spec else r.t_spec for r in runs])
        ax.plot(ts, rows, ls="none", marker="|", ms=6, color=style.GUIDE)
        entry["t_spec"] = style.series(ts, rows)
        entry["roundoff_fraction"] = [r.roundoff_fraction for r in runs]
        entry["roundoff_share"] = _share(entry["roundoff_fraction"])
        out[label] = entry
        ticks.append(float(np.mean(rows)))
        labels.append(label)
        shares.append(entry["roundoff_share"])
        y = rows[-1] - 1.0
    ax.axvspan(0, burn_in, color="0.93", lw=0, zorder=0)
    ax.annotate(
        "burn-in", (burn_in / 2, 0.02), xycoords=("data", "axes fraction"), ha="center", va="bottom", rotation=90
    )
    ax.set_yticks(ticks, labels)
    ax.tick_params(axis="y", length=0)
    ax.set(xlim=(0, span), ylim=(y + 0.5, 0.5), xlabel=r"first firing $t\,/\,T_{\rm spec}$")
    ax.spines["left"].set_visible(False)
    right = ax.secondary_yaxis("right")  # the round-off share of each row, beside it
    right.set_yticks(ticks, shares)
    right.tick_params(axis="y", length=0, labelsize=layout.small)
    right.spines["right"].set_visible(False)
    right.set_ylabel("windows with\n" + r"$\lambda_3$ at round-off", fontsize=layout.small)
    out["roundoff_shares"] = dict(zip(labels, shares, strict=True))
    return out


def _raster_handles(layout: Layout) -> list[Any]:
    """(b)'s key, in the figure's legend: its firings fall anywhere in [0, span] (where, for the
    detectors at round-off, is round-off's choice), so no place inside (b) is sure to stay clear."""
    from matplotlib.lines import Line2D

    b = f"({layout.label('b')})"
    return [
        Line2D([], [], color="0.3", ls="none", marker="o", label=f"{b} raw fires", **RING),
        Line2D([], [], color="0.3", ls="none", marker="o", label=f"{b} floored fires", **DOT),
        Line2D([], [], color=style.GUIDE, ls="none", marker="|", ms=6, label=rf"{b} the run's $T_{{\rm spec}}$"),
    ]


def _panel_resolution(ax: Any, result: Any, span: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    never = []
    for control in (False, True):
        rows = [row for row in result.resolution_scan if row["control"] is control]
        if not rows:
            continue
        per = np.array([row["per"] for row in rows], float)
        color, name = (CONTROL, "control") if control else (SELECT, "select")
        for key, ls, mfc in (("detector_fire_raw", "-", color), ("detector_fire_floored", "--", "white")):
            y = np.array([np.nan if row[key] is None else row[key] for row in rows])
            kind = "raw" if key.endswith("raw") else "floored"
            if np.all(np.isnan(y)):
                never.append(f"{name} {kind}")
            ax.plot(per, y, color=color, ls=ls, marker="o", mfc=mfc)
            out[f"{name}_{kind}"] = style.series(per, y, roundoff_fraction=[row["roundoff_fraction"] for row in rows])
    pers = sorted({row["per"] for row in result.resolution_scan})
    ax.set(xlabel="epochs per $T_{\\rm spec}$", ylabel=r"first firing $t\,/\,T_{\rm spec}$")
    if not out:
        ax.set(xscale="log", ylim=(0, span))
        ax.annotate("not scanned", (0.5, 0.5), xycoords="axes fraction", ha="center", color=style.GUIDE)
        return out
    # headroom above span for the key: no firing can be drawn there (the raw firings are round-off
    # and may fall anywhere in [0, span])
    ax.set(xscale="log", xlim=(pers[0] / 1.4, pers[-1] * 1.4), ylim=(0, (1.9 if never else 1.6) * span))
    _plain_ticks(ax, pers)
    handles = [
        style.line_handle("0.3", "-", "o", "raw"),
        style.line_handle("0.3", "--", "o", "floored", mfc="white"),
    ]
    ax.legend(handles=handles, loc="upper left", ncols=1, handlelength=1.6)
    if never:  # the runs that never fire, by condition: "select: raw", "control: raw, floored"
        by_name: dict[str, list[str]] = {}
        for entry in never:
            name, kind = entry.split(" ")
            by_name.setdefault(name, []).append(kind)
        text = "never fires:\n" + "\n".join(f"{name}: {', '.join(kinds)}" for name, kinds in by_name.items())
        ax.text(0.97, 0.97, text, transform=ax.transAxes, ha="right", va="top", color="0.3", multialignment="right")
    out["never_fires"] = never
    return out


def _label(run: Any) -> str:
    """A run as a reader names it: ``flow, all −D, D = 16`` / ``sample x², select, seed 0``."""
    cond = "control" if run.control else {"all-minus": "all −D", "all-plus": "all +D"}.get(run.assign, run.assign)
    act = "" if run.activation == "relu" else " x²"
    tail = f"D = {run.D:g}" if run.seed is None else f"seed {run.seed}"
    return f"{run.mode}{act}, {cond}, {tail}"


def _panel_repulsion(ax: Any, result: Any, span: float, layout: Layout) -> dict[str, Any]:
    out: dict[str, Any] = {}
    D0 = result.runs[0].D
    for (mode, activation), control in [(k, c) for k in LINESTYLES for c in (False, True)]:
        runs = _runs(result, mode=mode, activation=activation, control=control, assign="select")
        for run in [r for r in runs if r.D == D0][:1]:
            t, s = _arr(run, "t"), _arr(run, "similarity_owner")
            rate = _arr(run, "informative_rate")
            ax.plot(t, s, **_style(run))
            out[_name(run)] = style.series(
                t,
                s,
                informative_rate_min=np.nanmin(rate, initial=np.inf),
                informative_rate_max=np.nanmax(rate, initial=-np.inf),
                direct_sign_match=run.direct_sign_match,
                sign_identity_residual=run.sign_identity_residual,
            )
    rates = {_label(r): r.frac_neg_given_similar for r in result.runs if r.frac_neg_given_similar is not None}
    out["sign_rate"] = rates  # frac(B < 0 | S > 0) pooled over each run's epochs and pairs
    out["informative_rate_min"] = min(rates.values(), default=None)
    out["informative_rate_max"] = max(rates.values(), default=None)
    out["direct_sign_match_min"] = min(r.direct_sign_match for r in result.runs)
    out["sign_identity_residual_max"] = max(r.sign_identity_residual for r in result.runs)
    # stated, not drawn as flat lines: the identity, and the rate with the runs where it is not 1
    lines = [r"sign $B=-$sign $\tilde f^{\top}\!P\tilde f$:", "every run (identity)"]
    if rates:
        below = {name: v for name, v in rates.items() if v < 1.0}
        lines += [r"frac($B<0\,|\,S>0$) $=1$", f"in {len(rates) - len(below)}/{len(rates)} runs"]
        lines += [f"{v:.3f}: {name}" for name, v in sorted(below.items(), key=lambda item: item[1])]
    style.note(
        ax,
        "\n".join(lines),
        (0.97, 0.55),  # between the control (at 1) and the select runs' tails, right of their fall
        layout,
        xycoords="axes fraction",
        ha="right",
        color="0.25",
        multialignment="right",
    )
    ax.set(xlim=(0, span), ylim=(-0.05, 1.08), xlabel=r"$t\,/\,T_{\rm spec}$", ylabel="similarity owner–others")
    return out


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    import matplotlib

    result, config = inputs["lockin"], inputs.configs["lockin"]
    span = config.span
    if layout.is_main:
        fig, axes = panel_axes(layout, HEIGHT)
    else:
        fig = _figure(layout)
        top, bottom = fig.subfigures(2, 1)  # each row its own columns: (b)'s row labels do not narrow (d)
        a, b = top.subplots(1, 2, width_ratios=(1.1, 1.4))
        c, d = bottom.subplots(1, 2)
        axes = {"a": a, "b": b, "c": c, "d": d}
    draw = {
        "a": lambda ax: _panel_gram(ax, result, config.floor, span, layout),
        "b": lambda ax: _panel_raster(ax, result, config.burn_in / config.per, span, layout),
        "c": lambda ax: _panel_resolution(ax, result, span),
        "d": lambda ax: _panel_repulsion(ax, result, span, layout),
    }
    with matplotlib.rc_context({"font.size": layout.small}):  # annotations at the small size, like legends
        panels: dict[str, Any] = {letter: draw[letter](ax) for letter, ax in axes.items()}
    handles = condition_handles(list(LINESTYLES)) + _raster_handles(layout)
    legend = finish(fig, axes, TITLES, handles, layout, ncol=3)
    if not layout.is_main:  # a main version's numbers are the full figure's sidecar's
        panels["legend"] = legend
    return fig, panels


def _figure(layout: Layout) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(layout.width, layout.height(HEIGHT)), layout="constrained")
    FigureCanvasAgg(fig)
    return fig
