"""Figure 2 — no global clock (claim C5): opposite gauges ``±D`` follow two different paths, and
no rescaling of time maps one loss curve onto the other, however large D is.

Single neuron (``m = 1``), the model's defaults (docs/theory.md, the model). Population gradient flow solid; finite sample (dashed):
gradient flow on the empirical loss ``L_n`` (``n = 10⁴``, the same adaptive solver, no step), a few
seeds, its *population* loss and alignment read against the population ``T_spec`` of its gauge.

(a) ``L(t)/L(0)`` against ``t/T_spec`` at ``D = 4`` (linear axes): at alignment (``t = T_spec``)
    ``+D`` still holds ~21 % of its loss, ``−D`` ~2 %;
(b) ``α = u·v`` against ``t/T_spec``: ``+D`` turns at once and then slows, ``−D`` turns steadily;
(c) ``α`` against the loss level ``ℓ/L(0)`` — the clock-free view, unchanged by any monotone
    reparametrization of time — with ``Δ = max_ℓ |α₊(ℓ) − α₋(ℓ)|`` marked and the ``D → ∞`` curves;
(d) the phase portrait ``α`` against ``c`` at ``D = 4``, the largest D and ``D → ∞``: two paths
    (``+D`` turns, then grows; ``−D`` grows, then turns), each the same for every ``D ≳ 4``;
(e) top: ``Δ(D)``, ``D = 1 … 1024``, with the claimed 0.3 and ``Δ`` at ``D → ∞``, and where the
    claim stops: dashed below D = 1 (``D = 1/16 … 1/2``, the gap closes roughly like ``D``: the
    gauges become alike) and, filled circles at ``D = 4``, ``θ0 = π/4`` (below 0.3) and ``3π/4``.
    Δ is the largest vertical distance ``max_ℓ |α₊(ℓ) − α₋(ℓ)|`` between the two curves of (c).
    Middle, on its own axis: the mismatch left by the best single time rescaling (``/L(0)``). Bottom: the largest
    Euclidean distance in the ``(c, α)`` plane of each run's path to its ``D → ∞`` path,
    ``∝ D⁻²`` (+D) and ``D⁻² log D`` (−D): the paths converge while the gap between them stays;
(f) that best rescaling at ``D = 4``: ``L₊(t)`` against ``L₋(s* t)``; their difference swings to
    ``+`` and ``−`` the same size (the minimax optimum), so no other ``s`` does better.

The main-text version (``MAIN_PANELS``) is (e), (c), (f), lettered (a)–(c).

The ``D → ∞`` paths and ``Δ_∞`` are cached runs of the reduced equations (:mod:`gaugecli.experiments.limits`).
The flow runs are fig3's (``SimulateConfig(gauge=g, strengths=(D,))``): ``plot all`` computes them once.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gaugecli.core.analyses.observables import RunObservables
from gaugecli.core.model.metrics import alignment_vs_loss
from gaugecli.core.model.metrics import time_rescaling_mismatch as rescaling
from gaugecli.core.reduced.planar import planar_loss
from gaugecli.plots import style
from gaugecli.plots._fig2_limit import (
    DENSE_POINTS,
    DRAW_POINTS,
    GAP,
    GAUGES,
    LIMIT,
    LIMIT_DENSE,
    LIMIT_DRAW,
    LOSS_FLOOR,
    MISMATCH,
    SHOWN,
    SIGN,
    Boundary,
    Paths,
    Samples,
    _alpha,
    _flow,
    _gap,
    _panel_portrait,
    _panel_strength,
    _thin,
    limit_paths,
)
from gaugecli.plots._fig2_readings import CAPTION, READING, READINGS, key_numbers
from gaugecli.plots.grid import main_axes
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

__all__ = ["CAPTION", "READING", "READINGS", "build", "needs"]

SIDECAR_TOLERANCES = (
    ("*sample*", 1e-3, 1e-4, "flows on L_n are solved at rtol 1e-4 (solver error 2e-5…6e-5): round-off moves steps"),
    ("*gap*", 1e-4, 1e-6, "Δ: the largest gap of α(ℓ) read between stored samples (interpolation error ≈ 1e-5)"),
)
"""Per-series tolerances of the regeneration check (:mod:`gaugecli.plots.sidecar`)."""

MAIN_PANELS = ("e", "c", "f")
"""The main-text version: the clock-free gap against D with where the claim stops (e), the gap itself
in the clock-free view (c), and the best single time rescaling failing (f)."""
MIN_WIDTH = 5.0
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""

CLAIM = (
    "C5 no global clock: ±D follow two D-independent paths; the clock-free gap Δ(D) ≥ 0.3 and the mismatch "
    "after the best single time rescaling stay Θ(1) as D → ∞"
)
STRENGTHS = {False: tuple(2.0**k for k in range(11)), True: (1.0, 4.0, 16.0, 64.0)}
"""fig3's gauge strengths (the same runs)."""
N_SAMPLES = 10_000
SEEDS = {False: (0, 1, 2), True: (0,)}
"""Finite-sample seeds (each ±D pair at n = 10⁴ costs ~2.5 s on an idle core)."""
X_MAX = 3.0
"""Time window in units of T_spec: by 3 T_spec both runs hold < 0.5 % of their loss."""
LEVEL_MIN = 1e-3
"""(c) draws ``α(ℓ)`` for ``ℓ ≥ 10⁻³ L(0)`` (below, both curves sit at α ≈ 1, on the axis)."""


