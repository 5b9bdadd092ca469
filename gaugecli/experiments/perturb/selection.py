"""(d) Selection from a finite sample: the owner-success rate against n with 95 % Wilson
intervals, and the smallest n from which every run selects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gaugecli.core.analyses.observables import observe
from gaugecli.core.frames import View
from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
from gaugecli.core.integrate.tolerance import Tolerance
from gaugecli.core.integrate.trajectory import NumericalFault
from gaugecli.core.model.state import Network
from gaugecli.core.population.objective import Objective
from gaugecli.core.types import PointRunner, Progress
from gaugecli.experiments.budget import check_flow
from gaugecli.experiments.common import run_serially
from gaugecli.experiments.config import ModelConfig
from gaugecli.experiments.params import SAMPLE_RTOL
from gaugecli.experiments.perturb.config import PerturbConfig, selection_start
from gaugecli.experiments.perturb.fits import wilson_interval
from gaugecli.experiments.perturb.samples import sample_of
from gaugecli.experiments.perturb.step import flow_t_spec
from gaugecli.experiments.select import selected

SELECTION_METHOD = "RK45"
"""Solver of the selection-against-n runs. At n ≲ 64 the flow on ``L_n`` slides along kinks
(a sample point held on a neuron's hyperplane), where LSODA's implicit steps stall: measured at
m = 2, D = 4, d = 16, horizon 25 T_spec, 10 seeds, rtol 1e-4, n = 8/16/32: LSODA ran out of a
20 000-evaluation budget in 3/6/4 runs (0.5–1 s each), RK45 finished all in 800–3000
evaluations (0.05–0.17 s) with the same owners where both finished."""


@dataclass
class SelectionSweep:
    """Owner success against n: the finite-sample flow (``method``, rtol :data:`SAMPLE_RTOL`)
    up to ``horizon`` (``success_horizon · T_spec^flow``); success = neuron 0 is the unique
    owner there. ``undecided``: runs the solver could not finish (excluded from the trials).
    ``ci_low``/``ci_high``: 95 % Wilson intervals; ``n_hold``: the smallest n of the grid from
    which every run at every larger n selected (``None`` if even the largest failed)."""

    VIEW: ClassVar[View] = View(
        dims={
            **dict.fromkeys(("ns", "successes", "trials", "undecided", "rate", "ci_low", "ci_high"), ("ns",)),
            "seeds": ("seeds",),
        }
    )
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

    strength: float
    m: int
    ns: list[int]
    seeds: list[int]
    horizon: float
    method: str
    successes: list[int]
    trials: list[int]
    undecided: list[int]
    rate: list[float | None]
    ci_low: list[float]
    ci_high: list[float]
    n_hold: int | None


@dataclass(frozen=True)
class SelectionJob:
    model: ModelConfig
    m: int
    strength: float
    n: int
    seeds: tuple[int, ...]
    horizon: float


@dataclass
class SelectionOutcome:
    success: list[bool | None]


def selection_job(job: SelectionJob) -> SelectionOutcome:
    """Every seed's finite-sample flow at one n, as one ensemble: member ``b`` flows on the sample of
    seed ``b`` (:func:`~gaugecli.core.samples.sample.stacked_empirical_objective`), all under one step-size
    control — the per-call cost of ``L_n``'s gradient, not its arithmetic, dominates at these n, so
    one batched call per stage replaces one per seed (measured ×5–8 on the default sweep, with the
    same owners). Should the ensemble fail, each seed is run alone, and a seed whose own run fails
    is undecided."""
    from gaugecli.core.samples.sample import empirical_objective, stacked_empirical_objective  # torch: only when needed

    net = job.model.build()
    a0, W0 = selection_start(job.model, job.m, job.strength)
    options = FlowOptions.at(Tolerance(SAMPLE_RTOL, SELECTION_METHOD), max_gradient_evals=50_000, grid_points=3)
    samples = [sample_of(net, job.n, seed) for seed in job.seeds]

    def flow(a: np.ndarray, W: np.ndarray, objective: Objective) -> list[bool]:
        check_flow(np.shape(W), options.grid_points)
        tr = gradient_flow(
            Network(a, W), net, job.horizon, eps_align=job.model.eps_align, options=options, objective=objective
        )
        return [selected(observe(tr, net, (b,)), 0) for b in range(a.shape[0])]

    members = len(samples)
    try:
        return SelectionOutcome(
            list(flow(np.repeat(a0, members, 0), np.repeat(W0, members, 0), stacked_empirical_objective(samples)))
        )
    except NumericalFault:
        pass
    out: list[bool | None] = []
    for sample in samples:
        try:
            out.extend(flow(a0, W0, empirical_objective(*sample)))
        except NumericalFault:
            out.append(None)
    return SelectionOutcome(out)


def selection_sweep(
    config: PerturbConfig, progress: Progress | None = None, runner: PointRunner = run_serially
) -> SelectionSweep:
    model = config.model
    horizon = config.success_horizon * flow_t_spec(config, config.sample_strength, runner)
    ns = sorted(config.success_ns)
    seeds = tuple(config.success_seeds)
    jobs = [SelectionJob(model, config.m, config.sample_strength, n, seeds, horizon) for n in ns]
    outcomes = runner(selection_job, jobs, progress)
    successes = [sum(1 for s in o.success if s) for o in outcomes]
    trials = [sum(1 for s in o.success if s is not None) for o in outcomes]
    undecided = [sum(1 for s in o.success if s is None) for o in outcomes]
    intervals = [wilson_interval(k, n) for k, n in zip(successes, trials, strict=True)]
    n_hold = None
    for i in range(len(ns) - 1, -1, -1):
        if trials[i] == 0 or successes[i] < trials[i] or undecided[i]:
            break
        n_hold = ns[i]
    return SelectionSweep(
        strength=config.sample_strength,
        m=config.m,
        ns=ns,
        seeds=list(seeds),
        horizon=horizon,
        method=SELECTION_METHOD,
        successes=successes,
        trials=trials,
        undecided=undecided,
        rate=[k / n if n else None for k, n in zip(successes, trials, strict=True)],
        ci_low=[lo for lo, _ in intervals],
        ci_high=[hi for _, hi in intervals],
        n_hold=n_hold,
    )
