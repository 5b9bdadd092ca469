"""Figure ``xu`` — Xu's lock-in detector and Tian's sign rule on the task they were made for.

One ``gaugecli lockin --task modular-addition`` study (Tian's modular addition, M = 71, K = 2048, Adam;
the choices: :mod:`gaugecli.experiments.lockin_task.config`): for σ = x² and ReLU, grokking runs
(30 % of the pairs for training) against controls (10 %), one run per seed. x² in purple, ReLU in
green; controls lighter and dashed.

(a) Test accuracy against epoch, one line per run, the detector's firing epoch marked (▼) on it; the
    grokking threshold dotted. (b) The detector's signal, the rolling eigengap λ2/λ3 of the last 20
    updates ΔW (median over seeds, the interquartile band), with the detector's burn-in dotted.
(c) Tian's sign rule on the 200 most similar pairs of zero-mean hidden features at its epochs: the
    direct sign match (filled) and the share with B_jl < 0 (open), each run a point. (d) The counts:
    runs that grok and runs whose detector fires (raw, floored, on the gradient), per activation and
    condition.

Outside ``plot all``'s budget (the study costs CPU-hours): ``plot xu`` reads the committed study
(docs/gallery.md says how) or runs it.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots.readings import Reading
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

REGENERATE = "gaugecli plot xu --workers 1 --cache-dir figures/data/xu --out-dir figures"
"""Redraws the figure from its committed study (figures/data/xu: the lockin-task artifact) in seconds;
without it the same command reruns the study (CPU-hours: docs/gallery.md gives the measured cost), each
run cached as it finishes — ``--workers 1``: a prefetch worker would run the study without the point
cache, so an interrupted study would not resume."""
MIN_WIDTH = 5.0
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""
STUDY_SEEDS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)
"""Seeds of the committed study (each: x² and ReLU, grokking run and control): as many of the goal of 15
as the shared two-core machine ran in the time there was (docs/gallery.md gives the cost)."""
HEIGHT = 0.74
"""Height over width: two rows of panels and the legend above them."""
COLORS = {"x2": style.PURPLE, "relu": style.GREEN}
NAMES = {"x2": r"$\sigma=x^2$", "relu": "ReLU"}
CONDITION_STYLE = {False: ("-", 1.0), True: ("--", 0.55)}
"""Line style and opacity: grokking runs solid, controls dashed and lighter."""
GAUGE_COLOR = "0.35"
"""(d): the gauge model's cross-check runs (grey: no activation of the task)."""
TICKS = {"x2": "x²", "relu": "ReLU", "gauge": "gauge model"}
COUNTS = {
    "groks": ("o", True, "grok (gauge: aligns)"),
    "fires_raw": ("v", True, "fire"),
    "fires_floored": ("v", False, "fire, floored"),
    "fires_gradient_raw": ("X", True, "fire on ∇L"),
}
"""(d): what is counted, by marker (the colour is the activation's)."""
TITLES = {
    "a": "test accuracy; ▼ detector fires",
    "b": r"eigengap $\lambda_2/\lambda_3$ of $\Delta W$",
    "c": "Tian's sign rule, top-200 pairs",
    "d": "runs that grok / fire (share)",
}

