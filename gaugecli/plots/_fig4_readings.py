"""Figure 4's words: its claim, the numbers its caption quotes (:mod:`gaugecli.plots.readings`), the caption, and
where its sidecar's numbers may move across arithmetic paths."""

from __future__ import annotations

from gaugecli.plots.readings import Reading

SIDECAR_TOLERANCES = (
    (
        "*stderr",
        1e-4,
        1e-9,
        "a fit's standard error: a difference of nearly equal residuals, ×1e4 the runs' 1e-9 error",
    ),
    (
        "e/-4-t_spec_per_efold/slope",
        1e-5,
        0.0,
        "B of T_spec ≈ A + B ln(1/g): the T_spec's 1e-6 relative tolerance propagated through the "
        "least squares, Σ_i |∂B/∂T_i|·1e-6·T_i = 7.9e-6·B",
    ),
    (
        "e/-4-t_spec_per_efold/intercept",
        3e-6,
        0.0,
        "A of the same fit, propagated likewise: Σ_i |∂A/∂T_i|·1e-6·T_i = 2.5e-6·A",
    ),
    (
        "e/-4-tie*",
        float("inf"),
        0.0,
        "a tie of −D neurons is split by round-off (docs/theory.md §9, Λ ≈ 32): which neuron ends largest, and its c, vary",
    ),
)
"""Per-series tolerances of the regeneration check (:mod:`gaugecli.plots.sidecar`)."""

CLAIM = "C6 selection: the neuron with the largest δ owns the feature, at every width and index; ties select none"

READINGS = (
    Reading("TSpec", "panels/a/t_spec", ".3f", "T_spec of the owner among m = 5 at D = 4 (owner +D, others −D)"),
    Reading(
        "MaxNonownerAlignment",
        "panels/b/max_nonowner_alignment",
        ".1e",
        "the largest alignment α a −D non-owner reaches",
    ),
    Reading(
        "MixedOwnerCoefficient",
        "panels/c/final_coefficient/1",
        ".3f",
        "the mixed-δ owner's final coefficient c (δ = 4)",
    ),
    Reading(
        "TSpecPerEfold",
        "panels/e/-4-t_spec_per_efold/slope",
        ".1f",
        "growth of T_spec per e-fold of shrinking gap, against −D others",
    ),
    Reading("TSpecPerEfoldError", "panels/e/-4-t_spec_per_efold/stderr", ".1f", "standard error of that growth"),
    Reading("Successes", "panels/f/successes", ".0f", "runs of (f) whose designated neuron owns the feature"),
    Reading("Runs", "panels/f/runs", ".0f", "runs of (f), m = 2…8 and every designated index"),
    Reading(
        "SpreadOverIndex",
        "panels/f/t_spec_relative_spread_over_o",
        ".2e",
        "relative spread of T_spec over the designated index (round-off)",
    ),
)
"""The numbers the caption quotes (:mod:`gaugecli.plots.readings`)."""

CAPTION = (
    "**The neuron with the largest δ owns the feature, at every width and index; exact ties select none.** "
    "D = 4, owner +D. "
    "(a, b) Among m = 5 the owner reaches c = a* and α = 1 (T_spec = {TSpec}); the −D non-owners turn no further "
    "than α = {MaxNonownerAlignment} and are pruned. "
    "(c, d) Mixed δ = (−2, 4, 0, −4, 2): argmax δ owns, ending at c = {MixedOwnerCoefficient}. "
    "(e) Against −D others selection holds at every gauge gap, but T_spec grows by {TSpecPerEfold} ± "
    "{TSpecPerEfoldError} per e-fold of a shrinking gap; an exact tie has no owner. "
    "(f) Every designated index owns for m = 2…8 ({Successes}/{Runs} runs), with T_spec the same to "
    "{SpreadOverIndex} relative."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""
