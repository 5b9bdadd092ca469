"""Figure 8's words: its claim, the numbers its caption quotes (:mod:`gaugecli.plots.readings`), the caption, and
where its sidecar's numbers may move across arithmetic paths."""

from __future__ import annotations

from gaugecli.plots.readings import Reading

CLAIM = (
    "beyond: T_spec(−D)/T_spec(+D) = Θ(D^(1+1/p)) at degree p (2 for relu, 3/2 for relu2 and z²); "
    "Θ(D² ln D) for the linear network and erf"
)

READINGS = (
    Reading(
        "SlopeRelu",
        "panels/key/relu/separation_slope_at_largest_D",
        ".3f",
        "local slope of T(−D)/T(+D) in D at D = 256→1024, relu",
    ),
    Reading(
        "SlopeReluSquared", "panels/key/relu2/separation_slope_at_largest_D", ".3f", "the same for relu² (degree 2)"
    ),
    Reading(
        "FavorableConstant",
        "panels/key/relu/constants/favorable/extrapolated",
        ".5f",
        "D·T(+D) for relu, extrapolated in 1/D",
    ),
    Reading(
        "FavorableLimit", "panels/key/relu/exact_limits/favorable", ".5f", "its D → ∞ limit from the reduced equations"
    ),
    Reading(
        "UnfavorableConstant",
        "panels/key/relu/constants/unfavorable/extrapolated",
        ".4f",
        "T(−D)/D for relu, extrapolated in 1/D",
    ),
    Reading(
        "UnfavorableLimit",
        "panels/key/relu/exact_limits/unfavorable",
        ".4f",
        "its D → ∞ limit from the reduced equations",
    ),
    Reading(
        "LinearPEnd",
        "panels/key/linear/P_end",
        ".1e",
        "the linear network's non-owner norm at the horizon, m = 5, D = 4",
    ),
)
"""The numbers the caption quotes (:mod:`gaugecli.plots.readings`)."""

CAPTION = (
    "**At degree p the separation T(−D)/T(+D) grows like D^(1+1/p); the linear network and erf pay a ln D.** "
    "m = 1 from u0 ⊥ v, D = 1…1024. "
    "(a, b) T_spec(±D) at degree 1, at degree 2 and for erf. "
    "(c) The separation's local slope at the largest D: {SlopeRelu} for relu, {SlopeReluSquared} for relu²; "
    "relu's D·T(+D) → {FavorableConstant} and T(−D)/D → {UnfavorableConstant} (the reduced equations: "
    "{FavorableLimit}, {UnfavorableLimit}). "
    "(d) T(−D)/D against ln D: straight for the linear network and erf, a separation Θ(D² ln D). "
    "(e) Selection among m = 5: the +D neuron owns for every activation; the others are pruned except in "
    "the linear network (P_end = {LinearPEnd}). "
    "(f) erf has no gauge: δ relaxes."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""

SIDECAR_TOLERANCES = (
    (
        "*constants*",
        1e-6,
        1e-7,
        "Richardson extrapolations (4v_k − v_{k−1})/3 of scaled times v ≈ 1–20 carry ~3× the runs' 1e-9 "
        "relative error; their spread (a difference of two) moved by ≤ 9e-9 on a second arithmetic path",
    ),
    (
        "*slope*",
        1e-6,
        1e-7,
        "local slopes are differences of ln T at neighbouring D: the runs' 1e-9 relative error over ln 4",
    ),
    (
        "*law*",
        1e-6,
        1e-7,
        "A ln D + B and its increments are differences of T/D ≈ 10–70 over ln 4: the runs' 1e-9 relative error",
    ),
)
"""Where a number moves more than the shared default across arithmetic paths, and why (first match wins)."""