BOUNDARY_STRENGTHS = {False: (1 / 16, 1 / 8, 1 / 4, 1 / 2), True: (1 / 4,)}
"""Gauge strengths below fig3's D = 1 where (e) follows the gap down (C5 claims D ≥ 4 only)."""
BOUNDARY_THETA0 = {False: (math.pi / 4, 3 * math.pi / 4), True: (math.pi / 4,)}
"""Initial angles besides the default π/2 at which (e) shows the gap at D = 4."""


def _boundary(gauge: str, strength: float, theta0: float | None = None) -> str:
    angle = "" if theta0 is None else f"-theta{theta0 / math.pi:g}pi"
    return f"boundary-{gauge}-D{strength:g}{angle}"


def _sample(gauge: str, seed: int) -> str:
    return f"sample-{gauge}-s{seed}"


def needs(quick: bool) -> dict[str, Need]:
    """fig3's single-neuron flow runs (``±D``, ``D = 2⁰ … 2¹⁰``; quick: ``D ∈ {1, 4, 16, 64}``) and
    the finite-sample flows on ``L_n`` at ``D = 4`` (``n = 10⁴``; seeds 0, 1, 2; quick: seed 0)."""
    from gaugecli.experiments.config import DynamicsConfig
    from gaugecli.experiments.limits import LimitPathsConfig
    from gaugecli.experiments.params import Mode
    from gaugecli.experiments.simulate import SimulateConfig

    out = {
        _flow(g, D): Need("simulate", SimulateConfig(gauge=g, strengths=(D,))) for g in GAUGES for D in STRENGTHS[quick]
    }
    from gaugecli.experiments.config import ModelConfig

    # C5's boundary in (e): the gap below D = 1, and at D = 4 away from θ0 = π/2
    for D in BOUNDARY_STRENGTHS[quick]:
        for g in GAUGES:
            out[_boundary(g, D)] = Need("simulate", SimulateConfig(gauge=g, strengths=(D,)))
    for theta in BOUNDARY_THETA0[quick]:
        for g in GAUGES:
            config = SimulateConfig(model=ModelConfig(theta0=theta), gauge=g, strengths=(SHOWN,))
            out[_boundary(g, SHOWN, theta)] = Need("simulate", config)
    sample = DynamicsConfig(mode=Mode.sample, n_samples=N_SAMPLES)
    for s in SEEDS[quick]:
        for g in GAUGES:
            out[_sample(g, s)] = Need("simulate", SimulateConfig(gauge=g, strengths=(SHOWN,), dynamics=sample, seed=s))
    # the D → ∞ paths: drawn, and measured against (finer), with Δ_∞ between the finer ones
    model = SimulateConfig().model
    for name, points in ((LIMIT_DRAW, DRAW_POINTS), (LIMIT_DENSE, DENSE_POINTS)):
        out[name] = Need("limit-paths", LimitPathsConfig(model.c0, model.theta0, model.a_star, points, LOSS_FLOOR))
    return out


# ------------------------------------------------------------------------------------------
# helpers


