"""Figure ``reln``: what the gated-linear (ReLN) view of Jarvis et al. predicts about the gauge, and
where it fails (``gaugecli reln``; RELATED.md §1).

(a) loss curves at one D, +D above and −D below on one time axis: the ReLU flow, the ReLN gated by
    the teacher's half-space v, the ReLN gated by the start's u0 (stuck at the gate floor L_floor(θ0))
    and the aligned race (the same curve in both halves);
(b) T_spec(ReLN, gate v)/T_spec(ReLU) against D for ±D, with the D → ∞ limits: a constant at +D,
    ``(4 ln D + B)/lim T_ReLU(−D)/D`` at −D;
(c) the separation T_spec(−D)/T_spec(+D) for the ReLU, the ReLN and the race, with both limits
    (``∝ D²`` and ``∝ D² ln D``) — the race is exactly 1: it erases the gauge;
(d) ``select``: the coefficients c_j(t) of the ReLU run and of the ReLN with its final activation pattern;
(e) ReLNs restarted from the ReLU state at t0 with frozen gates: relative error of the time to cut the
    loss k-fold, against t0/T_spec — markers the worst D, bars the range over D; restarts whose gates'
    floor lies above the target never get there (no error exists): drawn in a strip of their own above
    the axis, labelled "never reached", not at a value; restarts whose target is below round-off
    (1e-12) are left out (counted);
(f) the fixed-gate envelope: ReLU time over the fastest fixed gate's, against the loss level ℓ; the
    smallest D light, the larger ones (named above the panel) coincide.

The main-text version (``MAIN_PANELS``) is (b), (c), (e): where the ReLN view keeps the clock, where
its separation departs from the ReLU's, and how far a frozen-gate restart carries.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.experiments.config import ModelConfig
from gaugecli.experiments.reln import RelnConfig, RelnResult
from gaugecli.plots import style
from gaugecli.plots._reln_readings import CAPTION as CAPTION
from gaugecli.plots._reln_readings import CLAIM as CLAIM
from gaugecli.plots._reln_readings import READING as READING
from gaugecli.plots._reln_readings import READINGS as READINGS
from gaugecli.plots._reln_readings import SIDECAR_TOLERANCES as SIDECAR_TOLERANCES
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

MAIN_PANELS = ("b", "c", "e")
"""The main-text version: the ±D clocks (b), the separation (c), the restarts (e)."""
MIN_WIDTH = 5.5
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""


QUICK = RelnConfig(
    model=ModelConfig(d=4),
    strengths=(1.0, 4.0),
    m=3,
    envelope_levels=(0.2, 0.05, 0.02, 0.005),
    psi_step=10.0,
)
"""The quick profile (≈ 1 s): D ∈ {1, 4}, m = 3, a 10° gate grid (d = 4: the flows stay in span(v, u0))."""

CURVES_D = 4.0
"""D of panel (a) (the default's, and the quick profile's)."""

MODELS = ("relu", "reln", "reln_initial", "race")
LINESTYLES: dict[str, style.LineStyleType] = {"relu": "-", "reln": "--", "reln_initial": ":", "race": "-."}
NAMES = {"relu": "ReLU", "reln": r"ReLN, gate $v$", "reln_initial": r"ReLN, gate $u_0$", "race": "aligned race"}
SIGNS = ((1.0, "favorable"), (-1.0, "unfavorable"))
SIGN_NAMES = {"favorable": r"$+D$", "unfavorable": r"$-D$"}
INK = style.THEORY
"""Panel (c) compares models, not gauges: one dark ink (the closed forms' too), the model told by its
marker and the limit by its line."""
MODEL_MARKERS = {"relu": "D", "reln": "v", "race": "X"}
AXES_X = ("axes fraction", "data")
"""Coordinates of a note placed along the axis width at a data height."""


def needs(quick: bool) -> dict[str, Need]:
    return {"reln": Need("reln", QUICK if quick else RelnConfig())}


def _by_delta(items: list[Any]) -> dict[float, Any]:
    return {float(x.delta): x for x in items}


def _strengths(result: RelnResult) -> list[float]:
    return sorted({r.D for r in result.ratios})


# ------------------------------------------------------------------------------------------
# panels


def _panel_curves(axes: tuple[Any, Any], result: RelnResult, D: float, layout: Layout) -> dict[str, Any]:
    """Loss against t (log) at +D (upper half) and −D (lower half, the same time axis); the
    initial-gate ReLN plateaus on L_floor(θ0). Absolute time, so that the race's ±D curves (one and
    the same) sit at the same place in both halves while the ReLU's lie two decades apart."""
    curves, ratios = _by_delta(result.curves), _by_delta(result.ratios)
    out: dict[str, Any] = {"D": D}
    floor = ratios[D].floor_reln_initial
    for ax, (sign, gauge) in zip(axes, SIGNS, strict=True):
        c = curves[sign * D]
        t = c.t[1:]  # t = 0 is not on a log axis
        top = 0.0
        for model in MODELS:
            y = getattr(c, f"loss_{model}")[1:]
            ax.plot(t, y, color=style.GAUGE_COLORS[gauge], ls=LINESTYLES[model], lw=1.1, zorder=2)
            out[f"{model}_{gauge}"] = style.series(t, y)
            top = max(top, float(np.max(y)))
        r = ratios[sign * D]
        out[f"t_spec_{gauge}"] = {model: getattr(r, f"t_spec_{model}") for model in MODELS}
        style.threshold_line(ax, floor)
        ax.set(xscale="log", ylim=(0.0, 1.15 * top), ylabel=rf"loss at ${'+' if sign > 0 else '-'}D$")
    # right of every drop, under the plateau
    style.note(
        axes[1], r"$L_{\rm floor}$", (0.99, floor), layout, offset=(0, -2), xycoords=AXES_X, ha="right", va="top"
    )
    out["gate_floor"] = floor
    out["loss_end_reln_initial"] = {g: ratios[s * D].loss_end_reln_initial for s, g in SIGNS}
    axes[1].set_xlim(1e-2 * ratios[D].t_spec_relu, 20.0 * ratios[-D].t_spec_relu)
    axes[0].tick_params(labelbottom=False)
    axes[1].set_xlabel(style.LABELS["t"])
    axes[0].text(0.97, 0.95, f"$D={D:g}$", transform=axes[0].transAxes, ha="right", va="top")
    return out


