"""fig12's quoted numbers: the sidecar readings (:data:`READINGS`) that its gallery caption and longer
reading cite (:mod:`gaugecli.plots.readings`), kept apart from the drawing."""

from __future__ import annotations

from gaugecli.plots.readings import Reading

READINGS = (
    Reading("GdDrift", "panels/key/gd_drift", ".1e", "(a) the larger relative drift of δ under GD (η = 1e-2, ±4)"),
    Reading("MomentumDrift", "panels/key/momentum_drift", ".2g", "(a) the same under momentum (β = 0.9)"),
    Reading(
        "AdamPlusDelta",
        "panels/key/adam_delta_at_t_spec/favorable",
        ".2f",
        "(a) δ of the +4 neuron under Adam when it aligns",
    ),
    Reading(
        "AdamMinusDelta",
        "panels/key/adam_delta_at_t_spec/unfavorable",
        ".2f",
        "(a) δ of the −4 neuron under Adam when it aligns",
    ),
    Reading("FlowSlope", "panels/key/last_slope/flow", ".2f", "(c) the flow's local slope at the largest D"),
    Reading("HeavySlopeFirst", "panels/key/first_slope/heavy-ball", ".2f", "(c) heavy ball's local slope, D = 1→4"),
    Reading(
        "HeavySlopeLast", "panels/key/last_slope/heavy-ball", ".2f", "(c) heavy ball's local slope at its largest D"
    ),
    Reading("AdamSlopeFirst", "panels/key/first_slope/adam", ".2f", "(c) Adam's local slope, D = 1→4"),
    Reading("AdamSlopeLast", "panels/key/last_slope/adam", ".2f", "(c) Adam's local slope, D = 256→1024"),
    Reading("AdamPlusSteps", "panels/key/adam_plus_steps_min", ".2g", "(c) the fewest steps T(+D)/η of Adam's runs"),
    Reading("AdamRatioLast", "panels/key/ratios/adam/5", ".0f", "(b) Adam's T_spec(−D)/T_spec(+D) at D = 1024"),
    Reading(
        "ExclusiveEta",
        "panels/d/exclusive_eta_max/D16",
        ".2g",
        "(d) the largest η of the map at which selection is exclusive, D = 16",
    ),
    Reading(
        "MomentumBetaUnit",
        "panels/e/exclusive_max/D1",
        ".2g",
        "(e) the largest momentum β of the map at which selection is exclusive, D = 1",
    ),
    Reading(
        "MomentumBetaFour",
        "panels/e/exclusive_max/D4",
        ".2g",
        "(e) the same at D = 4 (the map's largest β: exclusive at every β of the map)",
    ),
    Reading(
        "AdamBetaOneMin",
        "panels/f/exclusive_min/D16",
        ".2g",
        "(f) the least Adam β1 of the map at which selection is exclusive, D = 16",
    ),
    Reading(
        "AdamBetaOneMax",
        "panels/f/exclusive_max/D16",
        ".2g",
        "(f) the largest Adam β1 of the map at which selection is exclusive, D = 16",
    ),
)
"""The numbers the caption and the reading quote (:mod:`gaugecli.plots.readings`)."""
CAPTION = (
    "**Under Adam the gauge is not kept and the ±D separation grows like D, under momentum like D^{{3/2}}, "
    "not like the flow's D²; the +D owner still wins under momentum, under Adam at moderate η and β1.** "
    "(a) δ(t) at ±4: GD keeps it (drift {GdDrift}); Adam moves +4 to {AdamPlusDelta}, −4 to "
    "{AdamMinusDelta}. "
    "(b, c) T_spec(−D)/T_spec(+D), local slopes: flow {FlowSlope}, heavy ball "
    "{HeavySlopeFirst} → {HeavySlopeLast}, Adam {AdamSlopeFirst} → {AdamSlopeLast}. "
    "(d–f) Selection (m = 5, owner +D, others −D) under Adam is exclusive up to "
    "η = {ExclusiveEta} at D = 16; at η = 1e-2, under momentum at D ≥ 4 up to β = {MomentumBetaFour}, "
    "under Adam at D = 16 only for β1 from {AdamBetaOneMin} to {AdamBetaOneMax}."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""
READING = (
    "(a) One neuron from u0 ⊥ v at δ(0) = ±4 under torch's update rules at η = 1e-2 (momentum: η = 1e-3, "
    "β = 0.9, the same effective step; its clock t/(1 − β)), AdamW with decoupled decay λ = 0.1; markers at "
    "each run's T_spec. GD's relative drift is {GdDrift} (O(η)), momentum's {MomentumDrift}; Adam's "
    "per-coordinate steps move δ: +4 → {AdamPlusDelta}, −4 → {AdamMinusDelta} at alignment. "
    "(b) The ±D separation with the guides D², D^{{3/2}}, D through each law's largest D; Adam reaches "
    "{AdamRatioLast} at D = 1024. (c) The local slopes Δ ln r/Δ ln D: the flow's stays at {FlowSlope}; "
    "the heavy ball's rises from {HeavySlopeFirst} to {HeavySlopeLast} (inertia-limited +D, overdamped −D); "
    "Adam's from {AdamSlopeFirst} to {AdamSlopeLast}, towards the sign-like limit's 1 (at η = 3e-3 T(+D) "
    "is still {AdamPlusSteps} steps at D = 1024). (d) Outcome classes of phase --kind select under Adam at "
    "horizon t = 20; white "
    "edges separate classes. Exclusive selection holds up to η = {ExclusiveEta} at D = 16; one step later the "
    "non-owners are not pruned by the horizon (or no neuron owns). (e) The same map under heavy-ball momentum "
    "at η = 1e-2 over (D, β), horizon t = 40 (β = 0 is GD; the effective step η/(1 − β) grows to 1): the owner "
    "wins exclusively at every β up to {MomentumBetaFour} for D ≥ 4 — momentum is the heavy-ball flow, whose "
    "separation still grows like D^{{3/2}}; at D = 1 exclusive up to β = {MomentumBetaUnit}, shared at the "
    "weakly damped top row (friction γ = (1 − β)/√η ≪ 1), and at D = 1/4 the smaller β need longer than the horizon. (f) Under "
    "Adam at η = 1e-2 over (D, β1), t = 20: D ≤ 1 is shared at every β1; at D = 16 exclusive for β1 from "
    "{AdamBetaOneMin} to {AdamBetaOneMax}, unpruned by the horizon at β1 = 0 and "
    "at the top row."
)
"""The gallery's longer reading, collapsed under the caption: ``{Name}`` fields are :data:`READINGS`."""
