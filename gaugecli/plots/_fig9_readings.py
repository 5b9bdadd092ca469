"""Figure 9's words: its claim, the numbers its caption quotes (:mod:`gaugecli.plots.readings`), the caption,
and the longer reading."""

from __future__ import annotations

from gaugecli.plots.readings import Reading

CLAIM = "beyond: weight decay λ makes δ(t) = δ(0)e^(−2λt); the D² separation survives while λ·T_spec(−D) ≪ 1"

READINGS = (
    Reading(
        "LawDriftFavorable", "panels/key/law_drift/favorable", ".0e", "(c) largest deviation from δ(0)e^(−2λt), +D"
    ),
    Reading("LawDriftUnfavorable", "panels/key/law_drift/unfavorable", ".1e", "(c) the same along −D"),
    Reading("StepFavorable", "panels/key/gd_eta/favorable", ".4f", "(d) the GD step η of +D (≤ 1 % T_spec error)"),
    Reading("StepUnfavorable", "panels/key/gd_eta/unfavorable", ".3f", "(d) the GD step η of −D"),
    Reading(
        "DepartureFavorable",
        "panels/key/gd_departure_from_law/favorable",
        ".1e",
        "(d) GD's departure from the law /δ(0), +D",
    ),
    Reading("DepartureUnfavorable", "panels/key/gd_departure_from_law/unfavorable", ".1e", "(d) the same, −D"),
    Reading(
        "IdentityFavorable",
        "panels/key/gd_step_identity_residual/favorable",
        ".0e",
        "(d) residual of the per-step identity, +D",
    ),
    Reading("IdentityUnfavorable", "panels/key/gd_step_identity_residual/unfavorable", ".0e", "(d) the same, −D"),
    Reading("DecayedFour", "panels/key/ratio_at_largest_decay/D4", ".0f", "T(−D)/T(+D) at λ = 0.1, D = 4"),
    Reading("DecayedSixteen", "panels/key/ratio_at_largest_decay/D16", ".0f", "the same, D = 16"),
    Reading("DecayedSixtyFour", "panels/key/ratio_at_largest_decay/D64", ".0f", "the same, D = 64"),
    Reading("UndecayedFour", "panels/key/ratio_at_zero/D4", ".0f", "T(−D)/T(+D) without decay, D = 4"),
    Reading("UndecayedSixteen", "panels/key/ratio_at_zero/D16", ".0f", "the same, D = 16"),
    Reading("UndecayedSixtyFour", "panels/key/ratio_at_zero/D64", ".0f", "the same, D = 64"),
    Reading(
        "CollapseSlow", "panels/key/collapse_spread/max_over_min_at_most_1", ".3f", "(b) spread of the D while λT₀ ≤ 1"
    ),
    Reading(
        "CollapseFast", "panels/key/collapse_spread/max_over_min_above_1", ".2f", "(b) spread of the D above λT₀ = 1"
    ),
    Reading(
        "NonownerShare", "panels/key/largest_nonowner_share", ".2%", "(e) the others' largest share of Σ|c| in any cell"
    ),
    Reading(
        "BoundaryOne", "panels/key/exclusive_boundary/D1", ".1e", "λ*(D = 1): P_end = 1e-6 (log–log interpolation)"
    ),
    Reading("BoundaryTwo", "panels/key/exclusive_boundary/D2", ".1e", "λ*(D = 2)"),
    Reading("BoundaryFour", "panels/key/exclusive_boundary/D4", ".1e", "λ*(D = 4)"),
    Reading("BoundaryEight", "panels/key/exclusive_boundary/D8", ".1e", "λ*(D = 8)"),
    Reading("BoundarySixteen", "panels/key/exclusive_boundary/D16", ".1e", "λ*(D = 16)"),
    Reading("BoundaryThirtyTwo", "panels/key/exclusive_boundary/D32", ".1e", "λ*(D = 32)"),
)
"""The numbers the caption and the reading quote (:mod:`gaugecli.plots.readings`)."""

CAPTION = (
    "**Weight decay erases the gauge: δ decays as δ(0)e^(−2λt), and the D² separation survives only while the "
    "decay is slow on the unfavorable clock.** "
    "ReLU, one neuron unless stated. "
    "(a) T(−D)/T(+D) falls with λ: {DecayedSixtyFour} at D = 64, λ = 0.1, against {UndecayedSixtyFour} "
    "without decay; "
    "(b) over its λ = 0 value it falls on about one curve of λ·T_spec(−D); "
    "(c) the law along the ±D flows; "
    "(d) gradient descent departs from it as the per-step identity predicts; "
    "(e) among five neurons the +D one owns in every cell, but decay holds the others at a level: selection is "
    "exclusive (P_end ≤ 1e-6) only below λ*(D), {BoundaryOne} at D = 1 to {BoundaryThirtyTwo} at D = 32."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""

READING = (
    "With decay λ, δ(t) = δ(0)e^(−2λt) for every neuron: along the ±D flows at D = 16, λ = 0.01 the drift from "
    "that law is {LawDriftFavorable} and {LawDriftUnfavorable} (c). Gradient descent departs from it (D = 4, "
    "λ = 0.01, each run at its ≤ 1 % step: η = {StepFavorable} for +D, {StepUnfavorable} for −D) by "
    "{DepartureFavorable} and {DepartureUnfavorable} of δ(0), and the per-step identity "
    "δ_(k+1) = (1 − 2ηλ)δ_k + η²(g_a² − ‖g_w‖²/p) accounts for it to {IdentityFavorable} and "
    "{IdentityUnfavorable} (d). The separation T(−D)/T(+D) falls with λ (a): at λ = 0.1 it is {DecayedFour}, "
    "{DecayedSixteen} and {DecayedSixtyFour} for D = 4, 16, 64 against {UndecayedFour}, {UndecayedSixteen} and "
    "{UndecayedSixtyFour} without decay. Divided by its λ = 0 value it falls approximately on one curve of "
    "λ·T_spec(−D)|λ=0 (b): the three D agree within a factor {CollapseSlow} while that product is ≤ 1, and "
    "D = 4 departs upward above it (a factor up to {CollapseFast} between the D). Selection among m = 5 over "
    "(λ, D) (e; at select's horizon t_end = 200(1 + D)): the +D neuron owns the feature in every cell (the "
    "others' share of Σ|c| ≤ {NonownerShare}), but decay holds the others at a level instead of pruning them — "
    "P_end ∝ λ as λ → 0, and not monotone once δ decays within the horizon. Selection is exclusive "
    "(P_end ≤ 1e-6) only below λ*(D) = {BoundaryOne}, {BoundaryTwo}, {BoundaryFour}, {BoundaryEight}, "
    "{BoundarySixteen}, {BoundaryThirtyTwo} for D = 1, 2, 4, 8, 16, 32 (located by log–log interpolation) — "
    "claim C7's boundary under decay."
)
"""The gallery's longer reading, collapsed under the caption: ``{Name}`` fields are :data:`READINGS`."""
