"""Figure 8 — the gauge across activations: the separation is Θ(D^{1+1/p}) at degree p, and where it
is not (beyond the paper; ``m = 1`` from ``u0 ⊥ v`` unless stated).

(a) ``T_spec(+D)`` (circles) and ``T_spec(−D)`` (squares) against D on log–log axes for every
homogeneous activation of the registry: relu, leaky-relu at β = 0.01 and 0.3, relu2, square and
linear — and erf, which has no degree (dash-dot). σ = z² starts at θ0 = 1.2: from ``u0 ⊥ v`` its
population flow sits on an exact saddle (``gaugecli.core.symmetry.exact_saddle``) and has no T_spec.
(b) the local slope ``d ln(T(−D)/T(+D)) / d ln D`` against the hypothesis ``1 + 1/p`` of the
mobilities (``T(+D) ∝ D^{−1/p}``, ``T(−D) ∝ D``; docs/theory.md §12): 2 at degree 1, 3/2 at degree 2.
(c) the local slopes of ``T(+D)`` and ``T(−D)`` themselves, against ``−1/p`` and ``+1``: the linear
network's ``T(−D)`` drifts above 1 (≈ 1.1 at D = 1024): the law's boundary.
(d) selection among ``m = 5`` duplicates (owner +D, the others −D, D = 4) per activation: the owner's
final share of ``Σ|c_j|`` (bars) and the non-owner norm ``P_end`` at the horizon (crosses) — pruned
(``P ≤ 1e-6``) for every activation but linear, whose non-owners keep ``P ≈ 1e-4``: its loss sees only
``Σ c_j u_j``.
(e) erf, the non-homogeneous contrast: δ is not conserved. ``δ(t)/δ(0)`` of the ±D runs: each neuron
keeps its δ while it turns and then balances (δ → 0) as it grows into erf's nonlinear range — yet the
+D neuron still specializes first, and selects among duplicates ((d)).
(f) the linear network, the exactly solvable control: an *aligned* neuron learns (``c: c0 → ½``) in a
time even in δ — the closed form of ``gaugecli.core.linear`` (line, one for both signs) — while from
``u0 ⊥ v`` ``T_spec(±D)`` separate (markers): the asymmetry is made by the direction's turn alone.

The sidecar's ``key`` also holds the constants: ``D^{1/p} T(+D)``, ``T(−D)/D`` and
``(T(−D)/T(+D))/D^{1+1/p}`` at the largest D, their Richardson extrapolation in ``1/D`` (and its spread
over the last pairs), and for relu the exact limits of ``gaugecli.core.limits``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

MIN_WIDTH = 5.0
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""

CLAIM = "beyond: T_spec(−D)/T_spec(+D) = Θ(D^(1+1/p)) at degree p (2 for relu, 3/2 for relu2 and z²)"
SIDECAR_TOLERANCES = (
    (
        "*constants*",
        1e-6,
        1e-7,
        "Richardson extrapolations (4v_k − v_{k−1})/3 of scaled times v ≈ 1–20 carry ~3× the runs' 1e-9 "
        "relative error; their spread (a difference of two) moved by ≤ 9e-9 on a second arithmetic path",
    ),
    (
        "*slope*",
        1e-6,
        1e-7,
        "local slopes are differences of ln T at neighbouring D: the runs' 1e-9 relative error over ln 4",
    ),
)
"""Where a number moves more than the shared default across arithmetic paths, and why (first match wins)."""
GAUGES = ("favorable", "unfavorable")
STRENGTHS = {False: tuple(4.0**k for k in range(6)), True: (1.0, 16.0, 256.0)}
"""D = 1 … 1024 by factors of 4 (quick: 1, 16, 256)."""
ACTIVATIONS: tuple[tuple[str, str, dict[str, float], float], ...] = (
    ("relu", "relu", {}, math.pi / 2),
    ("leaky-relu-0.01", "leaky-relu", {"negative_slope": 0.01}, math.pi / 2),
    ("leaky-relu-0.3", "leaky-relu", {"negative_slope": 0.3}, math.pi / 2),
    ("linear", "linear", {}, math.pi / 2),
    ("relu2", "relu2", {}, math.pi / 2),
    ("square", "square", {}, 1.2),
    ("erf", "erf", {}, math.pi / 2),
)
"""Label, activation, its parameters and θ0 (σ = z² off its saddle)."""
DEGREE: dict[str, int | None] = {"relu": 1, "leaky-relu": 1, "linear": 1, "relu2": 2, "square": 2, "erf": None}
"""The gauge degree p (``None``: erf is not homogeneous)."""
ERF_STRENGTHS = {False: (4.0, 64.0), True: (16.0, 256.0)}
"""The erf runs whose δ(t) (e) draws (among (a)'s)."""
LINEAR_TARGET = 0.5
"""(f): the aligned neuron's time from ``c0`` to this ``c``."""
SELECT_STRENGTH = 4.0
PRUNED = 1e-6
"""``P`` at or below this counts as pruned (SPEC C7)."""
LABELS = {
    "relu": "relu",
    "leaky-relu-0.01": r"leaky $\beta{=}0.01$",
    "leaky-relu-0.3": r"leaky $\beta{=}0.3$",
    "linear": "linear",
    "relu2": r"relu$^2$",
    "square": r"$z^2$ ($\theta_0{=}1.2$)",
    "erf": "erf",
}
LINESTYLES: dict[int | None, Any] = {1: "-", 2: "--", None: "-."}


def _expected(name: str, what: str) -> float | None:
    """The mobilities' slope of ``what`` (ratio, favorable, unfavorable) at degree p (``None``: no degree)."""
    p = DEGREE[name]
    if p is None:
        return None
    return {"ratio": 1.0 + 1.0 / p, "favorable": -1.0 / p, "unfavorable": 1.0}[what]


def _model(name: str, params: dict[str, float], theta0: float) -> Any:
    from gaugecli.experiments.config import ModelConfig

    return ModelConfig(activation=name, theta0=theta0, negative_slope=params.get("negative_slope"))


def needs(quick: bool) -> dict[str, Need]:
    """One single-neuron flow per activation, gauge and D (the configuration of ``gaugecli simulate
    --activation A --gauge G -D …``), and one ``select`` per activation."""
    from gaugecli.experiments.select import SelectConfig
    from gaugecli.experiments.simulate import SimulateConfig

    out: dict[str, Need] = {}
    for label, name, params, theta0 in ACTIVATIONS:
        model = _model(name, params, theta0)
        for g in GAUGES:
            for D in STRENGTHS[quick]:
                out[f"{label}-{g}-D{D:g}"] = Need("simulate", SimulateConfig(model=model, gauge=g, strengths=(D,)))
        out[f"{label}-select"] = Need("select", SelectConfig(model=model, strength=SELECT_STRENGTH))
    return out


def _strengths(inputs: Inputs) -> np.ndarray:
    return np.array(sorted({c.strengths[0] for k, c in inputs.configs.items() if not k.endswith("select")}))


def _colors() -> dict[str, str]:
    # the colorblind palette without blue, vermillion and green (they mean +D, −D and δ = 0)
    return {
        "relu": style.BROWN,
        "leaky-relu-0.01": style.ORANGE,
        "leaky-relu-0.3": style.PINK,
        "linear": style.GREY,
        "relu2": style.PURPLE,
        "square": style.SKY,
        "erf": "0.0",
    }


def _d_axis(ax: Any, D: np.ndarray) -> None:
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator([x for x in (1, 16, 256) if D[0] <= x <= D[-1]] + [float(D[-1])]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel(style.LABELS["D"])


def _panel_times(ax: Any, D: np.ndarray, times: dict[str, dict[str, np.ndarray]]) -> dict[str, Any]:
    """(a) ``T_spec(±D)`` per activation."""
    colors, out = _colors(), {}
    for label, name, _, _ in ACTIVATIONS:
        ls = LINESTYLES[DEGREE[name]]
        for g in GAUGES:
            T = times[label][g]
            marker = style.GAUGE_MARKERS[g]
            ax.plot(D, T, color=colors[label], ls=ls, lw=0.9, marker=marker, ms=3.0, mfc="white", mew=0.8)
            out[f"{label}-{g}"] = style.series(D, T)
    ax.set_yscale("log")
    _d_axis(ax, D)
    ax.set_ylabel(r"specialization time $T_{\rm spec}$")
    handles = [style.line_handle(colors[a[0]], LINESTYLES[DEGREE[a[1]]], None, LABELS[a[0]]) for a in ACTIVATIONS]
    handles += [
        style.line_handle(
            style.THEORY, "none", style.GAUGE_MARKERS[g], f"${'+' if g == 'favorable' else '-'}D$", mfc="white"
        )
        for g in GAUGES
    ]
    ax.legend(handles=handles, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    return out


def _panel_separation(
    ax: Any, D: np.ndarray, times: dict[str, dict[str, np.ndarray]], layout: Layout
) -> dict[str, Any]:
    """(b) the local slope of the separation against ``1 + 1/p``."""
    from gaugecli.core.separation import local_slopes

    colors, out = _colors(), {}
    for p in (1, 2):
        ax.axhline(1.0 + 1.0 / p, color=style.THEORY, ls=":", lw=0.9, zorder=1)
        style.note(ax, rf"$1+1/p = {1 + 1 / p:g}$", (1.0, 1.0 + 1.0 / p), layout, offset=(-2, 3), xycoords=("axes fraction", "data"), ha="right", va="bottom", color=style.THEORY)  # fmt: skip
    for label, name, _, _ in ACTIVATIONS:
        ratio = times[label]["unfavorable"] / times[label]["favorable"]
        mid, slopes = local_slopes(D, ratio)
        ax.plot(mid, slopes, color=colors[label], ls=LINESTYLES[DEGREE[name]], lw=0.9, marker="D", ms=2.6, mfc="white")
        out[label] = style.series(mid, slopes, expected=_expected(name, "ratio"), ratio=ratio)
    _d_axis(ax, D)
    ax.set_ylabel(r"slope of $T_{\rm spec}(-D)/T_{\rm spec}(+D)$")
    return out


def _panel_components(
    ax: Any, D: np.ndarray, times: dict[str, dict[str, np.ndarray]], layout: Layout
) -> dict[str, Any]:
    """(c) the local slopes of ``T(+D)`` and ``T(−D)``, against ``−1/p`` and ``+1``."""
    from gaugecli.core.separation import local_slopes

    colors, out = _colors(), {}
    for y, text, at in ((1.0, r"$+1$", 0.0), (-1.0, r"$-1/p$, $p{=}1$", 1.0), (-0.5, r"$-1/p$, $p{=}2$", 1.0)):
        ax.axhline(y, color=style.THEORY, ls=":", lw=0.9, zorder=1)
        side = "left" if at == 0.0 else "right"
        style.note(ax, text, (at, y), layout, offset=(2 if at == 0.0 else -2, 3), xycoords=("axes fraction", "data"), ha=side, va="bottom", color=style.THEORY)  # fmt: skip
    for label, name, _, _ in ACTIVATIONS:
        for g in GAUGES:
            mid, slopes = local_slopes(D, times[label][g])
            marker = style.GAUGE_MARKERS[g]
            ax.plot(mid, slopes, color=colors[label], ls=LINESTYLES[DEGREE[name]], lw=0.9, marker=marker, ms=2.6, mfc="white")  # fmt: skip
            out[f"{label}-{g}"] = style.series(mid, slopes, expected=_expected(name, g))
    _d_axis(ax, D)
    ax.set_ylabel(r"slope of $T_{\rm spec}(\pm D)$")
    return out


def _panel_selection(ax: Any, selections: dict[str, Any], layout: Layout) -> dict[str, Any]:
    """(d) the owner's final share of ``Σ|c_j|`` (bars) and ``P_end`` (markers, right axis)."""
    colors, out = _colors(), {}
    labels = [a[0] for a in ACTIVATIONS]
    x = np.arange(len(labels), dtype=float)
    shares, P = [], []
    for label in labels:
        result = selections[label]
        run = result.runs[0]
        c = np.abs(run.coefficient[-1])
        shares.append(float(c[result.designated] / c.sum()))
        P.append(float(run.nonowner_norm[-1]))
        out[label] = {
            "owner": run.owner,
            "designated": result.designated,
            "success": bool(result.success[0]),
            "owner_share": shares[-1],
            "P_end": P[-1],
            "pruned": P[-1] <= PRUNED,
            "t_end": float(run.t[-1]),
        }
    ax.bar(x, shares, color=[colors[k] for k in labels], width=0.6, zorder=2, alpha=0.85)
    ax.set_ylim(0.0, 1.12)
    ax.set_ylabel("owner's share of $\\Sigma|c_j|$ (bars)")
    ax.set_xticks(x)
    ax.set_xticklabels([LABELS[k] for k in labels], rotation=50, ha="right", rotation_mode="anchor")
    right = ax.twinx()
    # crosses, not squares: squares mean −D in every figure
    right.plot(x, P, ls="none", marker="X", ms=4.2, color=style.THEORY, mew=0.6, mec="white", zorder=3)
    right.axhline(PRUNED, color=style.GUIDE, ls=":", lw=0.9)
    style.note(right, r"pruned below", (0.98, PRUNED), layout, offset=(0, 2), xycoords=("axes fraction", "data"), ha="right", va="bottom", bbox={"fc": "white", "ec": "none", "pad": 0.6})  # fmt: skip
    right.set_yscale("log")
    right.set_ylim(1e-18, 1e-1)
    right.set_ylabel(r"$P_{\rm end}$ (crosses)")
    out["series"] = style.series(x, shares, P_end=P)
    return out


def _panel_erf(ax: Any, runs: dict[tuple[float, str], Any]) -> dict[str, Any]:
    """(e) erf's δ(t)/δ(0) for the ±D runs at two D, with each run's T_spec marked."""
    out = {}
    styles: dict[float, Any] = dict(zip(sorted({D for D, _ in runs}), ("-", "--"), strict=False))
    for (D, g), run in runs.items():
        t = np.asarray(run.t, float)
        keep = t > 0
        ratio = np.asarray(run.imbalance, float)[:, 0] / float(run.imbalance[0, 0])
        color = style.GAUGE_COLORS[g]
        ax.plot(t[keep], ratio[keep], color=color, ls=styles[D], lw=1.1)
        if run.t_spec is not None:
            at = float(np.interp(np.log(run.t_spec), np.log(t[keep]), ratio[keep]))
            ax.plot([run.t_spec], [at], ls="none", marker=style.GAUGE_MARKERS[g], color=color, ms=3.4, mfc="white", mew=0.8)  # fmt: skip
        out[f"{g}-D{D:g}"] = style.series(t[keep], ratio[keep], t_spec=run.t_spec, final_loss=run.final_loss)
    ax.set_xscale("log")
    ax.set_xlim(1e-3, None)  # the log grid starts far below any motion
    ax.set_ylim(-0.05, 1.1)
    ax.set_xlabel("time $t$ (erf)")
    ax.set_ylabel(r"$\delta(t)/\delta(0)$, $\delta = a^2 - \|w\|^2$")
    handles = [style.line_handle(style.THEORY, ls, None, f"$D={D:g}$") for D, ls in styles.items()]
    handles += [
        style.line_handle(
            style.GAUGE_COLORS[g],
            "-",
            style.GAUGE_MARKERS[g],
            rf"${'+' if g == 'favorable' else '-'}D$ (marker: $T_{{\rm spec}}$)",
            mfc="white",
        )
        for g in GAUGES
    ]
    ax.legend(handles=handles, loc="lower left")
    return out


def _panel_linear(ax: Any, D: np.ndarray, times: dict[str, np.ndarray], c0: float) -> dict[str, Any]:
    """(f) the linear network: the aligned closed form (even in δ) against ``T_spec(±D)`` from ``u0 ⊥ v``."""
    from gaugecli.core.linear import aligned_time

    Dg = np.geomspace(D[0], D[-1], 60)
    aligned = np.array([aligned_time(x, c0, LINEAR_TARGET) for x in Dg])
    ax.plot(Dg, aligned, color=style.THEORY, lw=1.2, label=rf"aligned: $c_0 \to {LINEAR_TARGET:g}$, $\pm D$ alike")
    out: dict[str, Any] = {"aligned": style.series(Dg, aligned, c0=c0, c_to=LINEAR_TARGET)}
    for g in GAUGES:
        T = times[g]
        ax.plot(D, T, color=style.GAUGE_COLORS[g], ls="none", marker=style.GAUGE_MARKERS[g], ms=3.4, mfc="white", mew=0.8, label=rf"$u_0 \perp v$: $T_{{\rm spec}}({'+' if g == 'favorable' else '-'}D)$")  # fmt: skip
        out[g] = style.series(D, T)
    ax.set_yscale("log")
    _d_axis(ax, D)
    ax.set_ylabel("time (linear network)")
    ax.legend(loc="center right")
    return out


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    """Six panels (3 × 2) at the layout's width; returns the figure and its sidecar panels."""
    D = _strengths(inputs)
    times = {
        label: {
            g: np.array([np.nan if (t := inputs[f"{label}-{g}-D{s:g}"].t_spec) is None else t for s in D], dtype=float)
            for g in GAUGES
        }
        for label, _, _, _ in ACTIVATIONS
    }
    selections = {label: inputs[f"{label}-select"] for label, _, _, _ in ACTIVATIONS}
    quick = len(D) == len(STRENGTHS[True])
    erf_runs = {(s, g): inputs[f"erf-{g}-D{s:g}"] for s in ERF_STRENGTHS[quick] for g in GAUGES}
    c0 = inputs.configs[f"linear-favorable-D{D[0]:g}"].model.c0
    fig, axes = style.new_figure(layout.width, layout.height(1.15), nrows=3, ncols=2)
    (ax_a, ax_b), (ax_c, ax_d), (ax_e, ax_f) = axes
    panels = {
        "a": _panel_times(ax_a, D, times),
        "b": _panel_separation(ax_b, D, times, layout),
        "c": _panel_components(ax_c, D, times, layout),
        "d": _panel_selection(ax_d, selections, layout),
        "e": _panel_erf(ax_e, erf_runs),
        "f": _panel_linear(ax_f, D, times["linear"], c0),
    }
    for ax, letter in zip((ax_a, ax_b, ax_c, ax_d, ax_e, ax_f), "abcdef", strict=True):
        style.panel_label(ax, letter)
    panels["key"] = _key_numbers(panels, D, times)
    return fig, panels


def constants(D: np.ndarray, times: dict[str, np.ndarray], p: int) -> dict[str, Any]:
    """The scaled times ``D^{1/p} T(+D)``, ``T(−D)/D`` and ``(T(−D)/T(+D))/D^{1+1/p}`` at the largest D, and
    their Richardson extrapolation in ``1/D`` (first order: the corrections are O(1/D)) from the last pair,
    with the spread between the last two pairwise extrapolations as its error estimate."""
    from gaugecli.core.limits import richardson_limit

    scaled = {
        "favorable": times["favorable"] * D ** (1.0 / p),
        "unfavorable": times["unfavorable"] / D,
        "separation": times["unfavorable"] / times["favorable"] / D ** (1.0 + 1.0 / p),
    }
    out: dict[str, Any] = {}
    for name, values in scaled.items():
        limit, table = richardson_limit(D, values, order=1.0)
        out[name] = {
            "at_largest_D": float(values[-1]),
            "extrapolated": limit,
            "spread": float(abs(table[-1] - table[-2])) if table.size > 1 else None,
        }
    return out


def _key_numbers(panels: dict[str, Any], D: np.ndarray, times: dict[str, dict[str, np.ndarray]]) -> dict[str, Any]:
    """The numbers the README cites: per activation, the separation's local slope at the largest D
    beside ``1 + 1/p``, the components' slopes there, the constants, and the selection outcome."""
    from gaugecli.core.limits import favorable_limit, unfavorable_limit

    out: dict[str, Any] = {}
    for label, name, _, _ in ACTIVATIONS:
        b, c, d = panels["b"][label], panels["c"], panels["d"][label]
        p = DEGREE[name]
        out[label] = {
            "degree": p,
            "expected_separation_slope": _expected(name, "ratio"),
            "separation_slope_at_largest_D": b["y"][-1],
            "favorable_slope_at_largest_D": c[f"{label}-favorable"]["y"][-1],
            "unfavorable_slope_at_largest_D": c[f"{label}-unfavorable"]["y"][-1],
            "constants": None if p is None else constants(D, times[label], p),
            "selected": d["success"],
            "pruned": d["pruned"],
            "P_end": d["P_end"],
        }
    c0 = panels["f"]["aligned"]["c0"]  # every run of fig8 starts at one c0
    out["relu"]["exact_limits"] = {"favorable": favorable_limit(c0=c0), "unfavorable": unfavorable_limit()}
    e = panels["e"]
    out["erf"]["final_imbalance_ratio"] = {k: v["y"][-1] for k, v in e.items()}
    f = panels["f"]
    out["linear"]["aligned_time_at_smallest_and_largest_D"] = [f["aligned"]["y"][0], f["aligned"]["y"][-1]]
    return out