def _window(x: np.ndarray, *ys: np.ndarray) -> np.ndarray:
    """Samples with ``x ≤ X_MAX`` and the first beyond (a line reaches the edge), thinned on the axes."""
    keep = x <= X_MAX
    keep[np.flatnonzero(~keep)[:1]] = True
    inside = np.flatnonzero(keep)
    keep[inside[~_thin(x[inside] / X_MAX, *(y[inside] for y in ys))]] = False
    return keep


def _levels(loss: np.ndarray, alpha: np.ndarray, loss0: float) -> tuple[np.ndarray, np.ndarray]:
    """``α(ℓ)`` as drawn in (c): ``ℓ/L(0)`` decreasing (time order), ``ℓ ≥ LEVEL_MIN · L(0)``, thinned."""
    ell, a = alignment_vs_loss(loss, alpha, LOSS_FLOOR)
    ell, a = ell[::-1] / loss0, a[::-1]
    ell, a = ell[ell >= LEVEL_MIN], a[ell >= LEVEL_MIN]
    keep = _thin(ell, a)
    return ell[keep], a[keep]


# ------------------------------------------------------------------------------------------
# panels


def _panel_time(
    ax: Any, flows: dict[str, RunObservables], samples: Samples, y: str, threshold: float, layout: Layout
) -> dict[str, Any]:
    """(a) ``y = "loss"``: ``L/L(0)``; (b) ``y = "alignment"``: ``α``; against ``t/T_spec`` of the
    population flow of each gauge; markers where the flow (filled) and each finite-sample run (open)
    reach ``α = 1 − ε``."""
    loss0 = float(flows["favorable"].loss[0])
    out: dict[str, Any] = {"strength": SHOWN}
    for g in GAUGES:
        run, color, marker = flows[g], style.GAUGE_COLORS[g], style.GAUGE_MARKERS[g]
        T = style.spec_time(run)
        for s, r in [*samples[g].items(), (None, run)]:
            x, v = r.t / T, (r.loss / loss0 if y == "loss" else _alpha(r))
            keep = _window(x, v)
            if s is None:
                ax.plot(x[keep], v[keep], color=color, lw=1.5, zorder=3)
                out[g] = style.series(x[keep], v[keep], t_spec=T)
            else:
                ax.plot(x[keep], v[keep], color=color, ls="--", lw=0.9, zorder=4)
                out[_sample(g, s)] = style.series(x[keep], v[keep], seed=s, t_spec=r.t_spec)
        at = float(np.interp(T, run.t, run.loss)) / loss0 if y == "loss" else threshold
        ax.plot([1.0], [at], ls="none", marker=marker, color=color, ms=4.5, zorder=5)
        out[f"{g}-at-alignment"] = style.series([1.0], [at])
        if y == "loss":
            style.note(
                ax,
                rf"${SIGN[g]}D$: {100 * at:.0f} % left",
                (1.08, 0.47 if g == "favorable" else 0.37),
                layout,
                va="bottom",
                color=color,
            )
        elif samples[g]:
            crossings = [np.nan if r.t_spec is None else r.t_spec / T for r in samples[g].values()]
            level = np.full(len(crossings), at)
            ax.plot(crossings, level, ls="none", marker=marker, mfc="white", mec=color, ms=4.0, mew=0.9, zorder=6)
            out[f"sample-{g}-crossings"] = style.series(crossings, level)
    if y == "loss":
        ax.axvline(1.0, color=style.GUIDE, ls=":", lw=0.8, zorder=0)
        style.note(
            ax,
            r"$\alpha = 1-\varepsilon$",
            (1.0, 1.0),
            layout,
            offset=(3, -2),
            xycoords=("data", "axes fraction"),
            va="top",
        )
        style.note(ax, r"at $t = T_{\rm spec}$:", (1.08, 0.57), layout, va="bottom")
        out["initial_loss"] = loss0
        ax.set_ylabel(r"loss $\mathcal{L}(t)\,/\,\mathcal{L}(0)$")
    else:
        out["threshold"] = threshold
        ax.axhline(threshold, color=style.GUIDE, ls=":", lw=0.8, zorder=0)
        style.note(ax, r"$1-\varepsilon_{\rm align}$", (X_MAX, threshold), layout, offset=(0, -2), ha="right", va="top")
        ax.set_ylabel(r"alignment $\alpha = u\cdot v$")
    ax.set_xlim(0.0, X_MAX)
    ax.set_ylim(0.0, 1.04)
    # each run on its own clock: say so, with the two clocks (their ratio is C4's separation)
    t_specs = {g: style.spec_time(flows[g]) for g in GAUGES}
    out["t_spec"] = t_specs
    ax.set_xlabel(r"$t\,/\,T_{\rm spec}$ of each run")
    ax.set_title(
        rf"$T_{{\rm spec}}$: {t_specs['favorable']:.3g} ($+D$), {t_specs['unfavorable']:.3g} ($-D$)",
        loc="right",
        fontsize=layout.small,
    )
    return out


