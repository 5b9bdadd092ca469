"""The ReLN figure's words: its claim, the numbers its caption quotes (:mod:`gaugecli.plots.readings`), the caption
and the longer reading, and where its sidecar's numbers may move across arithmetic paths."""

from __future__ import annotations

from gaugecli.plots.readings import Reading

CLAIM = (
    "ReLN view: predicts selection and the +D clock up to a constant factor, misses the −D saddle and erases the "
    "gauge in the race"
)

READINGS = (
    Reading("FavorableRatio", "panels/b/favorable_ratio/3", ".4f", "T_spec(ReLN)/T_spec(ReLU) at +D, D = 64"),
    Reading("FavorableRatioLimit", "panels/b/favorable_ratio_limit", ".4f", "that ratio as D → ∞"),
    Reading("UnfavorableRatio", "panels/b/unfavorable_ratio/3", ".2f", "T_spec(ReLN)/T_spec(ReLU) at −D, D = 64"),
    Reading(
        "ReluCoefficient", "panels/c/relu_limit/coefficient", ".2f", "the ReLU separation's D → ∞ constant C in C·D²"
    ),
    Reading("ReluSlope", "panels/c/relu/slope_D_ge_4", ".2f", "log–log slope of the ReLU separation, D ≥ 4"),
    Reading("RelnSlope", "panels/c/reln/slope_D_ge_4", ".2f", "log–log slope of the ReLN separation, D ≥ 4"),
    Reading("SelectLossGap", "panels/d/max_abs_dloss_over_l0", ".1%", "select: max |L_ReLN − L_ReLU| / L(0)"),
    Reading("RestartError", "panels/e/max_error_by_t0/2", ".1%", "largest restart error from t0 = 2 T_spec (worst D)"),
    Reading(
        "EnvelopeFavorableStart", "panels/f/delta_+64/y/0", ".2f", "fixed-gate envelope at the largest ℓ, +D (D = 64)"
    ),
    Reading("EnvelopeFavorableEnd", "panels/f/delta_+64/y/6", ".2f", "the same at the smallest ℓ"),
    Reading(
        "EnvelopeUnfavorableStart", "panels/f/delta_-64/y/0", ".2f", "fixed-gate envelope at the largest ℓ, −D (D = 64)"
    ),
    Reading("EnvelopeUnfavorableEnd", "panels/f/delta_-64/y/6", ".2f", "the same at the smallest ℓ"),
)
"""The numbers the caption and the reading quote (:mod:`gaugecli.plots.readings`)."""

CAPTION = (
    "**The gated-linear (ReLN) view keeps selection and the +D clock, but misses the −D saddle, and its aligned "
    "race erases the gauge.** "
    "ReLU flows against ReLNs with fixed gates, D = 1…64. "
    "(a) loss curves at D = 4, +D and −D on one time axis; "
    "(b) T_spec(ReLN)/T_spec(ReLU): a constant at +D ({FavorableRatio} at D = 64), growing like ln D at −D; "
    "(c) the separation, ReLU ∝ D², ReLN ∝ D² ln D, race ≡ 1; "
    "(d) select: the same owner, losses within {SelectLossGap} of L(0); "
    "(e) restarts with frozen gates: error ≤ {RestartError} from t0 = 2 T_spec, while earlier restarts may never "
    "reach the target; "
    "(f) the fixed-gate envelope. "
    "The view stops at the −D saddle."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""

READING = (
    "+D: T_spec(ReLN)/T_spec(ReLU) = {FavorableRatio} at D = 64 (limit {FavorableRatioLimit}); −D: the ratio "
    "grows like ln D ({UnfavorableRatio} at D = 64); T(−D)/T(+D): ReLU → {ReluCoefficient} D² (slope "
    "{ReluSlope} over D ≥ 4), ReLN ∝ D² ln D (slope {RelnSlope}), race ≡ 1; select: same owner, "
    "max|ΔL| = {SelectLossGap} L(0); restart error ≤ {RestartError} from t0 = 2 T_spec (worst D; the bars span "
    "all D; restarts whose frozen gates' floor lies above the target never reach it: drawn in a strip of their "
    'own labelled "never reached", above the error axis, at no value); fixed-gate envelope +D '
    "{EnvelopeFavorableStart} → {EnvelopeFavorableEnd}, −D {EnvelopeUnfavorableStart} → {EnvelopeUnfavorableEnd} "
    "(D = 64; D = 4, 16 coincide with it, D = 1 light). (a) draws +D and −D in two halves of one time axis."
)
"""The gallery's longer reading, collapsed under the caption: ``{Name}`` fields are :data:`READINGS`."""

SIDECAR_TOLERANCES = (
    ("e/*", 1e-6, 1e-7, "errors of the race reduction: differences of nearly equal times (absolute, their scale ≈ 1)"),
)
"""Where a number moves more than the shared default across arithmetic paths, and why (first match wins)."""
