"""Figure 5's words: its claim, the numbers its caption quotes (:mod:`gaugecli.plots.readings`), the caption, and
where its sidecar's numbers may move across arithmetic paths."""

from __future__ import annotations

from gaugecli.plots.readings import Reading

CLAIM = "C7 pruning: non-owners with δ < 0 vanish, exponentially, in a time ∝ 1/D; from δ = 0 on they co-align"

READINGS = (
    Reading(
        "RateTwo",
        "panels/key/rate_limit_per_D/m2",
        ".4f",
        "pruning rate per unit D of the flow linearised at the pruned minimum, m = 2",
    ),
    Reading("RateFive", "panels/key/rate_limit_per_D/m5", ".4f", "the same rate for m = 5"),
    Reading(
        "SlopeTwo",
        "panels/b/flow-m2/asymptotic_slope",
        ".4f",
        "asymptotic slope of the pruning time against D, m = 2 (last local slope)",
    ),
    Reading(
        "SlopeTwoError", "panels/b/flow-m2/asymptotic_error", ".4f", "its error: the change of the last local slope"
    ),
    Reading(
        "ShareAtOne",
        "panels/key/sweep/1/share",
        ".0%",
        "the co-aligned non-owner's share of the coefficient at δ = 1 (horizon t = 1000)",
    ),
    Reading(
        "BalancedShare", "panels/key/sweep/0/share", ".1%", "the balanced (δ = 0) non-owner's share at the horizon"
    ),
    Reading(
        "BalancedLogSlope",
        "panels/key/sweep/0/log_slope_last_decade",
        ".2f",
        "d ln P/d ln t of the balanced non-owner over the last decade",
    ),
)
"""The numbers the caption quotes (:mod:`gaugecli.plots.readings`)."""

CAPTION = (
    "**Non-owners with δ < 0 are pruned exponentially, in a time ∝ 1/D; from δ = 0 on they co-align and keep "
    "a share.** Owner +D, the others −D, m = 2 and 5. "
    "(a) The final norm against the non-owner's δ: pruned below 0, a settled share above "
    "({ShareAtOne} at δ = 1). "
    "(b) Pruning time against D: asymptotic slope {SlopeTwo} ± {SlopeTwoError} (m = 2). "
    "(c, d) P decays at the rate of the flow linearised at the pruned minimum, {RateTwo} D (m = 2; "
    "{RateFive} D for m = 5). "
    "Where it stops: at δ = 0 the share is {BalancedShare} at the horizon and still falling as "
    "t^{BalancedLogSlope}, algebraically: exponential pruning needs δ < 0 strictly."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""

SIDECAR_TOLERANCES = (
    (
        "b/delay/*",
        0.0,
        0.1,
        "100·(t_sample/t_population − 1), in %: the finite-sample time to its rtol 1e-3 (as '*sample*' below) "
        "moves it by ≤ 0.1 points",
    ),
    (
        "*decay_rate",
        1e-3,
        1e-9,
        "−d ln P/dt fitted down to 10× P's resolution, where P carries the solver's absolute error: ≤ 1e-3",
    ),
    ("*asymptotic_error", 1e-6, 1e-7, "a standard error from fit residuals at the runs' 1e-9 level"),
    ("*sample*final*", 0.0, 1e-6, "a finite-sample P below its resolution 1e-6 is solver round-off: absolute"),
    ("*sample*", 1e-3, 1e-6, "the finite-sample flow runs at rtol 1e-4: platform round-off moves it by ≪ 1e-3"),
    ("*/final*", 0.0, 1e-11, "P at the end of a pruned run is solver round-off (≤ 1e-11): compared absolutely"),
    ("c/*", 1e-5, 1e-11, "P(t) is followed to rtol 1e-10; near the resolution 1e-11 its round-off shows"),
    ("d/*", 1e-5, 1e-11, "P(t) is followed to rtol 1e-10; near the resolution 1e-11 its round-off shows"),
)
"""Per-series tolerances of the regeneration check (:mod:`gaugecli.plots.sidecar`)."""
