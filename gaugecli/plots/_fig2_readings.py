"""fig2's quoted numbers: the sidecar's ``key`` (what the README's figure table cites, from the drawn
panels) and the readings its gallery caption and longer reading quote (:mod:`gaugecli.plots.readings`)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gaugecli.core.analyses.observables import RunObservables
from gaugecli.core.reduced.limits import fitted_order
from gaugecli.plots import style
from gaugecli.plots._fig2_limit import GAP_FROM, GAUGES, Samples
from gaugecli.plots.readings import Reading

READINGS = (
    Reading("GapOne", "panels/key/gap/1", ".4f", "the clock-free gap Δ at D = 1"),
    Reading("GapLow", "panels/key/gap_min_from_4", ".4f", "the smallest Δ over D = 4…1024"),
    Reading("GapHigh", "panels/key/gap_max_from_4", ".4f", "the largest Δ over D = 4…1024"),
    Reading("GapLimit", "panels/key/gap_limit", ".4f", "Δ as D → ∞ (reduced equations)"),
    Reading("GapSixteenth", "panels/key/gap_below_1/0.0625", ".3f", "Δ at D = 1/16"),
    Reading("GapEighth", "panels/key/gap_below_1/0.125", ".3f", "Δ at D = 1/8"),
    Reading("GapQuarter", "panels/key/gap_below_1/0.25", ".3f", "Δ at D = 1/4"),
    Reading("GapHalf", "panels/key/gap_below_1/0.5", ".3f", "Δ at D = 1/2"),
    Reading("GapQuarterAngle", "panels/key/gap_theta0/0.25pi", ".3f", "Δ at D = 4 from θ0 = π/4"),
    Reading("GapThreeQuarterAngle", "panels/key/gap_theta0/0.75pi", ".3f", "Δ at D = 4 from θ0 = 3π/4"),
    Reading(
        "MismatchLow",
        "panels/key/mismatch_min_from_4",
        ".3f",
        "smallest mismatch /L(0) after the best rescaling, D ≥ 4",
    ),
    Reading(
        "MismatchHigh",
        "panels/key/mismatch_max_from_4",
        ".3f",
        "largest mismatch /L(0) after the best rescaling, D ≥ 4",
    ),
    Reading("BestScale", "panels/key/rescaling_at_shown/scale", ".1f", "the best single time rescaling s* at D = 4"),
    Reading("TSpecRatio", "panels/key/rescaling_at_shown/t_spec_ratio", ".1f", "T_spec(−D)/T_spec(+D) at D = 4"),
    Reading(
        "DistanceOrderFavorable",
        "panels/key/distance_order/favorable",
        ".2f",
        "order in 1/D of +D's distance to its D → ∞ path",
    ),
    Reading(
        "DistanceOrderUnfavorable",
        "panels/key/distance_order/unfavorable",
        ".2f",
        "the same for −D (a log term lowers it)",
    ),
    Reading(
        "SampleExcessLow",
        "panels/key/sample_t_spec_excess_range/0",
        ".1%",
        "least excess of T_spec on L_n over the flow's",
    ),
    Reading(
        "SampleExcessHigh",
        "panels/key/sample_t_spec_excess_range/1",
        ".0%",
        "largest excess of T_spec on L_n over the flow's",
    ),
    Reading("SampleGapLow", "panels/key/sample_gap_range/0", ".3f", "smallest Δ of a finite-sample pair (D = 4)"),
    Reading("SampleGapHigh", "panels/key/sample_gap_range/1", ".3f", "largest Δ of a finite-sample pair (D = 4)"),
)
"""The numbers the caption and the reading quote (:mod:`gaugecli.plots.readings`)."""
CAPTION = (
    "**There is no global clock: opposite gauges follow two paths, and no single rescaling of time maps one run "
    "onto the other, however large D is.** "
    "One neuron, ±D, population flows (solid) and flows on L_n, n = 10⁴ (dashed). "
    "(a, b) loss and alignment against t/T_spec at D = 4; "
    "(c) alignment against the loss level (clock-free), with the gap Δ; "
    "(d) the paths in the (c, α) plane, the same for every D; "
    "(e) Δ = {GapLow}–{GapHigh} for D = 4…1024, and the best rescaling leaves a mismatch ≥ {MismatchLow} L(0); "
    "(f) that rescaling at D = 4. "
    "The claim stops below D = 1, where the gauges become alike (Δ = {GapSixteenth} at D = 1/16)."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""
READING = (
    "±D follow two paths in the (c, α) plane — +D turns then grows, −D grows then turns — each the same for "
    "every D (the distance to the D → ∞ path falls with order {DistanceOrderFavorable} in 1/D for +D, "
    "{DistanceOrderUnfavorable} for −D, which carries a ln D). The clock-free gap Δ(D) is {GapOne} at D = 1 "
    "and {GapLow}–{GapHigh} for every D = 4…1024 (at least the claimed 0.3; {GapLimit} at D → ∞). Where the "
    "claim stops ((e), dashed and filled circles): below D = 1 the gap closes as the gauges become alike "
    "(Δ = {GapSixteenth}, {GapEighth}, {GapQuarter}, {GapHalf} at D = 1/16, 1/8, 1/4, 1/2), and at D = 4 it "
    "depends on the start angle ({GapQuarterAngle} at θ0 = π/4, below 0.3; {GapThreeQuarterAngle} at 3π/4). "
    "Δ is the largest vertical distance between the two α(ℓ) curves of (c). The best single rescaling of time "
    "leaves a loss mismatch of {MismatchLow}–{MismatchHigh} L(0) for every D ≥ 4 ((e), middle; at D = 4, "
    "s* = {BestScale} against a T_spec ratio of {TSpecRatio}). Gradient flow on L_n (n = 10⁴, three seeds): "
    "T_spec {SampleExcessLow}–{SampleExcessHigh} above the population flow's, Δ = {SampleGapLow}–{SampleGapHigh}."
)
"""The gallery's longer reading, collapsed under the caption: ``{Name}`` fields are :data:`READINGS`."""