def _panel_levels(
    ax: Any, flows: dict[str, RunObservables], samples: Samples, limits: Paths, layout: Layout
) -> dict[str, Any]:
    """(c) ``α`` against ``ℓ/L(0)`` (decreasing to the right), the gap Δ marked by an arrow."""
    loss0 = float(flows["favorable"].loss[0])
    out: dict[str, Any] = {"strength": SHOWN}
    for g in GAUGES:
        for s, r in samples[g].items():
            ell, a = _levels(r.loss, _alpha(r), loss0)
            ax.plot(ell, a, color=style.GAUGE_COLORS[g], ls="--", lw=0.9, zorder=4)
            out[_sample(g, s)] = style.series(ell, a, seed=s)
        ell, a = _levels(flows[g].loss, _alpha(flows[g]), loss0)
        ax.plot(ell, a, color=style.GAUGE_COLORS[g], lw=1.5, zorder=3)
        out[g] = style.series(ell, a)
        c, alpha = limits[g]
        theta = np.arccos(np.clip(alpha, -1.0, 1.0))
        ell, a = _levels(planar_loss(c[:, None], theta[:, None]), alpha, loss0)
        ax.plot(ell, a, zorder=5, **LIMIT)
        out[f"{g}-limit"] = style.series(ell, a)
    gap, level, a_plus, a_minus = _gap(flows["favorable"], flows["unfavorable"])
    x = level / loss0
    arrow = {"arrowstyle": "<->", "color": GAP, "lw": 1.0, "shrinkA": 0, "shrinkB": 0}
    ax.annotate("", (x, a_plus), (x, a_minus), arrowprops=arrow, zorder=6)
    style.note(ax, r"$\Delta$", (x, 0.5 * (a_plus + a_minus)), layout, offset=(-3, 0), color=GAP)
    sample_gaps = {f"s{s}": _gap(samples["favorable"][s], samples["unfavorable"][s])[0] for s in samples["favorable"]}
    text = rf"$\Delta = {gap:.3f}$ (population flow)"
    if sample_gaps:
        lo, hi = min(sample_gaps.values()), max(sample_gaps.values())
        text += f"\nfinite sample: {lo:.3f}" + ("" if len(sample_gaps) == 1 else f"–{hi:.3f}")
    style.note(ax, text, (0.98, 0.2), layout, xycoords="axes fraction", ha="right", va="bottom", color=GAP)
    style.note(
        ax, r"decreasing loss $\rightarrow$", (0.98, 0.03), layout, xycoords="axes fraction", ha="right", va="bottom"
    )
    ax.set_xlim(1.02, 0.0)
    ax.set_ylim(0.0, 1.04)
    ax.set_xlabel(r"loss level $\ell\,/\,\mathcal{L}(0)$")
    ax.set_ylabel(r"alignment $\alpha$ at loss $\ell$")
    return {**out, "gap": gap, "gap_arrow": {"loss_level": x, "alpha": [a_minus, a_plus]}, "sample_gap": sample_gaps}