def _ratio(num: float | None, den: float | None) -> float:
    return float(num / den) if num is not None and den else float("nan")


def _d_ticks(ax: Any, Ds: Any) -> None:
    """Ticks at the computed D only (a log axis over 1…4 would label 2×10⁰, 3×10⁰, …)."""
    from matplotlib.ticker import NullLocator

    ax.set_xticks(list(Ds), [f"{D:g}" for D in Ds])
    ax.xaxis.set_minor_locator(NullLocator())


def _panel_tspec_ratio(ax: Any, result: RelnResult, layout: Layout) -> dict[str, Any]:
    """T_spec(ReLN, gate v)/T_spec(ReLU) against D for ±D, with the D → ∞ limits: the constant
    ``2 ln(1 + c0/tan θ_ε)/lim D·T_ReLU(+D)`` at +D and ``(4 ln D + B)/lim(T_ReLU(−D)/D)`` at −D."""
    ratios, fits = _by_delta(result.ratios), result.fits
    Ds = np.array(_strengths(result))
    out: dict[str, Any] = {}
    for sign, gauge in SIGNS:
        y = np.array([_ratio(ratios[sign * D].t_spec_reln, ratios[sign * D].t_spec_relu) for D in Ds])
        ax.plot(Ds, y, color=style.GAUGE_COLORS[gauge], marker=style.GAUGE_MARKERS[gauge], ls="none", ms=4.5, zorder=3)
        out[gauge] = style.series(Ds, y)
    grid = np.geomspace(Ds[0], Ds[-1], 60)
    if fits.favorable_ratio_limit is not None:
        lim = np.full_like(grid, fits.favorable_ratio_limit)
        ax.plot(grid, lim, color=style.THEORY, lw=0.8, zorder=2)
        style.note(
            ax,
            rf"$D\to\infty$: {fits.favorable_ratio_limit:.3f}",
            (grid[-1], lim[-1]),
            layout,
            offset=(0, -5),
            ha="right",
            va="top",
            color=None,
        )
        out["favorable_limit"] = style.series(grid, lim)
    if fits.unfavorable_log_asymptote is not None and fits.relu_limits is not None:
        slope, intercept = fits.unfavorable_log_asymptote
        lim = (slope * np.log(grid) + intercept) / fits.relu_limits[1]
        ax.plot(grid, lim, color=style.THEORY, lw=0.8, zorder=2)
        text = "$D\\to\\infty$:\n" + rf"$({slope:g}\ln D + {intercept:.1f})/{fits.relu_limits[1]:.1f}$"
        style.note(ax, text, (0.03, 0.97), layout, xycoords="axes fraction", va="top", color=None)
        out["unfavorable_limit"] = style.series(grid, lim)
    style.threshold_line(ax, 1.0)
    ax.set(xscale="log", xlabel=r"gauge strength $D$", ylabel=r"$T_{\rm spec}$: ReLN / ReLU")
    ax.set_ylim(0.0, None)
    _d_ticks(ax, Ds)
    out["favorable_ratio"] = out["favorable"]["y"]
    out["favorable_ratio_limit"] = fits.favorable_ratio_limit
    out["unfavorable_ratio"] = out["unfavorable"]["y"]
    return out


