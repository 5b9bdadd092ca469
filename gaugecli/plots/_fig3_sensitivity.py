"""Panels (e) and (f) of fig3 — the local slopes ``d ln y / d ln D`` between consecutive D and
their approach to ``∓1`` and 2, and the sensitivity of C4's constant: ``C`` in
``T_spec(−D)/T_spec(+D) ≈ C·D²`` moves with ``c0``, ``θ0`` and ``ε_align``, the exponent does not.

``C = lim_{D→∞} ratio/D² = U/F`` with ``F = lim D·T_spec(+D)`` and ``U = lim T_spec(−D)/D`` the
``D → ∞`` limits of the reduced equations (:func:`gaugecli.core.limits.favorable_limit`,
:func:`~gaugecli.core.limits.unfavorable_limit`: one ODE and one quadrature, milliseconds), which
take ``ε_align`` through the angle ``θ_ε = arccos(1 − ε)`` where the runs stop. The exponent of
each setting is the local slope of the ratio between ``D = 64`` and ``128``, from
:func:`gaugecli.core.reduced.reduced_specialization_time` (event location on the reduced flow's
dense output; about 0.13 s a setting, 0.9 s for the seven): it sits within ``O(1/D²)`` of 2 for every setting while
``C`` moves sixteen-fold.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots.venue import Layout

SETTINGS: dict[str, tuple[float, ...]] = {
    "c0": (0.01, 0.1, 0.5),
    "theta0": (np.pi / 4, np.pi / 2, 3 * np.pi / 4),
    "eps_align": (0.001, 0.01, 0.05),
}
"""The parameters varied one at a time (the others at the figure's model), three values each."""
SYMBOLS = {"c0": r"$c_0$", "theta0": r"$\theta_0$", "eps_align": r"$\varepsilon_{\rm align}$"}
SLOPE_STRENGTHS = (64.0, 128.0)
"""The local slope of each setting's ratio is taken between these two D (corrections ~1/D²: ≤ 4e-4)."""
SLOPE_RTOL = 1e-8
"""The reduced solves' tolerance for the exponent: T_spec to ~3e-8 relative (measured against rtol
1e-12 at θ0 = 3π/4), so the local slope to ~4e-8, far inside its O(1/D²) distance from 2, at half
the cost of rtol 1e-9 (about 0.13 s a setting)."""
RATIO = style.PURPLE
EXPONENTS = {"favorable": -1.0, "unfavorable": 1.0, "ratio": 2.0}


def _angle(theta: float) -> str:
    """``π/4``, ``π/2``, ``3π/4`` in mathtext, else the number."""
    for k, text in ((1, r"\pi/4"), (2, r"\pi/2"), (3, r"3\pi/4")):
        if np.isclose(theta, k * np.pi / 4, rtol=0, atol=1e-12):
            return f"${text}$"
    return f"{theta:.3g}"


@cache
def _setting(c0: float, theta0: float, eps_align: float, a_star: float) -> dict[str, Any]:
    """``C`` and its two limits at one setting, and the local slope of the ratio at large D."""
    from gaugecli.core.limits import favorable_limit, unfavorable_limit
    from gaugecli.core.reduced import reduced_specialization_time

    F = favorable_limit(c0, theta0, eps_align, a_star)
    U = unfavorable_limit(theta0, eps_align, a_star)

    def spec_time(delta: float) -> float:
        return reduced_specialization_time(
            delta, c0=c0, theta0=theta0, eps_align=eps_align, a_star=a_star, rtol=SLOPE_RTOL, atol=1e-3 * SLOPE_RTOL
        )

    ratios = [spec_time(-D) / spec_time(D) for D in SLOPE_STRENGTHS]
    lo, hi = SLOPE_STRENGTHS
    return {
        "C": U / F,
        "favorable_limit": F,
        "unfavorable_limit": U,
        "local_slope": float(np.log(ratios[1] / ratios[0]) / np.log(hi / lo)),
        "ratio_over_D2": float(ratios[1] / hi**2),
    }


def sensitivity(c0: float, theta0: float, eps_align: float, a_star: float) -> dict[str, Any]:
    """For each parameter of :data:`SETTINGS`, its three values with the others at ``(c0, θ0,
    ε_align)``: ``C``, the two limits, and the local slope at ``D = 64 → 128`` (reduced equations)."""
    base = {"c0": c0, "theta0": theta0, "eps_align": eps_align}
    out: dict[str, Any] = {}
    for name, values in SETTINGS.items():
        rows = []
        for value in values:
            point = {**base, name: float(value)}
            rows.append({"value": float(value), **_setting(point["c0"], point["theta0"], point["eps_align"], a_star)})
        out[name] = rows
    slopes = [row["local_slope"] for rows in out.values() for row in rows]
    out["exponent_range"] = [min(slopes), max(slopes)]
    out["slope_strengths"] = list(SLOPE_STRENGTHS)
    out["base"] = base
    return out


def panel_local_slopes(ax: Any, D: np.ndarray, series: dict[str, np.ndarray], layout: Layout) -> dict[str, Any]:
    """(e) ``d ln y / d ln D`` between consecutive D of ``T(+D)``, ``T(−D)`` and the ratio, and the
    exponents −1, +1, 2 they approach."""
    from gaugecli.core.separation import local_slopes

    colors = {"favorable": style.PLUS, "unfavorable": style.MINUS, "ratio": RATIO}
    markers = {**style.GAUGE_MARKERS, "ratio": "D"}
    names = {"favorable": r"$T_{\rm spec}(+D)$", "unfavorable": r"$T_{\rm spec}(-D)$", "ratio": "ratio"}
    out: dict[str, Any] = {}
    for key in ("ratio", "unfavorable", "favorable"):
        mid, slopes = local_slopes(D, series[key])
        ax.axhline(EXPONENTS[key], color=style.THEORY, ls=":", lw=0.8, zorder=1)
        ax.plot(mid, slopes, color=colors[key], marker=markers[key], mfc="white", mew=1.0, ms=3.4, lw=0.9, zorder=3)
        out[f"{key}-local-slope"] = style.series(mid, slopes, exponent=EXPONENTS[key], last=slopes[-1])
        style.note(
            ax,
            rf"{names[key]}: ${slopes[-1]:+.4f}$",
            (float(mid[-1]), EXPONENTS[key]),
            layout,
            offset=(0, -3),
            ha="right",
            va="top",
            color=colors[key],
        )
    ax.set_xscale("log", base=2)
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    ax.xaxis.set_major_locator(FixedLocator([d for d in D if np.log2(d) % 2 == 0]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlim(D[0], D[-1])
    ax.set_ylim(-1.6, 2.3)
    ax.set_yticks([-1.0, 0.0, 1.0, 2.0])
    ax.set_xlabel(r"$\sqrt{D_k D_{k+1}}$")
    ax.set_ylabel(r"local slope $\Delta\ln y/\Delta\ln D$")
    return out


def panel_sensitivity(ax: Any, table: dict[str, Any], layout: Layout) -> dict[str, Any]:
    """(f) a table drawn in the axes: ``C`` for each value of ``c0``, ``θ0``, ``ε_align`` (the
    others at the figure's defaults), and the range of the exponents."""
    ax.set_axis_off()
    columns = (0.42, 0.66, 0.90)
    rows = {"c0": 0.72, "theta0": 0.50, "eps_align": 0.28}
    note = {"transform": ax.transAxes, "fontsize": layout.small}
    ax.text(0.0, 1.0, r"$C$ of ratio $\approx C D^2$ ($D\to\infty$); bold: (a)–(e)", ha="left", va="top", **note)
    for name, y in rows.items():
        ax.text(0.0, y, SYMBOLS[name], transform=ax.transAxes, ha="left", va="center", fontsize=layout.text)
        base = table["base"][name]
        for x, row in zip(columns, table[name], strict=True):
            value = _angle(row["value"]) if name == "theta0" else f"{row['value']:g}"
            default = np.isclose(row["value"], base)
            ax.text(x, y + 0.06, value, ha="center", va="bottom", color=style.GUIDE, **note)
            ax.text(
                x,
                y + 0.04,
                f"{row['C']:.3g}",
                transform=ax.transAxes,
                ha="center",
                va="top",
                fontsize=layout.text,
                fontweight="bold" if default else "normal",
            )
    lo, hi = table["exponent_range"]
    D0, D1 = table["slope_strengths"]
    ax.text(
        0.0,
        0.0,
        rf"exponent ($D={D0:g}\to{D1:g}$): ${lo:.4f}$ to ${hi:.4f}$",
        ha="left",
        va="bottom",
        **note,
    )
    return {"sensitivity": table}
