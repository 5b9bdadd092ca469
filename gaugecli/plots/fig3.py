"""Figure 3 — the Θ(D²) separation of specialization times (claim C4), one neuron (``m = 1``).

(a) ``T_spec(+D)`` and ``T_spec(−D)`` against D on log–log axes; their least-squares lines over
``D ≥ 4`` are drawn apart from the data (offset by :data:`FIT_OFFSET`, so that every point stays
visible) with the fitted slopes (expected −1 and +1). The data are deterministic flows: the
scatter about a line measures its bias from the ``O(1/D²)`` corrections, not a noise, so no
standard error is quoted; the exponents are read from the local slopes in (e);
(b) the ratio ``T_spec(−D)/T_spec(+D)``, its offset least-squares line (expected slope 2) and
the closed-form transport-mobility ratio ``M^u(+D)/M^u(−D)`` at ``c = c0``;
(c) compensated: ``D·T_spec(+D)``, ``T_spec(−D)/D`` and ``ratio/D²`` converge to the ``D → ∞``
limits of the reduced equations (:mod:`gaugecli.core.reduced.planar`), with ``O(1/D²)`` corrections;
(d) why the ratio sits ~17× below the mobility ratio at ``c0``: along the ``+D`` run (time in
units of ``T_spec(+D)``, ``÷ D²``, for D = 4 and the largest D) the angular-speed ratio
``S = θ̇(+D)/θ̇(−D)`` at equal alignment, and the closed-form mobility ratio evaluated at the two
runs' coefficients ``c±`` instead of ``c0``. ``S`` starts *at* the mobility ratio at ``c0`` and
falls at once (``c₋`` relaxes to ``2a*g(θ)``) and then steadily (``c₊`` grows); its time average
equals the measured ratio — an identity (``∫S dt = ∫dθ/|θ̇₋|``). Both runs are paired by angle in
one integration of the reduced equations and read off its dense output at the ``+D`` run's declared
times, the integral of ``S`` carried as a state, so the sidecar's ``time_average`` meets
``measured_ratio`` to the solvers' tolerances (:mod:`gaugecli.core.analyses.separation`);
(e) the local slopes ``d ln y / d ln D`` between consecutive D of ``T(±D)`` and of the ratio, and
their approach to ``∓1`` and 2;
(f) sensitivity: the constant ``C = lim ratio/D²`` for three values each of ``c0``, ``θ0`` and
``ε_align`` (the ``D → ∞`` limits, :mod:`gaugecli.plots._fig3_sensitivity`) — it moves sixteen-fold
while the exponent (the local slope at ``D = 64 → 128`` of the reduced equations) stays 2.

The main-text version (``MAIN_PANELS``) is (a), (c), (e), lettered (a)–(c): (a) on the left, the
others stacked on the right.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots._fig3_readings import CAPTION, READING, READINGS, key_numbers
from gaugecli.plots._fig3_sensitivity import panel_local_slopes, panel_sensitivity, sensitivity, sensitivity_needs
from gaugecli.plots.grid import main_axes
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

__all__ = ["CAPTION", "READING", "READINGS", "build", "followups", "needs"]

MAIN_PANELS = ("a", "c", "e")
"""The main-text version: the times against D (a), their convergence to the D → ∞ limits (c), and the
local slopes that settle at ∓1 and 2 (e)."""
MIN_WIDTH = 5.0
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""

CLAIM = "C4 Θ(D²) separation: T_spec(−D)/T_spec(+D) ≈ C·D², T_spec(±D) ∝ D^(∓1)"
SIDECAR_TOLERANCES = (
    (
        "*relative-deviation*",
        0.0,
        1e-8,
        "y/limit − 1 carries the runs' own relative error (1.7e-9 between two machines at D = 512, where "
        "T_spec(−D) takes ~1300 LSODA steps at rtol 1e-10), ×5",
    ),
    (
        "*correction*order*",
        0.0,
        1e-3,
        "an order fitted to ln|y/limit − 1| with |y/limit − 1| ≈ 1e-5 at D = 1024: the runs' 1e-9 relative error, ×1e4",
    ),
    (
        "*asymptotic*",
        1e-6,
        1e-7,
        "standard errors ≈ 1e-5 of an extrapolated slope, from residuals at the runs' 1e-9 level",
    ),
    (
        "*local?slope*",
        0.0,
        1e-7,
        "a difference of two ln T_spec over ln 2: each T_spec to ~2e-9 relative between machines (runs at rtol "
        "1e-10; the ratio's two, 4e-9), so ≤ 1.2e-8 absolute, ×8; the sensitivity's reduced solves at rtol 1e-8: "
        "T_spec to 3e-8, slope to 4e-8 (×2.5)",
    ),
)
"""Where a number moves more than the shared default across arithmetic paths, and why (first match wins)."""
GAUGES = ("favorable", "unfavorable")
STRENGTHS = {False: tuple(2.0**k for k in range(11)), True: (1.0, 4.0, 16.0, 64.0)}
FIT_MIN = 4.0
"""Slopes are fitted over ``D ≥ FIT_MIN`` (claim C4: D ∈ [4, 1024])."""
FIT_OFFSET = 1.0 / 3.0
"""The fitted power laws are drawn at this multiple of the fit, a parallel line below the data."""
RATIO = style.PURPLE
"""The ratio's colour in (b)–(d) (neither gauge's)."""
SIGN = {"favorable": "+", "unfavorable": "-"}


def _name(gauge: str, strength: float) -> str:
    return f"{gauge}-D{strength:g}"


def needs(quick: bool) -> dict[str, Need]:
    """One default single-neuron flow run per gauge and D (the configuration of
    ``gaugecli simulate --gauge favorable -D …``, so a simulate call and this figure share runs);
    and the reduced equations' runs of (c) and (f) (:func:`gaugecli.plots._fig3_sensitivity.sensitivity_needs`)."""
    from gaugecli.experiments.simulate import SimulateConfig

    out = {
        _name(g, D): Need("simulate", SimulateConfig(gauge=g, strengths=(D,))) for g in GAUGES for D in STRENGTHS[quick]
    }
    return {**out, **sensitivity_needs(SimulateConfig().model)}


