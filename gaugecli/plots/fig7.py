"""Figure 7 — robustness of selection (claim C8), one cause per panel.

Two ``perturb`` runs (SPEC defaults, m = 2: neuron 0 at ``+D``, neuron 1 at ``−D``, d = 16),
the default one for (a)–(d) and a random visible one for (e):

(a) visible perturbations, adversarial (the favorable neuron turned by ε away from the teacher
    and shrunk, the other turned towards it and grown; deterministic in ε, so a *threshold*,
    not a probability). ε is an angle and the favorable neuron points straight away from the
    teacher at ``ε = π − θ0`` (= π/2): the claim "ε*(D) grows with D" is the distance to that
    wall, ``π − θ0 − ε*(D)``, shrinking — on log–log axes with the bisection brackets, a
    least-squares slope ± s.e. over ``D ≥ 4``, and every grid run marked by who owns the
    feature at the end. Boundary: the wall itself is never reached; below the curve the ``−D``
    neuron wins. The approach is not one power law (local slopes drift from −0.93 at D = 4–16
    to −0.75 at D = 256–1024); the legend says so. ε* is the end of the *majority* (the +D
    neuron the owner); filled grid markers are runs where it owns but shares the feature (the
    other neuron's P at the run's end above :data:`~gaugecli.experiments.perturb.visible.EXCLUSIVE_LEVEL`):
    exclusive selection ends one or two grid cells earlier at several D (sidecar ``exclusive``). The title
    says what ε does: the +D neuron at angle θ0 + ε with c0 e^{−ε}/m, the other at θ0 − ε with c0 e^{ε}/m.
(b) the step alone: the relative T_spec error of population GD against ``η/T_spec^flow`` on
    log–log axes, the first-order line ``C_1 η`` with ``C_1`` the error per step as η → 0, the
    observed order as η → 0 ± its error; larger steps up to and past the stability limit
    ``2/λ_max(θ0)`` (marked, shaded beyond): GD selects up to 0.9 × the limit and diverges beyond.
(c) the sample alone: ``sup_{t ≤ 3 T_spec} ‖f_n − f_∞‖`` of the finite-sample *flow* against n
    (every seed, mean ± s.e.), the weighted power-law fit with slope ± s.e., an ``n^{-1/2}``
    guide (and GD on ``L_n`` at η and η/2 if the run has that check).
(d) selection from a finite sample: the share of seeds whose ``+D`` neuron owns the feature,
    with 95 % Wilson intervals, against n; the smallest n from which every seed selects.
(e) random visible perturbations (a second run, ``perturb --kind random --sweeps visible``:
    :func:`random_config`): per D, the share of 20 seeds whose ``+D`` neuron owns the feature
    (filled) and the share where it carries it alone (hollow: the other's P at the run's end
    ≤ :data:`~gaugecli.experiments.perturb.visible.EXCLUSIVE_LEVEL`), with 95 % Wilson intervals,
    against ε; the reading (computed): up to which ε every seed selects, and the failing starts
    by cause — another neuron owns, or the start (coefficients ≫ a*) unwinds into a cancelling
    pair that the default horizon does not see settle. Boundary: the grid stops at
    ε = 12, where the gauge is still resolved in float64 (:data:`~gaugecli.plots._fig7_random.RANDOM_EPS`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from gaugecli.experiments.perturb.visible import exclusive_boundary
from gaugecli.plots import style
from gaugecli.plots._fig7_random import define_random, panel_random, random_config
from gaugecli.plots._fig7_samples import (
    GD,
    SHADE,
    _log2_axis,
    _nan,
    _panel_samples,
    _panel_selection,
    _pm,
)
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

if TYPE_CHECKING:
    from gaugecli.experiments.perturb import PerturbConfig

CLAIM = (
    "C8 robustness: selection survives adversarial perturbations up to ε*(D) → π/2, GD steps up to the stability "
    "limit (T_spec error first order in η), finite samples (deviation ∝ n^-1/2; every seed selects above some n), "
    "and random perturbations of moderate size ε (every seed selects)"
)


def quick_config() -> PerturbConfig:
    """The quick profile (tests): every sweep valid but small — three D with a coarse ε grid and
    three bisections, five doubling steps (η → 0 limits through the three smallest, the order from
    four local orders), three sample sizes × three seeds, two sizes × three seeds for selection,
    population flows at rtol 1e-8 (T_spec within 7e-9 of rtol 1e-12). ~4.5 s on one core."""
    from gaugecli.experiments.config import DynamicsConfig
    from gaugecli.experiments.perturb import PerturbConfig

    return PerturbConfig(
        eps=(0.0, 1.2, 1.5, 1.56),
        strengths=(4.0, 16.0, 64.0),
        refine=3,
        step_fractions=(0.0025, 0.005, 0.01, 0.02, 0.04),
        stability_fractions=(0.3, 0.9, 1.2),
        ns=(500, 2000, 8000),
        sample_seeds=(0, 1, 2),
        window=1.0,
        success_ns=(24, 96),
        success_seeds=(0, 1, 2),
        dynamics=DynamicsConfig(rtol=1e-8),
    )


FIT_MIN = 4.0
"""(a): the wall distance is fitted over ``D ≥ FIT_MIN`` (D = 1 is not yet on the asymptote)."""

SIDECAR_TOLERANCES = (
    ("key/*_minus_*", 1e-6, 1e-7, "a difference of two extrapolated times, each to ≈ 1e-9 relative of T ≈ 10"),
    (
        "c/*",
        1e-3,
        1e-4,
        "finite-sample flows are integrated at rtol 1e-4 (SAMPLE_RTOL): a state is good to ≈ 1e-4 relative, so a "
        "deviation between functions of norm ≈ 1, or a T_spec ratio, to ≈ 1e-4 absolute (LSODA against RK23: 3.2e-5)",
    ),
    ("key/deviation*", 1e-3, 1e-4, "as c/*"),
    ("key/sample*", 1e-3, 1e-4, "as c/*"),
    ("d/*", 0.0, 1e-12, "selection counts and their Wilson intervals are exact"),
    (
        "*/max_gauge_drift",
        0.0,
        1e-4,
        "round-off of δ = ±D against coefficients up to 2e9: the reading is its size (≪ 1 % of D), not its digits",
    ),
    ("*/unsettled_share", 1e-6, 1e-9, "a coefficient at the horizon, from flows at rtol 1e-10 (the default)"),
    ("e/*", 0.0, 1e-12, "as d/*: counts of runs decided far from their boundaries (P_end ≥ 1.3× or ≤ 0.77× the level)"),
)
"""Per-series tolerances of the regeneration check (:mod:`gaugecli.plots.sidecar`)."""


def needs(quick: bool) -> dict[str, Need]:
    """Two ``perturb`` runs: the default :class:`PerturbConfig` (``gaugecli perturb`` with no
    options, so the command and the figure share it), or :func:`quick_config`; and
    :func:`random_config` for (e)."""
    from gaugecli.experiments.perturb import PerturbConfig

    return {
        "perturb": Need("perturb", quick_config() if quick else PerturbConfig()),
        "perturb_random": Need("perturb", random_config(quick)),
    }


# ------------------------------------------------------------------------------------------
# helpers


# ------------------------------------------------------------------------------------------
# panels


LEGEND_SHARE = 0.66
"""(a): the part of the height (from the bottom) that the legend takes; the data stay above it."""
GRID_OUTCOMES = {
    "plus": (style.PLUS, "o", "white"),
    "shared": (style.PLUS, "o", None),
    "minus": (style.MINUS, "s", "white"),
}
"""(a)'s grid markers: colour, marker, face (``None``: filled) per outcome."""


