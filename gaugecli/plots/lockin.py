"""Figure ``lockin`` — which signatures of Xu's lock-in study gauge selection leaves, nulls beside positives.

One ``gaugecli lockin --x2`` result (RELATED.md §2): ``select`` (one +D owner among −D duplicates)
against the aligned control (θ0 = 0), population flow (solid), finite-sample GD with ReLU (dashed) and
with σ = x² (dash-dotted); selection in purple, the aligned control in brown. Times are in each run's
``T_spec`` (the control borrows select's, the finite-sample runs their population clock).

(a) The rank-2 share of the update matrix, ``D·σ2/σ1`` of ``dW/dt``: one peak just after ``T_spec``
    in the flow and in finite-sample GD, the same height for every D; ≡ 0 in the aligned control
    flow, ≈ 0 in its finite-sample run. (b) Its peak over D: ``D·peak`` constant (peak ∝ 1/D).
(c) Xu's detector reads the eigenvalues of the Gram matrix of the last ``window`` updates:
    ``λ3/λ1`` (the gap's denominator); where it sits in the round-off band the raw gap ``λ2/λ3`` is
    noise. (d) When the detector first fires, per run (raw: rings, floored: dots; grey ticks: the
    run's own ``T_spec``): it fires in ReLU runs that lock nothing in, and only x² separates select
    from control. (e) The raw firing of the flow moves with the sampling resolution ``per``.
(f) The separation exponent ``Λ(t) = ∫ λ_anti`` of an equal pair (the gauge of the pair in colour):
    only all-−D duplicates pass ``ln(1/ε_machine)``, so round-off splits them. (g) Tian's repulsion:
    the owner–non-owner feature similarity, and ``frac(B_jl < 0 | S_jl > 0)`` (= 1 in every run: the
    duplicates' identical columns make it automatic). (h) ``T_spec`` over the input dimension d,
    relative to the invariant-set flow (d-independent): select is exact, all −D is round-off.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots._lockin_perturbation import perturbation_panel
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

MIN_WIDTH = 5.0
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""

CLAIM = (
    "Related work (Xu, Tian): selection leaves a rank-2 update peak ∝ 1/D at T_spec; Xu's detector and "
    "Tian's sign rate carry no lock-in signal for ReLU; all −D duplicates are split by round-off"
)
SIDECAR_TOLERANCES = (
    ("d/*/detector_fire_raw/*", float("inf"), 0.0, "the raw detector reads λ2/λ3 in the round-off band: round-off"),
    ("e/*_raw/*", float("inf"), 0.0, "the raw gap λ2/λ3 is round-off wherever λ3 is (what (e) shows)"),
    ("d/flow all −D/*", float("inf"), 0.0, "all −D duplicates: a symmetric start split by round-off (Λ > 36)"),
    ("h/all-minus/*", float("inf"), 0.0, "all −D: the winner and T_spec move with the draw and the arithmetic"),
    ("g/informative_rate_min", float("inf"), 0.0, "windows at the round-off band's edge flip with the arithmetic"),
)
"""Where a number moves more than the shared default across arithmetic paths, and why (first match wins)."""
SELECT, CONTROL = style.PURPLE, style.BROWN
"""Selection runs and aligned controls (PLUS/MINUS keep their meaning: the pair's gauge in (f))."""
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
    "c": "Xu's window Gram",
    "d": "Xu's detector",
    "e": "sampling resolution",
    "f": "duplicate separation",
    "g": "Tian's repulsion",
    "h": "T_spec over a perturbation",
}
ASSIGN_LABELS = {"select": "select", "reversed": "reversed", "all-plus": "all +D", "all-minus": "all −D"}
PAIR_COLORS = {"select": style.MINUS, "reversed": style.PLUS, "all-plus": style.PLUS, "all-minus": style.MINUS}
"""The gauge of the equal pair whose separation (f) measures: select's non-owners are −D, reversed's +D."""


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
    ax.set(
        xlim=(0, span), ylim=(0, None), xlabel=r"$t\,/\,T_{\rm spec}$", ylabel=r"$D\cdot\sigma_2/\sigma_1$ of $\dot W$"
    )
    ax.legend(loc="upper right")
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
    for control, marker, label in ((False, "^", "sample, select"), (True, "s", "sample, control")):
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


