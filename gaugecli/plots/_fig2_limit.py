"""fig2's ``D → ∞`` panels — (d) the phase portrait and (e) the gap, the rescaling mismatch and the
paths' distance to their limits against D — with the constants and drawing helpers that
:mod:`gaugecli.plots.fig2` shares with them (kept apart so that each module stays short)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from gaugecli.core.analyses.observables import RunObservables
from gaugecli.core.model.metrics import clock_free_gap_location, distance_to_path
from gaugecli.core.model.metrics import time_rescaling_mismatch as rescaling
from gaugecli.plots import style
from gaugecli.plots.venue import Layout

if TYPE_CHECKING:
    from gaugecli.experiments.limits import LimitPaths

Runs = dict[tuple[str, float], RunObservables]
"""Population flows by gauge and D."""

Samples = dict[str, dict[int, RunObservables]]
"""Finite-sample flows by gauge and seed."""

Paths = dict[str, tuple[np.ndarray, np.ndarray]]
"""``(c, α)`` along a path, by gauge."""


class Boundary(NamedTuple):
    """C5's boundary in (e): ``(+D run, −D run)`` by D below 1 and, at D = SHOWN, by θ0."""

    by_strength: dict[float, tuple[RunObservables, RunObservables]]
    by_theta0: dict[float, tuple[RunObservables, RunObservables]]


GAUGES = ("favorable", "unfavorable")

SHOWN = 4.0
"""The gauge strength of (a)–(c) and (f) (the default ``-D 4``)."""

THIN = 1e-3
"""Drawn lines keep a sample once it has moved by this fraction of an axis (:func:`_thin`)."""

LOSS_FLOOR = 1e-14
"""Loss levels at or below this are round-off of the closed-form loss (as in ``gaugecli verify``)."""

GAP_BOUND, GAP_FROM = 0.3, 4.0
"""Claim C5: ``Δ ≥ 0.3`` for every ``D ≥ 4``."""

LIMIT_DRAW, LIMIT_DENSE = "limit-paths-drawn", "limit-paths-dense"
"""The names of the two ``limit-paths`` runs fig2 reads (:mod:`gaugecli.experiments.limits`)."""

DRAW_POINTS, DENSE_POINTS = 401, 64_001
"""Samples of the drawn ``D → ∞`` paths, and of those distances are measured to: a polyline through a
curve at spacing ``h`` is off by ``κh²/8`` — with 4001 samples the +D distance floored at 9e-7 from
D = 128 on; with 64 001 it is < 1e-9, below the smallest distance shown (6.3e-9, +D at D = 1024)."""

SIGN = {"favorable": "+", "unfavorable": "-"}

GAP, MISMATCH = style.PURPLE, style.BROWN
"""Δ in (c) and (e), the rescaling mismatch in (e) and (f): neither gauge's colour."""

LIMIT: dict[str, Any] = {"color": style.THEORY, "ls": (0, (3.0, 2.0)), "lw": 0.8}
"""The ``D → ∞`` curves: thin near-black dashes, drawn over the runs they coincide with."""

BAND, LINE = {"lw": 3.6, "alpha": 0.35}, {"lw": 1.0}
"""(d): ``D = 4`` a wide translucent band, the largest D a thin line on it."""


def _flow(gauge: str, strength: float) -> str:
    return f"{gauge}-D{strength:g}"


def _angle_label(theta: float) -> str:
    """``π/4``, ``3π/4``: an initial angle θ0 as a fraction of π (TeX)."""
    from fractions import Fraction

    f = Fraction(theta / math.pi).limit_denominator(12)
    top = "" if f.numerator == 1 else f"{f.numerator}"
    return rf"${top}\pi/{f.denominator}$" if f.denominator != 1 else rf"${top}\pi$"


def _alpha(run: RunObservables) -> np.ndarray:
    return run.alignment[:, 0]