def _define_eps(ax: Any, m: int, layout: Layout) -> dict[str, Any]:
    """(a)'s title: m and the adversarial ε — the +D neuron at angle θ0 + ε from v with c0 e^{−ε}/m,
    the other(s) at θ0 − ε with c0 e^{ε}/m (:func:`gaugecli.core.gauge.perturbed_duplicates`)."""
    text = rf"$m={m}$: $\pm D$ at $\theta_0\pm\varepsilon$, $c=c_0e^{{\mp\varepsilon}}/m$"
    ax.set_title(text, loc="right", fontsize=layout.small)
    return {"m": m, "favorable": "angle θ0 + ε, c = c0 e^{−ε}/m", "others": "angle θ0 − ε, c = c0 e^{ε}/m"}


def _panel_threshold(ax: Any, visible: Any, wall: float, wall_label: str, layout: Layout) -> dict[str, Any]:
    """(a) the wall distance ``π − θ0 − ε*(D)`` with brackets, fit and the grid's outcomes."""
    from scipy import stats

    D = np.array(visible.strengths, dtype=float)
    eps_star = _nan(visible.threshold)
    gap = wall - eps_star
    ok = np.isfinite(gap)
    brackets = visible.bracket or [None] * len(D)
    lo = np.array([np.nan if b is None else wall - b[1] for b in brackets])  # failing side: smaller gap
    hi = np.array([np.nan if b is None else wall - b[0] for b in brackets])
    out: dict[str, Any] = {}

    # every run of the ε grid, marked by its outcome (deterministic: one run per cell): the +D neuron
    # alone (exclusive), the +D neuron the larger of two that share the feature, or the −D neuron
    outcomes: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in GRID_OUTCOMES}
    for p in visible.points:
        key = "minus" if not p.success else "plus" if p.exclusive or p.nonowner_norm_end is None else "shared"
        outcomes[key][0].append(p.strength)
        outcomes[key][1].append(wall - p.eps)
    for key, (color, marker, face) in GRID_OUTCOMES.items():
        x, y = (np.array(v, dtype=float) for v in outcomes[key])
        ax.plot(x, y, ls="none", marker=marker, ms=2.8, mfc=face or color, mew=0.8, color=color, zorder=3)
        out[f"grid-{key}"] = style.series(x, y)
    out["exclusive"] = exclusive_boundary(visible)

    # the failure region (below the threshold) and the threshold itself, with its brackets
    floor = float(np.nanmin(gap)) / 20.0 if np.any(ok) else 1e-4
    # the legend (lower left, six rows) goes under every point of the left half: the axis reaches
    # low enough that those points sit in its top 1 − LEGEND_SHARE (log scale)
    left = D <= np.sqrt(D[0] * D[-1])
    grid_y = np.array([wall - p.eps for p in visible.points if p.strength <= np.sqrt(D[0] * D[-1])], dtype=float)
    lowest = float(np.nanmin(np.concatenate([grid_y, gap[left & ok]]))) if grid_y.size or np.any(left & ok) else floor
    top = wall * 1.6
    floor = min(floor, lowest * (lowest / top) ** (LEGEND_SHARE / (1.0 - LEGEND_SHARE)))
    ax.fill_between(D[ok], floor / 10.0, gap[ok], color=SHADE, lw=0, zorder=0)
    ax.errorbar(
        D[ok],
        gap[ok],
        yerr=[gap[ok] - lo[ok], hi[ok] - gap[ok]],
        ls="none",
        color="0.1",
        marker="D",
        ms=3.4,
        capsize=0,
        zorder=5,
    )
    out["threshold"] = style.series(D[ok], gap[ok], eps_star=eps_star[ok], bracket_low=lo[ok], bracket_high=hi[ok])

    # the least-squares line over D ≥ FIT_MIN, and the local slopes between neighbours
    fit_range = ok & (D >= FIT_MIN)
    fit: dict[str, Any] = {}
    if np.count_nonzero(fit_range) >= 3:
        reg = stats.linregress(np.log(D[fit_range]), np.log(gap[fit_range]))
        xs = D[fit_range]
        ys = np.exp(reg.intercept) * xs**reg.slope
        ax.plot(xs, ys, color=style.GUIDE, lw=1.2, zorder=4)
        fit = {"slope": float(reg.slope), "stderr": float(reg.stderr), "fit_min": FIT_MIN, "n": int(xs.size)}
        out["fit"] = style.series(xs, ys, **fit, intercept=float(reg.intercept))
    Dk, gk = D[ok], gap[ok]
    local = np.diff(np.log(gk)) / np.diff(np.log(Dk))
    out["local_slopes"] = {k: style.tolist(v) for k, v in (("D_low", Dk[:-1]), ("D_high", Dk[1:]), ("slope", local))}
    handles = [
        style.line_handle(style.PLUS, "none", "o", "ε grid: +D alone", mfc="white"),
        style.line_handle(style.PLUS, "none", "o", "+D shares, $P_{\\rm end}>10^{-6}$"),
        style.line_handle(style.MINUS, "none", "s", "ε grid: −D owns", mfc="white"),
        style.line_handle("0.1", "none", "D", rf"threshold ${wall_label}-\varepsilon^*(D)$"),
    ]
    if fit:
        slope_text = _pm(fit["slope"], fit["stderr"], 2)
        handles.append(style.line_handle(style.GUIDE, "-", None, rf"slope {slope_text}, $D\geq{FIT_MIN:g}$"))
        tail = local[Dk[:-1] >= FIT_MIN]
        if tail.size >= 2:  # the approach to the wall is not one power law: say how the slope drifts
            drift = f"local slope {tail[0]:.2f} → {tail[-1]:.2f}".replace("-", "−")
            handles.append(style.line_handle("none", "none", None, drift))
    ax.legend(handles=handles, loc="lower left", handlelength=1.4, borderaxespad=0.2)
    _log2_axis(ax, [d for d in D if math.log(d, 4) % 1 == 0] or D)
    ax.set_yscale("log")
    ax.set_ylim(floor, top)
    ax.set_xlim(D[0] / 1.4, D[-1] * 1.4)
    ax.set_xlabel(style.LABELS["D"])
    ax.set_ylabel(rf"distance to the wall ${wall_label}-\varepsilon$")
    out["wall"] = wall
    return out