def _strengths(inputs: Inputs) -> np.ndarray:
    """The gauge strengths of the flow runs, ascending."""
    names = [n for n in inputs.configs if n.startswith(tuple(f"{g}-D" for g in GAUGES))]
    return np.array(sorted({inputs.configs[n].strengths[0] for n in names}), dtype=float)


def _shown(D: np.ndarray) -> list[float]:
    """The strengths (d) shows: the smallest of the fit, and the largest."""
    return sorted({FIT_MIN, float(D[-1])})


def followups(inputs: Inputs, quick: bool) -> dict[str, Need]:
    """(d)'s angular-speed ratio at each D it shows (``speed-D<D>``): a run of the reduced equations
    pairing ``±D`` by angle, read at the ``+D`` run's stored times (:mod:`gaugecli.experiments.speed_ratio`)."""
    from gaugecli.experiments.speed_ratio import SpeedRatioConfig

    D = _strengths(inputs)
    model = inputs.configs[_name("favorable", D[0])].model
    return {
        f"speed-D{s:g}": Need(
            "speed-ratio",
            SpeedRatioConfig(
                s,
                tuple(inputs[_name("favorable", s)].t.tolist()),
                model.c0,
                model.theta0,
                model.eps_align,
                model.a_star,
            ),
        )
        for s in _shown(D)
    }


# ------------------------------------------------------------------------------------------
# panels


