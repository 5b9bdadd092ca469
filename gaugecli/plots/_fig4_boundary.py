"""Panels (e) and (f) of fig4 — where selection stops, the gauge gap down to exact ties, and where it
always holds, the owner-success matrix over (m, o) — with the constants both modules share."""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots.venue import Layout

STRENGTH = 4.0


M = 5


DESIGNATED = 2
"""The owner of (a), (b): not neuron 0, so that the gauge, not the index, decides."""


REST = (-4.0, 0.0, 4.0)
"""(e): the non-owners' δ_r, one family each (unfavorable, balanced, favorable)."""


TIE_X = 1e-5
"""(e): where the ties are drawn, on a separate slot left of the axis break."""


TIE_OFFSET = {-4.0: 0.75, 0.0: 1.0, 4.0: 1.33}
"""(e): the three ties side by side (multiplicative x offsets within the tie slot)."""


REST_LINESTYLES = {-4.0: "-", 0.0: (0, (1.5, 1.2)), 4.0: (0, (4, 1.5))}


def _panel_gap(ax: Any, gap_runs: dict[tuple[float, float], Any], layout: Layout) -> dict[str, Any]:
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    from gaugecli.experiments.select import selected

    out: dict[str, Any] = {}
    positive = sorted({g for _, g in gap_runs if g > 0})
    for rest in REST:
        gauge = style.gauge_of(rest)
        color, marker = style.GAUGE_COLORS[gauge], style.GAUGE_MARKERS[gauge]
        g = np.array(positive)
        runs = [gap_runs[rest, gi] for gi in positive]
        share = np.array([float(r.coefficient[-1, DESIGNATED]) for r in runs])
        success = [selected(r, DESIGNATED) for r in runs]
        ax.plot(g, share, color=color, marker=marker, ms=4.0, lw=1.1, ls=REST_LINESTYLES[rest])
        tie = gap_runs[rest, 0.0]
        tie_x, tie_c = TIE_X * TIE_OFFSET[rest], float(tie.coefficient[-1, tie.computed_owner])
        ax.plot([tie_x], [tie_c], ls="none", marker="x", ms=5.0, mew=1.3, color=color, clip_on=False, zorder=4)
        key = f"{rest:+g}"
        out[key] = style.series(
            g,
            share,
            success=success,
            owner=[r.owner for r in runs],
            t_spec=[r.t_spec for r in runs],
            symmetric_start=[bool(r.symmetric_start) for r in runs],
            nonowner_norm=[float(r.nonowner_norm[-1]) for r in runs],
        )
        out[f"{key}-tie"] = style.series(
            [tie_x],
            [tie_c],
            gap=0.0,
            owner=tie.owner,
            computed_owner=tie.computed_owner,
            symmetric_start=bool(tie.symmetric_start),
            success=selected(tie, DESIGNATED),
        )
        out[f"{key}-successes"] = int(sum(success))
        out[f"{key}-trials"] = len(success)
    style.threshold_line(ax, 1.0)
    style.threshold_line(ax, 1.0 / M)
    right = ("axes fraction", "data")
    style.note(ax, "exclusive", (0.99, 1.0), layout, offset=(0, 1), xycoords=right, ha="right", va="bottom")
    style.note(
        ax, rf"equal shares $a_*/{M}$", (0.99, 1.0 / M), layout, offset=(0, -1), xycoords=right, ha="right", va="top"
    )
    # direct labels: the others' δ_r beside each family
    lo = positive[0]
    style.note(
        ax, rf"others at $\delta_r=-{STRENGTH:g}$", (lo, 1.0), layout, offset=(0, -4), va="top", color=style.MINUS
    )
    mid = positive[len(positive) // 2]
    style.note(
        ax,
        r"$\delta_r=0$",
        (mid, float(out["+0"]["y"][len(positive) // 2])),
        layout,
        offset=(-4, 2),
        ha="right",
        color=style.BALANCED,
    )
    style.note(
        ax,
        rf"$\delta_r=+{STRENGTH:g}$",
        (positive[-1], float(out["+4"]["y"][-1])),
        layout,
        offset=(-4, 3),
        ha="right",
        va="bottom",
        color=style.PLUS,
    )
    # below the equal-shares line, where no family runs (every share is ≥ 1/M); an exact tie has no
    # unique owner (docs/theory.md §9: no selection)
    style.note(ax, "tie: no owner", (TIE_X * 0.6, 0.0), layout, offset=(0, 1), va="bottom", color=style.THEORY)
    ax.set_xscale("log")
    ax.set_xlim(TIE_X / 2.2, max(positive) * 2.0)
    ticks = [TIE_X, *(t for t in (1e-4, 1e-2, 1.0) if t >= lo), max(positive)]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(
        FuncFormatter(
            lambda v, _pos: (
                "tie" if np.isclose(v, TIE_X) else (f"{v:g}" if v >= 0.01 else rf"$10^{{{round(np.log10(v))}}}$")
            )
        )
    )
    ax.xaxis.set_minor_locator(NullLocator())
    # an axis break between the tie slot and the gaps
    brk = np.sqrt(TIE_X * lo)
    for shift in (1 / 1.2, 1.2):
        ax.plot([brk * shift / 1.2, brk * shift * 1.2], [-0.05, -0.01], color=style.GUIDE, lw=0.8, clip_on=False)
    ax.set_ylim(0.0, 1.1)
    ax.set_xlabel(r"gauge gap $g=\delta_o-\delta_r$")
    ax.set_ylabel(r"owner's final $c_o\,/\,a_*$")
    out["-4-t_spec_per_efold"] = _log_slope(out[f"{-STRENGTH:+g}"])
    wins = sum(out[f"{r:+g}-successes"] for r in REST)
    trials = sum(out[f"{r:+g}-trials"] for r in REST)
    ties = sum(bool(out[f"{r:+g}-tie"]["success"]) for r in REST)
    out["success_rate_positive_gap"] = wins / trials
    out["success_rate_tie"] = ties / len(REST)
    ax.set_title(
        rf"argmax $\delta$: {wins}/{trials}, ties {ties}/{len(REST)}",
        loc="right",
        fontsize=layout.small,
    )
    style.panel_label(ax, "e")
    return out


SLOW_GAP = 0.1
"""Gaps ``g ≤ SLOW_GAP`` are where ``T_spec`` against ``−D`` others grows like ``ln(1/g)`` (fitted)."""


def _log_slope(family: dict[str, Any]) -> dict[str, Any] | None:
    """Least squares ``T_spec ≈ A + B ln(1/g)`` over ``g ≤ SLOW_GAP``: ``B`` (time per e-fold of the
    gap closing) with its standard error; ``None`` with fewer than three gaps."""
    from scipy import stats

    pairs = [(g, t) for g, t in zip(family["x"], family["t_spec"], strict=True) if g <= SLOW_GAP and t is not None]
    if len(pairs) < 3:
        return None
    fit = stats.linregress(np.log(1.0 / np.array([p[0] for p in pairs])), [p[1] for p in pairs])
    return {"slope": float(fit.slope), "stderr": float(fit.stderr), "intercept": float(fit.intercept), "n": len(pairs)}


def _panel_owner_matrix(ax: Any, sweep: Any, layout: Layout) -> dict[str, Any]:
    """(f) the paper's owner-success matrix: for every width ``m`` and designated ``o < m`` (neuron ``o`` at
    ``+D``, the other ``m − 1`` at ``−D``, exact duplicates otherwise), whether ``o`` is the unique
    owner, and its ``T_spec`` as the cell's colour. The population flow from exact duplicates is
    deterministic: one run per cell, no seeds (random visible perturbations are fig7 (a)'s)."""
    from matplotlib.colors import LogNorm

    ms = [int(m) for m in sweep.ms]
    width = max(ms)
    T = np.full((len(ms), width), np.nan)
    owned = np.zeros((len(ms), width), bool)
    for p in sweep.points:
        i = ms.index(int(p.m))
        T[i, p.designated] = np.nan if p.t_spec is None else p.t_spec
        owned[i, p.designated] = bool(p.success)
    edges_o = np.arange(width + 1) - 0.5
    edges_m = np.arange(len(ms) + 1) - 0.5
    shown = np.ma.masked_invalid(T)
    mesh = ax.pcolormesh(
        edges_o, edges_m, shown, cmap="cividis", norm=LogNorm(vmin=np.nanmin(T), vmax=np.nanmax(T)), shading="flat"
    )
    bar = ax.figure.colorbar(mesh, ax=ax, pad=0.02)
    bar.set_label(r"$T_{\rm spec}$")
    # plain decimals on the log colour scale (no 10^k superscripts, which would print under 6 pt)
    lo, hi = float(np.nanmin(T)), float(np.nanmax(T))
    ticks = [v for v in (0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0) if lo <= v <= hi] or [lo, hi]
    bar.set_ticks(ticks, labels=[f"{v:g}" for v in ticks])
    bar.ax.minorticks_off()
    rows, cols = np.nonzero(owned)
    ax.scatter(cols, rows, s=9, marker="o", facecolor="white", edgecolor="none", label=r"$o$ owns")
    fail_r, fail_c = np.nonzero(~owned & np.isfinite(T))
    if fail_r.size:
        ax.scatter(fail_c, fail_r, s=16, marker="x", color=style.ORANGE, label="another owns")
    ax.set_xticks(range(width))
    ax.set_yticks(range(len(ms)), [str(m) for m in ms])
    ax.set_xlim(edges_o[0], edges_o[-1])
    ax.set_ylim(edges_m[0], edges_m[-1])
    ax.set_xlabel(r"designated owner $o$ (at $+D$)")
    ax.set_ylabel(r"neurons $m$")
    runs, wins = int(np.isfinite(T).sum()), int(owned.sum())
    # the m − 1 others are interchangeable: T_spec cannot depend on which index o is (up to round-off)
    spread = float(np.nanmax([np.nanmax(r) / np.nanmin(r) - 1.0 for r in T]))
    ax.set_title(rf"$o$ owns in {wins}/{runs}, $D={sweep.strength:g}$", loc="right", fontsize=layout.small)
    style.panel_label(ax, "f")
    return {
        "ms": ms,
        "strength": float(sweep.strength),
        "success_matrix": [[bool(owned[i, o]) for o in range(m)] for i, m in enumerate(ms)],
        "t_spec": [[float(T[i, o]) for o in range(m)] for i, m in enumerate(ms)],
        "successes": wins,
        "runs": runs,
        "t_spec_relative_spread_over_o": spread,
    }