def _panel_step(ax: Any, step: Any, layout: Layout) -> dict[str, Any]:
    """(b) the relative ``T_spec`` error of population GD against ``η/T_spec^flow`` (log–log):
    the resolved steps with the quadratic fit, the first-order line ``C_1 η``, larger steps up to
    and past the stability limit ``2/λ_max(θ0)`` (marked, shaded beyond)."""
    t_flow = float(step.t_spec_flow)
    bound = float(step.stable_bound) / t_flow
    x = np.array(step.etas, dtype=float) / t_flow
    y = (_nan(step.t_spec_gd) - t_flow) / t_flow
    stab = np.array(step.stability_etas, dtype=float) / t_flow
    out: dict[str, Any] = {}
    left, right = float(x.min()) / 2.0, max(float(stab.max()) if stab.size else bound, bound) * 2.0
    handles = []

    # beyond the stability limit at θ0: shaded, the limit marked
    ax.axvspan(bound, right, color=SHADE, lw=0, zorder=0)
    ax.axvline(bound, color=style.GUIDE, ls=":", lw=0.9, zorder=1)
    style.note(
        ax,
        r"$2/\lambda_{\max}(\theta_0)$",
        (bound, 0.03),
        layout,
        offset=(-2, 0),
        xycoords=("data", "axes fraction"),
        ha="right",
        va="bottom",
    )

    # the resolved steps and the first-order line C₁η, C₁ their error per step as η → 0
    ax.plot(x, y, ls="none", marker="o", ms=3.6, color=GD, zorder=4)
    out["resolved"] = style.series(x, y, error_per_step=_nan(step.error_per_step))
    handles.append(style.line_handle(GD, "none", "o", r"GD, $\eta\leq0.04\,T_{\rm spec}$"))
    if step.first_order is not None:
        C1 = float(step.first_order)
        gx, gy = style.power_law_guide(ax, [left, bound], 1.0, (1.0, C1))
        out["first_order"] = style.series(gx, gy, value=C1, error=step.first_order_err)
        handles.append(style.line_handle(style.GUIDE, ":", None, rf"$C_1\eta$, $C_1={C1:.5f}$"))
    if step.order is not None:
        style.note(
            ax,
            r"order as $\eta\to0$:" + "\n" + _pm(float(step.order), float(step.order_err), 5),
            (bound, 0.14),
            layout,
            offset=(-3, 0),
            xycoords=("data", "axes fraction"),
            ha="right",
            va="bottom",
            color="0.15",
            multialignment="right",
        )

    # larger steps as fractions of the limit: selected (hollow), not selected (+), diverged (× on top)
    t_stab = _nan(step.stability_t_spec) if step.stability_t_spec else np.full(stab.shape, np.nan)
    success = np.array(step.success, dtype=bool)
    diverged = np.array(step.diverged, dtype=bool)
    held = success & np.isfinite(t_stab)
    y_held = (t_stab[held] - t_flow) / t_flow
    ax.plot(stab[held], y_held, ls="none", marker="D", ms=3.4, mfc="white", mew=1.0, color=GD, zorder=4)
    out["large_steps"] = style.series(stab[held], y_held, fraction_of_bound=stab[held] / bound)
    handles.append(style.line_handle(GD, "none", "D", "larger η: +D owns", mfc="white"))
    failed = ~success & ~diverged & np.isfinite(t_stab)
    if np.any(failed):
        y_failed = (t_stab[failed] - t_flow) / t_flow
        ax.plot(stab[failed], y_failed, ls="none", marker="P", ms=4, color=style.MINUS, zorder=4)
        out["not_selected"] = style.series(stab[failed], y_failed)
        handles.append(style.line_handle(style.MINUS, "none", "P", "larger η: +D does not own"))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(left, right)
    bottom, top = ax.get_ylim()
    if np.any(diverged):
        y_div = np.full(np.count_nonzero(diverged), top)
        ax.plot(stab[diverged], y_div, ls="none", marker="x", ms=4.5, mew=1.2, color="0.1", zorder=5, clip_on=False)
        out["diverged"] = style.series(stab[diverged], y_div, fraction_of_bound=stab[diverged] / bound)
        handles.append(style.line_handle("0.1", "none", "x", "diverged"))
    ax.set_ylim(bottom, top)
    ax.legend(handles=handles, loc="upper left", handlelength=1.6, borderaxespad=0.2)
    ax.set_xlabel(r"step $\eta\,/\,T_{\rm spec}^{\rm flow}$")
    ax.set_ylabel(r"$(T_{\rm spec}^{\rm GD}-T_{\rm spec}^{\rm flow})\,/\,T_{\rm spec}^{\rm flow}$")
    out["bound_over_t_spec"] = bound
    out["t_spec_flow"] = t_flow
    return out


