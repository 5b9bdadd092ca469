"""The parameters of ``gaugecli perturb`` (:class:`~gaugecli.experiments.perturb.PerturbConfig`)."""

from __future__ import annotations

from gaugecli.experiments.declare import Fields, Param
from gaugecli.experiments.params.shared import (
    EXPERIMENT,
    GAUGE_STRENGTH,
    NEURONS,
    SEEDS,
    STRENGTHS,
)

PERTURB_SWEEPS = ("visible", "step", "samples", "selection")
"""``gaugecli perturb``'s four sweeps, (a) to (d) of C8 (:mod:`gaugecli.experiments.perturb`)."""
SWEEP_PARAMS = {
    "visible": ("eps", "gauge_strength", "kind", "seeds", "refine"),
    "step": ("step_strength", "step_fractions", "stability_fractions"),
    "samples": ("sample_strength", "n_samples", "sample_seeds", "window", "sample_gd"),
    "selection": ("success_n_samples", "success_seeds", "success_horizon"),
}
"""The parameters only one sweep reads: given while that sweep is not run, the command line refuses
them, and a run's rerun file leaves them out (:func:`unread`)."""


def unread(sweeps: tuple[str, ...], adversarial: bool) -> set[str]:
    """The parameters a run of ``sweeps`` does not read: those of the sweeps not run, and the seeds
    of the random perturbations when they are adversarial (deterministic)."""
    out = {name for sweep, names in SWEEP_PARAMS.items() if sweep not in sweeps for name in names}
    return out | ({"seeds"} if adversarial else set())


MAX_SUCCESS_HORIZON = 1000.0
"""Longest horizon of perturb's selection-vs-n runs, in units of T_spec^flow (the default is 25)."""


class Perturb(Fields):
    """:class:`~gaugecli.experiments.perturb.PerturbConfig`: the four sweeps of claim C8."""

    eps = Param(
        "eps",
        "Perturbation sizes ε: angles below π − θ0 (adversarial) or any size (random)",
        EXPERIMENT,
        (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.5, 1.56),
        low=0.0,
        plural=True,
        metavar="LIST",
    )
    strengths = STRENGTHS.but(default=(1.0, 4.0, 16.0, 64.0, 256.0, 1024.0))
    kind = Param(
        "kind",
        "Perturbations: adversarial (deterministic, the favorable neuron turned away by ε) or random (seeded)",
        EXPERIMENT,
        "adversarial",
        str,
        choices=("adversarial", "random"),
    )
    seeds = SEEDS.but(default=tuple(range(8)), help="Seeds of the random perturbations (`kind` random)")
    m = NEURONS.but(default=2, low=2, help="Number of neurons m (neuron 0 favorable)")
    step_strength = GAUGE_STRENGTH.but(
        name="step_strength", short=None, metavar=None, panel=EXPERIMENT, help="D of the step-size sweep"
    )
    step_fractions = Param(
        "step_fractions",
        "GD steps η as fractions of T_spec^flow (at least three: a fit)",
        EXPERIMENT,
        (0.00125, 0.0025, 0.005, 0.01, 0.02, 0.04),
        low=0.0,
        high=0.1,
        open_low=True,
        plural=True,
        min_items=3,
        metavar="LIST",
        why_high="η/T_spec^flow ≤ 0.1 keeps ≥ 10 steps before T_spec, where the error is first order",
    )
    stability_fractions = Param(
        "stability_fractions",
        "GD steps as fractions of the stability bound 2/λ_max: does selection survive large steps (> 1 diverges)?",
        EXPERIMENT,
        (0.1, 0.3, 0.6, 0.9, 1.2, 1.5),
        low=0.0,
        open_low=True,
        plural=True,
        min_items=0,
        metavar="LIST",
    )
    sample_strength = step_strength.but(name="sample_strength", help="D of the sample-size sweep")
    ns = Param(
        "n_samples",
        "Sample sizes n of the finite-sample flows (at least two)",
        EXPERIMENT,
        (500, 1000, 2000, 4000, 8000, 16000, 32000),
        int,
        low=1,
        plural=True,
        min_items=2,
        metavar="LIST",
        deprecated=("ns",),
    )
    sample_seeds = SEEDS.but(
        name="sample_seeds",
        default=tuple(range(10)),
        panel=EXPERIMENT,
        min_items=2,
        help="Seeds per sample size (at least two: error bars)",
    )
    window = Param(
        "window", "Horizon of the sample sweep, in units of T_spec^flow", EXPERIMENT, 3.0, low=0.0, open_low=True
    )
    sample_gd = Param("sample_gd", "Also check the sample sweep with GD on L_n at η and η/2", EXPERIMENT, False, bool)
    success_ns = ns.but(
        name="success_n_samples",
        deprecated=("success_ns",),
        default=(16, 24, 32, 48, 64, 96, 128),
        min_items=1,
        help="Sample sizes of the selection-vs-n sweep",
    )
    success_seeds = SEEDS.but(
        name="success_seeds", default=tuple(range(20)), panel=EXPERIMENT, help="Seeds per size of the selection sweep"
    )
    success_horizon = Param(
        "success_horizon",
        "Horizon of the selection sweep, in units of T_spec^flow",
        EXPERIMENT,
        25.0,
        low=0.0,
        high=MAX_SUCCESS_HORIZON,
        open_low=True,
        why_high="selection is decided within a few T_spec, and each unit costs solver steps at every n and seed",
    )
    refine = Param("refine", "Bisection steps that locate the ε boundary of selection", EXPERIMENT, 8, int, low=0)
    sweeps = Param(
        "sweeps",
        "The sweeps to run: visible (ε × D), step (GD η), samples (n, the flow on L_n), selection (against n)",
        EXPERIMENT,
        PERTURB_SWEEPS,
        str,
        choices=PERTURB_SWEEPS,
        plural=True,
        distinct=True,
        metavar="LIST",
    )