def _d_axis(ax: Any, strengths: np.ndarray) -> None:
    """Log-2 D axis with plain labels (1, 4, 16, …) at every other power of two."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator

    ax.set_xscale("log", base=2)
    ticks = [D for D in strengths if np.log2(D) % 2 == 0]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())


def _fit_entry(fit: Any, x: np.ndarray) -> dict[str, Any]:
    """The fitted line as drawn: ``FIT_OFFSET`` times the fit (no standard error: see the module)."""
    return style.series(
        x,
        FIT_OFFSET * fit(x),
        slope=fit.slope,
        intercept=fit.intercept,
        offset=FIT_OFFSET,
        fit_min=float(x.min()),
        n=fit.n,
    )


def _offset_fit(ax: Any, fit: Any, x: np.ndarray, color: str, layout: Layout) -> np.ndarray:
    """The fit ``× FIT_OFFSET``: a thin line below the data, its slope written under it — from its
    left end when it rises, up to its right end when it falls, so that the text stays off the line."""
    y = FIT_OFFSET * fit(x)
    ax.plot(x, y, color=color, lw=0.9, zorder=2)
    rising = fit.slope > 0
    style.note(
        ax,
        rf"fit $\times\frac{{1}}{{3}}$ ($D\geq{FIT_MIN:g}$): slope ${fit.slope:+.4f}$",
        (float(x[0]), float(y[0])) if rising else (float(x[-1]), float(y[-1])),
        layout,
        offset=(2, -3) if rising else (0, -3),
        ha="left" if rising else "right",
        va="top",
        color=color,
    )
    return y


def _panel_times(ax: Any, D: np.ndarray, times: dict[str, np.ndarray], layout: Layout) -> dict[str, Any]:
    """(a) ``T_spec(±D)`` with their least-squares lines over ``D ≥ FIT_MIN``, drawn apart."""
    from gaugecli.core.analyses.separation import asymptotic_slope, power_law_fit

    out: dict[str, Any] = {}
    handles = []
    fit_range = D >= FIT_MIN
    low = np.inf
    for g in GAUGES:
        T = times[g]
        fit = power_law_fit(D[fit_range], T[fit_range])
        color, marker = style.GAUGE_COLORS[g], style.GAUGE_MARKERS[g]
        ax.plot(D, T, ls="none", marker=marker, mfc="white", mew=1.0, color=color, zorder=3)
        low = min(low, float(np.min(_offset_fit(ax, fit, D[fit_range], color, layout))))
        handles.append(style.line_handle(color, "none", marker, rf"$T_{{\rm spec}}({SIGN[g]}D)$", mfc="white"))
        slope, error = asymptotic_slope(D, T)
        out[g] = style.series(D, T)
        out[f"{g}-fit"] = _fit_entry(fit, D[fit_range])
        out[f"{g}-asymptotic-slope"] = {"value": slope, "error": error}
    ax.set_yscale("log")
    # room for the +D fit's slope below its line, and for the legend above the −D data at small D
    ax.set_ylim(low / 10.0, 300.0 * float(np.nanmax(times["unfavorable"])))
    _d_axis(ax, D)
    ax.set_xlabel(style.LABELS["D"])
    ax.set_ylabel(r"specialization time $T_{\rm spec}$")
    ax.legend(handles=handles, loc="upper left")
    return out


def _panel_ratio(ax: Any, D: np.ndarray, ratio: np.ndarray, c0: float, layout: Layout) -> dict[str, Any]:
    """(b) the ratio, its least-squares line (drawn apart) and the mobility ratio at ``c0``."""
    from gaugecli.core.analyses.separation import asymptotic_slope, power_law_fit
    from gaugecli.core.population.dynamics import transport_mobility

    fit_range = D >= FIT_MIN
    fit = power_law_fit(D[fit_range], ratio[fit_range])
    coefficient = np.full_like(D, c0)
    mobility = transport_mobility(coefficient, D) / transport_mobility(coefficient, -D)
    ax.plot(D, mobility, color=style.THEORY, ls="--", lw=1.0, zorder=2)
    ax.plot(D, ratio, ls="none", marker="D", mfc="white", mew=1.0, ms=3.6, color=RATIO, zorder=3)
    _offset_fit(ax, fit, D[fit_range], RATIO, layout)
    handles = [
        style.line_handle(style.THEORY, "--", None, r"$M^u(+D)/M^u(-D)$ at $c_0$; see (d)"),
        style.line_handle(RATIO, "none", "D", r"$T_{\rm spec}(-D)/T_{\rm spec}(+D)$", mfc="white"),
    ]
    ax.legend(handles=handles, loc="upper left")
    gap = float(mobility[-1] / ratio[-1])  # explained in (d)
    ax.set_yscale("log")
    _d_axis(ax, D)
    # room for the fit's slope under its line, and for the legend above the mobility ratio
    ax.set_ylim(float(np.nanmin(ratio)) / 30.0, float(mobility[-1]) * 3e3)
    ax.set_xlabel(style.LABELS["D"])
    ax.set_ylabel(style.LABELS["ratio"])
    asym, asym_err = asymptotic_slope(D, ratio)
    return {
        "ratio": style.series(D, ratio),
        "fit": _fit_entry(fit, D[fit_range]),
        "mobility": style.series(D, mobility, c=c0),
        "asymptotic-slope": {"value": asym, "error": asym_err},
        "gap": {"D": float(D[-1]), "mobility_over_ratio": gap},
    }


def _plain() -> Any:
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda v, _pos: f"{v:g}")


def _panel_compensated(
    ax: Any, D: np.ndarray, compensated: dict[str, np.ndarray], limits: dict[str, float], small: float
) -> dict[str, Any]:
    """(c) ``D·T(+D)``, ``T(−D)/D``, ``ratio/D²`` and their ``D → ∞`` limits (reduced equations)."""
    from matplotlib.ticker import FixedLocator, NullFormatter

    from gaugecli.core.reduced.limits import fitted_order

    labels = {
        "favorable": r"$D\,T_{\rm spec}(+D)$",
        "unfavorable": r"$T_{\rm spec}(-D)\,/\,D$",
        "ratio": r"ratio$\,/\,D^2$",
    }
    colors = {"favorable": style.PLUS, "unfavorable": style.MINUS, "ratio": RATIO}
    markers = {**style.GAUGE_MARKERS, "ratio": "D"}
    out: dict[str, Any] = {}
    ends = np.array([D[0], D[-1]])
    for key in ("unfavorable", "ratio", "favorable"):
        y, limit = compensated[key], limits[key]
        ax.plot(ends, [limit, limit], color=style.THEORY, ls=":", lw=0.9, zorder=1)
        ax.plot(D, y, color=colors[key], marker=markers[key], mfc="white", mew=1.0, ms=3.6, lw=0.9, zorder=3)
        ax.annotate(
            rf"{labels[key]} $\to$ {limit:.4f}",
            (D[-1], limit),
            xytext=(0, 3.5),
            textcoords="offset points",
            ha="right",
            va="bottom",
            color=colors[key],
            fontsize=small,
        )
        tail = D >= FIT_MIN
        out[key] = style.series(D, y)
        out[f"{key}-limit"] = style.series(ends, [limit, limit], value=limit)
        out[f"{key}-relative-deviation"] = style.tolist(y / limit - 1.0)
        out[f"{key}-correction-order"] = fitted_order(D[tail], y[tail], limit)
    handles = [style.line_handle(style.THEORY, ":", None, r"$D\to\infty$ limit (reduced equations)")]
    ax.legend(handles=handles, loc="lower right")
    ax.set_yscale("log")
    _d_axis(ax, D)
    ax.yaxis.set_major_locator(FixedLocator([1, 2, 5, 10, 20]))
    ax.yaxis.set_major_formatter(_plain())
    ax.yaxis.set_minor_formatter(NullFormatter())
    lo = min(float(np.min(v)) for v in compensated.values())
    hi = max(float(np.max(v)) for v in compensated.values())
    ax.set_ylim(lo / 1.6, hi * 1.2)
    ax.set_xlabel(style.LABELS["D"])
    ax.set_ylabel(r"compensated $T_{\rm spec}$")
    return out


def _panel_speed(
    ax: Any, pairs: dict[float, Any], ratio: dict[float, float], c0: float, small: float
) -> dict[str, Any]:
    """(d) the angular-speed ratio ``S/D²`` along the ``+D`` run (time in units of ``T_spec(+D)``),
    the mobility ratio at the runs' coefficients and at ``c0``, and the time average of ``S``."""
    from gaugecli.core.population.dynamics import transport_mobility

    shown = sorted(pairs)
    largest = shown[-1]
    out: dict[str, Any] = {}

    def label(x: float, y: float, text: str, color: str, **kw: Any) -> None:
        ax.annotate(text, (x, y), textcoords="offset points", color=color, fontsize=small, **kw)

    # the closed form of (b) at c = c0: the speed ratio at t = 0
    c, delta = np.array([c0]), np.array([largest])
    at_c0 = float((transport_mobility(c, delta) / transport_mobility(c, -delta))[0]) / largest**2
    ax.plot([0.0, 1.0], [at_c0, at_c0], color=style.THEORY, ls="--", lw=1.0, zorder=1)
    out["mobility-at-c0"] = style.series([0.0, 1.0], [at_c0, at_c0], D=largest, c=c0)
    label(0.92, at_c0, r"$M^u$ ratio at $c=c_0$, as in (b)", style.THEORY, xytext=(0, -2), ha="right", va="top")
    # the same closed form at the coefficients the two runs have at equal angle
    sp = pairs[largest]
    x = sp.t / sp.t[-1]
    mob = sp.mobility_ratio / largest**2
    ax.plot(x, mob, color=style.THEORY, ls="-.", lw=1.0, zorder=2)
    out[f"mobility-D{largest:g}"] = style.series(x, mob, D=largest)
    i = int(np.searchsorted(x, 0.24))
    label(x[i], mob[i], r"$M^u$ ratio at the runs' $c_\pm$", style.THEORY, xytext=(4, 2), ha="left", va="bottom")
    # the angular-speed ratio S = mobility ratio · c₊/c₋, for D = 4 and the largest D
    for D in shown:
        sp = pairs[D]
        x, y = sp.t / sp.t[-1], sp.speed_ratio / D**2
        ls, lw = ("-", 1.5) if D == largest else ("--", 1.0)
        ax.plot(x, y, color=RATIO, ls=ls, lw=lw, zorder=3)
        out[f"speed-D{D:g}"] = style.series(
            x,
            y,
            D=D,
            time_average=sp.time_average / D**2,
            measured_ratio=ratio[D] / D**2,
            coefficient_plus_at_alignment=sp.coefficient_plus[-1],
            coefficient_minus_at_alignment=sp.coefficient_minus[-1],
        )
    others = ", ".join(f"{D:g}" for D in shown[:-1])
    ax.text(
        0.02,
        0.03,
        r"$S=\dot\theta_+/\dot\theta_-$ at equal $\alpha$"
        + "\n"
        + rf"$D={largest:g}$; dashed: ${others}$"
        + "\n"
        + r"mean of $S$ = $T_{\rm spec}$ ratio$/D^2$",
        transform=ax.transAxes,
        ha="left",
        va="bottom",
        color=RATIO,
        fontsize=small,
    )
    # its time average is the T_spec ratio; the gap to the closed form at c0
    mean = pairs[largest].time_average / largest**2
    ax.plot([0.0, 1.0], [mean, mean], color=RATIO, ls=(0, (1, 2)), lw=0.9, zorder=1)
    out["time-average"] = style.series([0.0, 1.0], [mean, mean], D=largest)
    label(0.52, mean, rf"mean {mean:.2f}", RATIO, xytext=(0, 2), ha="center", va="bottom")
    ax.annotate(
        "",
        xy=(0.95, mean),
        xytext=(0.95, at_c0),
        arrowprops={"arrowstyle": "<->", "color": style.GUIDE, "lw": 0.8, "shrinkA": 0, "shrinkB": 0},
    )
    label(
        0.95,
        mean * 2.2,
        rf"$\times{at_c0 / mean:.1f}$",
        style.GUIDE,
        xytext=(-3, 0),
        ha="right",
        va="center",
    )
    ax.set_yscale("log")
    ax.set_xlim(-0.02, 1.0)  # a margin, so that the drop at t = 0 is not hidden by the spine
    ax.set_ylim(0.22 * float(np.min(pairs[largest].speed_ratio)) / largest**2, at_c0 * 1.6)
    ax.set_xlabel(r"$t\,/\,T_{\rm spec}(+D)$ along the $+D$ run")
    ax.set_ylabel(r"$(+D)/(-D)$ ratio$\,/\,D^2$")
    return out


