"""Figure 9 — how weight decay erases the gauge (beyond the paper; ReLU, ``m = 1`` unless stated).

With decay λ the objective is ``L + (λ/2)‖θ‖²`` and every neuron's imbalance decays as
``δ(t) = δ(0) e^{−2λt}`` (docs/theory.md §12): the favorable neuron's advantage lasts about
``1/(2λ)``, and the unfavorable one is pulled toward balance.

(a) ``T_spec(−D)/T_spec(+D)`` against λ for D = 4, 16, 64 (dashed: λ = 0);
(b) the same ratio over its λ = 0 value against ``λ·T_spec(−D)|_{λ=0}``: the separation survives while
the decay is slow on the unfavorable clock (``λ T₀ ≪ 1``) and is removed once it is not; the curves of
the D fall approximately on one (their largest spread, below and above ``λ T₀ = 1``, is in the
sidecar: D = 4 departs upward above ``λ T₀ ≈ 1``);
(c) the law itself along the ±D flows at D = 16, λ = 0.01: ``δ(t)/δ(0)`` against ``e^{−2λt}`` (the
largest deviation, relative to ``max(1, |δ(0)|)``, in the legend);
(d) gradient descent (D = 4, λ = 0.01, each run at its own step η of ≤ 1 % T_spec error): the step's
departure from the flow's law, ``|δ_k − δ(0)e^{−2λkη}|/|δ(0)|`` (lines), is what the per-step identity
``δ_{k+1} = (1 − 2ηλ)δ_k + η²(g_a² − ‖g_w‖²/p)`` predicts (markers) — the two differ by round-off
(dotted);
(e) selection among ``m = 5`` duplicates (owner +D, others −D) over (λ, D), at select's horizon
``t_end(D)``: the non-owner norm ``P_end`` (the non-owners' share of ``Σ|c_j|``, which orders the cells
alike, is in the sidecar). The owner
takes the feature in every cell, but decay holds the non-owners at a level instead of pruning them —
∝ λ as λ → 0 (linear response), and not monotone once δ itself decays within the horizon
(``2λ t_end ≳ 1``): selection is *exclusive* (``P_end ≤ 1e-6``) only left of the drawn boundary λ*(D),
located by log–log interpolation of ``P_end`` in λ (claim C7's boundary under decay).

The main-text version (``MAIN_PANELS``) is (a)–(c): the law, and the separation with its boundary.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots._fig9_readings import CAPTION as CAPTION
from gaugecli.plots._fig9_readings import CLAIM as CLAIM
from gaugecli.plots._fig9_readings import READING as READING
from gaugecli.plots._fig9_readings import READINGS as READINGS
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

MAIN_PANELS = ("a", "b", "c")
"""The main-text version: the separation under decay (a), where it ends (b), and the law (c)."""
MIN_WIDTH = 5.0
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""

GAUGES = ("favorable", "unfavorable")
STRENGTHS = {False: (4.0, 16.0, 64.0), True: (4.0, 16.0)}
DECAYS = {False: (0.0, 1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1), True: (0.0, 1e-3, 1e-2, 1e-1)}
SELECT_STRENGTHS = {False: (1.0, 2.0, 4.0, 8.0, 16.0, 32.0), True: (1.0, 4.0, 16.0)}
SELECT_DECAYS = {False: (0.0, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1), True: (0.0, 1e-7, 1e-6, 1e-5, 1e-3)}
"""The selection map: λ = 0 and decades of λ (a log-uniform column index after the λ = 0 column)."""
LAW_STRENGTH, LAW_DECAY = 16.0, 1e-2
STEP_STRENGTH, STEP_DECAY, STEP_HORIZON = 4.0, 1e-2, 60.0
"""The GD pair of (d): D, λ and ``t_max`` (the +D run's stable step is ~1/D of the −D run's)."""
PRUNED = 1e-6
"""``P`` at or below this counts as pruned (claim C7)."""
ROUND_OFF = 1e-17
"""Below this a relative δ residual is zero to double precision (not drawn on log axes)."""


def _name(g: str, D: float, lam: float) -> str:
    return f"{g}-D{D:g}-lam{lam:g}"


def needs(quick: bool) -> dict[str, Need]:
    """Single-neuron flows (``gaugecli simulate --weight-decay λ --gauge G -D …``) over D × λ, and
    ``select`` runs over the selection grid; the law's pair is one of the flows."""
    from gaugecli.experiments.config import DynamicsConfig, ModelConfig
    from gaugecli.experiments.params import Mode
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
    steps = DynamicsConfig(mode=Mode.gd, t_max=STEP_HORIZON)
    for g in GAUGES:
        config = SimulateConfig(
            model=ModelConfig(weight_decay=STEP_DECAY), dynamics=steps, gauge=g, strengths=(STEP_STRENGTH,)
        )
        out[f"gd-{g}"] = Need("simulate", config)
    return out