def _panel_rescaling(ax: Any, plus: RunObservables, minus: RunObservables, layout: Layout) -> dict[str, Any]:
    """(f) ``L₊(t)`` and ``L₋(s* t)`` against ``t/T_spec(+D)``, their difference and its ± extremes."""
    mismatch, scale = rescaling(plus.t, plus.loss, minus.t, minus.loss)
    loss0, T = float(plus.loss[0]), style.spec_time(plus)
    x, rescaled = plus.t / T, np.interp(scale * plus.t, minus.t, minus.loss) / loss0
    keep = _window(x, plus.loss / loss0, rescaled)
    x, y_plus, y_minus = x[keep], plus.loss[keep] / loss0, rescaled[keep]
    diff = y_plus - y_minus
    ax.plot(x, y_plus, color=style.PLUS, lw=1.5, zorder=3)
    ax.plot(x, y_minus, color=style.MINUS, ls="-.", lw=1.3, zorder=3)
    ax.fill_between(x, 0.0, diff, color=MISMATCH, alpha=0.18, lw=0, zorder=1)
    ax.plot(x, diff, color=MISMATCH, lw=1.1, zorder=2)
    for sign in (1.0, -1.0):
        ax.plot([0.0, X_MAX], [sign * mismatch] * 2, color=MISMATCH, ls=":", lw=0.8, zorder=1)
        label = rf"${'+' if sign > 0 else '-'}{mismatch:.3f}$"
        style.note(
            ax,
            label,
            (X_MAX, sign * mismatch),
            layout,
            offset=(0, sign),
            ha="right",
            va="bottom" if sign > 0 else "top",
            color=MISMATCH,
        )
    ax.axhline(0.0, color=style.GUIDE, lw=0.5, zorder=0)
    ratio = style.spec_time(minus) / style.spec_time(plus)
    handles = [
        style.line_handle(style.PLUS, "-", None, r"$\mathcal{L}_{+}(t)$"),
        style.line_handle(style.MINUS, "-.", None, rf"$\mathcal{{L}}_{{-}}(s^*t)$, best $s^*={scale:.1f}$"),
        style.line_handle(MISMATCH, "-", None, "difference"),
    ]
    ax.legend(handles=handles, loc="upper right")
    style.note(
        ax,
        rf"($T_{{\rm spec}}$ ratio: {ratio:.1f})",
        (0.98, 0.56),
        layout,
        xycoords="axes fraction",
        ha="right",
        va="top",
    )
    ax.set_xlim(0.0, X_MAX)
    ax.set_ylim(-0.26, 1.04)
    ax.set_xlabel(r"$t\,/\,T_{\rm spec}(+D)$")
    ax.set_ylabel(r"loss $/\,\mathcal{L}(0)$")
    upper, lower = style.series([0.0, X_MAX], [mismatch] * 2), style.series([0.0, X_MAX], [-mismatch] * 2)
    return {
        "strength": SHOWN,
        "plus": style.series(x, y_plus),
        "minus-rescaled": style.series(x, y_minus, scale=scale),
        "difference": style.series(x, diff),
        "upper": upper,
        "lower": lower,
        "mismatch": mismatch,
        "scale": scale,
        "t_spec_ratio": ratio,
        "extremes_at": [float(x[np.argmin(diff)]), float(x[np.argmax(diff)])],
    }