def _panel_gram(ax: Any, result: Any, floor: float, span: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    level = result.roundoff_level
    D0 = result.runs[0].D
    for (mode, activation), control in [(k, c) for k in LINESTYLES for c in (False, True)]:
        runs = _runs(result, mode=mode, activation=activation, control=control, assign="select")
        runs = [r for r in runs if r.D == D0][:1]  # one run per condition: the first D, the first seed
        for run in runs:
            t, y = _arr(run, "t"), style.clip_to_floor(_arr(run, "lambda3_over_lambda1"), level)
            ax.plot(t, y, **_style(run))
            out[_name(run)] = style.series(t, y, roundoff_fraction=run.roundoff_fraction)
    style.floor_band(ax, level, "round-off: share of windows")
    style.threshold_line(ax, floor)
    ax.annotate("floor", (0.99, floor), xycoords=("axes fraction", "data"), ha="right", va="bottom", color=style.GUIDE)
    hidden = [k for k, v in out.items() if all(x is None for x in v["y"])]
    # runs whose λ3 is round-off in (nearly) every window have (almost) no curve above the band: say so
    mostly = [(k, v["roundoff_fraction"]) for k, v in out.items() if v["roundoff_fraction"] >= 0.9]
    if mostly:
        text = ", ".join(f"{'x²' if '_x2_' in k else k.split('_')[0]} {k.split('_')[2]} {f:.0%}" for k, f in mostly)
        ax.annotate(text, (0.01, level / 1e3), xycoords=("axes fraction", "data"), va="bottom", color=style.GUIDE)
    out["in_band_throughout"] = hidden
    ax.set(yscale="log", xlim=(0, span), ylim=(level / 3e4, 1.0), xlabel=r"$t\,/\,T_{\rm spec}$")
    ax.set_ylabel(r"window Gram $\lambda_3/\lambda_1$")
    return out


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


def _panel_raster(ax: Any, result: Any, burn_in: float, span: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    y, ticks, labels = 0.0, [], []
    for mode, activation, assign, control, label in RASTER_GROUPS:
        runs = _runs(result, mode=mode, activation=activation, assign=assign, control=control)
        if not runs:
            continue
        rows = y - np.arange(len(runs)) * 0.8
        color = CONTROL if control else (SELECT if assign == "select" else PAIR_COLORS.get(assign, style.GUIDE))
        if assign == "reversed":
            color = "0.3"
        entry: dict[str, Any] = {"runs": len(runs)}
        for key, kw in (
            ("detector_fire_raw", {"ms": 5.0, "mfc": "none", "mew": 1.0}),
            ("detector_fire_floored", {"ms": 2.6}),
        ):
            x = np.array([np.nan if getattr(r, key) is None else getattr(r, key) for r in runs])
            ax.plot(x, rows, ls="none", marker="o", color=color, **kw)
            entry[key] = style.series(x, rows)
            entry[f"{key}_count"] = int(np.sum(np.isfinite(x)))
        ts = np.array([np.nan if not r.t_spec else r.t_spec for r in runs])
        ax.plot(ts, rows, ls="none", marker="|", ms=6, color=style.GUIDE)
        entry["t_spec"] = style.series(ts, rows)
        out[label] = entry
        ticks.append(float(np.mean(rows)))
        labels.append(label)
        y = rows[-1] - 1.0
    ax.axvspan(0, burn_in, color="0.93", lw=0, zorder=0)
    ax.annotate(
        "burn-in", (burn_in / 2, 0.02), xycoords=("data", "axes fraction"), ha="center", va="bottom", rotation=90
    )
    ax.set_yticks(ticks, labels)
    ax.tick_params(axis="y", length=0)
    ax.set(xlim=(0, span), ylim=(y + 0.5, 0.5), xlabel=r"first firing $t\,/\,T_{\rm spec}$")
    ax.spines["left"].set_visible(False)
    return out


def _panel_resolution(ax: Any, result: Any, span: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for control in (False, True):
        rows = [row for row in result.resolution_scan if row["control"] is control]
        if not rows:
            continue
        per = np.array([row["per"] for row in rows], float)
        color, name = (CONTROL, "control") if control else (SELECT, "select")
        for key, ls, mfc in (("detector_fire_raw", "-", color), ("detector_fire_floored", "--", "white")):
            y = np.array([np.nan if row[key] is None else row[key] for row in rows])
            kind = "raw" if key.endswith("raw") else "floored"
            never = ": never" if np.all(np.isnan(y)) else ""
            ax.plot(per, y, color=color, ls=ls, marker="o", mfc=mfc, label=f"{name} {kind}{never}")
            out[f"{name}_{kind}"] = style.series(per, y, roundoff_fraction=[row["roundoff_fraction"] for row in rows])
    pers = [row["per"] for row in result.resolution_scan] or [1]
    ax.set(xscale="log", xlim=(min(pers) / 1.4, max(pers) * 1.4), ylim=(0, span))
    pers = [row["per"] for row in result.resolution_scan]
    ax.set(xlabel="epochs per $T_{\\rm spec}$", ylabel=r"first firing $t\,/\,T_{\rm spec}$")
    _plain_ticks(ax, sorted(set(pers)))
    if out:
        ax.legend(loc="upper right")
    else:
        ax.annotate("not scanned", (0.5, 0.5), xycoords="axes fraction", ha="center", color=style.GUIDE)
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


def _panel_repulsion(ax: Any, result: Any, span: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    D0 = result.runs[0].D
    for (mode, activation), control in [(k, c) for k in LINESTYLES for c in (False, True)]:
        runs = [r for r in _runs(result, mode=mode, activation=activation, control=control, assign="select")]
        for run in [r for r in runs if r.D == D0][:1]:
            t = _arr(run, "t")
            s, rate = _arr(run, "similarity_owner"), _arr(run, "informative_rate")
            ax.plot(t, s, **_style(run))
            kw = _style(run) | {"ls": "none", "marker": "v", "ms": 3, "markevery": max(1, t.size // 8)}
            ax.plot(t, rate, **kw)
            out[_name(run)] = {
                "similarity": style.series(t, s),
                "informative_rate": style.series(t, rate),
                "direct_sign_match": run.direct_sign_match,
                "sign_identity_residual": run.sign_identity_residual,
            }
    out["informative_rate_min"] = min(r.frac_neg_given_similar for r in result.runs if r.frac_neg_given_similar)
    out["direct_sign_match_min"] = min(r.direct_sign_match for r in result.runs)
    out["sign_identity_residual_max"] = max(r.sign_identity_residual for r in result.runs)
    handles = [
        style.line_handle("0.3", "-", None, "similarity owner–others"),
        style.line_handle("0.3", "none", "v", r"frac($B<0\,|\,S>0$)"),
    ]
    ax.legend(handles=handles, loc="center right")
    ax.set(xlim=(0, span), ylim=(-0.05, 1.08), xlabel=r"$t\,/\,T_{\rm spec}$", ylabel="feature similarity, rate")
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


def _panels(axes: Any, result: Any, config: Any, layout: Layout) -> dict[str, Any]:
    span = config.span
    (a, b), (c, d), (e, f), (g, h) = axes
    return {
        "a": _panel_rank2(a, result, span),
        "b": _panel_collapse(b, result),
        "c": _panel_gram(c, result, config.floor, span),
        "d": _panel_raster(d, result, config.burn_in / config.per, span),
        "e": _panel_resolution(e, result, span),
        "f": _panel_separation(f, result, span, config.m, layout.small),
        "g": _panel_repulsion(g, result, span),
        "h": _panel_perturbation(h, result),
    }


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    import matplotlib

    result, config = inputs["lockin"], inputs.configs["lockin"]
    fig, axes = style.new_figure(layout.width, layout.height(1.36), nrows=4, ncols=2)
    with matplotlib.rc_context({"font.size": layout.small}):  # annotations at the small size, like legends
        panels = _panels(axes, result, config, layout)
    for ax, letter in zip(axes.ravel(), "abcdefgh", strict=True):
        style.panel_label(ax, letter)
        ax.set_title(TITLES[letter].replace("T_spec", r"$T_{\rm spec}$"), loc="right", fontsize=layout.small, pad=3)
    handles = [
        style.line_handle(SELECT, "-", None, "select"),
        style.line_handle(CONTROL, "-", None, r"aligned control ($\theta_0=0$)"),
        *(style.line_handle("0.3", ls, None, CONDITION_LABELS[k]) for k, ls in LINESTYLES.items()),
    ]
    fig.legend(handles=handles, loc="outside upper center", ncol=3, columnspacing=1.2, handlelength=2.4)
    panels["legend"] = [h.get_label() for h in handles]
    return fig, panels
