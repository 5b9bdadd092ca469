"""fig3's quoted numbers: the sidecar's ``key`` (what the README's figure table cites, from the drawn
panels) and the readings its gallery caption and longer reading quote (:mod:`gaugecli.plots.readings`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots.readings import Reading

READINGS = (
    Reading("FavorableSlope", "panels/key/fit_slope/favorable", ".4f", "least-squares slope of ln T_spec(+D), D ≥ 4"),
    Reading(
        "UnfavorableSlope", "panels/key/fit_slope/unfavorable", ".4f", "least-squares slope of ln T_spec(−D), D ≥ 4"
    ),
    Reading(
        "RatioSlope", "panels/key/fit_slope/ratio", ".4f", "least-squares slope of the ln ratio T(−D)/T(+D), D ≥ 4"
    ),
    Reading("RatioFirstLocalSlope", "panels/e/ratio-local-slope/y/0", ".3f", "the ratio's local slope at D = 1→2"),
    Reading(
        "RatioLastLocalSlope", "panels/key/last_local_slope/ratio", ".6f", "the ratio's local slope at D = 512→1024"
    ),
    Reading("FavorableLimit", "panels/key/limit_favorable", ".5f", "D·T_spec(+D) as D → ∞ (reduced equations)"),
    Reading("UnfavorableLimit", "panels/key/limit_unfavorable", ".4f", "T_spec(−D)/D as D → ∞ (reduced equations)"),
    Reading("RatioLimit", "panels/key/limit_ratio", ".5f", "ratio/D² as D → ∞: the constant C at the defaults"),
    Reading("LimitDeviation", "panels/key/largest_limit_deviation", ".0e", "largest |y/limit − 1| of (c) at D = 1024"),
    Reading("CorrectionOrder", "panels/key/correction_order/ratio", ".2f", "order in 1/D of the ratio's correction"),
    Reading("IdentityFour", "panels/key/speed_identity_residual/D4", ".1e", "(d) |⟨S⟩/ratio − 1| at D = 4"),
    Reading("IdentityLargest", "panels/key/speed_identity_residual/D1024", ".1e", "(d) |⟨S⟩/ratio − 1| at D = 1024"),
    Reading("MobilityGap", "panels/key/mobility_gap_at_largest_D", ".1f", "mobility ratio at c0 over the T_spec ratio"),
    Reading("CSmallCoefficient", "panels/key/sensitivity_C/c0/0", ".1f", "C at c0 = 0.01"),
    Reading("CDefault", "panels/key/sensitivity_C/c0/1", ".2f", "C at the defaults c0 = 0.1, θ0 = π/2, ε_align = 0.01"),
    Reading("CLargeCoefficient", "panels/key/sensitivity_C/c0/2", ".2f", "C at c0 = 0.5"),
    Reading("CQuarterAngle", "panels/key/sensitivity_C/theta0/0", ".2f", "C at θ0 = π/4"),
    Reading("CThreeQuarterAngle", "panels/key/sensitivity_C/theta0/2", ".1f", "C at θ0 = 3π/4"),
    Reading("CSmallThreshold", "panels/key/sensitivity_C/eps_align/0", ".2f", "C at ε_align = 0.001"),
    Reading("CLargeThreshold", "panels/key/sensitivity_C/eps_align/2", ".2f", "C at ε_align = 0.05"),
    Reading(
        "SensitivitySlopeLow",
        "panels/key/sensitivity_local_slope_range/0",
        ".4f",
        "(f) smallest local slope, D = 64→128",
    ),
    Reading(
        "SensitivitySlopeHigh",
        "panels/key/sensitivity_local_slope_range/1",
        ".4f",
        "(f) largest local slope, D = 64→128",
    ),
)
"""The numbers the caption and the reading quote (:mod:`gaugecli.plots.readings`)."""
CAPTION = (
    "**The specialization times of the two gauges separate as Θ(D²): T_spec(−D)/T_spec(+D) ≈ C·D².** "
    "One neuron (m = 1), population flows for D = 1…1024. "
    "(a) T_spec(+D) falls like 1/D, T_spec(−D) grows like D; "
    "(b) their ratio, with least-squares slope {RatioSlope} over D ≥ 4; "
    "(c) D·T(+D), T(−D)/D and ratio/D² approach the D → ∞ limits (ratio/D² → {RatioLimit}); "
    "(d) the ratio is the time average of the ±D angular-speed ratio, not its start; "
    "(e) local slopes, the ratio's reaching {RatioLastLocalSlope} at D = 512→1024; "
    "(f) the exponent holds for every start and threshold tried, the constant C does not. "
    "The law is asymptotic: at D = 1 the ratio's local slope is {RatioFirstLocalSlope}."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""
READING = (
    "Least-squares slopes over 4 ≤ D ≤ 1024 (lines drawn at ⅓ beside the data): T(+D) {FavorableSlope}, "
    "T(−D) {UnfavorableSlope}, ratio {RatioSlope}. On deterministic data these carry the O(1/D²) bias, not "
    "noise, so (e) shows the local slopes: the ratio's local slope rises from {RatioFirstLocalSlope} at D = 1→2 to "
    "{RatioLastLocalSlope} at D = 512→1024. (c) D·T(+D) → {FavorableLimit}, T(−D)/D → {UnfavorableLimit} and "
    "ratio/D² → {RatioLimit}, the D → ∞ limits of the reduced equations (deviations ≤ {LimitDeviation} at "
    "D = 1024, corrections of order {CorrectionOrder}). (d) The closed-form mobility ratio at c = c0 is the ±D "
    "angular-speed ratio at t = 0 only; the T_spec ratio is the time average of that speed ratio over the +D "
    "run (an identity, met to {IdentityFour} at D = 4 and {IdentityLargest} at D = 1024), a factor "
    "{MobilityGap} below it. (f) The exponent is universal, the constant is not: C = {CSmallCoefficient}, "
    "{CDefault}, {CLargeCoefficient} for c0 = 0.01, 0.1, 0.5; {CQuarterAngle}, {CDefault}, "
    "{CThreeQuarterAngle} for θ0 = π/4, π/2, 3π/4; {CSmallThreshold}, {CDefault}, {CLargeThreshold} for "
    "ε_align = 0.001, 0.01, 0.05 (the D → ∞ limits), while the local slope at D = 64→128 is "
    "{SensitivitySlopeLow}–{SensitivitySlopeHigh} in all seven settings."
)
"""The gallery's longer reading, collapsed under the caption: ``{Name}`` fields are :data:`READINGS`."""


