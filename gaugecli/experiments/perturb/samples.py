"""(c) The sample alone: the finite-sample *flow* (gradient flow on ``L_n``, adaptive solver)
against the population flow, ``sup_{t ≤ window} ‖f_{θ_n(t)} − f_{θ_∞(t)}‖_{L²}`` and
``|T_spec^n − T_spec^∞|/T_spec^∞`` against n over ≥ 10 seeds: means, standard errors and a
weighted power-law fit with its uncertainty (slope ≈ −1/2); optionally the same with GD on
``L_n`` against GD on ``L`` at the automatic step η and at η/2 (the slope must not move)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from gaugecli.core.frames import View
from gaugecli.core.integrate.descent import gradient_descent
from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
from gaugecli.core.integrate.step import choose_step
from gaugecli.core.integrate.tolerance import Tolerance
from gaugecli.core.model.metrics import function_distance
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.types import PointRunner, Progress
from gaugecli.experiments.budget import check_flow
from gaugecli.experiments.common import run_serially
from gaugecli.experiments.config import ModelConfig
from gaugecli.experiments.params import SAMPLE_RTOL
from gaugecli.experiments.perturb.config import PerturbConfig, selection_start
from gaugecli.experiments.perturb.fits import PowerLawFit, fit_power_law, mean_sem
from gaugecli.experiments.perturb.step import flow_t_spec

SAMPLE_GRID_POINTS = 201
"""Times on which a finite-sample flow is compared with the population flow."""

SAMPLE_METHOD = "RK23"
"""The finite-sample flows' solver. ``L_n`` is piecewise smooth (its gradient jumps at every sample
point a neuron's hyperplane crosses), which breaks a multistep method's error estimate at every
kink: at rtol 1e-4, n = 2000, LSODA took 841 steps and 2232 gradients where RK23 took 154 and 656,
both within 2e-4 of an rtol 1e-7 reference on the deviation and T_spec (RK45: 386 gradients, but
T_spec off by 1e-3 from its interpolant). Over the sweep's ``window`` (one T_spec of the +D
neuron, ∝ 1/D) the explicit method's stability limit costs O(1) steps whatever D."""


@dataclass
class SampleGDCheck:
    """GD on ``L_n`` against GD on ``L`` with the same step, at the automatic step ``eta``
    (≤ 1 % error on T_spec) and at ``eta/2``: the deviation's n-dependence must not move."""

    VIEW: ClassVar[View] = View(dims={"deviation": ("ns",), "deviation_half": ("ns",)})
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

    eta: float
    deviation: list[float]
    deviation_half: list[float]
    fit: PowerLawFit | None
    fit_half: PowerLawFit | None


LINEAR_T_SPEC_DEVIATION = 0.1
"""``t_spec_fit`` uses only the n whose mean relative ``T_spec`` deviation is ≤ 10 %: below that
the response of ``T_spec`` to the sampling noise is linear and the n^{-1/2} law applies; at
smaller n it is not (measured, m = 2, D = 4, d = 16: 121 %, 52 %, 19 % at n = 500, 1000, 2000)."""


@dataclass
class SampleSweep:
    """The finite-sample flow against the population flow on ``t ∈ [0, window]``.

    ``deviation[k]`` ± ``deviation_err[k]``: mean ± standard error over seeds of
    ``sup_t ‖f_{θ_n(t)} − f_{θ_∞(t)}‖_{L²}`` at ``ns[k]`` (closed form via κ on 201 equally
    spaced times, solver ``method`` at ``rtol``); ``t_spec_deviation``: the same for ``|T_spec^n − T_spec^∞|/T_spec^∞``;
    ``fit``/``t_spec_fit``: power laws in n with slope uncertainties (``t_spec_fit`` over the n
    where the mean relative deviation is ≤ :data:`LINEAR_T_SPEC_DEVIATION`); ``slope`` is
    ``fit.slope`` (kept for readers of the old artifact).
    """

    VIEW: ClassVar[View] = View(
        dims={
            **dict.fromkeys(("ns", "deviation", "deviation_err", "t_spec_deviation", "t_spec_deviation_err"), ("ns",)),
            "seeds": ("seeds",),
            "deviation_per_seed": ("ns", "seeds"),
            "t_spec_per_seed": ("ns", "seeds"),
        }
    )
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

    strength: float
    ns: list[int]
    seeds: list[int]
    window: float
    rtol: float
    t_spec_flow: float
    deviation: list[float]
    deviation_err: list[float]
    deviation_per_seed: list[list[float]]
    fit: PowerLawFit | None
    slope: float | None
    t_spec_per_seed: list[list[float | None]]
    t_spec_deviation: list[float]
    t_spec_deviation_err: list[float]
    t_spec_fit: PowerLawFit | None
    gd: SampleGDCheck | None
    method: str | None = None
    """The finite-sample flows' solver (``None``: an artifact from before it was stored, LSODA)."""


@dataclass(frozen=True)
class SampleJob:
    """Finite-sample runs with ``n`` samples, one per seed, against the population run from
    the same start: flows on ``grid`` (``eta=None``), or GD with step ``eta`` iterate by iterate."""

    model: ModelConfig
    m: int
    strength: float
    n: int
    seeds: tuple[int, ...]
    window: float
    rtol: float
    eta: float | None = None


