"""Figure 3 — specialization time against the gauge strength (claim C4).

(a) ``T_spec(+D)`` and ``T_spec(−D)`` for one neuron (``m = 1``) on log–log axes with
least-squares slopes over ``D ≥ 4`` (expected −1 and +1);
(b) the ratio ``T_spec(−D)/T_spec(+D)`` with its fitted slope (expected 2), a ``C·D²``
reference (``C`` the geometric-mean prefactor over the fit range) and the closed-form
transport-mobility ratio ``M^u(+D)/M^u(−D) = (D + √(D² + 4c²))²/(4c²)`` at the initial
coefficient ``c = c0``, which sets the same ``D²`` law with the prefactor of ``t = 0``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots._runs import Run, simulate_requirement

GAUGES = ("favorable", "unfavorable")
STRENGTHS = {False: tuple(2.0**k for k in range(11)), True: (1.0, 4.0, 16.0, 64.0)}
FIT_MIN = 4.0
"""Slopes are fitted over ``D ≥ FIT_MIN`` (SPEC C4: D ∈ [4, 1024])."""


def requirements(quick: bool) -> list[Any]:
    return [simulate_requirement(g, D) for g in GAUGES for D in STRENGTHS[quick]]


def _collect(data: dict[str, Any]) -> dict[str, dict[float, float | None]]:
    """``{gauge: {D: T_spec}}`` from the flow runs in ``data``."""
    out: dict[str, dict[float, float | None]] = {g: {} for g in GAUGES}
    c0 = None
    for name, raw in data.items():
        if name.startswith("_") or not isinstance(raw, dict) or "t_spec" not in raw:
            continue
        run = Run(raw)
        gauge = style.gauge_of(float(run.deltas[0]))
        if gauge in out:
            out[gauge][run.strength] = run.t_spec
            c0 = run.c0
    out["c0"] = c0  # type: ignore[assignment]
    return out


def build(data: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    from gaugecli.core.dynamics import transport_mobility

    collected = _collect(data)
    c0 = collected.pop("c0")
    if c0 is None:
        raise ValueError("fig3 needs simulate runs (one per gauge and D)")
    fig, (ax_t, ax_r) = style.new_figure(style.TWO_COLUMN, 2.7, ncols=2)
    panels: dict[str, Any] = {"a": {}, "b": {}}

    # (a) T_spec(±D)
    slopes = {}
    for g in GAUGES:
        Ds = np.array(sorted(collected[g]))
        T = np.array([np.nan if collected[g][D] is None else collected[g][D] for D in Ds], dtype=float)
        fit = Ds >= FIT_MIN
        slope, intercept = style.loglog_fit(Ds[fit], T[fit])
        slopes[g] = slope
        sign = "+" if g == "favorable" else "-"
        ax_t.plot(
            Ds,
            T,
            ls="none",
            marker=style.GAUGE_MARKERS[g],
            color=style.GAUGE_COLORS[g],
            label=rf"$T_{{\rm spec}}({sign}D)$: slope ${slope:+.3f}$",
        )
        Dfit = Ds[fit]
        Tfit = np.exp(intercept) * Dfit**slope
        ax_t.plot(Dfit, Tfit, color=style.GAUGE_COLORS[g], lw=0.9, ls="--")
        panels["a"][g] = style.series(Ds, T)
        panels["a"][f"{g}-fit"] = style.series(Dfit, Tfit, slope=slope, intercept=intercept)
    ax_t.set_xscale("log", base=2)
    ax_t.set_yscale("log")
    ax_t.set_xlabel(style.LABELS["D"])
    ax_t.set_ylabel(style.LABELS["tspec"] + r"  ($m=1$)")
    ax_t.legend(loc="center right", fontsize=6.5, title=rf"fit over $D \geq {FIT_MIN:g}$", title_fontsize=6.5)
    style.panel_label(ax_t, "a")

    # (b) the ratio, its slope, D² and the closed-form mobility ratio
    common = sorted(set(collected["favorable"]) & set(collected["unfavorable"]))
    Ds = np.array(common, dtype=float)
    ratio = np.array(
        [
            np.nan
            if collected["favorable"][D] is None or collected["unfavorable"][D] is None
            else collected["unfavorable"][D] / collected["favorable"][D]
            for D in common
        ],
        dtype=float,
    )
    fit = Ds >= FIT_MIN
    slope, intercept = style.loglog_fit(Ds[fit], ratio[fit])
    prefactor = float(np.exp(np.nanmean(np.log(ratio[fit] / Ds[fit] ** 2)))) if np.any(fit) else float("nan")
    Dline = np.geomspace(Ds.min(), Ds.max(), 50)
    mobility = transport_mobility(c0, Dline) / transport_mobility(c0, -Dline)
    ax_r.plot(Ds, ratio, ls="none", marker="D", color=style.PURPLE, label=r"$T_{\rm spec}(-D)/T_{\rm spec}(+D)$")
    fit_y = np.exp(intercept) * Ds[fit] ** slope
    ax_r.plot(Ds[fit], fit_y, color=style.PURPLE, lw=1.0, ls="--", label=rf"least-squares fit, $D \geq {FIT_MIN:g}$")
    ax_r.plot(
        Dline, prefactor * Dline**2, color=style.REFERENCE_COLOR, lw=0.9, ls=":", label=rf"${prefactor:.3g}\,D^2$"
    )
    ax_r.plot(
        Dline,
        mobility,
        color=style.ORANGE,
        lw=1.2,
        ls="-.",
        label=r"$M^u(+D)/M^u(-D)$ at $c=c_0$" + "\n" + r"$=(D+\sqrt{D^2+4c_0^2})^2/4c_0^2$",
    )
    ax_r.set_xscale("log", base=2)
    ax_r.set_yscale("log")
    ax_r.set_xlabel(style.LABELS["D"])
    ax_r.set_ylabel(style.LABELS["ratio"])
    ax_r.legend(loc="upper left", fontsize=6.5)
    ax_r.text(
        0.97,
        0.04,
        rf"fitted slope ${slope:.3f}$ (SPEC: $2 \pm 0.05$)" + "\n" + rf"$c_0 = {c0:g}$, $m = 1$",
        transform=ax_r.transAxes,
        ha="right",
        va="bottom",
        fontsize=6.5,
    )
    style.panel_label(ax_r, "b")
    panels["b"]["ratio"] = style.series(Ds, ratio)
    panels["b"]["fit"] = style.series(Ds[fit], fit_y, slope=slope, intercept=intercept, fit_min=FIT_MIN)
    panels["b"]["reference"] = style.series(Dline, prefactor * Dline**2, prefactor=prefactor)
    panels["b"]["mobility"] = style.series(Dline, mobility, c=c0)
    panels["slopes"] = {"favorable": slopes["favorable"], "unfavorable": slopes["unfavorable"], "ratio": slope}
    return fig, panels
