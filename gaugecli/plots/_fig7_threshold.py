"""Panel (a) of fig7 — adversarial visible perturbations (claim C8 a): the threshold ε*(D) on a
linear angle axis below the wall ``π − θ0`` (where the +D neuron starts anti-aligned), the ε grid's
outcomes, and the local slopes of the wall distance ``π − θ0 − ε*`` in D on a top axis (they drift:
the approach is not one power law, so no exponent is fitted)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gaugecli.experiments.perturb.visible import exclusive_boundary
from gaugecli.plots import style
from gaugecli.plots._fig7_samples import SHADE, _log2_axis, _nan
from gaugecli.plots.venue import Layout

LEGEND_SHARE = 0.3
"""(a): the top part of the height that the one-row legend takes; the data (every ε below the
wall) stay under it."""
GRID_OUTCOMES = {
    "plus": (style.PLUS, "o", "white"),
    "shared": (style.PLUS, "o", None),
    "minus": (style.MINUS, "s", "white"),
}
"""(a)'s grid markers: colour, marker, face (``None``: filled) per outcome."""


def define_eps(ax: Any, m: int, d: int, layout: Layout) -> dict[str, Any]:
    """(a)'s title: m, d and the adversarial ε — the +D neuron at angle θ0 + ε from v with c0 e^{−ε}/m,
    the other(s) at θ0 − ε with c0 e^{ε}/m (:func:`gaugecli.core.model.gauge.perturbed_duplicates`)."""
    text = rf"$m={m}$, $d={d}$: $+D$ at $\theta_0+\varepsilon$ with $c=c_0e^{{-\varepsilon}}/m$, $-D$ at $\theta_0-\varepsilon$ with $c=c_0e^{{\varepsilon}}/m$"
    ax.set_title(text, loc="right", fontsize=layout.small)
    return {"m": m, "d": d, "favorable": "angle θ0 + ε, c = c0 e^{−ε}/m", "others": "angle θ0 − ε, c = c0 e^{ε}/m"}


def _radian_ticks(ax: Any, wall: float, wall_label: str) -> None:
    """ε ticks at 0, π/8, π/4, 3π/8 and the wall (the angle ε is read against the wall)."""
    from matplotlib.ticker import FixedFormatter, FixedLocator, NullLocator

    if abs(wall - math.pi / 2) < 1e-12:
        ticks, labels = [k * math.pi / 8 for k in range(5)], ["0", r"$\pi/8$", r"$\pi/4$", r"$3\pi/8$", r"$\pi/2$"]
    else:
        ticks, labels = [0.0, wall / 2, wall], ["0", rf"${wall_label}/2$", rf"${wall_label}$"]
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_major_formatter(FixedFormatter(labels))
    ax.yaxis.set_minor_locator(NullLocator())


