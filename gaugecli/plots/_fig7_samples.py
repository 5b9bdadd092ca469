"""Panels (c) and (d) of fig7 — the sample size: the finite-sample flow's deviation from the population flow, and selection against n — and the helpers the panels share."""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots.venue import Layout

GD = style.ORANGE
"""Population GD in (b)."""


SAMPLE = style.PURPLE
"""The finite-sample flow in (c) and (d)."""


SHADE = "0.93"
"""Regions where the claim fails: below ε*'s wall distance, beyond the stability limit."""


def _nan(values: Any) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def _log2_axis(ax: Any, ticks: Any, which: str = "x") -> None:
    """A log-2 axis with plain labels at ``ticks`` and no minor ticks."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log", base=2)
    axis.set_major_locator(FixedLocator(list(ticks)))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    axis.set_minor_locator(NullLocator())


def _pm(value: float, error: float, digits: int) -> str:
    return rf"${value:.{digits}f} \pm {error:.{digits}f}$"


def _panel_samples(ax: Any, samples: Any, window: float, layout: Layout) -> dict[str, Any]:
    """(c) the finite-sample flow's deviation against n, every seed, mean ± s.e., fit, guide."""
    ns = np.array(samples.ns, dtype=float)
    per_seed = np.array(samples.deviation_per_seed, dtype=float)
    mean, sem = np.array(samples.deviation, dtype=float), np.array(samples.deviation_err, dtype=float)
    out: dict[str, Any] = {}
    xs = np.repeat(ns, per_seed.shape[1])
    ax.plot(xs, per_seed.ravel(), ls="none", marker=".", ms=2.5, color=SAMPLE, alpha=0.45, zorder=2)
    out["per_seed"] = style.series(xs, per_seed.ravel())
    ax.errorbar(
        ns, mean, yerr=sem, ls="none", marker="D", ms=3.4, mfc="white", mew=1.0, color=SAMPLE, capsize=1.5, zorder=4
    )
    out["mean"] = style.series(ns, mean, sem=sem)
    handles = [
        style.line_handle(SAMPLE, "none", ".", f"{per_seed.shape[1]} seeds"),
        style.line_handle(SAMPLE, "none", "D", r"mean $\pm$ s.e.", mfc="white"),
    ]
    fit = samples.fit
    if fit is not None:
        yf = fit.prefactor * ns**fit.slope
        ax.plot(ns, yf, color=SAMPLE, lw=1.1, zorder=3)
        out["fit"] = style.series(ns, yf, slope=fit.slope, stderr=fit.slope_err, chi2_dof=fit.chi2_dof)
        handles.append(style.line_handle(SAMPLE, "-", None, f"fit: slope {_pm(fit.slope, fit.slope_err, 3)}"))
        gx, gy = style.power_law_guide(ax, ns, -0.5, (float(ns[0]), 2.0 * float(yf[0])))
        out["guide"] = style.series(gx, gy, slope=-0.5)
        handles.append(style.line_handle(style.GUIDE, ":", None, r"$\propto n^{-1/2}$"))
    gd = samples.gd
    if gd is not None:
        for key, values, marker in (("gd", gd.deviation, "^"), ("gd-half", gd.deviation_half, "v")):
            ax.plot(ns, values, ls="none", marker=marker, ms=3.2, mfc="white", mew=0.9, color=GD, zorder=5)
            out[key] = style.series(ns, values)
        handles.append(style.line_handle(GD, "none", "^", r"GD on $L_n$ at $\eta$, $\eta/2$", mfc="white"))
    ax.legend(handles=handles, loc="lower left", handlelength=1.6, borderaxespad=0.2)
    style.note(
        ax,
        "flow on $L_n$ vs. flow on $L$\n" + rf"$t\leq{window:g}\,T_{{\rm spec}}$",
        (0.97, 0.97),
        layout,
        xycoords="axes fraction",
        ha="right",
        va="top",
        multialignment="right",
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    bottom, top = ax.get_ylim()
    # room under the data for the legend (lower left): its four rows take ~45 % of the axes' height, so
    # the axis reaches ~1.3 decades below the data (the layout check holds it)
    ax.set_ylim(bottom / 25.0, top)
    ax.set_xlabel(style.LABELS["n"])
    ax.set_ylabel(r"$\mathrm{sup}_t\,\|f_n-f_\infty\|$ in $L^2$")
    style.tidy_log_axis(ax)
    return out


def _panel_selection(ax: Any, selection: Any, layout: Layout) -> dict[str, Any]:
    """(d) the share of seeds whose ``+D`` neuron owns the feature against n (95 % Wilson
    intervals), the population flow's certainty, and ``n_hold``."""
    ns = np.array(selection.ns, dtype=float)
    rate = _nan(selection.rate)
    lo, hi = np.array(selection.ci_low, dtype=float), np.array(selection.ci_high, dtype=float)
    trials = max(selection.trials) if selection.trials else 0
    left, right = float(ns[0]) / 1.3, float(ns[-1]) * 1.3
    ax.axhline(1.0, color=style.GUIDE, ls=":", lw=0.8, zorder=0)
    style.note(
        ax,
        "population flow",
        (0.97, 1.0),
        layout,
        offset=(0, 2),
        xycoords=("axes fraction", "data"),
        ha="right",
        va="bottom",
    )
    ax.errorbar(ns, rate, yerr=[rate - lo, hi - rate], color=SAMPLE, marker="o", ms=3.6, lw=1.0, capsize=2, zorder=4)
    out: dict[str, Any] = {
        "rate": style.series(ns, rate, ci_low=lo, ci_high=hi, successes=selection.successes, trials=selection.trials),
        "n_hold": selection.n_hold,
        "undecided": list(selection.undecided),
    }
    if selection.n_hold is not None:
        edge = float(np.sqrt(selection.n_hold * max([n for n in ns if n < selection.n_hold], default=left)))
        ax.axvspan(left, edge, color=SHADE, lw=0, zorder=0)
        style.note(
            ax,
            f"all {trials} seeds\nselect from\n$n={selection.n_hold}$",
            (edge, 0.5),
            layout,
            offset=(3, 0),
            xycoords=("data", "axes fraction"),
            color="0.15",
        )
        style.note(ax, "not every\nseed", (0.03, 0.62), layout, xycoords="axes fraction")
        out["n_hold_edge"] = edge
    _log2_axis(ax, ns)
    ax.set_xlim(left, right)
    ax.set_ylim(-0.04, 1.14)
    ax.set_xlabel(style.LABELS["n"])
    ax.set_ylabel(f"share of {trials} seeds: +D owns")
    style.note(
        ax,
        "95 % Wilson\nintervals",
        (0.97, 0.03),
        layout,
        xycoords="axes fraction",
        ha="right",
        va="bottom",
        multialignment="right",
    )
    return out