def _grid(inputs: Inputs) -> tuple[np.ndarray, np.ndarray]:
    flows = [c for k, c in inputs.configs.items() if not k.startswith(("select", "gd"))]
    D = sorted({c.strengths[0] for c in flows})
    lam = sorted({c.model.weight_decay for c in flows})
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
        ax, r"$\lambda T_0 = 1$", (1.0, 0.97), layout, offset=(3, 0), xycoords=("data", "axes fraction"), va="top"
    )
    handles = [style.line_handle(colors[i], "-", "D", f"$D={s:g}$", mfc="white") for i, s in enumerate(D)]
    handles.append(style.line_handle(style.GUIDE, "--", None, r"(a): $\lambda = 0$"))
    ax.legend(handles=handles, loc="lower left")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"$\lambda\,T_{\rm spec}(-D)|_{\lambda=0}$")
    ax.set_ylabel(r"ratio / ratio at $\lambda = 0$")
    style.tidy_log_axis(ax, "y")
    out["spread"] = _spread(out)
    return out


def _spread(curves: dict[str, Any]) -> dict[str, Any]:
    """How far (b)'s curves of the different D lie apart: at each point of one curve, the largest
    ratio ``max/min`` of every curve's value there (log–log interpolation, inside each curve's range),
    its largest value where ``λ T₀ ≤ 1`` and where ``λ T₀ > 1`` (``None`` with no overlap there)."""
    series = [(np.log(np.array(c["x"], float)), np.log(np.array(c["y"], float))) for c in curves.values()]
    below: list[float] = []
    above: list[float] = []
    for x, _ in series:
        for xi in x:
            values = [np.interp(xi, xs, ys) for xs, ys in series if xs[0] <= xi <= xs[-1]]
            if len(values) > 1:
                (below if xi <= 0.0 else above).append(float(np.exp(max(values) - min(values))))
    return {
        "max_over_min_at_most_1": max(below) if below else None,
        "max_over_min_above_1": max(above) if above else None,
    }


def _panel_law(ax: Any, runs: dict[str, Any], layout: Layout) -> dict[str, Any]:
    """(c) ``δ(t)/δ(0)`` of the ±D pair against ``e^{−2λt}``."""
    out = {}
    t_max = 0.0
    for g, run in runs.items():
        t = np.asarray(run.t, float)
        keep = t >= 1e-3  # the log grid starts far below any motion
        delta = np.asarray(run.imbalance, float)[:, 0]
        ax.plot(t[keep], delta[keep] / delta[0], color=style.GAUGE_COLORS[g], lw=1.6, alpha=0.7, label=f"${'+' if g == 'favorable' else '-'}D$")  # fmt: skip
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
    drift = max(float(run.imbalance_drift) for run in runs.values())
    style.note(ax, f"drift from\nthe law\n≤ {drift:.1e}", (0.03, 0.5), layout, xycoords="axes fraction", color=None)
    return out


def _panel_steps(ax: Any, runs: dict[str, Any], layout: Layout) -> dict[str, Any]:
    """(d) GD's departure from the flow's law, the per-step identity's prediction, their difference."""
    out = {}
    for g, run in runs.items():
        t = np.asarray(run.t, float)
        delta, by_steps = np.asarray(run.imbalance, float)[:, 0], np.asarray(run.imbalance_by_steps, float)[:, 0]
        law = delta[0] * np.exp(-2.0 * STEP_DECAY * t)
        measured = np.abs(delta - law) / abs(delta[0])
        predicted = np.abs(by_steps - law) / abs(delta[0])
        residual = np.abs(delta - by_steps) / abs(delta[0])
        keep = t > 0
        color = style.GAUGE_COLORS[g]
        ax.plot(t[keep], style.clip_to_floor(measured[keep], ROUND_OFF), color=color, lw=1.2)
        # markers at log-uniform times (the stored steps crowd where k is large)
        tk = t[keep]
        at = np.unique(np.searchsorted(tk, np.geomspace(tk[0], tk[-1], 14)).clip(0, tk.size - 1))
        ax.plot(tk[at], style.clip_to_floor(predicted[keep][at], ROUND_OFF), ls="none", color=color, marker=style.GAUGE_MARKERS[g], ms=3.2, mfc="white", mew=0.8)  # fmt: skip
        ax.plot(t[keep], style.clip_to_floor(residual[keep], ROUND_OFF), color=color, ls=":", lw=0.9)
        out[g] = style.series(
            t[keep],
            measured[keep],
            predicted=predicted[keep],
            residual=residual[keep],
            eta=run.eta,
            step_residual=run.imbalance_step_residual,
        )
    # direct labels: the lines lie in two bands (the departure near 1e-4, the round-off below 1e-12)
    # with nothing between them for a legend to sit in at every venue's width
    style.note(ax, "lines: GD, markers: per-step identity", (0.03, 0.97), layout, xycoords="axes fraction", va="top", color=None)  # fmt: skip
    style.note(ax, "dotted: their difference", (0.03, 0.42), layout, xycoords="axes fraction", color=None)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(top=ax.get_ylim()[1] * 1e3)  # room for the label above the departure
    ax.set_xlabel(rf"$t = k\eta$ (GD, $D={STEP_STRENGTH:g}$, $\lambda={STEP_DECAY:g}$)")
    ax.set_ylabel(r"$|\delta_k - \delta(0)e^{-2\lambda k\eta}|\,/\,|\delta(0)|$")
    return out