# ------------------------------------------------------------------------------------------
# build


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    """Five panels at the layout's width — (a)–(d) in two rows, (e) across the third — from the
    ``perturb`` run and the random one (``perturb_random``); returns the figure and its sidecar
    panels. A part a run does not hold leaves its panel empty: ``gaugecli perturb --figure``
    draws its one run, whose visible sweep goes to (a) if adversarial and to (e) if random."""
    result = inputs["perturb"]
    config = inputs.configs["perturb"]
    random, random_config = result, config
    if "perturb_random" in inputs.results:
        random, random_config = inputs["perturb_random"], inputs.configs["perturb_random"]
    adversarial = result.visible if result.visible is not None and result.visible.kind == "adversarial" else None
    rand = random.visible if random.visible is not None and random.visible.kind == "random" else None
    wall = math.pi - config.model.theta0
    wall_label = r"\pi/2" if abs(config.model.theta0 - math.pi / 2) < 1e-12 else r"(\pi-\theta_0)"

    fig, _ = style.new_figure(layout.width, layout.height(1.18))
    fig.clear()
    axes = fig.subplot_mosaic([["a", "b"], ["c", "d"], ["e", "e"]], height_ratios=[1.0, 1.0, 0.8])
    panels: dict[str, Any] = {}
    if adversarial is not None:
        panels["a"] = _panel_threshold(axes["a"], adversarial, wall, wall_label, layout)
        # what ε does (SPEC C8 a, adversarial): an angle and a log-coefficient at once
        panels["perturbation"] = _define_eps(axes["a"], config.m, layout)
    if result.step is not None:
        panels["b"] = _panel_step(axes["b"], result.step, layout)
    if result.samples is not None:
        panels["c"] = _panel_samples(axes["c"], result.samples, config.window, layout)
    if result.selection is not None:
        panels["d"] = _panel_selection(axes["d"], result.selection, layout)
    if rand is not None:
        panels["e"] = panel_random(axes["e"], rand, layout)
        panels["random_perturbation"] = define_random(axes["e"], layout, random_config.m, len(random_config.seeds))
    for letter, ax in axes.items():
        if letter in panels:
            style.panel_label(ax, letter)
        else:
            ax.set_axis_off()
    panels["key"] = _key_numbers(result, panels, wall)
    return fig, panels