def _panel_separation(ax: Any, result: RelnResult, layout: Layout) -> dict[str, Any]:
    """T_spec(−D)/T_spec(+D) against D for the ReLU, the ReLN (gate v) and the race, with the limits
    ``(lim T_ReLU(−D)/D)/(lim D·T_ReLU(+D)) D²`` and ``D² (4 ln D + B)/lim D·T_ReLN(+D)``; each model
    labelled beside its points (ReLN above-left, ReLU below-right, the race above its line)."""
    ratios, fits = _by_delta(result.ratios), result.fits
    Ds = np.array(_strengths(result))
    out: dict[str, Any] = {}
    big = Ds >= 4.0
    for model in ("reln", "relu", "race"):
        key = f"t_spec_{model}"
        y = np.array([_ratio(getattr(ratios[-D], key), getattr(ratios[D], key)) for D in Ds])
        ax.plot(
            Ds,
            y,
            ls="none",
            marker=MODEL_MARKERS[model],
            ms=4.5,
            color=INK,
            mec=INK,
            mfc="white" if model == "reln" else INK,
            zorder=3,
        )
        slope = style.loglog_fit(Ds[big], y[big])[0] if model != "race" else 0.0
        out[model] = style.series(Ds, y, slope_D_ge_4=slope if np.count_nonzero(big) >= 2 else None)
    grid = np.geomspace(Ds[0], Ds[-1], 60)
    names = {"reln": "ReLN", "relu": "ReLU"}
    if fits.relu_limits is not None:
        fav, unfav = fits.relu_limits
        guide = unfav / fav * grid**2
        ax.plot(grid, guide, color=style.GUIDE, ls=":", lw=1.0, zorder=1)
        out["relu_limit"] = style.series(grid, guide, coefficient=unfav / fav)
        names["relu"] += "\n" + rf"$\to {unfav / fav:.2f}\,D^2$"
    if fits.unfavorable_log_asymptote is not None and fits.relu_limits is not None and fits.favorable_ratio_limit:
        slope, intercept = fits.unfavorable_log_asymptote
        reln_plus = fits.favorable_ratio_limit * fits.relu_limits[0]  # lim D·T_ReLN(+D)
        lim = grid**2 * (slope * np.log(grid) + intercept) / reln_plus
        ax.plot(grid, lim, color=style.THEORY, lw=0.8, zorder=2)
        out["reln_limit"] = style.series(grid, lim)
        names["reln"] += "\n" + r"$\propto D^2\ln D$"
    mid = float(grid[len(grid) // 2])
    for model, offset, ha, va in (("reln", (-4, 4), "right", "bottom"), ("relu", (5, -5), "left", "top")):
        at = float(np.exp(np.interp(np.log(mid), np.log(Ds), np.log(out[model]["y"]))))
        style.note(ax, names[model], (mid, at), layout, offset=offset, ha=ha, va=va, color=None, multialignment=ha)
    style.note(
        ax, r"race $\equiv 1$", (0.5, 1.0), layout, offset=(0, 3), xycoords=AXES_X, ha="center", va="bottom", color=None
    )
    style.threshold_line(ax, 1.0)
    ax.set(xscale="log", yscale="log", xlabel=r"gauge strength $D$", ylabel=r"$T_{\rm spec}(-D)\,/\,T_{\rm spec}(+D)$")
    ax.set_ylim(0.3, None)
    _d_ticks(ax, Ds)
    out["race_ratio"] = out["race"]["y"]
    out["unfavorable_log_fit"] = fits.unfavorable_log_fit
    out["unfavorable_log_asymptote"] = fits.unfavorable_log_asymptote
    return out


def _panel_select(ax: Any, result: RelnResult) -> dict[str, Any]:
    """``select``: c_j(t) of the ReLU run (solid, wide, light) and of the final-pattern ReLN (dashed)."""
    s = result.select
    out: dict[str, Any] = {}
    t = s.t[1:]
    for j in range(s.m):
        color = style.GAUGE_COLORS["favorable" if j == s.designated else "unfavorable"]
        ax.plot(t, s.c_relu[1:, j], color=color, ls=LINESTYLES["relu"], lw=2.6, alpha=0.45)
        ax.plot(t, s.c_reln[1:, j], color=color, ls=LINESTYLES["reln"], lw=1.1)
        out[f"c_relu_{j}"] = style.series(t, s.c_relu[1:, j])
        out[f"c_reln_{j}"] = style.series(t, s.c_reln[1:, j])
    ax.text(
        0.03,
        0.78,
        "ReLN vs ReLU:\n"
        + rf"$\max|\Delta\mathcal{{L}}|={100 * s.max_abs_dloss_over_l0:.1f}\%$"
        + "\n"
        + r"of $\mathcal{L}(0)$",
        transform=ax.transAxes,
        ha="left",
        va="top",
    )
    ax.text(0.03, 0.97, f"owner $j={s.owner_relu}$ ($+D$)", transform=ax.transAxes, ha="left", va="top")
    ax.text(0.97, 0.12, f"{s.m - 1} non-owners ($-D$)", transform=ax.transAxes, ha="right", va="bottom")
    ax.set(xscale="log", xlabel=style.LABELS["t"], ylabel=r"coefficient $c_j(t)$")
    ax.set_xlim(1e-2 * (s.t_spec_relu or 1.0), t[-1])
    out.update({key: getattr(s, key) for key in SELECT_NUMBERS})
    return out


SELECT_NUMBERS = (
    "m", "D", "designated", "owner_relu", "owner_reln", "owner_reln_shared", "t_spec_relu", "t_spec_reln",
    "max_abs_dloss_over_l0", "nonowner_norm_end", "nonowner_norm_end_relu", "nonowner_norm_end_shared",
)  # fmt: skip
"""The select comparison's key numbers, copied to the sidecar."""


def _panel_restart(axes: tuple[Any, Any], result: RelnResult, layout: Layout) -> dict[str, Any]:
    """|relative error| of the restarted ReLN's time to L(t0)/k against t0/T_spec: the largest over D
    (markers, filled k = smallest level), the range over D (bars); restarts stopped by their gates'
    floor (L_floor > L(t0)/k) in the strip above (``axes = (strip, errors)``): they have no error."""
    strip, ax = axes
    from matplotlib.ticker import NullLocator

    out: dict[str, Any] = {}
    levels = sorted({x.level for x in result.restart})
    t0s = sorted({x.t0_over_t_spec for x in result.restart})
    offsets = np.linspace(-0.07, 0.07, 2 * len(levels))  # side by side at each t0 (log-x shift)
    hits_all: list[dict[str, Any]] = []
    i = 0
    for sign, gauge in SIGNS:
        color, marker = style.GAUGE_COLORS[gauge], style.GAUGE_MARKERS[gauge]
        for level in levels:
            rows = [x for x in result.restart if x.level == level and np.sign(x.delta) == sign]
            shift = float(np.exp(offsets[i]))
            i += 1
            xs, worst, least, hits = [], [], [], []
            for k in t0s:
                errs = [abs(x.rel_error) for x in rows if x.t0_over_t_spec == k and x.rel_error is not None]
                if errs:
                    xs.append(k * shift)
                    worst.append(max(errs))
                    least.append(min(errs))
                floor = [x.D for x in rows if x.t0_over_t_spec == k and x.resolved and x.time_reln is None]
                if floor:
                    hits.append(k)
                    hits_all.append({"gauge": gauge, "level": level, "t0_over_t_spec": k, "D": floor})
            face = color if level == levels[0] else "white"
            x_arr, w_arr, l_arr = np.array(xs), np.array(worst), np.array(least)
            key = f"{gauge}_k{level:g}"
            if x_arr.size:
                ax.vlines(x_arr, l_arr, w_arr, color=color, lw=0.7)
                ax.plot(x_arr, w_arr, color=color, marker=marker, mfc=face, mec=color, ls="-", lw=0.7, ms=4.0)
                out[key] = style.series(x_arr, w_arr, min_over_D=l_arr)
            if hits:
                # no error exists: the frozen gates' floor lies above L(t0)/k, so the restart never gets
                # there (every D alike; sidecar floor_hits) — drawn in the strip, at no value
                hx = np.array(hits) * shift
                hy = np.zeros(hx.size)
                strip.plot(hx, hy, ls="none", marker=marker, mfc=face, mec=color, ms=4.0)
                out[f"{key}_floor"] = style.series(hx, hy)
    strip.set_ylim(-1.0, 1.0)
    strip.set_yticks([])
    strip.tick_params(axis="x", bottom=False, labelbottom=False)
    strip.spines["bottom"].set_linestyle((0, (2, 2)))  # the error axis does not continue into the strip
    strip.set_title("never reached", loc="right", fontsize=layout.small)
    key = f"worst $D$, bars: all $D$\nfilled $k={levels[0]:g}$" + (f", open {levels[-1]:g}" if len(levels) > 1 else "")
    ax.text(0.97, 0.97, key, transform=ax.transAxes, ha="right", va="top")
    ax.set(
        xscale="log",
        yscale="log",
        xlabel=r"restart time $t_0/T_{\rm spec}$",
        ylabel=r"error of time to $\mathcal{L}(t_0)/k$",
    )
    ax.set_ylim(3e-5, 30.0)  # the top two decades hold the key: no error reaches 1
    ax.set_xlim(min(t0s) / 1.4, max(t0s) * 1.4)
    ax.set_xticks(t0s, [f"{k:g}" for k in t0s])
    ax.xaxis.set_minor_locator(NullLocator())
    out["floor_hits"] = hits_all
    out["max_error_by_t0"] = {
        f"{k:g}": max(
            (abs(x.rel_error) for x in result.restart if x.t0_over_t_spec == k and x.rel_error is not None),
            default=None,
        )
        for k in t0s
    }
    out["unresolved"] = sum(1 for x in result.restart if not x.resolved)
    return out


def _panel_envelope(ax: Any, result: RelnResult, layout: Layout) -> dict[str, Any]:
    """t_ReLU(ℓ)/min_ψ t_ψ(ℓ) against ℓ (decreasing to the right: the run's progress) for every ±D;
    the smallest D light (open markers), the others coincide."""
    out: dict[str, Any] = {}
    Ds = _strengths(result)
    for e in sorted(result.envelope, key=lambda e: (-np.sign(e.delta), e.D)):
        gauge = style.gauge_of(e.delta)
        light = e.D == Ds[0] and len(Ds) > 1
        color = style.GAUGE_COLORS[gauge]
        y = np.array(e.ratio, dtype=float)
        ax.plot(
            e.levels,
            y,
            color=color,
            marker=style.GAUGE_MARKERS[gauge],
            ms=3.5,
            lw=0.9,
            alpha=0.5 if light else 1.0,
            mfc="white" if light else color,
        )
        out[f"delta_{e.delta:+g}"] = style.series(e.levels, y, psi_best_deg=e.psi_best_deg)
        if light and gauge == "unfavorable":
            style.note(
                ax, f"$D={e.D:g}$", (e.levels[-1], y[-1]), layout, offset=(0, -4), ha="right", va="top", color=color
            )

    style.threshold_line(ax, 1.0)
    ax.set(xscale="log", xlabel=r"loss level $\ell$", ylabel=r"$t_{\rm ReLU}(\ell)\,/\,\min_\psi t_\psi(\ell)$")
    levels = [ell for e in result.envelope for ell in e.levels]
    ax.set_xlim(max(levels) * 1.25, min(levels) / 1.25)  # ℓ falls as the run progresses: left to right
    if len(Ds) > 1:  # the larger D coincide: named once, above the panel
        others = ", ".join(f"{D:g}" for D in Ds[1:])
        ax.set_title(f"dark: $D={others}$", loc="right", fontsize=layout.small)
    ax.text(0.97, 0.97, "ReLU slower than\nthe best fixed gate", transform=ax.transAxes, ha="right", va="top")
    ax.text(0.03, 0.03, "ReLU faster:\nits gate moves", transform=ax.transAxes, ha="left", va="bottom")
    return out


# ------------------------------------------------------------------------------------------


def _legend(fig: Any, models: list[str]) -> None:
    handles = [style.line_handle(INK, LINESTYLES[m], None, NAMES[m]) for m in models]
    handles += [style.line_handle(style.GAUGE_COLORS[g], "-", style.GAUGE_MARKERS[g], SIGN_NAMES[g]) for _, g in SIGNS]
    fig.legend(handles=handles, loc="outside upper center", ncols=6, handlelength=2.2, columnspacing=1.0)


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    import matplotlib

    result: RelnResult = inputs["reln"]
    with matplotlib.rc_context({"font.size": layout.small}):  # annotations at the small size, labels at text
        return _build(result, layout)


def _build(result: RelnResult, layout: Layout) -> tuple[Any, dict[str, Any]]:
    if layout.is_main:
        from gaugecli.plots.grid import main_axes

        fig, axes = main_axes(layout, "abcdef", height=0.75)
    else:
        fig, grid = style.new_figure(layout.width, layout.height(0.78), nrows=2, ncols=3)
        axes = dict(zip("abcdef", grid.ravel(), strict=True))
    # (a) in two halves, +D above −D on one time axis: eight curves in one box overprinted; (e) under a
    # strip for the restarts that never reach their target
    for letter, ratios in (("a", (1.0, 1.0)), ("e", (0.22, 1.0))):
        if letter in axes:
            halves = axes[letter].get_subplotspec().subgridspec(2, 1, hspace=0.05, height_ratios=ratios)
            axes[letter].remove()
            upper = fig.add_subplot(halves[0])
            axes[letter] = (upper, fig.add_subplot(halves[1], sharex=upper, label=f"{letter}-lower"))
    D = CURVES_D if CURVES_D in _strengths(result) else _strengths(result)[-1]
    draw = {
        "a": lambda ax: _panel_curves(ax, result, D, layout),
        "b": lambda ax: _panel_tspec_ratio(ax, result, layout),
        "c": lambda ax: _panel_separation(ax, result, layout),
        "d": lambda ax: _panel_select(ax, result),
        "e": lambda ax: _panel_restart(ax, result, layout),
        "f": lambda ax: _panel_envelope(ax, result, layout),
    }
    panels = {letter: draw[letter](ax) for letter, ax in axes.items()}
    for letter, ax in axes.items():
        style.panel_label(ax[0] if isinstance(ax, tuple) else ax, layout.label(letter))
    _legend(fig, [m for m in MODELS if m != "reln_initial" or "a" in axes])
    if not layout.is_main:
        panels["identity_error"] = {"value": result.identity_error, "states": result.identity_states}
    return fig, panels
