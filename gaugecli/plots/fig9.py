"""Figure 9 — how weight decay erases the gauge (beyond the paper; ReLU, ``m = 1`` unless stated).

With decay λ the objective is ``L + (λ/2)‖θ‖²`` and every neuron's imbalance decays as
``δ(t) = δ(0) e^{−2λt}`` (docs/theory.md §12): the favorable neuron's advantage lasts about
``1/(2λ)``, and the unfavorable one is pulled toward balance.

(a) ``T_spec(−D)/T_spec(+D)`` against λ for D = 4, 16, 64 (dashed: λ = 0);
(b) the same ratio over its λ = 0 value against ``λ·T_spec(−D)|_{λ=0}``: the separation survives while
the decay is slow on the unfavorable clock (``λ T₀ ≪ 1``) and is removed once it is not;
(c) the law itself along the ±D runs at D = 16, λ = 0.01: ``δ(t)/δ(0)`` against ``e^{−2λt}`` (the
largest deviation, relative to ``max(1, |δ(0)|)``, in the legend);
(d) selection among ``m = 5`` duplicates (owner +D, others −D) under decay: the owner still takes the
feature, but the non-owner norm at the horizon no longer falls to round-off — decay drives the
non-owners toward δ = 0, where they co-align instead of being pruned (SPEC C7's boundary).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

MIN_WIDTH = 5.0
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""

CLAIM = "beyond: weight decay λ makes δ(t) = δ(0)e^(−2λt); the D² separation survives while λ·T_spec(−D) ≪ 1"
GAUGES = ("favorable", "unfavorable")
STRENGTHS = {False: (4.0, 16.0, 64.0), True: (4.0, 16.0)}
DECAYS = {False: (0.0, 1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1), True: (0.0, 1e-3, 1e-2, 1e-1)}
SELECT_STRENGTHS = {False: (1.0, 4.0, 16.0), True: (4.0,)}
SELECT_DECAYS = {False: (0.0, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1), True: (0.0, 1e-3, 1e-1)}
LAW_STRENGTH, LAW_DECAY = 16.0, 1e-2
PRUNED = 1e-6
"""``P`` at or below this counts as pruned (SPEC C7)."""


def _name(g: str, D: float, lam: float) -> str:
    return f"{g}-D{D:g}-lam{lam:g}"


def needs(quick: bool) -> dict[str, Need]:
    """Single-neuron flows (``gaugecli simulate --weight-decay λ --gauge G -D …``) over D × λ, and
    ``select`` runs over the selection grid; the law's pair is one of the flows."""
    from gaugecli.experiments.config import ModelConfig
    from gaugecli.experiments.select import SelectConfig
    from gaugecli.experiments.simulate import SimulateConfig

    out: dict[str, Need] = {}
    for D in STRENGTHS[quick]:
        for lam in DECAYS[quick]:
            for g in GAUGES:
                config = SimulateConfig(model=ModelConfig(weight_decay=lam), gauge=g, strengths=(D,))
                out[_name(g, D, lam)] = Need("simulate", config)
    for D in SELECT_STRENGTHS[quick]:
        for lam in SELECT_DECAYS[quick]:
            out[f"select-D{D:g}-lam{lam:g}"] = Need(
                "select", SelectConfig(model=ModelConfig(weight_decay=lam), strength=D)
            )
    return out


def _grid(inputs: Inputs) -> tuple[np.ndarray, np.ndarray]:
    D = sorted({c.strengths[0] for k, c in inputs.configs.items() if not k.startswith("select")})
    lam = sorted({c.model.weight_decay for k, c in inputs.configs.items() if not k.startswith("select")})
    return np.array(D), np.array(lam)


def _times(inputs: Inputs, D: np.ndarray, lam: np.ndarray) -> dict[str, np.ndarray]:
    def t(g: str, s: float, x: float) -> float:
        value = inputs[_name(g, s, x)].t_spec
        return np.nan if value is None else float(value)

    return {g: np.array([[t(g, s, x) for x in lam] for s in D]) for g in GAUGES}


def _panel_ratio(ax: Any, D: np.ndarray, lam: np.ndarray, ratio: np.ndarray) -> dict[str, Any]:
    """(a) the ratio against λ > 0, its λ = 0 value dashed."""
    colors, out = style.sequential_colors(len(D)), {}
    positive = lam > 0
    for i, s in enumerate(D):
        ax.plot(lam[positive], ratio[i, positive], color=colors[i], marker="D", ms=3.0, mfc="white", lw=0.9)
        ax.axhline(ratio[i, 0], color=colors[i], ls="--", lw=0.8, zorder=1)
        out[f"D{s:g}"] = style.series(lam[positive], ratio[i, positive], at_zero=ratio[i, 0])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"weight decay $\lambda$")
    ax.set_ylabel(r"$T_{\rm spec}(-D)/T_{\rm spec}(+D)$")
    return out


