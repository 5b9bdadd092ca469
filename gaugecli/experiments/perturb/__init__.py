"""``gaugecli perturb``: robustness of selection (claim C8), each cause isolated.

(a) visible perturbations of size ε of the duplicates — random, or adversarial
    (the favorable neuron turned away from the teacher and given a smaller coefficient)
    — over an (ε, D) grid → selection probability and the threshold ε*(D);
(b) the step alone: population GD against the population flow, ``T_spec^GD − T_spec^flow``
    against η on steps that resolve ``T_spec`` (η = f·T_spec^flow): the log–log slope with its
    standard error, the error per step, and the η → 0 intercept; plus selection and divergence
    for steps up to and beyond the stability bound;
(c) the sample alone: the finite-sample *flow* (gradient flow on ``L_n``, adaptive solver)
    against the population flow, ``sup_{t ≤ window} ‖f_{θ_n(t)} − f_{θ_∞(t)}‖_{L²}`` and
    ``|T_spec^n − T_spec^∞|/T_spec^∞`` against n over ≥ 10 seeds: means, standard errors and a
    weighted power-law fit with its uncertainty (slope ≈ −1/2); optionally the same with GD on
    ``L_n`` against GD on ``L`` at the automatic step η and at η/2 (the slope must not move);
(d) selection from a finite sample: the owner-success rate against n with 95 % Wilson
    intervals, and the smallest n from which every run selects.

Neuron 0 is the favorable one (``+D``); the other ``m − 1`` are unfavorable (``−D``).

Layout: :mod:`.config` (:class:`PerturbConfig`, the shared start), :mod:`.visible` (a),
:mod:`.step` (b), :mod:`.samples` (c), :mod:`.selection` (d), :mod:`.fits` (power laws and
Wilson intervals); :func:`perturb` runs the four sweeps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gaugecli.core.frames import Labelled
from gaugecli.core.types import PointRunner, Progress
from gaugecli.experiments import budget
from gaugecli.experiments.common import run_serially
from gaugecli.experiments.perturb.config import PerturbConfig, selection_start
from gaugecli.experiments.perturb.fits import PowerLawFit, fit_power_law, mean_sem, wilson_interval
from gaugecli.experiments.perturb.samples import (
    LINEAR_T_SPEC_DEVIATION,
    SAMPLE_GRID_POINTS,
    SampleGDCheck,
    SampleJob,
    SampleOutcome,
    SampleSweep,
    sample_job,
    sample_of,
    sample_sweep,
)
from gaugecli.experiments.perturb.selection import (
    SELECTION_METHOD,
    SelectionJob,
    SelectionOutcome,
    SelectionSweep,
    selection_job,
    selection_sweep,
)
from gaugecli.experiments.perturb.step import (
    StepJob,
    StepOutcome,
    StepSweep,
    extrapolate_to_zero,
    observed_order,
    step_job,
    step_sweep,
)
from gaugecli.experiments.perturb.visible import (
    VisiblePoint,
    VisibleRow,
    VisibleRowJob,
    VisibleSweep,
    perturbed_duplicates,
    visible_row,
    visible_sweep,
)

__all__ = [
    "LINEAR_T_SPEC_DEVIATION",
    "SELECTION_METHOD",
    "PerturbConfig",
    "PerturbResult",
    "PowerLawFit",
    "SampleGDCheck",
    "SampleJob",
    "SampleOutcome",
    "SampleSweep",
    "SelectionJob",
    "SelectionOutcome",
    "SelectionSweep",
    "StepJob",
    "StepOutcome",
    "StepSweep",
    "VisiblePoint",
    "VisibleRow",
    "VisibleRowJob",
    "VisibleSweep",
    "extrapolate_to_zero",
    "fit_power_law",
    "mean_sem",
    "observed_order",
    "perturb",
    "perturbed_duplicates",
    "sample_job",
    "sample_of",
    "sample_sweep",
    "selection_job",
    "selection_start",
    "selection_sweep",
    "step_job",
    "step_sweep",
    "visible_row",
    "visible_sweep",
    "wilson_interval",
]


@dataclass
class PerturbResult(Labelled):
    """The sweeps of C8 that ``config.sweeps`` ran; a sweep not run is ``None``."""

    visible: VisibleSweep | None
    step: StepSweep | None
    samples: SampleSweep | None
    selection: SelectionSweep | None


def perturb(
    config: PerturbConfig, progress: Progress | None = None, runner: PointRunner = run_serially
) -> PerturbResult:
    # d first: every part holds vectors in R^d (the teacher and m neurons) before any sample
    budget.check_input_dimension(config.model.d, config.model.k + config.m)
    for sweep, flag, sizes in (("samples", "ns", config.ns), ("selection", "success_ns", config.success_ns)):
        if config.runs(sweep):  # refuse a sample that would not fit before any run draws it
            n = max(sizes)
            # each run draws its sample whole (sample_of), so it is counted as kept
            estimate = budget.sample_memory(1, config.m, config.model.d, n, SAMPLE_GRID_POINTS, stored=True)
            budget.check_memory(estimate, flag, 1.0, n)
    sweeps = {
        "visible": visible_sweep,
        "step": step_sweep,
        "samples": sample_sweep,
        "selection": selection_sweep,
    }
    chosen = [name for name in sweeps if config.runs(name)]

    def part(k: int) -> Progress | None:
        return None if progress is None else (lambda f: progress((k + f) / len(chosen)))

    done: dict[str, Any] = {name: sweeps[name](config, part(chosen.index(name)), runner) for name in chosen}
    return PerturbResult(*(done.get(name) for name in sweeps))