def _selection_grid(inputs: Inputs, quick: bool) -> dict[str, np.ndarray]:
    """``P_end``, the non-owners' share of ``Σ|c_j|``, selection and ``t_end`` over (D, λ)."""
    strengths, decays = SELECT_STRENGTHS[quick], SELECT_DECAYS[quick]
    shape = (len(strengths), len(decays))
    P, share, t_end = np.empty(shape), np.empty(shape), np.empty(shape)
    selected = np.zeros(shape, bool)
    for i, s in enumerate(strengths):
        for j, lam in enumerate(decays):
            result = inputs[f"select-D{s:g}-lam{lam:g}"]
            run = result.runs[0]
            c = np.abs(run.coefficient[-1])
            P[i, j] = float(run.nonowner_norm[-1])
            share[i, j] = float(1.0 - c[result.designated] / c.sum())
            selected[i, j] = bool(result.success[0])
            t_end[i, j] = float(run.t[-1])
    return {"P_end": P, "nonowner_share": share, "selected": selected, "t_end": t_end}


def exclusive_boundary(decays: np.ndarray, P: np.ndarray, level: float = PRUNED) -> float:
    """λ*: where ``P_end(λ)`` crosses ``level``, by linear interpolation of ``ln P`` in ``ln λ`` between
    the bracketing positive λ of the grid (NaN when no bracket: exclusive nowhere or everywhere)."""
    lam, p = np.log(decays[decays > 0]), np.log(P[decays > 0])
    above = np.nonzero(p > np.log(level))[0]
    if above.size == 0 or above[0] == 0:
        return float("nan")
    k = above[0]
    frac = (np.log(level) - p[k - 1]) / (p[k] - p[k - 1])
    return float(np.exp(lam[k - 1] + frac * (lam[k] - lam[k - 1])))


def _column(lam: float, decays: np.ndarray) -> float:
    """λ's position on the map's x axis: column 0 is λ = 0, then one column per decade."""
    first = decays[1]
    return 1.0 + float(np.log10(lam / first))


def _panel_map(
    ax: Any,
    fig: Any,
    Z: np.ndarray,
    grid: dict[str, np.ndarray],
    quick: bool,
    label: str,
    boundary: np.ndarray,
) -> None:
    """A log-colour map over (λ, D) — categorical λ columns, log₂ D rows — with λ*(D) drawn."""
    from matplotlib.colors import LogNorm

    strengths, decays = np.array(SELECT_STRENGTHS[quick]), np.array(SELECT_DECAYS[quick])
    x_edges = np.arange(len(decays) + 1) - 0.5
    y_edges = np.arange(len(strengths) + 1) - 0.5
    floor = max(float(np.nanmin(Z[Z > 0])), 1e-18) if np.any(Z > 0) else 1e-18
    mesh = ax.pcolormesh(x_edges, y_edges, np.maximum(Z, floor), cmap="cividis", norm=LogNorm(vmin=floor, vmax=max(float(Z.max()), 10 * floor)), shading="flat")  # fmt: skip
    ax.axvline(0.5, color="white", lw=2.0)  # λ = 0 is its own column, not a decade
    fig.colorbar(mesh, ax=ax, label=label, pad=0.02)
    finite = np.isfinite(boundary)
    ax.plot(
        [_column(b, decays) for b in boundary[finite]],
        np.arange(len(strengths))[finite],
        color="white",
        marker="D",
        ms=3.0,
        lw=1.2,
    )
    for i, j in zip(*np.nonzero(~grid["selected"]), strict=True):
        ax.plot(j, i, marker="x", color=style.MINUS, ms=5)
    ax.set_xticks(np.arange(len(decays)))
    ax.set_xticklabels(["0" if lam == 0 else f"$10^{{{round(np.log10(lam))}}}$" for lam in decays], rotation=40)
    ax.set_yticks(np.arange(len(strengths)))
    ax.set_yticklabels([f"{s:g}" for s in strengths])
    ax.set_xlabel(r"weight decay $\lambda$ (line: $P_{\rm end} = 10^{-6}$)")
    ax.set_ylabel(r"$D$, $m = 5$")


