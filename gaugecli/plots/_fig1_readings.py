"""fig1's quoted numbers: the sidecar readings (:data:`READINGS`) that its gallery caption and longer
reading cite (:mod:`gaugecli.plots.readings`), kept apart from the drawing."""

from __future__ import annotations

from gaugecli.plots.readings import Reading

READINGS = (
    Reading("DriftMax", "panels/key/delta_drift_max", ".1e", "(a) the largest drift of δ along a run (C2)"),
    Reading(
        "PredictionDifference",
        "panels/b/invisibility/initial_prediction_max_difference",
        ".1e",
        "(b) largest difference of the initial predictions",
    ),
    Reading(
        "PredictionSpread",
        "panels/b/invisibility/initial_prediction_relative_spread",
        ".1e",
        "(b) that difference relative to c0",
    ),
    Reading("FavorableTSpec", "panels/key/t_spec/favorable", ".3f", "T_spec(+D)"),
    Reading("FavorableAlignment", "panels/b/favorable/alignment", ".2f", "(b) α of +D at T_spec(+D)"),
    Reading("FavorableCoefficient", "panels/b/favorable/coefficient", ".3f", "(b) c of +D at T_spec(+D)"),
    Reading("UnfavorableAlignment", "panels/b/unfavorable/alignment", ".4f", "(b) α of −D at T_spec(+D)"),
    Reading("WindowStart", "panels/key/window_above_half/0", ".5f", "(c) the gap first exceeds ½ (brentq)"),
    Reading("WindowEnd", "panels/key/window_above_half/1", ".3f", "(c) the gap falls below ½ again"),
    Reading("GapPeak", "panels/c/peak", ".3f", "(c) the largest gap ‖f₊ − f₋‖/‖y‖"),
    Reading("GapPeakTime", "panels/c/t_peak", ".2f", "(c) the time of that peak"),
    Reading("UnfavorableTSpec", "panels/key/t_spec/unfavorable", ".2f", "T_spec(−D)"),
    Reading("BalancedTSpec", "panels/key/t_spec/balanced", ".2f", "T_spec of the balanced gauge (δ = 0)"),
)
"""The numbers the caption and the reading quote (:mod:`gaugecli.plots.readings`)."""
CAPTION = (
    "**The gauge is invisible at the start and decisive later: three runs from one initial function follow "
    "different paths and specialize at different times.** "
    "One neuron, f0 = c0 relu(u0·x), gauges δ = +D, 0, −D, D = 4. "
    "(a) each run slides along its own level set of δ, from the initial function's curve to the target's; "
    "(b) top: the three initial predictions coincide to round-off; bottom: at T_spec(+D) = {FavorableTSpec} the +D "
    "student has reached the teacher, the −D one has barely turned; "
    "(c) the gap between the two students peaks at {GapPeak} of ‖y‖ and returns to 0 after "
    "T_spec(−D) = {UnfavorableTSpec}. "
    "Invisibility holds at t = 0 only: the parameters differ from the start."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""
READING = (
    "(a) In the (‖w‖, |a|) plane each path stays on its δ level set (drift ≤ {DriftMax}) and ends on "
    "|a|‖w‖ = a*; +D moves in ‖w‖, −D in |a|, as mirror images. (b) On the unit circle x(φ) of span(v, u0), "
    "v at φ = 0 and u0 at θ0 = π/2. Top: the three gauges' initial predictions overlaid, largest difference "
    "{PredictionDifference} ({PredictionSpread} of c0: round-off). Bottom: each run's state stored at "
    "T_spec(+D) = {FavorableTSpec} (a declared time, from the dense output): +D aligned (α = {FavorableAlignment}, "
    "c = {FavorableCoefficient}), −D has not turned (α = {UnfavorableAlignment}). (c) The gap ‖f₊ − f₋‖/‖y‖, at "
    "times both runs store, grows from 0, exceeds ½ for t ∈ [{WindowStart}, {WindowEnd}] (ends by brentq on the "
    "reduced flow's dense output), peaks at {GapPeak} (t = {GapPeakTime}) and returns to 0 after "
    "T_spec(−D) = {UnfavorableTSpec} (balanced: {BalancedTSpec})."
)
"""The gallery's longer reading, collapsed under the caption: ``{Name}`` fields are :data:`READINGS`."""