def key_numbers(
    panels: dict[str, Any], strengths: np.ndarray, samples: Samples, flows: dict[str, RunObservables], n_samples: int
) -> dict[str, Any]:
    """The numbers the README's figure table cites."""
    a, d, e, f = (panels[k] for k in "adef")
    by_d = lambda series: dict(zip((f"{D:g}" for D in strengths), series["y"], strict=True))  # noqa: E731
    tail = strengths >= GAP_FROM
    return {
        "strengths": style.tolist(strengths),
        "gap": by_d(e["gap"]),
        "gap_min_from_4": float(np.min(np.array(e["gap"]["y"])[tail])),
        "gap_max_from_4": float(np.max(np.array(e["gap"]["y"])[tail])),
        "gap_limit": e["gap-limit"]["value"],
        "gap_below_1": dict(
            zip((f"{D:g}" for D in e["gap-below-1"].get("x", [])), e["gap-below-1"].get("y", []), strict=True)
        ),
        "gap_theta0": {
            f"{t / math.pi:g}pi": v for t, v in zip(e["gap-theta0"]["theta0"], e["gap-theta0"]["y"], strict=True)
        },
        "mismatch": by_d(e["mismatch"]),
        "mismatch_min_from_4": float(np.min(np.array(e["mismatch"]["y"])[tail])),
        "mismatch_max_from_4": float(np.max(np.array(e["mismatch"]["y"])[tail])),
        "rescaling_at_shown": {"scale": f["scale"], "t_spec_ratio": f["t_spec_ratio"], "mismatch": f["mismatch"]},
        "loss_left_at_alignment": {g: a[f"{g}-at-alignment"]["y"][0] for g in GAUGES},
        "coefficient_at_alignment": {g: d[f"{g}-aligned-at"]["x"][0] for g in GAUGES},
        "distance_to_limit_path": {g: by_d(e[f"{g}-distance"]) for g in GAUGES},
        "distance_order": {
            g: fitted_order(strengths[tail], np.array(e[f"{g}-distance"]["y"])[tail], 0.0) for g in GAUGES
        },
        "t_spec_shown": {g: style.spec_time(flows[g]) for g in GAUGES},
        "sample_n": n_samples,
        "sample_t_spec_over_flow": {
            g: {
                f"s{s}": None if r.t_spec is None else r.t_spec / style.spec_time(flows[g])
                for s, r in samples[g].items()
            }
            for g in GAUGES
        },
        "sample_gap": panels["c"]["sample_gap"],
        "sample_gap_range": _range(panels["c"]["sample_gap"].values()),
        # T_spec on L_n against the population flow's, over every gauge and seed: (min, max) of ratio − 1
        "sample_t_spec_excess_range": _range(
            r.t_spec / style.spec_time(flows[g]) - 1.0 for g in GAUGES for r in samples[g].values() if r.t_spec
        ),
        "threshold": panels["b"]["threshold"],
    }


def _range(values: Any) -> list[float] | None:
    """``[min, max]`` of the finite values (None when there are none)."""
    finite = [float(v) for v in values if v is not None and math.isfinite(v)]
    return [min(finite), max(finite)] if finite else None