def _thin(*columns: np.ndarray) -> np.ndarray:
    """Mask of the samples a drawn line needs: the ends, and each sample that has moved by ``THIN``
    (columns scaled to their axis span) since the last one kept. The log-spaced output grid piles
    samples where nothing moves (t ≪ T_spec, after convergence); dropping them changes no pixel."""
    data = np.column_stack(columns)
    keep = np.zeros(len(data), bool)
    keep[[0, -1]] = True
    last = data[0]
    for i in range(1, len(data) - 1):
        if np.max(np.abs(data[i] - last)) >= THIN:
            keep[i], last = True, data[i]
    return keep


def _gap(p: RunObservables, q: RunObservables) -> tuple[float, float, float, float]:
    """``(Δ, ℓ*, α₊(ℓ*), α₋(ℓ*))`` between runs ``p`` (+D) and ``q`` (−D)."""
    return clock_free_gap_location(p.loss, _alpha(p), q.loss, _alpha(q), floor=LOSS_FLOOR)


def limit_paths(paths: LimitPaths) -> Paths:
    """``(c, α)`` along the ``D → ∞`` path of each gauge, from a ``limit-paths`` run."""
    return {
        "favorable": (paths.favorable_coefficient, np.cos(paths.favorable_angle)),
        "unfavorable": (paths.unfavorable_coefficient, np.cos(paths.unfavorable_angle)),
    }