CLAIM = (
    "Related work on its own task (modular addition): Xu's detector fires in every σ = x² run, grokking or not; "
    "for ReLU the update it reads decides"
)
READINGS = (
    Reading("Seeds", "panels/key/seeds", ".0f", "seeds per activation and condition"),
    Reading("XGrok", "panels/key/x2_grokking_groks", ".0f", "x² runs at 30 % that grok"),
    Reading("XGrokEpoch", "panels/key/x2_grokking_grok_median", ".0f", "x²: median grokking epoch"),
    Reading("XFire", "panels/key/x2_grokking_fires", ".0f", "x² runs at 30 % whose detector fires"),
    Reading("XFireEpoch", "panels/key/x2_grokking_fire_median", ".0f", "x²: median firing epoch"),
    Reading("XFireLow", "panels/key/x2_grokking_fire_q1", ".0f", "x²: firing epoch, first quartile"),
    Reading("XFireHigh", "panels/key/x2_grokking_fire_q3", ".0f", "x²: firing epoch, third quartile"),
    Reading("XControlGrok", "panels/key/x2_control_groks", ".0f", "x² controls at 10 % that grok"),
    Reading("XControlFire", "panels/key/x2_control_fires", ".0f", "x² controls whose detector fires"),
    Reading("XControlFireEpoch", "panels/key/x2_control_fire_median", ".0f", "x² controls: median firing epoch"),
    Reading("XFloored", "panels/key/x2_grokking_fires_floored", ".0f", "x² runs whose floored detector fires"),
    Reading("XControlFloored", "panels/key/x2_control_fires_floored", ".0f", "x² controls, floored detector"),
    Reading("XGradient", "panels/key/x2_grokking_fires_gradient", ".0f", "x² runs: the detector on ∇L fires"),
    Reading("XControlGradient", "panels/key/x2_control_fires_gradient", ".0f", "x² controls: on ∇L"),
    Reading("ReluGrok", "panels/key/relu_grokking_groks", ".0f", "ReLU runs at 30 % that grok"),
    Reading("ReluFire", "panels/key/relu_grokking_fires", ".0f", "ReLU runs at 30 % whose detector fires"),
    Reading("ReluFireEpoch", "panels/key/relu_grokking_fire_median", ".0f", "ReLU: median firing epoch"),
    Reading("ReluControlFire", "panels/key/relu_control_fires", ".0f", "ReLU controls whose detector fires"),
    Reading("ReluGradient", "panels/key/relu_grokking_fires_gradient", ".0f", "ReLU runs: the detector on ∇L"),
    Reading("ReluControlGradient", "panels/key/relu_control_fires_gradient", ".0f", "ReLU controls: on ∇L"),
    Reading("GaugeRuns", "panels/key/gauge_grokking_runs", ".0f", "gauge-model select runs trained as the task"),
    Reading("GaugeFire", "panels/key/gauge_grokking_fires", ".0f", "of those, runs whose detector fires"),
    Reading("GaugeControlFire", "panels/key/gauge_control_fires", ".0f", "gauge-model aligned controls that fire"),
    Reading("SignLow", "panels/key/sign_match_min", ".2f", "smallest sign match of any run and epoch"),
    Reading("NegativeLow", "panels/key/sign_negative_min", ".2f", "smallest share of B_jl < 0 on the pairs"),
    Reading("NegativeHigh", "panels/key/sign_negative_max", ".2f", "largest share of B_jl < 0"),
)
"""The numbers the caption and the reading quote (:mod:`gaugecli.plots.readings`)."""
CAPTION = (
    "**On modular addition, Xu's lock-in detector fires in every σ = x² run, grokking or not.** "
    "Tian's task (M = 71, K = 2048, Adam), {Seeds} seeds per activation and condition. "
    "(a) test accuracy, firing epochs marked: {XGrok} of {Seeds} x² runs grok (median epoch {XGrokEpoch}); "
    "the detector fires in {XFire} of them near epoch {XFireEpoch}, and in {XControlFire} of {Seeds} x² "
    "controls that never generalise; ReLU fires in {ReluFire} runs, late, and {ReluControlFire} controls; "
    "(b) the eigengap λ2/λ3 of the updates ΔW it reads; "
    "(c) Tian's sign rule: direct sign match ≥ {SignLow}, B_jl < 0 on {NegativeLow}–{NegativeHigh} of the pairs; "
    "(d) the counts, with the gauge model trained as the task is."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""
READING = (
    "σ = x² at 30 % of the pairs: {XGrok} of {Seeds} runs grok (median epoch {XGrokEpoch}); the detector fires "
    "in {XFire} (median epoch {XFireEpoch}, IQR {XFireLow}–{XFireHigh}), long before. The controls at 10 % "
    "({XControlGrok} of {Seeds} grok) fire in {XControlFire} of {Seeds}, at median epoch {XControlFireEpoch}. "
    "The floored detector fires in {XFloored} and {XControlFloored} (λ3 is far above round-off on this task), "
    "the detector on the gradient in {XGradient} and {XControlGradient}. ReLU: {ReluGrok} of {Seeds} grok; on "
    "Adam's updates the detector fires in {ReluFire} runs (median epoch {ReluFireEpoch}) and {ReluControlFire} "
    "controls, on the gradient in {ReluGradient} and {ReluControlGradient}. The gauge model trained as the task "
    "is (Adam, one step an epoch): fires in {GaugeFire} of {GaugeRuns} select runs and {GaugeControlFire} of "
    "{GaugeRuns} aligned controls. Tian's rule on the 200 most similar feature pairs: the direct sign match is "
    "≥ {SignLow} (an identity), B_jl < 0 on {NegativeLow}–{NegativeHigh} of the pairs, grokking or not."
)
"""The gallery's longer reading, collapsed under the caption: ``{Name}`` fields are :data:`READINGS`."""
RELATED_WORK = (
    "* **What reproduces.** σ = x² groks at 30 % of the pairs ({XGrok} of {Seeds} seeds, median epoch "
    "{XGrokEpoch}) and the detector fires in {XFire} of those runs (median epoch {XFireEpoch}, IQR "
    "{XFireLow}–{XFireHigh}), long before the test accuracy moves. ReLU does not grok within the run "
    "({ReluGrok} of {Seeds}), and on Adam's updates its detector never fires in a ReLU control ({ReluControlFire} "
    "of {Seeds}): the published ReLU null holds there.\n"
    "* **What does not.** The x² controls, trained on 10 % of the pairs, never generalise ({XControlGrok} of "
    "{Seeds} grok) and fire all the same: {XControlFire} of {Seeds}, median epoch {XControlFireEpoch}. Here "
    "the firing marks an event of training that memorising runs share, not grokking. The ReLU runs at 30 % "
    "fire in {ReluFire} of {Seeds}, late (median epoch {ReluFireEpoch}), without grokking. The floor on λ3 "
    "changes nothing on this task ({XFloored} and {XControlFloored} floored x² firings): λ3 is never "
    "round-off.\n"
    "* **Which difference decides.** Run with the gauge model's reading of the update — the gradient, the "
    "direction GD steps along — the detector fires in {ReluGradient} of {Seeds} ReLU runs of the task and "
    "{ReluControlGradient} of {Seeds} controls (x²: {XGradient} and {XControlGradient}), which is the gauge "
    "model's ReLU finding. Run with the task's settings — Adam, one step an epoch — the (ReLU) gauge model "
    "fires in {GaugeFire} of {GaugeRuns} select runs and {GaugeControlFire} of {GaugeRuns} aligned controls. "
    "So the detector's code is not what differs. For ReLU, the update it reads decides, with the task: on "
    "the task's 2M·K first-layer weights Adam's normalised step fires late or not at all, and the gradient "
    "fires, while on the gauge model's few weights Adam's step fires as well. For x², the control decides: "
    "the gauge model's aligned control has nothing to learn and stays silent under GD (figure lockin_nulls), "
    "while the task's controls still learn — they memorise their pairs — and fire."
)
"""docs/related-work.md's block on this study (tools/gallery.py renders it): ``{Name}`` fields are :data:`READINGS`."""
SIDECAR_TOLERANCES = (
    ("*", float("inf"), 0.0, "float32 training in torch: its rounding moves every number with the BLAS path"),
)
"""Where a number moves more than the shared default across arithmetic paths, and why (first match wins):
the whole study is float32 training, whose trajectories (and firing epochs) move with the arithmetic path."""


def needs(quick: bool) -> dict[str, Need]:
    """Full: the command's defaults over :data:`STUDY_SEEDS` (CPU-hours; committed with the figure). Quick: M = 23,
    K = 256, 150 epochs, one seed (a few seconds)."""
    from gaugecli.experiments.lockin_task import TaskLockinConfig

    if quick:
        return {
            "study": Need(
                "lockin-task",
                TaskLockinConfig(
                    modulus=23,
                    hidden_units=256,
                    epochs=150,
                    seeds=(0,),
                    sign_every=75,
                    gauge_seeds=(0,),
                    gauge_epochs=300,
                ),
            )
        }
    return {"study": Need("lockin-task", TaskLockinConfig(seeds=STUDY_SEEDS))}


def _series(run: Any, key: str) -> np.ndarray:
    return style.as_array(run.series[key])


def _label(activation: str, control: bool) -> str:
    return f"{activation}_{'control' if control else 'grokking'}"


def _panel_accuracy(ax: Any, result: Any, config: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for run in result.runs:
        ls, alpha = CONDITION_STYLE[run.control]
        epoch, acc = _series(run, "epoch"), _series(run, "test_acc")
        ax.plot(epoch, acc, color=COLORS[run.activation], ls=ls, lw=0.7, alpha=alpha)
        name = f"{_label(run.activation, run.control)}_seed{run.seed}"
        out[name] = style.series(epoch, acc, grok_epoch=run.grok_epoch, fire_epoch=run.fire_raw)
        if run.fire_raw is not None:
            at = float(np.interp(run.fire_raw, epoch, acc))
            ax.plot([run.fire_raw], [at], marker="v", ms=3.5, color=COLORS[run.activation], alpha=alpha, ls="none")
    style.threshold_line(ax, config.grok_threshold)
    ax.set(xlim=(0, config.epochs), ylim=(0, 1.02), xlabel="epoch", ylabel="test accuracy")
    return out


def _panel_gap(ax: Any, result: Any, config: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for activation in COLORS:
        for control in (False, True):
            runs = [r for r in result.runs if r.activation == activation and r.control == control]
            if not runs:
                continue
            epoch = _series(runs[0], "epoch")
            gaps = np.array([_series(r, "gap") for r in runs])
            with warnings.catch_warnings():  # all-NaN columns (incomplete windows) give NaN, quietly
                warnings.simplefilter("ignore", RuntimeWarning)
                q1, med, q3 = np.nanpercentile(gaps, [25, 50, 75], axis=0)
            ls, alpha = CONDITION_STYLE[control]
            ax.plot(epoch, med, color=COLORS[activation], ls=ls, lw=1.1, alpha=max(alpha, 0.8))
            ax.fill_between(epoch, q1, q3, color=COLORS[activation], alpha=0.25 * alpha, lw=0)
            out[_label(activation, control)] = style.series(epoch, med, q1=q1, q3=q3)
    style.threshold_line(ax, config.burn_in, axis="x")
    ax.set(yscale="log", xlim=(0, config.epochs), xlabel="epoch", ylabel=r"$\lambda_2/\lambda_3$")
    style.tidy_log_axis(ax, "y")
    return out


def _grouped_ticks(ax: Any, order: list[tuple[str, str]]) -> None:
    """Ticks ``run`` / ``ctrl`` at each condition, and the activation (or the gauge model) once under
    each pair: a two-word tick per slot collides at a column's width."""
    ax.set_xticks(range(len(order)), ["ctrl" if c == "control" else "run" for _, c in order])
    for group in dict.fromkeys(a for a, _ in order):
        slots = [i for i, (a, _) in enumerate(order) if a == group]
        ax.annotate(
            TICKS[group],
            (float(np.mean(slots)), 0.0),
            xycoords=("data", "axes fraction"),
            xytext=(0, -20),
            textcoords="offset points",
            ha="center",
            va="top",
        )


def _panel_signs(ax: Any, result: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    order = [(a, c) for a in COLORS for c in (False, True)]
    for i, (activation, control) in enumerate(order):
        runs = [r for r in result.runs if r.activation == activation and r.control == control]
        if not runs:
            continue
        match = np.concatenate([style.as_array(r.sign_match) for r in runs])
        negative = np.concatenate([style.as_array(r.sign_negative) for r in runs])
        spread = np.linspace(-0.18, 0.18, match.size) if match.size > 1 else np.zeros(1)
        _, alpha = CONDITION_STYLE[control]
        color = COLORS[activation]
        ax.plot(i + spread, match, ls="none", marker="o", ms=2.5, color=color, alpha=alpha)
        ax.plot(i + spread, negative, ls="none", marker="o", ms=2.5, mfc="white", color=color, alpha=alpha)
        out[_label(activation, control)] = {
            "match": style.series(i + spread, match),
            "negative": style.series(i + spread, negative),
        }
    _grouped_ticks(ax, [(a, "control" if c else "grokking") for a, c in order])
    ax.set(xlim=(-0.6, len(order) - 0.4), ylim=(0.0, 1.05), ylabel="share of the 200 pairs")
    ax.legend(
        handles=[
            style.line_handle("0.3", "none", "o", "sign match"),
            style.line_handle("0.3", "none", "o", r"$B_{jl}<0$", mfc="white"),
        ],
        loc="lower left",
    )
    return out


def _gauge_rows(result: Any) -> dict[tuple[str, str], dict[str, Any]]:
    """The cross-check's counts in the summary's terms: the gauge model trained as the task is, select
    ("groks": aligns with the teacher) and its aligned control."""
    rows = {}
    for control in (False, True):
        runs = [r for r in result.gauge_check if r.control == control]
        if runs:
            rows[("gauge", "control" if control else "grokking")] = {
                "activation": "gauge",
                "condition": "control" if control else "grokking",
                "runs": len(runs),
                "groks": sum(r.align_epoch is not None and not control for r in runs),
                "fires_raw": sum(r.fire_raw is not None for r in runs),
                "fires_floored": sum(r.fire_floored is not None for r in runs),
                "fires_gradient_raw": sum(r.fire_gradient_raw is not None for r in runs),
            }
    return rows


def _panel_counts(ax: Any, result: Any) -> dict[str, Any]:
    """Each count a marker at its condition (colour: the activation, grey the gauge model; marker: what is
    counted), as a share of the condition's runs."""
    out: dict[str, Any] = {}
    rows = {(r["activation"], r["condition"]): r for r in result.summary} | _gauge_rows(result)
    order = [(a, c) for a in (*COLORS, "gauge") for c in ("grokking", "control") if (a, c) in rows]
    offsets = np.linspace(-0.27, 0.27, len(COUNTS))
    for i, key in enumerate(order):
        row = rows[key]
        alpha = CONDITION_STYLE[row["condition"] == "control"][1]
        color = COLORS.get(row["activation"], GAUGE_COLOR)
        entry: dict[str, Any] = {"runs": row["runs"]}
        for offset, (field, (marker, filled, _)) in zip(offsets, COUNTS.items(), strict=True):
            share = row[field] / row["runs"]
            mfc = color if filled else "white"
            ax.plot([i + offset], [share], ls="none", marker=marker, ms=4, color=color, alpha=alpha, mfc=mfc)
            entry[field] = style.series([i + offset], [share], count=row[field])
        out[_label(row["activation"], row["condition"] == "control")] = entry
    style.threshold_line(ax, 1.0)
    _grouped_ticks(ax, order)
    ax.set(xlim=(-0.6, len(order) - 0.4), ylim=(-0.05, 1.6), ylabel="share of the runs")
    ax.legend(
        handles=[
            style.line_handle("0.3", "none", marker, label, mfc="0.3" if filled else "white")
            for marker, filled, label in COUNTS.values()
        ],
        loc="upper center",
        ncol=2,
        columnspacing=0.8,
        handletextpad=0.2,
    )
    return out


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    import matplotlib

    result, config = inputs["study"], inputs.configs["study"]
    fig, grid = style.new_figure(layout.width, layout.height(HEIGHT), nrows=2, ncols=2)
    axes = dict(zip("abcd", grid.ravel(), strict=True))
    with matplotlib.rc_context({"font.size": layout.small}):
        panels = {
            "a": _panel_accuracy(axes["a"], result, config),
            "b": _panel_gap(axes["b"], result, config),
            "c": _panel_signs(axes["c"], result),
            "d": _panel_counts(axes["d"], result),
        }
    for letter, ax in axes.items():
        style.panel_label(ax, layout.label(letter))
        ax.set_title(TITLES[letter], loc="right", fontsize=layout.small, pad=3)
    handles = [
        style.line_handle(COLORS["x2"], "-", None, NAMES["x2"]),
        style.line_handle(COLORS["relu"], "-", None, NAMES["relu"]),
        style.line_handle("0.3", "-", None, f"{config.train_fraction:.0%} of pairs (grokking)"),
        style.line_handle("0.3", "--", None, f"{config.control_fraction:.0%} (control)", alpha=0.55),
    ]
    fig.legend(handles=handles, loc="outside upper center", ncol=4, columnspacing=1.2, handlelength=2.4)
    panels["legend"] = {"labels": [h.get_label() for h in handles]}
    panels["key"] = _key_numbers(result)
    return fig, panels


def _key_numbers(result: Any) -> dict[str, Any]:
    """The counts, epochs and ranges the gallery quotes (:data:`READINGS`), from the study's summary."""
    out: dict[str, Any] = {"seeds": len({r.seed for r in result.runs})}
    for row in result.summary:
        name = f"{row['activation']}_{row['condition']}"
        out[f"{name}_groks"] = row["groks"]
        out[f"{name}_fires"] = row["fires_raw"]
        out[f"{name}_runs"] = row["runs"]
        out[f"{name}_fires_floored"] = row["fires_floored"]
        out[f"{name}_fires_gradient"] = row["fires_gradient_raw"]
        out[f"{name}_fire_median"] = row["fire_epoch_median"]
        out[f"{name}_fire_q1"] = row["fire_epoch_q1"]
        out[f"{name}_fire_q3"] = row["fire_epoch_q3"]
        out[f"{name}_grok_median"] = row["grok_epoch_median"]
    for (_, condition), row in _gauge_rows(result).items():
        out[f"gauge_{condition}_runs"] = row["runs"]
        out[f"gauge_{condition}_fires"] = row["fires_raw"]
        out[f"gauge_{condition}_fires_gradient"] = row["fires_gradient_raw"]
    for key in ("sign_match_min", "sign_negative_min", "sign_negative_max"):
        values = [row[key] for row in result.summary if row[key] is not None]
        out[key] = (min if key.endswith("min") else max)(values) if values else None
    return out
