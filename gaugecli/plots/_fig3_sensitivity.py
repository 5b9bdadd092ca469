"""Panels (e) and (f) of fig3 — the local slopes ``d ln y / d ln D`` between consecutive D and
their approach to ``∓1`` and 2, and the sensitivity of C4's constant: ``C`` in
``T_spec(−D)/T_spec(+D) ≈ C·D²`` moves with ``c0``, ``θ0`` and ``ε_align``, the exponent does not.

``C = lim_{D→∞} ratio/D² = U/F`` with ``F = lim D·T_spec(+D)`` and ``U = lim T_spec(−D)/D`` the
``D → ∞`` limits of the reduced equations (cached ``limit-constants`` runs,
:mod:`gaugecli.experiments.limits`: one ODE and one quadrature, milliseconds), which take
``ε_align`` through the angle ``θ_ε = arccos(1 − ε)`` where the runs stop. The exponent of each
setting is the local slope of the ratio between ``D = 64`` and ``128`` (cached ``ratio-slope`` runs,
:mod:`gaugecli.experiments.ratio_slope`; about 0.13 s a setting, 0.9 s for the seven): it sits
within ``O(1/D²)`` of 2 for every setting while ``C`` moves sixteen-fold.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots.render import Inputs, Need
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
RATIO = style.PURPLE
EXPONENTS = {"favorable": -1.0, "unfavorable": 1.0, "ratio": 2.0}


def _angle(theta: float) -> str:
    """``π/4``, ``π/2``, ``3π/4`` in mathtext, else the number."""
    for k, text in ((1, r"\pi/4"), (2, r"\pi/2"), (3, r"3\pi/4")):
        if np.isclose(theta, k * np.pi / 4, rtol=0, atol=1e-12):
            return f"${text}$"
    return f"{theta:.3g}"


def _key(name: str, index: int, point: dict[str, float], base: dict[str, float]) -> str:
    return "base" if point == base else f"{name}-{index}"


def settings(base: dict[str, float]) -> dict[str, dict[str, float]]:
    """Each distinct setting of (f) by name — the figure's own ``base`` (``c0``, ``theta0``,
    ``eps_align``) first, then each parameter of :data:`SETTINGS` at its values, the others at
    ``base`` — whose ``limit-constants`` and ``ratio-slope`` runs the figure reads."""
    out = {"base": dict(base)}
    for name, values in SETTINGS.items():
        for i, value in enumerate(values):
            point = {**base, name: float(value)}
            out.setdefault(_key(name, i, point, base), point)
    return out


def sensitivity_needs(model: Any) -> dict[str, Need]:
    """The reduced equations' runs of (f) for each of :func:`settings` at ``model`` (a
    :class:`~gaugecli.experiments.config.ModelConfig`): the ``D → ∞`` limits (``limits-<setting>``;
    ``limits-base`` is also (c)'s) and the ratio's local slope at large D (``slope-<setting>``)."""
    from gaugecli.experiments.limits import LimitConstantsConfig
    from gaugecli.experiments.ratio_slope import RatioSlopeConfig

    out = {}
    for key, p in settings({"c0": model.c0, "theta0": model.theta0, "eps_align": model.eps_align}).items():
        point = (p["c0"], p["theta0"], p["eps_align"], model.a_star)
        out[f"limits-{key}"] = Need("limit-constants", LimitConstantsConfig(*point))
        out[f"slope-{key}"] = Need("ratio-slope", RatioSlopeConfig(*point, strengths=SLOPE_STRENGTHS))
    return out


def sensitivity(inputs: Inputs, base: dict[str, float]) -> dict[str, Any]:
    """For each parameter of :data:`SETTINGS`, its three values with the others at ``base``: ``C``,
    the two limits (run ``limits-<setting>``), and the local slope at ``D = 64 → 128`` (run
    ``slope-<setting>``, reduced equations)."""
    out: dict[str, Any] = {}
    for name, values in SETTINGS.items():
        rows = []
        for i, value in enumerate(values):
            key = _key(name, i, {**base, name: float(value)}, base)
            limits, slope = inputs[f"limits-{key}"], inputs[f"slope-{key}"]
            F, U = limits.favorable, limits.unfavorable
            rows.append(
                {
                    "value": float(value),
                    "C": U / F,
                    "favorable_limit": F,
                    "unfavorable_limit": U,
                    "local_slope": slope.local_slope,
                    "ratio_over_D2": slope.ratio_over_D2,
                }
            )
        out[name] = rows
    slopes = [row["local_slope"] for rows in out.values() for row in rows]
    out["exponent_range"] = [min(slopes), max(slopes)]
    out["slope_strengths"] = list(SLOPE_STRENGTHS)
    out["base"] = base
    return out


def panel_local_slopes(ax: Any, D: np.ndarray, series: dict[str, np.ndarray], layout: Layout) -> dict[str, Any]:
    """(e) ``d ln y / d ln D`` between consecutive D of ``T(+D)``, ``T(−D)`` and the ratio, and the
    exponents −1, +1, 2 they approach."""
    from gaugecli.core.analyses.separation import local_slopes

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
