"""Figure 7 — robustness of selection (claim C8): each of the claim's three perturbations up to its boundary.

Two ``perturb`` runs (the defaults: m = 2, neuron 0 at ``+D``, neuron 1 at ``−D``, d = 16; each
panel's title states m, D and d):

(a) adversarial visible perturbations: the +D neuron turned by ε away from the teacher and shrunk,
    the other turned towards it and grown (deterministic: a threshold, not a probability). The
    threshold ε*(D) (bisection brackets) on a linear angle axis below the wall ``π − θ0`` (= π/2,
    where the +D neuron starts anti-aligned), every grid run marked by its outcome (+D alone, +D
    sharing the feature, −D). How fast ε* nears the wall is given by the local slopes of
    ``π − θ0 − ε*`` in D, which drift (not one power law).
(b) the GD step: the relative T_spec error against ``η/T_spec^flow``, the first-order line
    ``C_1 η``, its order as η → 0, and larger steps up to and past the stability limit ``2/λ_max(θ0)``.
(c) the finite sample: ``sup_{t ≤ window·T_spec} ‖f_n − f_∞‖`` against n (every seed, mean ± s.e.,
    power-law fit, ``n^{-1/2}`` guide).
(d) selection from a finite sample: the share of seeds whose +D neuron owns, Wilson intervals, and
    the smallest n from which every seed selects.
(e) random visible perturbations (a second run, :func:`~gaugecli.plots._fig7_random.random_config`):
    a table of seeds whose +D neuron owns / owns alone per D and ε, and the failing starts by cause.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots._fig7_random import define_random, panel_random, random_config
from gaugecli.plots._fig7_samples import (
    GD,
    SHADE,
    _nan,
    _panel_samples,
    _panel_selection,
    _pm,
)
from gaugecli.plots._fig7_threshold import define_eps, panel_threshold
from gaugecli.plots.readings import Reading
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

if TYPE_CHECKING:
    from gaugecli.experiments.perturb import PerturbConfig

CLAIM = (
    "C8 robustness: selection survives adversarial perturbations up to ε*(D) → π/2, GD steps up to the stability "
    "limit (T_spec error first order in η), finite samples (deviation ∝ n^-1/2; every seed selects above some n), "
    "and random perturbations of moderate size ε (every seed selects)"
)
READINGS = (
    Reading("EpsStarOne", "panels/key/eps_star/0", ".3f", "adversarial threshold ε*(D) at D = 1 (m = 2, d = 16)"),
    Reading("EpsStarLargest", "panels/key/eps_star/5", ".3f", "ε*(D) at D = 1024"),
    Reading(
        "WallLocalSlopeLast",
        "panels/key/wall_local_slopes/4",
        ".2f",
        "local slope of π/2 − ε* in D from D = 256 to 1024",
    ),
    Reading(
        "ErrorPerStep",
        "panels/key/error_per_step_limit/0",
        ".5f",
        "GD's relative T_spec error per unit η/T_spec as η → 0 (C₁)",
    ),
    Reading("StepOrder", "panels/key/step_order/0", ".5f", "fitted order of the GD error in η as η → 0"),
    Reading(
        "DeviationSlope",
        "panels/key/deviation_slope/0",
        ".3f",
        "exponent of the finite-sample flow's deviation from the population flow in n",
    ),
    Reading("DeviationSlopeError", "panels/key/deviation_slope/1", ".3f", "its standard error"),
    Reading("HoldSize", "panels/d/n_hold", ".0f", "the sample size n from which every seed selects (D = 4)"),
)
"""The numbers the caption quotes (:mod:`gaugecli.plots.readings`)."""
CAPTION = (
    "**Selection survives each of the paper's perturbations up to a boundary.** m = 2, +D against −D, "
    "d = 16. "
    "(a) Adversarial ε: the threshold ε*(D) rises from {EpsStarOne} (D = 1) to {EpsStarLargest} "
    "(D = 1024), short of the wall π/2, with drifting local slopes ({WallLocalSlopeLast} at the largest D). "
    "(b) GD at D = 4: the T_spec error is first order in η (C₁ = {ErrorPerStep}) and selection holds below "
    "the stability limit. "
    "(c) The flow on L_n deviates from the population flow like n^({DeviationSlope} ± {DeviationSlopeError}). "
    "(d) Selection from a sample: every seed selects from n = {HoldSize}. "
    "(e) Random ε: which seeds select, and why starts fail."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""


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
# panels


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
    # two decades of room above the data: the diverged steps (no T_spec: drawn at the top, inside the
    # axes) and the legend over the upper left, clear of the larger steps' points (the layout check)
    top *= 100.0
    if np.any(diverged):
        y_div = np.full(np.count_nonzero(diverged), top / 2.0)
        ax.plot(stab[diverged], y_div, ls="none", marker="x", ms=4.5, mew=1.2, color="0.1", zorder=5)
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


MAIN_PANELS: tuple[str, ...] = ("a", "b", "c")
"""The main-text version: claim C8's three parts, each with its boundary — the perturbation of the
start up to ε*(D) (a, across the top), the GD step up to the stability limit (b), the finite
sample's n^{-1/2} (c)."""