def key_numbers(panels: dict[str, Any], D: np.ndarray, fit_min: float) -> dict[str, Any]:
    """The numbers the README's figure table cites."""
    a, b, c, d, e = (panels[k] for k in "abcde")
    table = panels["f"]["sensitivity"]
    largest = f"speed-D{D[-1]:g}"
    return {
        "fit_range": [fit_min, float(D[-1])],
        "fit_slope": {
            "favorable": a["favorable-fit"]["slope"],
            "unfavorable": a["unfavorable-fit"]["slope"],
            "ratio": b["fit"]["slope"],
        },
        "last_local_slope": {k: e[f"{k}-local-slope"]["last"] for k in ("favorable", "unfavorable", "ratio")},
        "last_local_slope_between": [float(D[-2]), float(D[-1])],
        "asymptotic_slope_ratio": [b["asymptotic-slope"]["value"], b["asymptotic-slope"]["error"]],
        "limit_favorable": panels["limits"]["favorable"],
        "limit_unfavorable": panels["limits"]["unfavorable"],
        "limit_ratio": panels["limits"]["ratio"],
        "compensated_at_largest_D": {k: c[k]["y"][-1] for k in ("favorable", "unfavorable", "ratio")},
        "correction_order": {k: c[f"{k}-correction-order"] for k in ("favorable", "unfavorable", "ratio")},
        "mobility_gap_at_largest_D": b["gap"]["mobility_over_ratio"],
        "speed_ratio_start": d[largest]["y"][0],
        "speed_ratio_at_alignment": d[largest]["y"][-1],
        "speed_ratio_time_average": d[largest]["time_average"],
        # (d)'s identity ∫S dt = T_spec ratio, met to the solvers' tolerances: |time average / ratio − 1|
        "speed_identity_residual": {
            f"D{d[k]['D']:g}": abs(d[k]["time_average"] / d[k]["measured_ratio"] - 1.0)
            for k in sorted((k for k in d if k.startswith("speed-D")), key=lambda k: d[k]["D"])
        },
        "largest_limit_deviation": max(
            abs(c[f"{k}-relative-deviation"][-1]) for k in ("favorable", "unfavorable", "ratio")
        ),
        "coefficients_at_alignment": [
            d[largest]["coefficient_plus_at_alignment"],
            d[largest]["coefficient_minus_at_alignment"],
        ],
        "sensitivity_C": {name: [row["C"] for row in table[name]] for name in ("c0", "theta0", "eps_align")},
        "sensitivity_local_slope_range": table["exponent_range"],
    }
