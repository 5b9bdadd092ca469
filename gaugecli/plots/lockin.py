"""Figure ``lockin`` — what of Xu's and Tian's lock-in study transfers to gauge selection.

One ``gaugecli lockin --x2`` result (RELATED.md §2): ``select`` (one +D owner among −D duplicates)
against the aligned control (θ0 = 0), population flow (solid) and finite-sample GD (dashed);
selection in purple, the aligned control in brown. Times are in each run's ``T_spec`` (the control
borrows select's, the finite-sample runs their population clock). Its nulls — Xu's detector and
Tian's sign rule, which carry no lock-in signal for ReLU — are figure ``lockin_nulls``, drawn from the
same run.

(a) The rank-2 share of the update matrix, ``D·σ2/σ1`` of ``dW/dt``: one peak just after ``T_spec``
    in the flow and in finite-sample GD, the same height for every D; ≡ 0 in the aligned control
    flow, ≈ 0 in its finite-sample run. (b) Its peak over D: ``D·peak`` constant (peak ∝ 1/D).
(c) The separation exponent ``Λ(t) = ∫ λ_anti`` of an equal pair (the gauge of the pair in colour):
    only all-−D duplicates pass ``ln(1/ε_machine)``, so round-off splits them; select's −D
    non-owners are pruned first. (d) ``T_spec`` of duplicates perturbed by ε, relative to the
    unperturbed flow: select does not move; all −D moves with ε and changes its winner with the draw
    (the perturbation panel of :mod:`gaugecli.plots._lockin_perturbation`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots._lockin_perturbation import perturbation_panel
from gaugecli.plots.readings import Reading
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

MIN_WIDTH = 5.0
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""

CLAIM = (
    "Related work (Xu, Tian): selection leaves a rank-2 update peak ∝ 1/D at T_spec; duplicate repulsion "
    "is real for −D groups, whose symmetric start round-off decides"
)
READINGS = (
    Reading("PeakTimeLow", "panels/b/t_peak_range/0", ".2f", "(b) earliest rank-2 peak, in T_spec, D = 1…32"),
    Reading("PeakTimeHigh", "panels/b/t_peak_range/1", ".2f", "(b) latest rank-2 peak, in T_spec"),
    Reading("PeakLow", "panels/key/flow_D_times_peak_range/0", ".4f", "(b) smallest D·peak of the flow, D = 1…32"),
    Reading("PeakHigh", "panels/key/flow_D_times_peak_range/1", ".4f", "(b) largest D·peak of the flow"),
    Reading("PeakSpread", "panels/b/D_times_peak_spread", ".2%", "(b) max/min − 1 of D·peak over D"),
    Reading("SamplePeakLow", "panels/key/sample_D_times_peak_range/0", ".4f", "(a) smallest D·peak, finite-sample GD"),
    Reading("SamplePeakHigh", "panels/key/sample_D_times_peak_range/1", ".4f", "(a) largest D·peak, finite-sample GD"),
    Reading(
        "ControlPeak",
        "panels/key/sample_control_D_times_peak_max",
        ".1e",
        "(a) largest D·peak of the finite-sample control",
    ),
    Reading("AllMinusFour", "panels/c/flow_relu_all-minus_D4/Lambda_total", ".0f", "(c) Λ of an all −D pair, D = 4"),
    Reading(
        "AllMinusSixteen", "panels/c/flow_relu_all-minus_D16/Lambda_total", ".0f", "(c) Λ of an all −D pair, D = 16"
    ),
    Reading("SelectPair", "panels/c/flow_relu_select_D4/Lambda_total", ".3f", "(c) Λ of select's −D pair, D = 4"),
    Reading("SelectShift", "panels/key/select_t_spec_shift_max", ".0e", "(d) largest relative move of select's T_spec"),
)
"""The numbers the caption and the reading quote (:mod:`gaugecli.plots.readings`)."""
CAPTION = (
    "**Of the lock-in picture, what transfers to selection is a rank-2 update peak ∝ 1/D just after T_spec, and "
    "a repulsion of duplicates that decides only symmetric −D groups.** "
    "Select (one +D owner among −D duplicates) against the aligned control, population flow and finite-sample GD. "
    "(a) the rank-2 share D·σ2/σ1 of dW/dt against t/T_spec; "
    "(b) its peak: D·peak = {PeakLow}–{PeakHigh} for D = 1…32; "
    "(c) the separation exponent Λ of an equal pair: only all −D duplicates pass ln(1/ε_machine) "
    "(Λ = {AllMinusSixteen} at D = 16); "
    "(d) T_spec under perturbations ε: select moves by ≤ {SelectShift}. "
    "The all −D outcome is decided by round-off: its winner changes with the draw."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""
READING = (
    "(a, b) The rank-2 share D·σ2/σ1 of dW/dt peaks at {PeakTimeLow}–{PeakTimeHigh} T_spec with "
    "D·peak = {PeakLow}–{PeakHigh} for D = 1…32 (spread {PeakSpread}), {SamplePeakLow}–{SamplePeakHigh} in "
    "finite-sample GD (n = 10⁴, three seeds); aligned control 0 in the flow, ≤ {ControlPeak} with samples. "
    "(c) The separation Λ = ∫λ_anti of an equal pair: all −D {AllMinusFour} (D = 4) and {AllMinusSixteen} "
    "(D = 16), beyond ln(1/ε_machine) = 36; select's −D pair {SelectPair}, pruned first. (d) T_spec of "
    "duplicates perturbed by ε: all −D moves with ε, and which draw wins, and how early, moves with the "
    "arithmetic path (its numbers are left unquoted: they are not reproducible across machines); select's "
    "moves by ≤ {SelectShift}."
)
"""The gallery's longer reading, collapsed under the caption: ``{Name}`` fields are :data:`READINGS`."""
SIDECAR_TOLERANCES = (
    ("d/all-minus/*", float("inf"), 0.0, "all −D: the winner and T_spec move with the draw and the arithmetic"),
)
"""Where a number moves more than the shared default across arithmetic paths, and why (first match wins)."""
MAIN_PANELS = ("a", "c")
"""The main-text version: what transfers (the rank-2 peak, a) and where round-off decides (c)."""
HEIGHT = 0.78
"""Height over width: two rows of panels and the legend, 4.3 in at the default 5.5 in."""
SELECT, CONTROL = style.PURPLE, style.BROWN
"""Selection runs and aligned controls (PLUS/MINUS keep their meaning: the pair's gauge in (c))."""
LINESTYLES: dict[tuple[str, str], style.LineStyleType]
LINESTYLES = {("flow", "relu"): "-", ("sample", "relu"): "--", ("sample", "x2"): "-."}
CONDITION_LABELS = {
    ("flow", "relu"): "population flow",
    ("sample", "relu"): "finite sample",
    ("sample", "x2"): r"finite sample, $\sigma=x^2$",
}
TITLES = {
    "a": "rank-2 share",
    "b": "its peak over D",
    "c": "duplicate separation",
    "d": "T_spec over a perturbation",
}
ASSIGN_LABELS = {"select": "select", "reversed": "reversed", "all-plus": "all +D", "all-minus": "all −D"}
PAIR_COLORS = {"select": style.MINUS, "reversed": style.PLUS, "all-plus": style.PLUS, "all-minus": style.MINUS}
"""The gauge of the equal pair whose separation (c) measures: select's non-owners are −D, reversed's +D."""