def _key_numbers(result: Any, panels: dict[str, Any], wall: float) -> dict[str, Any]:
    """The numbers the README's figure table cites."""
    vis, step, samples, selection = result.visible, result.step, result.samples, result.selection
    key: dict[str, Any] = {}
    if "a" in panels:
        a = panels["a"]
        key |= {
            "strengths": list(vis.strengths),
            "eps_star": style.tolist(_nan(vis.threshold)),
            "wall_distance": style.tolist(wall - _nan(vis.threshold)),
            "wall": wall,
            "wall_slope": [a["fit"]["slope"], a["fit"]["stderr"]] if "fit" in a else None,
            "wall_local_slopes": a["local_slopes"]["slope"],
        }
    if step is not None:
        key |= {
            "step_strength": step.strength,
            "t_spec_flow": step.t_spec_flow,
            "stable_bound": step.stable_bound,
            "error_per_step_range": [min(_nan(step.error_per_step)), max(_nan(step.error_per_step))],
            "error_per_step_limit": [step.first_order, step.first_order_err],
            "step_order": [step.order, step.order_err],
            "step_loglog_slope": [step.slope, step.slope_err],
            "t_spec_gd_limit": [step.intercept, step.intercept_err],
            "t_spec_gd_limit_minus_flow_sigma": (
                None if step.intercept is None else (step.intercept - step.t_spec_flow) / step.intercept_err
            ),
            "stability_fractions": [e / step.stable_bound for e in step.stability_etas],
            "stability_selected": list(step.success),
            "stability_diverged": list(step.diverged),
        }
    if samples is not None:
        key |= {
            "sample_strength": samples.strength,
            "sample_seeds": len(samples.seeds),
            "deviation_range": [samples.deviation[0], samples.deviation[-1]],
            "deviation_ns": [samples.ns[0], samples.ns[-1]],
            "deviation_slope": None if samples.fit is None else [samples.fit.slope, samples.fit.slope_err],
            "sample_gd_slopes": (
                None
                if samples.gd is None or samples.gd.fit is None or samples.gd.fit_half is None
                else [
                    [samples.gd.fit.slope, samples.gd.fit.slope_err],
                    [samples.gd.fit_half.slope, samples.gd.fit_half.slope_err],
                ]
            ),
        }
    if "e" in panels:
        o = panels["e"]["outcomes"]
        key["random"] = {
            "seeds": o["seeds"],
            "all_select_to": {D: r["all_select_to"] for D, r in o["by_D"].items()},
            "all_exclusive_to": {D: r["all_exclusive_to"] for D, r in o["by_D"].items()},
            "select_share_at_max_eps": {D: r["selects"][-1] / r["trials"][-1] for D, r in o["by_D"].items()},
            "failures": {k: {"starts": f["starts"], "at_every_D": f["at_every_D"]} for k, f in o["failures"].items()},
            "unsettled_share": o["unsettled_share"],
            "max_gauge_drift": o["max_gauge_drift"],
        }
    if selection is not None:
        key["selection"] = {
            "ns": list(selection.ns),
            "successes": list(selection.successes),
            "trials": list(selection.trials),
            "n_hold": selection.n_hold,
        }
    return key