def _state_run(ax: Any, m: int, D: float, d: int, layout: Layout) -> dict[str, Any]:
    """A panel's title: the run it reads (m neurons, gauge strength D, input dimension d)."""
    ax.set_title(rf"$m={m}$, $D={D:g}$, $d={d}$", loc="right", fontsize=layout.small)
    return {"m": m, "D": D, "d": d}


def _grid(layout: Layout) -> tuple[Any, dict[str, Any]]:
    """The figure and its axes by the full figure's letters: (a) across the first row (its local
    slopes need the width), (b) and (c) in the second, (d) and (e), a table, in the third. A
    version with ``layout.panels``: (a) across the top if drawn, the others two a row under it."""
    if layout.panels is not None:
        letters = [p for p in layout.panels if p in "abcde"]
        rest = [p for p in letters if p != "a"]
        pairs = [rest[i : i + 2] if len(rest[i : i + 2]) == 2 else rest[i : i + 1] * 2 for i in range(0, len(rest), 2)]
        rows = ([["a", "a"]] if "a" in letters else []) + pairs
        ratios = ([0.85] if "a" in letters else []) + [1.0] * len(pairs)
        fig, _ = style.new_figure(layout.width, layout.height(0.4 * sum(ratios)))
        fig.clear()
        return fig, fig.subplot_mosaic(rows, height_ratios=ratios)
    fig, _ = style.new_figure(layout.width, layout.height(1.16))
    fig.clear()
    return fig, fig.subplot_mosaic([["a", "a"], ["b", "c"], ["d", "e"]], height_ratios=[0.85, 1.0, 1.0])


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    """Five panels at the layout's width — (a)–(d) in two rows, (e) across the third — from the
    ``perturb`` run and the random one (``perturb_random``), or the panels ``layout.panels`` in one
    row; returns the figure and its sidecar panels (the full figure's, whatever is drawn). A part a
    run does not hold leaves its panel empty: ``gaugecli perturb --figure`` draws its one run, whose
    visible sweep goes to (a) if adversarial and to (e) if random."""
    result = inputs["perturb"]
    config = inputs.configs["perturb"]
    random, random_config = result, config
    if "perturb_random" in inputs.results:
        random, random_config = inputs["perturb_random"], inputs.configs["perturb_random"]
    adversarial = result.visible if result.visible is not None and result.visible.kind == "adversarial" else None
    rand = random.visible if random.visible is not None and random.visible.kind == "random" else None
    wall = math.pi - config.model.theta0
    wall_label = r"\pi/2" if abs(config.model.theta0 - math.pi / 2) < 1e-12 else r"(\pi-\theta_0)"
    d = config.model.d
    available = tuple(
        letter
        for letter, held in zip(
            "abcde", (adversarial, result.step, result.samples, result.selection, rand), strict=True
        )
        if held is not None
    )
    if layout.panels is None and available != tuple("abcde"):  # one run (`perturb --figure`): its panels only
        layout = replace(layout, panels=available)

    fig, axes = _grid(layout)
    scratch = None
    if any(letter not in axes for letter in "abcde"):  # the sidecar is the full figure's: undrawn panels go here
        scratch, _ = style.new_figure(layout.width, layout.height(1.0))
        scratch.clear()
    drawn = {letter: axes[letter] if letter in axes else scratch.add_subplot() for letter in "abcde"}  # type: ignore[union-attr]
    panels: dict[str, Any] = {}
    if adversarial is not None:
        panels["a"] = panel_threshold(drawn["a"], adversarial, wall, wall_label, layout)
        # what ε does (claim C8 a, adversarial): an angle and a log-coefficient at once
        panels["perturbation"] = define_eps(drawn["a"], config.m, d, layout)
    if result.step is not None:
        panels["b"] = _panel_step(drawn["b"], result.step, layout)
        panels["b"]["run"] = _state_run(drawn["b"], config.m, result.step.strength, d, layout)
    if result.samples is not None:
        panels["c"] = _panel_samples(drawn["c"], result.samples, config.window, layout)
        panels["c"]["run"] = _state_run(drawn["c"], config.m, result.samples.strength, d, layout)
    if result.selection is not None:
        panels["d"] = _panel_selection(drawn["d"], result.selection, layout)
        panels["d"]["run"] = _state_run(drawn["d"], config.m, result.selection.strength, d, layout)
    if rand is not None:
        panels["e"] = panel_random(drawn["e"], rand, layout)
        panels["random_perturbation"] = define_random(
            drawn["e"], layout, random_config.m, random_config.model.d, len(random_config.seeds)
        )
    for letter, ax in axes.items():
        if letter in panels:
            style.panel_label(ax, layout.label(letter))
        else:
            ax.set_axis_off()
    if scratch is not None:
        scratch.clear()
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