def needs(quick: bool) -> dict[str, Need]:
    """Full: the command's defaults with the σ = x² runs (``gaugecli lockin --x2``, about 35 s). Quick:
    d = 4, one D, one seed, 50 epochs per T_spec over 3 T_spec, n = 1000, two-point scans (a few seconds)."""
    from gaugecli.experiments.config import ModelConfig
    from gaugecli.experiments.lockin import LockinConfig

    if not quick:
        return {"lockin": Need("lockin", LockinConfig(quadratic=True))}
    quick_config = LockinConfig(
        model=ModelConfig(d=4),
        strengths=(4.0,),
        per=50,
        span=3.0,
        burn_in=50,
        seeds=(0,),
        n_samples=1000,
        quadratic=True,
        scan_strengths=(2.0, 8.0),
        scan_pers=(25, 50),
        scan_eps=(1e-16, 1e-8),
    )
    return {"lockin": Need("lockin", quick_config)}


def _runs(result: Any, **where: Any) -> list[Any]:
    return [r for r in result.runs if all(getattr(r, k) == v for k, v in where.items())]


def _arr(run: Any, key: str) -> np.ndarray:
    return style.as_array(run.series[key])


def _style(run: Any) -> dict[str, Any]:
    color = CONTROL if run.control else SELECT
    return {"color": color, "ls": LINESTYLES[(run.mode, run.activation)], "lw": 1.3 if run.mode == "flow" else 0.9}