# ------------------------------------------------------------------------------------------
# build


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    """Six panels (3 × 2) at the layout's width; returns the figure and its sidecar panels."""
    D = _strengths(inputs)
    model = inputs.configs[_name("favorable", D[0])].model
    runs = {g: [inputs[_name(g, s)] for s in D] for g in GAUGES}
    times = {g: np.array([np.nan if r.t_spec is None else r.t_spec for r in runs[g]], dtype=float) for g in GAUGES}
    ratio = times["unfavorable"] / times["favorable"]

    if layout.is_main:  # the main-text version: its first panel on the left, the others stacked right
        fig, axes = main_axes(layout, "abcdef")
    else:
        fig, grid = style.new_figure(
            layout.width, layout.height(1.12), nrows=3, ncols=2, height_ratios=[1.0, 1.0, 0.78]
        )
        axes = dict(zip("abcdef", grid.ravel(), strict=True))
    panels: dict[str, Any] = {}
    if "a" in axes:
        panels["a"] = _panel_times(axes["a"], D, times, layout)
    if "b" in axes:
        panels["b"] = _panel_ratio(axes["b"], D, ratio, model.c0, layout)

    limits = {"favorable": inputs["limits-base"].favorable, "unfavorable": inputs["limits-base"].unfavorable}
    limits["ratio"] = limits["unfavorable"] / limits["favorable"]
    compensated = {"favorable": times["favorable"] * D, "unfavorable": times["unfavorable"] / D, "ratio": ratio / D**2}
    if "c" in axes:
        panels["c"] = _panel_compensated(axes["c"], D, compensated, limits, layout.small)

    if "d" in axes:
        shown = _shown(D)
        # on the +D run's declared times; the pairing integrates both runs by angle (dense output)
        pairs = {s: inputs[f"speed-D{s:g}"] for s in shown}
        ratios = {s: float(ratio[D == s][0]) for s in shown}
        panels["d"] = _panel_speed(axes["d"], pairs, ratios, model.c0, layout.small)
    if "e" in axes:
        panels["e"] = panel_local_slopes(axes["e"], D, {**times, "ratio": ratio}, layout)
    if "f" in axes:
        table = sensitivity(inputs, {"c0": model.c0, "theta0": model.theta0, "eps_align": model.eps_align})
        panels["f"] = panel_sensitivity(axes["f"], table, layout)
    for letter, ax in axes.items():
        style.panel_label(ax, layout.label(letter))
    if layout.is_main:  # its numbers are the full figure's sidecar's
        return fig, panels
    panels["limits"] = limits
    panels["key"] = key_numbers(panels, D, FIT_MIN)
    return fig, panels