@dataclass
class SampleOutcome:
    deviation: list[float]
    t_spec: list[float | None]


def sample_of(net: Model, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from gaugecli.core.samples.sample_draw import draw_sample

    # the sample of (seed, n) is its own stream: no two sizes share draws
    return draw_sample(net, n, np.random.SeedSequence([seed, n]))


def sample_job(job: SampleJob) -> SampleOutcome:
    """Per seed: ``sup_t ‖f_{θ_n(t)} − f_{θ_∞(t)}‖_{L²}`` over ``[0, window]`` and neuron 0's ``T_spec``."""
    from gaugecli.core.samples.sample import empirical_objective  # torch: only when needed

    net = job.model.build()
    a0, W0 = selection_start(job.model, job.m, job.strength)
    devs: list[float] = []
    t_specs: list[float | None] = []
    if job.eta is None:
        grid = np.linspace(0.0, job.window, SAMPLE_GRID_POINTS)
        options = FlowOptions.at(Tolerance(job.rtol, SAMPLE_METHOD))
        check_flow(np.shape(W0), options.grid_points)  # the population flow and every sample flow
        pop = gradient_flow(Network(a0, W0), net, job.window, eps_align=job.model.eps_align, t_grid=grid)
        runs = (
            gradient_flow(
                Network(a0, W0),
                net,
                job.window,
                eps_align=job.model.eps_align,
                options=options,
                objective=empirical_objective(*sample_of(net, job.n, seed)),
                t_grid=grid,
            )
            for seed in job.seeds
        )
    else:
        eps_align = job.model.eps_align
        pop = gradient_descent(Network(a0, W0), net, job.eta, job.window, eps_align=eps_align, grad_tol=0.0)
        runs = (
            gradient_descent(
                Network(a0, W0),
                net,
                job.eta,
                job.window,
                oracle=empirical_objective(*sample_of(net, job.n, seed)),
                eps_align=eps_align,
                grad_tol=0.0,
            )
            for seed in job.seeds
        )
    for tr in runs:
        devs.append(float(np.max(function_distance(tr.a, tr.W, pop.a, pop.W))))
        t = float(tr.crossing_times[0, 0])
        t_specs.append(None if np.isnan(t) else t)
    return SampleOutcome(devs, t_specs)


def sample_sweep(
    config: PerturbConfig, progress: Progress | None = None, runner: PointRunner = run_serially
) -> SampleSweep:
    model = config.model
    a0, W0 = selection_start(model, config.m, config.sample_strength)
    t_flow = flow_t_spec(config, config.sample_strength, runner)
    window = config.window * t_flow
    seeds = tuple(config.sample_seeds)
    jobs = [SampleJob(model, config.m, config.sample_strength, n, seeds, window, SAMPLE_RTOL) for n in config.ns]
    eta = None
    if config.sample_gd:
        eta = choose_step(Network(a0, W0), model.build(), window, eps_align=model.eps_align).eta
        jobs += [replace(j, eta=eta) for j in jobs[: len(config.ns)]]
        jobs += [replace(j, eta=eta / 2) for j in jobs[: len(config.ns)]]
    outcomes = runner(sample_job, jobs, progress)
    k = len(config.ns)
    flows = outcomes[:k]
    dev_rows = [o.deviation for o in flows]
    mean, sem = mean_sem(dev_rows)
    t_rows = [[float("nan") if t is None else abs(t - t_flow) / t_flow for t in o.t_spec] for o in flows]
    t_mean, t_sem = mean_sem(t_rows)
    ns = [float(n) for n in config.ns]
    fit = fit_power_law(ns, dev_rows)
    gd = None
    if eta is not None:
        at, half = outcomes[k : 2 * k], outcomes[2 * k :]
        gd = SampleGDCheck(
            eta=eta,
            deviation=mean_sem([o.deviation for o in at])[0],
            deviation_half=mean_sem([o.deviation for o in half])[0],
            fit=fit_power_law(ns, [o.deviation for o in at]),
            fit_half=fit_power_law(ns, [o.deviation for o in half]),
        )
    return SampleSweep(
        strength=config.sample_strength,
        ns=list(config.ns),
        seeds=list(seeds),
        window=window,
        rtol=SAMPLE_RTOL,
        method=SAMPLE_METHOD,
        t_spec_flow=t_flow,
        deviation=mean,
        deviation_err=sem,
        deviation_per_seed=dev_rows,
        fit=fit,
        slope=None if fit is None else fit.slope,
        t_spec_per_seed=[o.t_spec for o in flows],
        t_spec_deviation=t_mean,
        t_spec_deviation_err=t_sem,
        t_spec_fit=fit_power_law(
            [n for n, m in zip(ns, t_mean, strict=True) if m <= LINEAR_T_SPEC_DEVIATION],
            [r for r, m in zip(t_rows, t_mean, strict=True) if m <= LINEAR_T_SPEC_DEVIATION],
        ),
        gd=gd,
    )
