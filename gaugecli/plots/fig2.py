"""Figure 2 — loss and alignment for opposite gauges ±D (``D = 4``, ``m = 1``).

(a) population loss ``L(t)`` (log–log), (b) alignment ``α(t) = u·v`` with the threshold
``1 − ε_align`` and ``T_spec`` marked, (c) alignment against the loss level ``ℓ`` — the
clock-free view (claim C5): the gap ``Δ = max_ℓ |α₊(ℓ) − α₋(ℓ)|`` is annotated.
Population gradient flow solid, finite-sample GD dashed (its *population* loss).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots._runs import DEFAULT_STRENGTH, Run, config_of, eps_align, simulate_requirement

GAUGES = ("favorable", "unfavorable")
MODES = ("flow", "sample")
N_SAMPLES = {True: 2_000, False: 10_000}
LOSS_FLOOR = 1e-14
"""Loss values at or below this are round-off of the closed-form loss and are not drawn."""


def requirements(quick: bool) -> list[Any]:
    return [
        simulate_requirement(g, DEFAULT_STRENGTH, mode=mode, n_samples=N_SAMPLES[quick] if mode == "sample" else None)
        for mode in MODES
        for g in GAUGES
    ]


def _find(data: dict[str, Any], mode: str, gauge: str) -> tuple[str, Run] | None:
    for name, run in data.items():
        if name.startswith(f"{mode}-{gauge}-"):
            return name, Run(run)
    return None


def alignment_vs_loss(loss: np.ndarray, alpha: np.ndarray, floor: float = LOSS_FLOOR) -> tuple[np.ndarray, np.ndarray]:
    """α as a function of the loss level: the samples where the loss reaches a new minimum
    above ``floor``, in time order (ℓ decreasing)."""
    from gaugecli.core.metrics import alignment_vs_loss

    ell, a = alignment_vs_loss(loss, alpha, floor)
    return ell[::-1], a[::-1]


def build(data: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    from gaugecli.core.metrics import clock_free_gap

    fig, axes = style.new_figure(style.TWO_COLUMN, 2.55, ncols=3)
    ax_l, ax_a, ax_c = axes
    panels: dict[str, Any] = {"a": {}, "b": {}, "c": {}}
    runs: dict[tuple[str, str], Run] = {}
    names: dict[tuple[str, str], str] = {}
    for mode in MODES:
        for g in GAUGES:
            found = _find(data, mode, g)
            if found is not None:
                names[(mode, g)], runs[(mode, g)] = found
    if not runs:
        raise ValueError("fig2 needs simulate runs named flow-favorable-…, flow-unfavorable-…")
    D = next(iter(runs.values())).strength

    for (mode, g), run in runs.items():
        key = f"{mode}-{g}"
        kw = {
            "color": style.GAUGE_COLORS[g],
            "ls": style.MODE_LINESTYLES[mode],
            "lw": 1.4 if mode == "flow" else 1.1,
            "zorder": 2 if mode == "flow" else 3,  # dashes on top of the solid reference
        }
        t, loss = style.positive(run.t, run.loss, LOSS_FLOOR)
        ax_l.plot(t, loss, **kw)
        panels["a"][key] = style.series(t, loss)

        t_a = run.t[run.t > 0]
        alpha = run.owner_alignment[run.t > 0]
        ax_a.plot(t_a, alpha, **kw)
        panels["b"][key] = style.series(t_a, alpha, t_spec=run.t_spec)
        if run.t_spec is not None:
            ax_a.plot(
                run.t_spec,
                float(np.interp(run.t_spec, run.t, run.owner_alignment)),
                marker=style.GAUGE_MARKERS[g],
                color=style.GAUGE_COLORS[g],
                mfc="white" if mode == "sample" else style.GAUGE_COLORS[g],
                ms=4,
                ls="none",
                zorder=4,
            )

        ell, a_ell = alignment_vs_loss(run.loss, run.owner_alignment)
        ax_c.plot(ell, a_ell, **kw)
        panels["c"][key] = style.series(ell, a_ell)

    # the clock-free gap Δ between +D and −D, per dynamics
    gaps: dict[str, float] = {}
    for mode in MODES:
        if (mode, "favorable") in runs and (mode, "unfavorable") in runs:
            p, q = runs[(mode, "favorable")], runs[(mode, "unfavorable")]
            gaps[mode] = clock_free_gap(p.loss, p.owner_alignment, q.loss, q.owner_alignment, floor=LOSS_FLOOR)
    panels["c"]["gap"] = {mode: gaps[mode] for mode in gaps}
    if "flow" in gaps:
        p, q = runs[("flow", "favorable")], runs[("flow", "unfavorable")]
        lp, ap = alignment_vs_loss(p.loss, p.owner_alignment)
        lq, aq = alignment_vs_loss(q.loss, q.owner_alignment)
        lo, hi = max(lp.min(), lq.min()), min(lp.max(), lq.max())
        grid = np.geomspace(lo, hi, 400)
        diff = np.interp(grid, lp[::-1], ap[::-1]) - np.interp(grid, lq[::-1], aq[::-1])
        i = int(np.argmax(np.abs(diff)))
        y0, y1 = np.interp(grid[i], lq[::-1], aq[::-1]), np.interp(grid[i], lp[::-1], ap[::-1])
        ax_c.annotate(
            "", (grid[i], y1), (grid[i], y0), arrowprops={"arrowstyle": "<->", "color": "0.2", "lw": 0.8}, zorder=5
        )
        text = rf"$\Delta_{{\rm flow}} = {gaps['flow']:.2f}$"
        if "sample" in gaps:
            text += "\n" + rf"$\Delta_{{\rm sample}} = {gaps['sample']:.2f}$"
        ax_c.text(grid[i] / 1.3, 0.5 * (y0 + y1), text, fontsize=6.5, va="center", ha="left")
        panels["c"]["gap_at"] = {"loss_level": float(grid[i]), "alpha": [float(y0), float(y1)]}

    thr = 1.0 - eps_align(data, names[next(iter(runs))])
    for ax in (ax_a, ax_c):
        ax.axhline(thr, color=style.REFERENCE_COLOR, lw=0.7, ls=":", zorder=0)
    ax_a.text(
        0.02,
        thr,
        r"$1-\varepsilon_{\rm align}$",
        fontsize=6,
        color=style.REFERENCE_COLOR,
        va="top",
        ha="left",
        transform=ax_a.get_yaxis_transform(),
    )
    panels["b"]["threshold"] = thr

    ax_l.set_xscale("log")
    ax_l.set_yscale("log")
    ax_l.set_xlabel(style.LABELS["t"])
    ax_l.set_ylabel(style.LABELS["loss"])
    ax_a.set_xscale("log")
    ax_a.set_xlabel(style.LABELS["t"])
    ax_a.set_ylabel(style.LABELS["alignment_owner"])
    ax_a.set_ylim(-0.03, 1.03)
    ax_c.set_xscale("log")
    loss0 = max(float(r.loss[0]) for r in runs.values())
    ax_c.set_xlim(loss0 * 1.3, loss0 * 1e-3)  # reversed: the loss decreases as training proceeds
    panels["c"]["xlim"] = [loss0 * 1.3, loss0 * 1e-3]
    ax_c.set_xlabel(style.LABELS["loss_level"] + r" (decreasing $\to$)")
    ax_c.set_ylabel(style.LABELS["alignment_owner"])
    ax_c.set_ylim(-0.03, 1.03)
    for ax, letter in zip(axes, "abc", strict=True):
        style.panel_label(ax, letter)

    # one legend for the figure: gauge by colour, dynamics by line style
    from matplotlib.lines import Line2D

    handles = []
    n_samples = None
    if ("sample", "favorable") in runs or ("sample", "unfavorable") in runs:
        name = names.get(("sample", "favorable")) or names[("sample", "unfavorable")]
        n_samples = config_of(data, name).get("dynamics", {}).get("n_samples")
    for mode in MODES:
        for g in GAUGES:
            if (mode, g) not in runs:
                continue
            label = f"{'$+D$' if g == 'favorable' else '$-D$'}, {style.MODE_LABELS[mode]}"
            if mode == "sample" and n_samples:
                label += f" ($n={n_samples}$)"
            handles.append(
                Line2D(
                    [],
                    [],
                    color=style.GAUGE_COLORS[g],
                    ls=style.MODE_LINESTYLES[mode],
                    marker=style.GAUGE_MARKERS[g],
                    ms=3.5,
                    label=label,
                )
            )
    fig.legend(
        handles=handles,
        loc="outside upper center",
        ncol=len(handles),
        fontsize=6.5,
        title=f"$D = {D:g}$, $m = 1$",
        title_fontsize=6.5,
        columnspacing=1.2,
    )
    panels["legend"] = [h.get_label() for h in handles]
    return fig, panels