# ------------------------------------------------------------------------------------------
# build


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    """Six panels (3 × 2; (e) in two stacked axes) at the layout's width; the figure and its sidecar."""
    flow_names = [n for n in inputs.configs if not n.startswith(("sample-", "boundary-", "limit-"))]
    strengths = np.array(sorted({inputs.configs[n].strengths[0] for n in flow_names}), dtype=float)
    seeds = sorted({inputs.configs[n].seed for n in inputs.configs if n.startswith("sample-")})
    runs = {(g, float(D)): inputs[_flow(g, D)] for g in GAUGES for D in strengths}
    samples = {g: {s: inputs[_sample(g, s)] for s in seeds} for g in GAUGES}
    missing = [f"{g}-D{D:g}" for (g, D), r in runs.items() if r.t_spec is None]
    if missing:
        raise ValueError(f"fig2: the runs {', '.join(missing)} never specialized; time is read in units of T_spec")
    model = inputs.configs[_flow("favorable", strengths[0])].model
    threshold = 1.0 - model.eps_align
    flows = {g: runs[(g, SHOWN)] for g in GAUGES}
    draw_paths, dense = limit_paths(inputs[LIMIT_DRAW]), limit_paths(inputs[LIMIT_DENSE])
    gap_limit = inputs[LIMIT_DENSE].clock_free_gap

    fig, axes = _axes(layout)
    draw = {
        "a": lambda ax: _panel_time(ax, flows, samples, "loss", threshold, layout),
        "b": lambda ax: _panel_time(ax, flows, samples, "alignment", threshold, layout),
        "c": lambda ax: _panel_levels(ax, flows, samples, draw_paths, layout),
        "d": lambda ax: _panel_portrait(ax, runs, float(strengths[-1]), draw_paths, threshold, layout),
        "e": lambda axs: _panel_strength(
            axs[0], axs[1], axs[2], strengths, runs, dense, gap_limit, layout, _boundary_runs(inputs)
        ),
        "f": lambda ax: _panel_rescaling(ax, flows["favorable"], flows["unfavorable"], layout),
    }
    panels: dict[str, Any] = {letter: draw[letter](ax) for letter, ax in axes.items()}
    for letter, ax in axes.items():
        style.panel_label(ax[0] if letter == "e" else ax, layout.label(letter))
    finite = rf"flow on $\mathcal{{L}}_n$, $n=10^{{{np.log10(N_SAMPLES):.0f}}}$"
    handles = [
        style.line_handle(style.PLUS, "-", "o", r"$+D$ population flow", lw=1.5),
        style.line_handle(style.PLUS, "--", "o", rf"$+D$ {finite}", lw=0.9, mfc="white"),
        style.line_handle(style.MINUS, "-", "s", r"$-D$ population flow", lw=1.5),
        style.line_handle(style.MINUS, "--", "s", rf"$-D$ {finite}", lw=0.9, mfc="white"),
        style.line_handle(LIMIT["color"], LIMIT["ls"], None, r"$D\to\infty$ (reduced equations)", lw=LIMIT["lw"]),
    ]
    other = ", ".join(f"({layout.label(letter)})" for letter in "de" if letter in axes)
    title = (
        rf"$m=1$; $D={SHOWN:g}$ except in {other}. Finite sample: gradient flow on the empirical loss "
        f"(no step), {len(seeds)} seed{'s' if len(seeds) != 1 else ''}"
    )
    fig.legend(handles=handles, loc="outside upper center", ncols=3, title=title, columnspacing=1.4)
    if layout.is_main:  # its numbers are the full figure's sidecar's
        return fig, panels
    panels["legend"] = [h.get_label() for h in handles]
    panels["key"] = key_numbers(panels, strengths, samples, flows, N_SAMPLES)
    return fig, panels


def _axes(layout: Layout) -> tuple[Any, dict[str, Any]]:
    """The panels' axes by letter ((e) is three stacked axes sharing D: gap, mismatch, distance): the
    full figure's 3 × 2 grid, or the main-text version's (:func:`main_axes`)."""
    if layout.is_main:
        fig, axes = main_axes(layout, "abcdef", height=0.8)
    else:
        grid = {"height_ratios": (1.0, 1.0, 1.7)}
        fig, cells = style.new_figure(layout.width, layout.height(1.26), nrows=3, ncols=2, gridspec_kw=grid)
        axes = dict(zip("abcdef", cells.ravel(), strict=True))
    if "e" in axes:
        cell = axes["e"].get_subplotspec().subgridspec(3, 1, height_ratios=(1.2, 0.55, 1.0), hspace=0.0)
        axes["e"].remove()
        top = fig.add_subplot(cell[0])
        mid = fig.add_subplot(cell[1], sharex=top, label="e-mismatch")
        axes["e"] = (top, mid, fig.add_subplot(cell[2], sharex=top, label="e-distance"))
    return fig, axes


def _boundary_runs(inputs: Inputs) -> Boundary:
    """The runs of (e)'s boundary: ``(+D, −D)`` by D below 1, and at D = 4 by θ0."""
    names = [n for n in inputs.configs if n.startswith("boundary-favorable-")]
    by_strength: dict[float, tuple[RunObservables, RunObservables]] = {}
    by_theta: dict[float, tuple[RunObservables, RunObservables]] = {}
    for name in names:
        config = inputs.configs[name]
        pair = (inputs[name], inputs[name.replace("-favorable-", "-unfavorable-", 1)])
        if "-theta" in name:
            by_theta[float(config.model.theta0)] = pair
        else:
            by_strength[float(config.strengths[0])] = pair
    return Boundary(dict(sorted(by_strength.items())), dict(sorted(by_theta.items())))