def _panel_selection(ax: Any, fig: Any, inputs: Inputs, quick: bool) -> dict[str, Any]:
    """(e) ``P_end`` over (λ, D), with the exclusivity boundary λ*(D); the non-owners' share of
    ``Σ|c_j|`` (which orders the cells alike) in the sidecar only."""
    grid = _selection_grid(inputs, quick)
    strengths, decays = np.array(SELECT_STRENGTHS[quick]), np.array(SELECT_DECAYS[quick])
    boundary = np.array([exclusive_boundary(decays, row) for row in grid["P_end"]])
    _panel_map(ax, fig, grid["P_end"], grid, quick, r"non-owner norm $P_{\rm end}$", boundary)
    return {
        "grid": {
            "D": style.tolist(strengths),
            "weight_decay": style.tolist(decays),
            "t_end": style.tolist(grid["t_end"][:, 0]),
            "selected": grid["selected"].tolist(),
            "P_end": style.tolist(grid["P_end"]),
            "nonowner_share": style.tolist(grid["nonowner_share"]),
        },
        "boundary": style.series(strengths, boundary, level=PRUNED),
    }


def _axes(layout: Layout) -> tuple[Any, dict[str, Any]]:
    """The full figure: (a, b), (c, d), and (e) under them, centred; the main-text version: its
    panels in one row."""
    if layout.is_main:
        wanted = [letter for letter in "abcde" if layout.wants(letter)]
        fig, row = style.new_figure(layout.width, layout.height(0.42), ncols=len(wanted), squeeze=False)
        return fig, dict(zip(wanted, row[0], strict=True))
    fig = style.new_figure(layout.width, layout.height(1.2), nrows=3, ncols=2)[0]
    for ax in fig.axes:
        ax.remove()
    grid = fig.add_gridspec(3, 2)
    axes = {letter: fig.add_subplot(grid[i // 2, i % 2]) for i, letter in enumerate("abcd")}
    axes["e"] = fig.add_subplot(grid[2, :].subgridspec(1, 3, width_ratios=(0.25, 1.0, 0.25))[1])
    return fig, axes


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    """Five panels ((a)–(d) in 2 × 2, (e) below) at the layout's width, or the main-text version's
    ``layout.panels`` in one row; returns the figure and its sidecar panels (in the main-text
    version only the panels drawn, without the key numbers: its numbers are the full figure's)."""
    D, lam = _grid(inputs)
    quick = len(D) == len(STRENGTHS[True])
    times = _times(inputs, D, lam)
    ratio = times["unfavorable"] / times["favorable"]
    fig, axes = _axes(layout)
    law_runs = {g: inputs[_name(g, LAW_STRENGTH, LAW_DECAY)] for g in GAUGES}
    step_runs = {g: inputs[f"gd-{g}"] for g in GAUGES}
    draw = {
        "a": lambda ax: _panel_ratio(ax, D, lam, ratio),
        "b": lambda ax: _panel_collapse(ax, D, lam, ratio, times["unfavorable"][:, 0], layout),
        "c": lambda ax: _panel_law(ax, law_runs, layout),
        "d": lambda ax: _panel_steps(ax, step_runs, layout),
        "e": lambda ax: _panel_selection(ax, fig, inputs, quick),
    }
    panels = {letter: draw[letter](ax) for letter, ax in axes.items()}
    for letter, ax in axes.items():
        style.panel_label(ax, layout.label(letter))
    if layout.is_main:
        return fig, panels
    e = panels["e"]
    panels["key"] = {
        "ratio_at_zero": {f"D{s:g}": float(ratio[i, 0]) for i, s in enumerate(D)},
        "ratio_at_largest_decay": {f"D{s:g}": float(ratio[i, -1]) for i, s in enumerate(D)},
        "largest_decay": float(lam[-1]),
        "collapse_spread": panels["b"]["spread"],
        "law_drift": {g: float(r.imbalance_drift) for g, r in law_runs.items()},
        "gd_departure_from_law": {g: float(r.imbalance_drift) for g, r in step_runs.items()},
        "gd_step_identity_residual": {g: r.imbalance_step_residual for g, r in step_runs.items()},
        "gd_eta": {g: r.eta for g, r in step_runs.items()},
        "selected_everywhere": bool(np.all(np.array(e["grid"]["selected"]))),
        "exclusive_boundary": {f"D{s:g}": b for s, b in zip(e["boundary"]["x"], e["boundary"]["y"], strict=True)},
        "largest_nonowner_share": float(np.max(np.array(e["grid"]["nonowner_share"], float))),
    }
    return fig, panels