def _panel_collapse(
    ax: Any, D: np.ndarray, lam: np.ndarray, ratio: np.ndarray, t0: np.ndarray, layout: Layout
) -> dict[str, Any]:
    """(b) ``ratio / ratio(λ=0)`` against ``λ T_spec(−D)|_{λ=0}``."""
    colors, out = style.sequential_colors(len(D)), {}
    positive = lam > 0
    for i, s in enumerate(D):
        x = lam[positive] * t0[i]
        y = ratio[i, positive] / ratio[i, 0]
        ax.plot(x, y, color=colors[i], marker="D", ms=3.0, mfc="white", lw=0.9)
        out[f"D{s:g}"] = style.series(x, y, T0_unfavorable=t0[i])
    ax.axvline(1.0, color=style.GUIDE, ls=":", lw=0.9)
    style.note(
        ax, r"$\lambda T_0 = 1$", (1.0, 0.04), layout, offset=(3, 0), xycoords=("data", "axes fraction"), va="bottom"
    )
    handles = [style.line_handle(colors[i], "-", "D", f"$D={s:g}$", mfc="white") for i, s in enumerate(D)]
    handles.append(style.line_handle(style.GUIDE, "--", None, r"(a): $\lambda = 0$"))
    ax.legend(handles=handles, loc="lower left")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"$\lambda\,T_{\rm spec}(-D)|_{\lambda=0}$")
    ax.set_ylabel(r"ratio / ratio at $\lambda = 0$")
    return out


def _panel_law(ax: Any, runs: dict[str, Any]) -> dict[str, Any]:
    """(c) ``δ(t)/δ(0)`` of the ±D pair against ``e^{−2λt}``."""
    out = {}
    t_max = 0.0
    for g, run in runs.items():
        t = np.asarray(run.t, float)
        keep = t >= 1e-3  # the log grid starts far below any motion
        delta = np.asarray(run.imbalance, float)[:, 0]
        ax.plot(t[keep], delta[keep] / delta[0], color=style.GAUGE_COLORS[g], lw=1.6, alpha=0.7, label=f"{'+' if g == 'favorable' else '−'}D: drift {run.imbalance_drift:.1e}")  # fmt: skip
        out[g] = style.series(t[keep], delta[keep] / delta[0], drift=run.imbalance_drift)
        t_max = max(t_max, float(t[-1]))
    t = np.geomspace(1e-3, t_max, 200)
    law = np.exp(-2.0 * LAW_DECAY * t)
    ax.plot(t, law, color=style.THEORY, ls=":", lw=1.1, label=r"$e^{-2\lambda t}$")
    out["law"] = style.series(t, law)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(1e-6, 2.0)
    ax.set_xlim(1e-3, t_max)
    ax.set_xlabel("time $t$")
    ax.set_ylabel(rf"$\delta(t)/\delta(0)$ ($D={LAW_STRENGTH:g}$, $\lambda={LAW_DECAY:g}$)")
    ax.legend(loc="lower left")
    return out


def _panel_selection(ax: Any, inputs: Inputs, quick: bool, layout: Layout) -> dict[str, Any]:
    """(d) ``P_end`` against λ per D (λ = 0 at the left edge), owner's share in the sidecar."""
    strengths, decays = SELECT_STRENGTHS[quick], SELECT_DECAYS[quick]
    colors, out = style.sequential_colors(len(strengths)), {}
    x = np.arange(len(decays), dtype=float)
    for i, s in enumerate(strengths):
        P, share, success = [], [], []
        for lam in decays:
            result = inputs[f"select-D{s:g}-lam{lam:g}"]
            run = result.runs[0]
            c = np.abs(run.coefficient[-1])
            P.append(float(run.nonowner_norm[-1]))
            share.append(float(c[result.designated] / c.sum()))
            success.append(bool(result.success[0]))
        ax.plot(x, P, color=colors[i], marker="o", ms=3.2, mfc="white", lw=0.9, label=f"$D={s:g}$")
        out[f"D{s:g}"] = style.series(x, P, weight_decay=list(decays), owner_share=share, selected=success)
    ax.axhline(PRUNED, color=style.GUIDE, ls=":", lw=0.9)
    style.note(ax, "pruned below", (0.98, PRUNED), layout, offset=(0, 2), xycoords=("axes fraction", "data"), ha="right", va="bottom")  # fmt: skip
    ax.set_yscale("log")
    ax.set_xticks(x)
    ax.set_xticklabels(["0" if lam == 0 else f"$10^{{{round(np.log10(lam))}}}$" for lam in decays])
    ax.set_xlabel(r"weight decay $\lambda$ ($m = 5$, owner $+D$)")
    ax.set_ylabel(r"non-owner norm $P_{\rm end}$")
    ax.legend(loc="center right")
    return out


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    """Four panels (2 × 2) at the layout's width; returns the figure and its sidecar panels."""
    D, lam = _grid(inputs)
    quick = len(D) == len(STRENGTHS[True])
    times = _times(inputs, D, lam)
    ratio = times["unfavorable"] / times["favorable"]
    fig, axes = style.new_figure(layout.width, layout.height(0.8), nrows=2, ncols=2)
    (ax_a, ax_b), (ax_c, ax_d) = axes
    law_runs = {g: inputs[_name(g, LAW_STRENGTH, LAW_DECAY)] for g in GAUGES}
    panels = {
        "a": _panel_ratio(ax_a, D, lam, ratio),
        "b": _panel_collapse(ax_b, D, lam, ratio, times["unfavorable"][:, 0], layout),
        "c": _panel_law(ax_c, law_runs),
        "d": _panel_selection(ax_d, inputs, quick, layout),
    }
    for ax, letter in zip((ax_a, ax_b, ax_c, ax_d), "abcd", strict=True):
        style.panel_label(ax, letter)
    panels["key"] = {
        "ratio_at_zero": {f"D{s:g}": float(ratio[i, 0]) for i, s in enumerate(D)},
        "ratio_at_largest_decay": {f"D{s:g}": float(ratio[i, -1]) for i, s in enumerate(D)},
        "largest_decay": float(lam[-1]),
        "law_drift": {g: float(r.imbalance_drift) for g, r in law_runs.items()},
        "selected_everywhere": all(all(v["selected"]) for v in panels["d"].values()),
    }
    return fig, panels
