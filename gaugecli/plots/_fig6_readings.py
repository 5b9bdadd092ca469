"""Figure 6's words: its claim, the numbers its caption quotes (:mod:`gaugecli.plots.readings`), the caption, and
where its sidecar's numbers may move across arithmetic paths."""

from __future__ import annotations

from gaugecli.plots.readings import Reading

SIDECAR_TOLERANCES = (
    (
        "d/bound_over_max_shown",
        float("inf"),
        0.0,
        "the claimed 1e-10 over the largest residual drawn, which is round-off (5.1e-14 here, 2.3e-14 on the "
        "second arithmetic path): it moves with the arithmetic, the claim it states does not",
    ),
    ("d/*", 0.0, 1e-8, "the identity residual is round-off (≤ 1e-12 where drawn): compared absolutely"),
    ("shares/*residual", 0.0, 1e-8, "integrated and largest resolved identity residuals are round-off, ≤ 1e-10"),
    (
        "c/*",
        1e-2,
        1e-6,
        "the spline's derivative of ln L: the loss carries round-off ≈ 1e-16 L(0), which moves the relative "
        "difference by ≈ 4e-15/L, ≤ 4e-7 where it is drawn (L ≥ 1e-8; 2e-7 seen between arithmetic paths): "
        "compared absolutely below 1e-6, to 1 % above",
    ),
    ("e/*", 1e-6, 1e-14, "R and T in closed form from flow states at rtol 1e-10"),
    ("f/*", 1e-6, 1e-9, "a ratio of R and T"),
)
"""Per-series tolerances of the regeneration check (:mod:`gaugecli.plots.sidecar`)."""

CLAIM = "C3 dissipation: +D spends its loss through reaction, −D through transport (the t = 0 instant looks reversed)"

READINGS = (
    Reading(
        "ReactionShareFavorable",
        "panels/shares/favorable/4/reaction_share",
        ".3f",
        "reaction share ∫R/∫(R+T) of the loss dissipated by +D at D = 4",
    ),
    Reading(
        "ReactionShareUnfavorable", "panels/shares/unfavorable/4/reaction_share", ".3f", "the same for −D at D = 4"
    ),
    Reading(
        "LimitFavorable",
        "panels/shares/limit_reaction_share/favorable",
        ".4f",
        "the D → ∞ limit of the +D reaction share (reduced equations)",
    ),
    Reading(
        "LimitUnfavorable",
        "panels/shares/limit_reaction_share/unfavorable",
        ".4f",
        "the D → ∞ limit of the −D reaction share",
    ),
    Reading(
        "InstantReactionShare",
        "panels/shares/favorable/4/instant_reaction_share",
        ".2f",
        "+D's reaction share of the dissipation at t = 0, D = 4",
    ),
    Reading(
        "SplineDeviation",
        "panels/c/max_relative_deviation",
        ".1e",
        "largest relative difference of −dL/dt (spline of the loss) from R + T",
    ),
    Reading(
        "ResidualShown",
        "panels/d/max_shown",
        ".1e",
        "largest pointwise relative residual of the identity ‖∇L‖² = R + T drawn in (d)",
    ),
)
"""The numbers the caption quotes (:mod:`gaugecli.plots.readings`)."""

CAPTION = (
    "**Over a run +D spends its loss mostly through reaction, −D mostly through transport.** m = 1, "
    "population flow, D = 1…64. "
    "(a) Cumulative ∫R and ∫T at D = 4: reaction shares {ReactionShareFavorable} (+D) and "
    "{ReactionShareUnfavorable} (−D). "
    "(b) The transport share for every D, with the D → ∞ limits ({LimitFavorable}, {LimitUnfavorable} as "
    "reaction shares). "
    "(c) −dL/dt from the loss alone agrees with R + T to {SplineDeviation} relative. "
    "(d) The identity ‖∇L‖² = R + T holds pointwise to {ResidualShown}. "
    "(e, f) R and T over time: where the claim stops, the instant t = 0 looks the other way (+D's reaction "
    "share starts at {InstantReactionShare})."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""
