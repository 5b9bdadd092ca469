"""Figure 11 — finite samples (beyond the paper; ReLU, gradient flow on ``L_n`` unless stated).

(a, b) From Gaussian starts (one feature, ``m = 4``, δ as drawn), trained on a sample of ``n`` points
and on the population loss from the same start: the share of runs with an owner and the share
whose owner is the population's, by flow and by minibatch SGD (a); three rules' accuracies (b).

(c, d) The paper's selection problem (``m = 2``, ``D = 4``) against ``n/d`` for d = 8…64: the share
of seeds that select (c), and the sizes ``n_½``, ``n_0.9`` against d with their power laws and a
bootstrap interval of the exponent (d). The panels are :mod:`gaugecli.plots._fig11_samples`.
"""

from __future__ import annotations

from typing import Any

from gaugecli.plots import style
from gaugecli.plots._fig11_samples import (
    DIMENSIONS,
    panel_owners,
    panel_predictors,
    panel_rates,
    panel_sizes,
    sample_config,
    sampled_config,
    sampled_reading,
)
from gaugecli.plots.grid import panel_axes
from gaugecli.plots.readings import Reading
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

MIN_WIDTH = 5.0
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""

CLAIM = "beyond: selection from a finite sample needs n ∝ d samples; below it the owner is lost"
READINGS = (
    Reading(
        "OwnedShareSmall",
        "panels/key/sampled/n64/owned_share",
        ".0%",
        "share of runs that end with an owner at n = 64 (m = 4, one feature)",
    ),
    Reading(
        "HalfSizeEight",
        "panels/key/samples/n_half/d8",
        ".3g",
        "n_½, the sample size at which half the seeds select, at d = 8 (m = 2, D = 4)",
    ),
    Reading("HalfSizeSixtyFour", "panels/key/samples/n_half/d64", ".3g", "n_½ at d = 64"),
    Reading("HalfSlope", "panels/key/samples/slope_half", ".2f", "exponent of n_½ ∝ d^k, least squares over d = 8…64"),
    Reading(
        "HalfLocalSlopeFirst", "panels/key/samples/local_slopes_half/0", ".2f", "local slope Δ ln n_½/Δ ln d, d = 8→16"
    ),
    Reading("HalfLocalSlopeSecond", "panels/key/samples/local_slopes_half/1", ".2f", "the same, d = 16→32"),
    Reading("HalfLocalSlopeThird", "panels/key/samples/local_slopes_half/2", ".2f", "the same, d = 32→64"),
)
"""The numbers the caption quotes (:mod:`gaugecli.plots.readings`)."""
CAPTION = (
    "**Selection from a finite sample needs n ∝ d samples; below it the owner is lost.** ReLU, gradient "
    "flow on L_n. "
    "(a, b) One feature, m = 4, Gaussian starts: at n = 64 only {OwnedShareSmall} of the runs end with an "
    "owner; the rules' accuracies on the sample. "
    "(c, d) The paper's selection (m = 2, D = 4) against n/d for d = 8…64: half the seeds select from "
    "n_½ = {HalfSizeEight} (d = 8) to {HalfSizeSixtyFour} (d = 64), n_½ ∝ d^{HalfSlope} (local slopes "
    "{HalfLocalSlopeFirst}, {HalfLocalSlopeSecond}, {HalfLocalSlopeThird})."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""
MAIN_PANELS: tuple[str, ...] = ("c", "d")
"""The main-text version: selection against n/d, which fails below n ≈ 3d (the boundary), and the
sizes it needs against d (the claim)."""
SIDECAR_TOLERANCES = (
    ("c/*/successes", 0.0, 0.0, "counts of seeds"),
    ("b/*", 0.0, 1e-12, "accuracies are counts of owners (integers) and their Wilson intervals"),
)
"""Where a number is exact, and why (first match wins); the rest use the shared defaults."""
LETTERS = "abcd"


def needs(quick: bool) -> dict[str, Need]:
    """The ``predict`` study on finite samples of (a, b), and one ``perturb --sweeps selection`` per
    input dimension (c, d)."""
    out = {"predict-samples": Need("predict", sampled_config(quick))}
    for d in DIMENSIONS[quick]:
        out[f"samples-d{d}"] = Need("perturb", sample_config(d, quick))
    return out


def _axes(layout: Layout) -> tuple[Any, dict[str, Any]]:
    """The full figure 2 × 2; the main version: its panels in one row."""
    return panel_axes(layout, LETTERS, full=0.86, main=0.45)


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    """Four panels (2 × 2) at the layout's width (the main version: those of ``layout.panels``);
    returns the figure and its sidecar panels (the full figure's, whichever are drawn)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    quick = "samples-d32" not in inputs.configs
    fig, axes = _axes(layout)
    spare = Figure()  # a panel the main version does not show is drawn here: the sidecar is the full figure's
    FigureCanvasAgg(spare)
    ax = {p: axes[p] if p in axes else spare.add_subplot() for p in LETTERS}
    sampled = inputs["predict-samples"]
    sweeps = {d: inputs[f"samples-d{d}"].selection for d in DIMENSIONS[quick]}
    panels = {
        "a": panel_owners(ax["a"], sampled, layout),
        "b": panel_predictors(ax["b"], sampled, layout),
        "c": panel_rates(ax["c"], sweeps, layout),
        "d": panel_sizes(ax["d"], sweeps, layout, quick),
    }
    for letter in axes:
        style.panel_label(axes[letter], layout.label(letter))
    size = panels["d"]
    panels["key"] = {
        "sampled": sampled_reading(sampled),
        "samples": {
            "seeds": {f"d{d}": list(s.seeds) for d, s in sweeps.items()},
            "n_half": {f"d{d:g}": v for d, v in zip(size["half"]["x"], size["half"]["y"], strict=True)},
            "n_ninety": {f"d{d:g}": v for d, v in zip(size["ninety"]["x"], size["ninety"]["y"], strict=True)},
            "slope_half": size["half"].get("slope"),
            "slope_half_interval": size["half"].get("interval"),
            "local_slopes_half": size["half"].get("local_slopes"),
            "slope_ninety": size["ninety"].get("slope"),
            "slope_ninety_interval": size["ninety"].get("interval"),
            "local_slopes_ninety": size["ninety"].get("local_slopes"),
            "bootstrap": size.get("bootstrap"),
            "n_hold": {f"d{d}": s.n_hold for d, s in sweeps.items()},
        },
    }
    return fig, panels
