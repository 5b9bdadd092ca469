"""Figure 6 — dissipation splits into reaction and transport (claim C3).

(a), (b) reaction ``R(t)`` and transport ``T(t)`` with their sum ``‖∇L‖²`` for ``+D`` and
``−D`` (``D = 4``, ``m = 1``, population flow): the favorable gauge dissipates through
transport early (large ``M^u``), the unfavorable one through reaction.
(c) the identity residual ``|‖∇L‖² − (R + T)|/‖∇L‖²``: at round-off wherever
``‖∇L‖ ≥ 1e-5`` (:data:`gaugecli.core.observables.RESOLVED_GRADIENT`); beyond, the gradient
itself is below the resolution of the closed-form kernels and the ratio is noise (shaded).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots._runs import DEFAULT_STRENGTH, Run, simulate_requirement

GAUGES = ("favorable", "unfavorable")
FLOOR = 1e-30
"""Dissipation values at or below this are not drawn (log axes)."""


def requirements(quick: bool) -> list[Any]:
    return [simulate_requirement(g, DEFAULT_STRENGTH) for g in GAUGES]


def build(data: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    from gaugecli.core.observables import RESOLVED_GRADIENT

    runs: dict[str, Run] = {}
    for name, raw in data.items():
        if name.startswith("flow-") and isinstance(raw, dict):
            run = Run(raw)
            runs.setdefault(style.gauge_of(float(run.deltas[0])), run)
    missing = [g for g in GAUGES if g not in runs]
    if missing:
        raise ValueError(f"fig6 needs population-flow runs for both gauges; missing {', '.join(missing)}")
    D = runs["favorable"].strength

    fig, axes = style.new_figure(style.TWO_COLUMN, 2.55, ncols=3)
    panels: dict[str, Any] = {"a": {}, "b": {}, "c": {}}
    letters = {"favorable": "a", "unfavorable": "b"}
    for g in GAUGES:
        run, ax, key = runs[g], axes[0 if g == "favorable" else 1], letters[g]
        color = style.GAUGE_COLORS[g]
        for name, label, kw in (
            ("grad_norm_sq", r"$\|\nabla\mathcal{L}\|^2$", {"color": "0.7", "lw": 2.6}),
            ("reaction", style.LABELS["reaction"] + " reaction", {"color": color, "lw": 1.3, "ls": "-"}),
            ("transport", style.LABELS["transport"] + " transport", {"color": color, "lw": 1.3, "ls": (0, (3, 1.5))}),
        ):
            t, y = style.positive(run.t, run.get(name), FLOOR)
            ax.plot(t, y, label=label, **kw)
            panels[key][name] = style.series(t, y)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(style.LABELS["t"])
        ax.set_ylabel(style.LABELS["dissipation"])
        ax.set_title(style.GAUGE_LABELS[g].replace("D", f"{D:g}"), fontsize=7, color=color, loc="right")
        ax.legend(loc="lower left", fontsize=6.5)
        style.panel_label(ax, key)
    ylim = (min(a.get_ylim()[0] for a in axes[:2]), max(a.get_ylim()[1] for a in axes[:2]))
    for ax in axes[:2]:
        ax.set_ylim(*ylim)

    # (c) the identity residual, resolved part solid, unresolved part faint
    ax = axes[2]
    t_unresolved = []
    for g in GAUGES:
        run = runs[g]
        t, res, gsq = run.t, run.get("identity_residual"), run.get("grad_norm_sq")
        resolved = gsq >= RESOLVED_GRADIENT**2
        for part, mask, kw in (
            ("resolved", resolved, {"lw": 1.2, "alpha": 1.0}),
            ("unresolved", ~resolved, {"lw": 0.7, "alpha": 0.35}),
        ):
            tt, rr = style.positive(t[mask], res[mask])
            ax.plot(
                tt,
                rr,
                color=style.GAUGE_COLORS[g],
                marker=style.GAUGE_MARKERS[g],
                ms=1.8,
                markevery=8,
                label=f"{'$+D$' if g == 'favorable' else '$-D$'}" if part == "resolved" else None,
                **kw,
            )
            panels["c"][f"residual-{part}-{g}"] = style.series(tt, rr)
        if np.any(~resolved & (t > 0)):
            t_unresolved.append(float(t[~resolved & (t > 0)].min()))
        panels["c"][f"max-resolved-{g}"] = float(np.max(res[resolved])) if np.any(resolved) else None
    if t_unresolved:
        panels["c"]["unresolved_from"] = min(t_unresolved)
    ax.axhline(1e-10, color=style.REFERENCE_COLOR, ls=":", lw=0.8)
    ax.text(
        0.02,
        1e-10,
        r" SPEC bound $10^{-10}$",
        transform=ax.get_yaxis_transform(),
        va="top",
        fontsize=6,
        color=style.REFERENCE_COLOR,
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(style.LABELS["t"])
    ax.set_ylabel("identity residual", labelpad=1)
    ax.set_title(style.LABELS["residual"], fontsize=6.5, loc="right")
    from matplotlib.lines import Line2D

    handles, _ = ax.get_legend_handles_labels()
    handles.append(Line2D([], [], color="0.5", lw=0.7, alpha=0.5, label=r"faint: $\|\nabla\mathcal{L}\| < 10^{-5}$"))
    ax.legend(handles=handles, loc="upper left", fontsize=6.5)
    style.panel_label(ax, "c")
    panels["resolved_gradient"] = RESOLVED_GRADIENT
    return fig, panels