def _plain_ticks(ax: Any, values: list[float]) -> None:
    """Ticks exactly at the scanned values, labelled plainly (a scan's x-axis has no in-between values)."""
    ax.set_xticks(values, [f"{v:g}" for v in values])
    ax.minorticks_off()


def _name(run: Any) -> str:
    cond = "control" if run.control else run.assign
    tail = f"D{run.D:g}" if run.seed is None else f"seed{run.seed}"
    return f"{run.mode}_{run.activation}_{cond}_{tail}"


def _panel_rank2(ax: Any, result: Any, span: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    runs = _runs(result, assign="select", activation="relu")
    for i, run in enumerate(r for r in runs if r.mode == "flow" and not r.control):
        t, y = _arr(run, "t"), run.D * _arr(run, "rank2_share")
        ax.plot(t, y, color=SELECT, ls="-" if i == 0 else ":", lw=1.3 if i == 0 else 1.6, label=f"flow, D = {run.D:g}")
        out[_name(run)] = style.series(t, y, D_times_peak=run.D * run.rank2_peak, t_peak=run.rank2_t_peak)
    for run in (r for r in runs if r.mode == "sample" or r.control):
        t, y = _arr(run, "t"), run.D * _arr(run, "rank2_share")
        ax.plot(t, y, **_style(run))
        out[_name(run)] = style.series(t, y, D_times_peak=run.D * run.rank2_peak, t_peak=run.rank2_t_peak)
    style.threshold_line(ax, 1.0, axis="x")
    top = max((float(np.nanmax(style.as_array(v["y"]), initial=0.0)) for v in out.values()), default=1.0)
    ax.set(  # headroom for the legend above the peak
        xlim=(0, span),
        ylim=(0, 1.45 * top),
        xlabel=r"$t\,/\,T_{\rm spec}$",
        ylabel=r"$D\cdot\sigma_2/\sigma_1$ of $\dot W$",
    )
    ax.legend(loc="upper right", ncol=2, columnspacing=0.8)
    return out


def _panel_collapse(ax: Any, result: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    scan = result.rank2_collapse
    if scan:
        D = np.array([row["D"] for row in scan])
        y = np.array([row["D_times_peak"] for row in scan])
        ax.plot(D, y, color=SELECT, marker="o", label="flow, select")
        out["flow_scan"] = style.series(D, y, t_peak=[row["t_peak"] for row in scan])
        out["D_times_peak_spread"] = float(y.max() / y.min() - 1.0)
        out["t_peak_range"] = [min(row["t_peak"] for row in scan), max(row["t_peak"] for row in scan)]
        style.threshold_line(ax, float(np.median(y)))
    for control, marker, label in ((False, "^", "sample, select"), (True, "v", "sample, control")):
        runs = _runs(result, mode="sample", activation="relu", control=control)
        if runs:
            x, y = np.array([r.D for r in runs]), np.array([r.D * r.rank2_peak for r in runs])
            color = CONTROL if control else SELECT
            ax.plot(x, y, ls="none", marker=marker, mfc="white", color=color, label=label)
            out["sample_control" if control else "sample_select"] = style.series(x, y)
    flows = _runs(result, mode="flow", assign="select", control=True)
    if flows:
        x, y = np.array([r.D for r in flows]), np.array([r.D * r.rank2_peak for r in flows])
        ax.plot(x, y, ls="none", marker="D", color=CONTROL, label="flow, control")
        out["flow_control"] = style.series(x, y)
    ax.set(xscale="log", ylim=(-0.001, 0.022), xlabel=style.LABELS["D"], ylabel=r"peak $D\cdot\sigma_2/\sigma_1$")
    _plain_ticks(ax, sorted({row["D"] for row in scan} | {r.D for r in result.runs}))
    ax.legend(loc="center", bbox_to_anchor=(0.5, 0.42), ncol=2, columnspacing=0.8)
    return out


def _panel_separation(ax: Any, result: Any, span: float, m: int, small: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    flows = [r for r in _runs(result, mode="flow", control=False) if r.Lambda_total is not None]
    D0 = flows[0].D if flows else None
    for run in flows:
        t, lam = style.positive(_arr(run, "t"), _arr(run, "Lambda"))
        first = run.D == D0
        ls = "-" if run.assign.startswith("all") else "--"
        ax.plot(t, lam, color=PAIR_COLORS[run.assign], ls=ls, lw=1.3 if first else 0.8, alpha=1.0 if first else 0.6)
        out[_name(run)] = style.series(
            t,
            lam,
            Lambda_total=run.Lambda_total,
            Lambda_over_mD=run.Lambda_total / (m * run.D),
            lambda_anti_0=run.series["lambda_anti"][0],
        )
    style.threshold_line(ax, result.roundoff_exponent)
    ax.annotate(
        r"$\ln(1/\epsilon_{\rm machine})$",
        (0.99, result.roundoff_exponent),
        xycoords=("axes fraction", "data"),
        ha="right",
        va="top",
        color=style.GUIDE,
    )
    # direct labels at the first D's curves (all +D and reversed, both +D pairs, nearly coincide)
    ends = {r.assign: float(r.series["Lambda"][-1]) for r in flows if r.D == D0}
    labels = {"select": "select (−D pair)", "all-minus": "all −D", "all-plus": "all +D, reversed"}
    for assign, text in labels.items():
        if assign in ends:
            ax.annotate(
                text, (0.3 * span, ends[assign]), ha="left", va="bottom", color=PAIR_COLORS[assign], fontsize=small
            )
    if len({r.D for r in flows}) > 1:
        ax.annotate(
            f"thin: D = {max(r.D for r in flows):g}",
            (0.99, 0.03),
            xycoords="axes fraction",
            ha="right",
            color="0.35",
            fontsize=small,
        )
    ax.set(yscale="log", xlim=(0, span), xlabel=r"$t\,/\,T_{\rm spec}$", ylabel=r"separation $\Lambda(t)$")
    low = min((min(v["y"]) for k, v in out.items()), default=1e-3)
    ax.set_ylim(low / 3, max([result.roundoff_exponent, *ends.values()]) * 30)
    return out


def _panel_perturbation(ax: Any, result: Any) -> dict[str, Any]:
    rows = result.tspec_vs_eps
    D = rows[0]["D"] if rows else None
    references = {
        assign: ref[0].t_unit
        for assign in ("select", "all-minus")
        if (ref := [r for r in _runs(result, mode="flow", assign=assign, control=False) if r.D == D])
    }
    styles = {
        "select": (SELECT, "o", ASSIGN_LABELS["select"]),
        "all-minus": (style.MINUS, "s", ASSIGN_LABELS["all-minus"]),
    }
    return perturbation_panel(ax, rows, references, styles)


def _panels(axes: dict[str, Any], result: Any, config: Any, layout: Layout) -> dict[str, Any]:
    span = config.span
    draw = {
        "a": lambda ax: _panel_rank2(ax, result, span),
        "b": lambda ax: _panel_collapse(ax, result),
        "c": lambda ax: _panel_separation(ax, result, span, config.m, layout.small),
        "d": lambda ax: _panel_perturbation(ax, result),
    }
    return {letter: draw[letter](ax) for letter, ax in axes.items()}


def panel_axes(layout: Layout, height: float) -> tuple[Any, dict[str, Any]]:
    """The figure and its panels' axes by letter: 2 × 2 at ``height`` × width, or the main-text
    version's two panels side by side."""
    if layout.is_main:
        from gaugecli.plots.grid import main_axes

        return main_axes(layout, "abcd", height=0.45)
    fig, axes = style.new_figure(layout.width, layout.height(height), nrows=2, ncols=2)
    return fig, dict(zip("abcd", axes.ravel(), strict=True))


def condition_handles(conditions: list[tuple[str, str]]) -> list[Any]:
    """The figure legend: selection and control colours, then the line style of each condition drawn."""
    return [
        style.line_handle(SELECT, "-", None, "select"),
        style.line_handle(CONTROL, "-", None, r"aligned control ($\theta_0=0$)"),
        *(style.line_handle("0.3", LINESTYLES[k], None, CONDITION_LABELS[k]) for k in conditions),
    ]


def finish(
    fig: Any, axes: dict[str, Any], titles: dict[str, str], handles: list[Any], layout: Layout, ncol: int
) -> list[str]:
    """Panel letters (this version's) and titles, and the figure legend above the panels; returns the
    legend's labels."""
    for letter, ax in axes.items():
        style.panel_label(ax, layout.label(letter))
        ax.set_title(titles[letter].replace("T_spec", r"$T_{\rm spec}$"), loc="right", fontsize=layout.small, pad=3)
    fig.legend(handles=handles, loc="outside upper center", ncol=ncol, columnspacing=1.2, handlelength=2.4)
    return [h.get_label() for h in handles]


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    import matplotlib

    result, config = inputs["lockin"], inputs.configs["lockin"]
    fig, axes = panel_axes(layout, HEIGHT)
    with matplotlib.rc_context({"font.size": layout.small}):  # annotations at the small size, like legends
        panels = _panels(axes, result, config, layout)
    handles = condition_handles([("flow", "relu"), ("sample", "relu")])
    legend = finish(fig, axes, TITLES, handles, layout, ncol=4)
    if not layout.is_main:  # a main version's numbers are the full figure's sidecar's
        panels["legend"] = legend
        panels["key"] = _key_numbers(panels)  # from every panel's numbers: the full figure's only
    return fig, panels


def _key_numbers(panels: dict[str, Any]) -> dict[str, Any]:
    """The ranges the gallery quotes (:data:`READINGS`), read from the panels' own numbers; a series
    the result does not hold (``lockin --figure`` of one run: no scan over D) gives no entry."""
    a, b, d = panels["a"], panels["b"], panels["d"]
    out: dict[str, Any] = {}
    for key, name in (("flow_D_times_peak_range", "flow_scan"), ("sample_D_times_peak_range", "sample_select")):
        if name in b:
            out[key] = [min(b[name]["y"]), max(b[name]["y"])]
    controls = [row["D_times_peak"] for name, row in a.items() if name.startswith("sample_relu_control")]
    if controls:
        out["sample_control_D_times_peak_max"] = max(controls)
    if "select" in d:  # select's T_spec relative to its unperturbed flow, over every ε and draw of (d)
        out["select_t_spec_shift_max"] = max(abs(y - 1.0) for y in d["select"]["y"])
    return out