def _d_axis(ax: Any, strengths: np.ndarray) -> None:
    """Log-2 D axis labelled 1/16, 1, 16, 256 (every fourth power of two), ticked at every other: the
    panel's third of the text width has no room for a label at each power of four."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator([D for D in strengths if np.log2(D) % 4 == 0]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}" if v >= 1 else f"1/{1 / v:g}"))
    ax.xaxis.set_minor_locator(FixedLocator([D for D in strengths if np.log2(D) % 4 == 2]))
    ax.xaxis.set_minor_formatter(NullFormatter())


def _panel_portrait(
    ax: Any, runs: Runs, largest: float, limits: Paths, threshold: float, layout: Layout
) -> dict[str, Any]:
    """(d) ``α`` against ``c``: each gauge's path at ``D = SHOWN`` (band), the largest D (line) and
    ``D → ∞`` (dashes); markers where the largest-D run reaches ``α = 1 − ε``."""
    out: dict[str, Any] = {}
    for g in GAUGES:
        color = style.GAUGE_COLORS[g]
        for D, kw in ((SHOWN, BAND), (largest, LINE)):
            run = runs[(g, D)]
            keep = _thin(run.coefficient[:, 0], _alpha(run))
            c, a = run.coefficient[keep, 0], _alpha(run)[keep]
            ax.plot(c, a, color=color, solid_capstyle="round", zorder=3, **kw)
            out[_flow(g, D)] = style.series(c, a, D=D)
        keep = _thin(*limits[g])
        c, a = limits[g][0][keep], limits[g][1][keep]
        ax.plot(c, a, zorder=5, **LIMIT)
        out[f"{g}-limit"] = style.series(c, a)
        run = runs[(g, largest)]
        c_at = float(np.interp(style.spec_time(run), run.t, run.coefficient[:, 0]))
        ax.plot([c_at], [threshold], ls="none", marker=style.GAUGE_MARKERS[g], color=color, ms=4.5, zorder=6)
        out[f"{g}-aligned-at"] = style.series([c_at], [threshold], D=largest)
    style.note(ax, r"$\alpha = 1-\varepsilon$", (0.6, threshold), layout, offset=(0, -3), va="top")
    style.note(ax, "$+D$: turn,\nthen grow", (0.15, 0.45), layout, color=style.PLUS)
    style.note(ax, "$-D$: grow,\nthen turn", (0.58, 0.6), layout, ha="right", va="bottom", color=style.MINUS)
    handles = [
        style.line_handle(style.GUIDE, "-", None, f"$D={SHOWN:g}$", **BAND),
        style.line_handle(style.GUIDE, "-", None, f"$D={largest:g}$", **LINE),
        style.line_handle(LIMIT["color"], LIMIT["ls"], None, r"$D\to\infty$", lw=LIMIT["lw"]),
    ]
    ax.legend(handles=handles, loc="lower right", handlelength=1.8)
    ax.set_xlim(0.0, 1.04)
    ax.set_ylim(0.0, 1.04)
    ax.set_xlabel(r"coefficient $c = a\,\|w\|$")
    ax.set_ylabel(r"alignment $\alpha$")
    return out


def _panel_strength(
    ax: Any,
    ax_mid: Any,
    ax_low: Any,
    strengths: np.ndarray,
    runs: Runs,
    dense: Paths,
    gap_limit: float,
    layout: Layout,
    boundary: Boundary,
) -> dict[str, Any]:
    """(e) top: ``Δ(D)`` with the claimed bound and ``Δ_∞``, continued below D = 1 (dashed, where
    the claim is not made) and at D = SHOWN for other θ0; middle, on its own axis: the
    best-rescaling mismatch ``/L(0)``; bottom: the largest distance of each run's path to its
    ``D → ∞`` path, with a ``D⁻²`` guide."""
    pairs = [(runs[("favorable", D)], runs[("unfavorable", D)]) for D in strengths]
    gaps = np.array([_gap(p, q)[0] for p, q in pairs])
    mismatch = np.array([rescaling(p.t, p.loss, q.t, q.loss)[0] for p, q in pairs])
    ends, claim = np.array([strengths[0], strengths[-1]]), np.array([GAP_FROM, strengths[-1]])
    ax.plot(ends, [gap_limit] * 2, zorder=2, **LIMIT)
    ax.plot(strengths, gaps, color=GAP, marker="D", ms=3.6, mfc="white", mew=1.0, lw=1.0, zorder=3)
    low = np.array(sorted(boundary.by_strength), dtype=float)
    low_gaps = np.array([_gap(*boundary.by_strength[D])[0] for D in low])
    if low.size:  # below D = 1, where C5 claims nothing: the gap closes like Δ ∝ D
        ax.plot(
            np.append(low, strengths[0]),
            np.append(low_gaps, gaps[0]),
            color=GAP,
            ls=(0, (2.5, 1.5)),
            marker="D",
            markevery=list(range(low.size)),
            ms=3.6,
            mfc=GAP,
            mew=1.0,
            lw=1.0,
            zorder=3,
        )
    thetas = np.array(sorted(boundary.by_theta0), dtype=float)
    theta_gaps = np.array([_gap(*boundary.by_theta0[t])[0] for t in thetas])
    ax.plot([SHOWN] * thetas.size, theta_gaps, ls="none", marker="o", ms=3.6, color=GAP, zorder=4)
    for t, value in zip(thetas, theta_gaps, strict=True):
        # θ0 as a fraction of π, left of its point (below the Δ(D) line when the point is on it)
        on_line = value >= GAP_BOUND
        style.note(
            ax,
            _angle_label(t),
            (SHOWN, value),
            layout,
            offset=(-4, -6) if on_line else (0, -5),
            ha="right" if on_line else "center",
            va="top",
            color=GAP,
        )
    ax_mid.plot(strengths, mismatch, color=MISMATCH, marker="v", ms=3.8, mfc="white", mew=1.0, lw=1.0, zorder=3)
    ax.plot(claim, [GAP_BOUND] * 2, color=style.GUIDE, ls=":", lw=0.9, zorder=1)
    # direct labels: a legend would cover the series in this short panel (the bound's line starts at
    # the D it is claimed from)
    style.note(
        ax,
        rf"claimed: $\Delta \geq {GAP_BOUND:g}$",
        (claim[-1], GAP_BOUND),
        layout,
        offset=(0, 1),
        ha="right",
        va="bottom",
    )
    style.note(
        ax,
        rf"$D\to\infty$: {gap_limit:.3f}",
        (ends[-1], gap_limit),
        layout,
        offset=(0, 3),
        ha="right",
        va="bottom",
        color=style.THEORY,
    )
    # under the bound, right of the θ0 points: the only corner no series reaches
    style.note(
        ax,
        r"gap $\Delta(D)$; $\bullet$: $\theta_0$ at $D=4$",
        (ends[-1], 0.03),
        layout,
        ha="right",
        va="bottom",
        color=GAP,
    )
    style.note(
        ax_mid,
        "after the best time rescaling",
        (ends[-1], 0.02),
        layout,
        xycoords=("data", "axes fraction"),
        ha="right",
        va="bottom",
        color=MISMATCH,
    )
    _d_axis(ax, np.concatenate([low, strengths]))
    ax.tick_params(labelbottom=False)
    ax.set_ylim(0.0, 0.52)
    ax.set_yticks([0.0, 0.2, 0.4])
    ax.set_ylabel(r"gap $\Delta$")
    _d_axis(ax_mid, np.concatenate([low, strengths]))
    ax_mid.tick_params(labelbottom=False)
    top = 1.15 * float(np.max(mismatch))
    ax_mid.set_ylim(0.0, top)
    ax_mid.set_yticks([0.0, 0.1] if top < 0.25 else [0.0, 0.2])
    ax_mid.set_ylabel(r"mismatch" + "\n" + r"$/\,\mathcal{L}(0)$", fontsize=layout.small)
    out = {
        "gap": style.series(strengths, gaps),
        "mismatch": style.series(strengths, mismatch),
        "gap-limit": style.series(ends, [gap_limit] * 2, value=gap_limit),
        "bound": style.series(claim, [GAP_BOUND] * 2),
        # the drawn dashes: D < 1, then the solid line's first point (D = 1)
        "gap-below-1": style.series(np.append(low, strengths[0]), np.append(low_gaps, gaps[0])) if low.size else {},
        "gap-theta0": style.series([SHOWN] * thetas.size, theta_gaps, theta0=style.tolist(thetas)),
    }
    from matplotlib.ticker import FixedLocator, NullLocator

    for g in GAUGES:
        d = [
            float(np.max(distance_to_path(runs[(g, D)].coefficient[:, 0], _alpha(runs[(g, D)]), *dense[g])))
            for D in strengths
        ]
        ax_low.plot(
            strengths,
            d,
            color=style.GAUGE_COLORS[g],
            marker=style.GAUGE_MARKERS[g],
            ms=3.2,
            lw=0.9,
            mfc="white",
            mew=0.9,
        )
        out[f"{g}-distance"] = style.series(strengths, d)
    gx, gy = style.power_law_guide(ax_low, ends, -2.0, (float(ends[-1]), 0.2 * out["favorable-distance"]["y"][-1]))
    out["guide"] = style.series(gx, gy, slope=-2.0)
    style.note(ax_low, r"$\propto D^{-2}$", (float(gx[0]), float(gy[0])), layout, offset=(4, -7), va="top")
    style.note(
        ax_low,
        r"each path to its $D\to\infty$ path",
        (0.02, 0.04),
        layout,
        xycoords="axes fraction",
        va="bottom",
        color=style.THEORY,
    )
    ax_low.set_yscale("log")
    _d_axis(ax_low, np.concatenate([low, strengths]))
    distances = np.concatenate([out[f"{g}-distance"]["y"] for g in GAUGES]).astype(float)
    top = int(np.ceil(np.log10(np.nanmax(distances))))
    # every third decade: the short axes has room for three labels of 10^k
    decades = np.arange(top, np.log10(np.nanmin(distances)) - 1, -3)
    ax_low.yaxis.set_major_locator(FixedLocator([10.0**k for k in decades]))
    ax_low.yaxis.set_minor_locator(NullLocator())
    ax_low.set_xlabel(r"gauge strength $D$")
    ax_low.set_ylabel("distance")
    return out
