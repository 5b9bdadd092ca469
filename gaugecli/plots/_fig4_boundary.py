"""Panels (e) and (f) of fig4 — where selection stops: the gauge gap down to exact ties, and the sample size — with the constants both modules share."""

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


SAMPLE = style.PURPLE
"""(f)'s colour (neither gauge's)."""


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
        ax, rf"equal shares $a_*/{M}$", (0.99, 1.0 / M), layout, offset=(0, -3), xycoords=right, ha="right", va="top"
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
    style.note(ax, "tie: no unique owner", (TIE_X * 0.6, 0.3), layout, va="bottom", color=style.THEORY)
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
        rf"$\arg\max\,\delta$ owns {wins}/{trials}; ties {ties}/{len(REST)}",
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


def _panel_samples(ax: Any, sweep: Any, layout: Layout) -> dict[str, Any]:
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    n = np.asarray(sweep.ns, float)
    rate = np.array([np.nan if r is None else r for r in sweep.rate], float)
    lo, hi = np.asarray(sweep.ci_low, float), np.asarray(sweep.ci_high, float)
    ax.errorbar(n, rate, yerr=[rate - lo, hi - rate], color=SAMPLE, marker="o", ms=4.0, lw=1.2, capsize=2.5)
    out: dict[str, Any] = {
        "rate": style.series(n, rate, ci_low=lo, ci_high=hi),
        "successes": list(sweep.successes),
        "trials": list(sweep.trials),
        "undecided": list(sweep.undecided),
        "seeds": len(sweep.seeds),
        "m": sweep.m,
        "strength": sweep.strength,
        "horizon": sweep.horizon,
        "n_hold": sweep.n_hold,
        "confidence": 0.95,
    }
    if sweep.n_hold is not None:
        style.threshold_line(ax, float(sweep.n_hold), axis="x")
        style.note(
            ax,
            f"every seed\nselects from\n$n={sweep.n_hold}$",
            (float(sweep.n_hold), 0.02),
            layout,
            offset=(-3, 0),
            ha="right",
            va="bottom",
        )
    style.note(
        ax,
        f"{len(sweep.seeds)} seeds per $n$,\n95 % Wilson intervals",
        (0.02, 0.97),
        layout,
        xycoords="axes fraction",
        va="top",
    )
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(list(n)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlim(n.min() / 1.2, n.max() * 1.2)
    ax.set_ylim(-0.03, 1.05)
    ax.set_xlabel(r"sample size $n$")
    ax.set_ylabel(r"selection rate ($+D$ owns)")
    ax.set_title(rf"finite sample, $m={sweep.m}$, $D={sweep.strength:g}$", loc="right", fontsize=layout.small)
    style.panel_label(ax, "f")
    return out