def panel_threshold(ax: Any, visible: Any, wall: float, wall_label: str, layout: Layout) -> dict[str, Any]:
    """(a) the threshold ε*(D) on a linear angle axis below the wall ``π − θ0``, with its
    bisection brackets, the ε grid's outcomes, and the local slopes of ``π − θ0 − ε*`` in D."""
    from gaugecli.core.analyses.separation import local_slopes

    D = np.array(visible.strengths, dtype=float)
    eps_star = _nan(visible.threshold)
    ok = np.isfinite(eps_star)
    brackets = visible.bracket or [None] * len(D)
    lo = np.array([np.nan if b is None else b[0] for b in brackets])  # the last ε where +D owns
    hi = np.array([np.nan if b is None else b[1] for b in brackets])  # the first where it does not
    out: dict[str, Any] = {}

    # every run of the ε grid, marked by its outcome (deterministic: one run per cell): the +D neuron
    # alone (exclusive), the +D neuron the larger of two that share the feature, or the −D neuron
    outcomes: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in GRID_OUTCOMES}
    for p in visible.points:
        key = "minus" if not p.success else "plus" if p.exclusive or p.nonowner_norm_end is None else "shared"
        outcomes[key][0].append(p.strength)
        outcomes[key][1].append(p.eps)
    for key, (color, marker, face) in GRID_OUTCOMES.items():
        x, y = (np.array(v, dtype=float) for v in outcomes[key])
        ax.plot(x, y, ls="none", marker=marker, ms=2.8, mfc=face or color, mew=0.8, color=color, zorder=3)
        out[f"grid-{key}"] = style.series(x, y)
    out["exclusive"] = exclusive_boundary(visible)

    # the failure region (between the threshold and the wall), the threshold with its brackets, the wall
    ax.fill_between(D[ok], eps_star[ok], wall, color=SHADE, lw=0, zorder=0)
    ax.errorbar(
        D[ok],
        eps_star[ok],
        yerr=[eps_star[ok] - lo[ok], hi[ok] - eps_star[ok]],
        color="0.1",
        lw=0.9,
        marker="D",
        ms=3.4,
        capsize=0,
        zorder=5,
    )
    out["threshold"] = style.series(D[ok], eps_star[ok], bracket_low=lo[ok], bracket_high=hi[ok])
    ax.axhline(wall, color=style.GUIDE, ls="--", lw=0.9, zorder=1)

    # how fast ε* nears the wall: the local slopes of the distance in D (they drift: not one power
    # law), printed on a top axis between the D they join
    Dk, gap = D[ok], wall - eps_star[ok]
    half = 0.5 * np.log((wall - lo[ok]) / (wall - hi[ok]))  # each bracket's half-width in ln(distance)
    mid, local = local_slopes(Dk, gap) if Dk.size >= 2 else (np.array([]), np.array([]))
    out["local_slopes"] = {
        "D_low": style.tolist(Dk[:-1]),
        "D_high": style.tolist(Dk[1:]),
        "D_mid": style.tolist(mid),
        "slope": style.tolist(local),
        "wall_distance": style.tolist(gap),
        # how far a slope can move with both distances inside their bisection brackets:
        # (½ ln(hi/lo) of one + of the other) / ln(D ratio)
        "bracket_resolution": style.tolist((half[:-1] + half[1:]) / np.diff(np.log(Dk))),
    }
    handles = [
        style.line_handle(style.PLUS, "none", "o", "+D alone", mfc="white"),
        style.line_handle(style.PLUS, "none", "o", "+D shares"),
        style.line_handle(style.MINUS, "none", "s", "−D owns", mfc="white"),
        style.line_handle("0.1", "-", "D", r"$\varepsilon^*(D)$"),
        style.line_handle(style.GUIDE, "--", None, rf"wall ${wall_label}$"),
    ]
    ax.legend(
        handles=handles, loc="upper left", ncols=len(handles), handlelength=1.4, columnspacing=1.0, borderaxespad=0.2
    )
    _log2_axis(ax, [d for d in D if math.log(d, 4) % 1 == 0] or D)
    ax.set_xlim(D[0] / 1.4, D[-1] * 1.4)
    ax.set_ylim(-0.06 * wall, wall / (1.0 - LEGEND_SHARE))
    _radian_ticks(ax, wall, wall_label)
    ax.set_xlabel(style.LABELS["D"])
    if mid.size:  # after the x scale: a secondary axis takes its parent's scale when made
        from matplotlib.ticker import FixedFormatter, FixedLocator, NullLocator

        top = ax.secondary_xaxis("top")
        top.xaxis.set_major_locator(FixedLocator(list(mid)))
        top.xaxis.set_major_formatter(FixedFormatter([f"{s:.2f}".replace("-", "−") for s in local]))
        top.xaxis.set_minor_locator(NullLocator())
        top.tick_params(length=2, labelsize=layout.small, pad=1)
        top.set_xlabel(rf"local slope of ${wall_label}-\varepsilon^*$ in $D$", fontsize=layout.small, labelpad=2)
    ax.set_ylabel(r"adversarial turn $\varepsilon$")
    out["wall"] = wall
    return out
