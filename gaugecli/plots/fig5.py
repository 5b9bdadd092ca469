"""Figure 5 — functional pruning (claim C7).

(a) the non-owner functional norm ``P(t) = ‖Σ_{j≠o} a_j relu(w_j·x)‖_{L²}`` for several
gauge strengths D at fixed ``m``, (b) for several widths m at fixed D — population flow
solid, finite-sample GD dashed, the pruning level ``10⁻⁶`` dotted; (c), (d) the exception:
with ``m = 3`` and non-owners at ``δ = −D`` the non-owners are pruned, while at ``δ = +D/2``
they co-align with the owner and keep a share of the coefficient, so ``P(t)`` stays O(1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots._runs import DEFAULT_STRENGTH, Run
from gaugecli.plots.render import Requirement

STRENGTHS = {False: (4.0, 16.0, 64.0), True: (4.0, 16.0)}
MS = {False: (2, 5), True: (2, 3)}
N_SAMPLES = {False: 10_000, True: 2_000}
LEVEL = 1e-6
FLOOR = 1e-300


SIDECAR_TOLERANCES = (("*", 1e-5, 1e-9, "P(t) is followed to 1e-12; its absolute round-off is ~1e-12"),)
"""Per-series tolerances of the regeneration check (:mod:`gaugecli.plots.sidecar`)."""


def requirements(quick: bool) -> list[Requirement]:
    from gaugecli.experiments.common import ModelConfig
    from gaugecli.experiments.prune import PruneConfig

    config = PruneConfig(
        model=ModelConfig(), strengths=STRENGTHS[quick], ms=MS[quick], sample=True, n_samples=N_SAMPLES[quick]
    )
    return [Requirement("prune", f"grid-n{config.n_samples}", config)]


def _prune_result(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    for name, value in data.items():
        if not name.startswith("_") and isinstance(value, dict) and "points" in value and "coalignment" in value:
            return name, value
    raise ValueError("fig5 needs a 'prune' result (points and coalignment)")


def _plot_points(ax: Any, points: list[dict], key: str, values: list, colors: list, panel: dict, fmt: str) -> None:
    for value, color, marker in zip(values, colors, style.SEQUENCE_MARKERS, strict=False):
        for p in points:
            if p[key] != value:
                continue
            t, P = style.positive(style.as_array(p["t"]), style.as_array(p["nonowner_norm"]), FLOOR)
            mode = p["mode"]
            ax.plot(
                t,
                P,
                color=color,
                ls=style.MODE_LINESTYLES.get(mode, "-"),
                lw=1.3 if mode == "flow" else 1.0,
                marker=marker,
                markevery=0.12,
                ms=3,
                mfc=color if mode == "flow" else "white",
            )
            name = f"{mode}-D{p['strength']:g}-m{p['m']}-seed{p['seed']}"
            panel[name] = style.series(t, P, time_below=p.get("time_below"), final=p.get("final"))
        label = fmt.format(value)
        ax.plot([], [], color=color, marker=marker, ms=3, label=label)


def build(data: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    from matplotlib.lines import Line2D

    name, result = _prune_result(data)
    level = float(result.get("level", LEVEL))
    points = [p for p in result["points"] if p["seed"] == min(q["seed"] for q in result["points"])]
    strengths = sorted({float(p["strength"]) for p in points})
    ms = sorted({int(p["m"]) for p in points})
    m_ref = ms[0]
    D_ref = DEFAULT_STRENGTH if DEFAULT_STRENGTH in strengths else strengths[0]
    n_samples = data.get("_configs", {}).get(name, {}).get("n_samples")

    fig, axes = style.new_figure(style.TWO_COLUMN, 4.7, nrows=2, ncols=2)
    (ax_d, ax_m), (ax_p, ax_c) = axes
    panels: dict[str, Any] = {"a": {}, "b": {}, "c": {}, "d": {}}

    _plot_points(
        ax_d,
        [p for p in points if p["m"] == m_ref],
        "strength",
        strengths,
        style.sequential_colors(len(strengths)),
        panels["a"],
        "$D={:g}$",
    )
    ax_d.set_title(rf"$m={m_ref}$", fontsize=7, loc="right")
    _plot_points(
        ax_m,
        [p for p in points if float(p["strength"]) == D_ref],
        "m",
        ms,
        style.sequential_colors(len(ms)),
        panels["b"],
        "$m={}$",
    )
    ax_m.set_title(rf"$D={D_ref:g}$", fontsize=7, loc="right")
    for ax, letter in ((ax_d, "a"), (ax_m, "b")):
        ax.axhline(level, color=style.REFERENCE_COLOR, ls=":", lw=0.8, zorder=0)
        ax.text(
            0.01,
            level,
            rf"$P = 10^{{{np.log10(level):.0f}}}$",
            transform=ax.get_yaxis_transform(),
            ha="left",
            va="bottom",
            fontsize=6,
            color=style.REFERENCE_COLOR,
        )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(style.LABELS["t"])
        ax.set_ylabel(style.LABELS["P"])
        handles, _ = ax.get_legend_handles_labels()
        handles += [
            Line2D([], [], color="0.3", ls="-", label=style.MODE_LABELS["flow"]),
            Line2D(
                [],
                [],
                color="0.3",
                ls="--",
                label=style.MODE_LABELS["sample"] + (f" ($n={n_samples}$)" if n_samples else ""),
            ),
        ]
        ax.legend(handles=handles, loc="lower left", fontsize=6.2, ncol=2, columnspacing=1.0)
        style.panel_label(ax, letter)
    panels["a"]["m"] = m_ref
    panels["b"]["strength"] = D_ref
    panels["level"] = level
    panels["time_below"] = [
        {k: p.get(k) for k in ("strength", "m", "mode", "seed", "time_below", "final")} for p in result["points"]
    ]

    # (c), (d): non-owners with δ ≤ 0 are pruned; with δ > 0 they co-align
    co = result["coalignment"]
    cases = (
        ("pruned", co["deltas_pruned"], style.GAUGE_COLORS["unfavorable"], "-"),
        ("coaligned", co["deltas_coaligned"], style.GAUGE_COLORS["favorable"], "--"),
    )
    for case, deltas, color, ls in cases:
        run = Run(co[case])
        nonowner = [d for j, d in enumerate(deltas) if j != run.owner]
        label = rf"non-owners $\delta={nonowner[0]:+g}$" if len(set(nonowner)) == 1 else f"non-owners δ={nonowner}"
        t, P = style.positive(run.t, run.get("nonowner_norm"), FLOOR)
        ax_p.plot(t, P, color=color, ls=ls, label=label + (" (pruned)" if case == "pruned" else " (co-align)"))
        panels["c"][case] = style.series(t, P, deltas=list(deltas), owner=run.owner)
        tt = run.t[run.t > 0]
        for j in range(run.m):
            owner = j == run.owner
            c = run.coefficient[run.t > 0, j]
            ax_c.plot(
                tt,
                c,
                color=color,
                ls=ls,
                lw=1.8 if owner else 0.9,
                alpha=1.0 if owner else 0.85,
                label=(
                    f"{case}: owner"
                    if owner
                    else (f"{case}: non-owners" if j == min(k for k in range(run.m) if k != run.owner) else None)
                ),
            )
            panels["d"][f"{case}-neuron{j}"] = style.series(
                tt, c, owner=owner, final_alignment=float(run.alignment[-1, j])
            )
    ax_p.axhline(level, color=style.REFERENCE_COLOR, ls=":", lw=0.8, zorder=0)
    ax_p.set_xscale("log")
    ax_p.set_yscale("log")
    ax_p.set_xlabel(style.LABELS["t"])
    ax_p.set_ylabel(style.LABELS["P"])
    ax_p.legend(loc="lower left", fontsize=6.5)
    owner_delta = co["deltas_pruned"][0]
    ax_p.set_title(rf"$m={len(co['deltas_pruned'])}$, owner $\delta=+{owner_delta:g}$", fontsize=7, loc="right")
    ax_c.set_xscale("log")
    ax_c.set_xlabel(style.LABELS["t"])
    ax_c.set_ylabel(style.LABELS["coefficient"])
    ax_c.legend(loc="upper left", fontsize=6.5)
    ax_c.set_title("co-aligned neurons share the coefficient", fontsize=7, loc="right")
    style.panel_label(ax_p, "c")
    style.panel_label(ax_c, "d")
    return fig, panels
