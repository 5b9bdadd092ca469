"""(b) The step alone: population GD against the population flow, ``T_spec^GD − T_spec^flow``
against η on steps that resolve ``T_spec`` (η = f·T_spec^flow): the log–log slope with its
standard error, the error per step, and the η → 0 intercept; plus selection and divergence for
steps up to and beyond the stability bound."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from scipy import stats

from gaugecli.core.frames import View
from gaugecli.core.integrate.descent import gradient_descent, stable_step_bound
from gaugecli.core.integrate.trajectory import NumericalFault
from gaugecli.core.model.gauge import owner_imbalances
from gaugecli.core.model.state import Network
from gaugecli.core.types import PointRunner, Progress
from gaugecli.experiments.common import run_ensemble, run_serially
from gaugecli.experiments.config import DynamicsConfig, ModelConfig, auto_horizon
from gaugecli.experiments.params import Mode
from gaugecli.experiments.perturb.config import PerturbConfig, selection_start
from gaugecli.experiments.select import selected


@dataclass
class StepSweep:
    """Population GD against the population flow on the selection problem.

    ``etas = f·T_spec^flow`` for ``f`` in ``step_fractions``; ``error = T_spec^GD − T_spec^flow``
    (GD is late: positive); ``error_per_step = error/η`` (constant ⇔ first order); ``slope`` ±
    ``slope_err``: the log–log least-squares slope of ``|error|`` against η over every step (it
    carries the ``C_2 η`` term: measured 1.0032 ± 0.0007).

    Limits η → 0 (:func:`extrapolate_to_zero`: the polynomial through the three smallest steps,
    ± its change from the one through the two smallest): ``intercept`` ± ``intercept_err`` of
    ``T_spec^GD(η)`` itself, to compare with ``t_spec_flow`` (two integrators); ``first_order`` ±
    ``first_order_err`` of the error per step, ``C_1`` in ``error = C_1 η + C_2 η² + …``;
    ``order`` ± ``order_err`` of the local orders ``Δ ln error / Δ ln η`` between consecutive
    steps (:func:`observed_order`), the order of the error.
    ``stability_etas = f·(2/λ_max)`` for ``f`` in ``stability_fractions``, with whether the
    designated neuron was selected (full run), whether GD diverged there, and its ``T_spec``.
    """

    VIEW: ClassVar[View] = View(
        dims={
            **dict.fromkeys(("etas", "t_spec_gd", "error", "error_per_step"), ("etas",)),
            **dict.fromkeys(("stability_etas", "success", "diverged", "stability_t_spec"), ("stability_etas",)),
        }
    )
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

    strength: float
    stable_bound: float
    t_spec_flow: float | None
    etas: list[float]
    t_spec_gd: list[float | None]
    error: list[float | None]
    error_per_step: list[float | None]
    slope: float | None
    slope_err: float | None
    intercept: float | None
    intercept_err: float | None
    stability_etas: list[float]
    success: list[bool]
    diverged: list[bool]
    first_order: float | None = None
    first_order_err: float | None = None
    order: float | None = None
    order_err: float | None = None
    stability_t_spec: list[float | None] = field(default_factory=list)


@dataclass(frozen=True)
class StepJob:
    """GD with step ``eta`` on the selection problem: ``full`` runs to the end (owner, divergence),
    otherwise stops at the designated neuron's crossing (``T_spec`` only). ``eta=None``: the flow."""

    model: ModelConfig
    m: int
    strength: float
    eta: float | None
    rtol: float
    full: bool = False


@dataclass
class StepOutcome:
    t_spec: float | None
    success: bool
    diverged: bool


def step_job(job: StepJob) -> StepOutcome:
    a0, W0 = selection_start(job.model, job.m, job.strength)
    net = job.model.build()
    if job.eta is None:
        run = run_ensemble(job.model, DynamicsConfig(mode=Mode.flow, rtol=job.rtol), Network(a0, W0))[0]
        return StepOutcome(run.t_spec, selected(run, 0), False)
    if not job.full:
        horizon = auto_horizon(owner_imbalances(job.m, job.strength, 0), job.model.c0)
        tr = gradient_descent(
            Network(a0, W0), net, job.eta, horizon, eps_align=job.model.eps_align, grid_points=3, stop_at_crossing=True
        )
        t = float(tr.crossing_times[0, 0])
        return StepOutcome(None if np.isnan(t) else t, bool(np.isfinite(t)), False)
    try:
        run = run_ensemble(job.model, DynamicsConfig(mode=Mode.gd, eta=job.eta), Network(a0, W0))[0]
    except NumericalFault:
        return StepOutcome(None, False, True)
    return StepOutcome(run.t_spec, selected(run, 0), False)


def flow_t_spec(config: PerturbConfig, strength: float, runner: PointRunner) -> float:
    """``T_spec`` of the population flow on the selection problem at ``strength``: the reference of
    the step and sample sweeps (one point through ``runner``, so it is cached like theirs)."""
    (flow,) = runner(step_job, [StepJob(config.model, config.m, strength, None, config.rtol)], None)
    if flow.t_spec is None:  # pragma: no cover - the selection problem always specialises
        raise NumericalFault("the population flow did not specialise; raise `t_max`")
    return flow.t_spec


def step_sweep(
    config: PerturbConfig, progress: Progress | None = None, runner: PointRunner = run_serially
) -> StepSweep:
    model = config.model
    a0, W0 = selection_start(model, config.m, config.step_strength)
    bound = stable_step_bound(Network(a0, W0), model.build())
    t_flow = flow_t_spec(config, config.step_strength, runner)
    etas = [f * t_flow for f in sorted(config.step_fractions)]
    stab = [f * bound for f in sorted(config.stability_fractions)]
    jobs = [StepJob(model, config.m, config.step_strength, eta, config.rtol) for eta in etas]
    jobs += [StepJob(model, config.m, config.step_strength, eta, config.rtol, full=True) for eta in stab]
    outcomes = runner(step_job, jobs, progress)
    gd, full = outcomes[: len(etas)], outcomes[len(etas) :]
    error = [None if o.t_spec is None else o.t_spec - t_flow for o in gd]
    ok = [(eta, e, o.t_spec) for eta, e, o in zip(etas, error, gd, strict=True) if e is not None and e != 0]
    slope = slope_err = intercept = intercept_err = first = first_err = order = order_err = None
    if len(ok) >= 3:
        eta_ok = np.array([p[0] for p in ok])
        log_err = np.log(np.abs([p[1] for p in ok]))
        fit = stats.linregress(np.log(eta_ok), log_err)
        slope, slope_err = float(fit.slope), float(fit.stderr)
        intercept, intercept_err = extrapolate_to_zero(eta_ok, np.array([p[2] for p in ok]))
        first, first_err = extrapolate_to_zero(eta_ok, np.array([p[1] / p[0] for p in ok]))
        if len(ok) >= 4:
            order, order_err = observed_order(eta_ok, log_err)
    return StepSweep(
        strength=config.step_strength,
        stable_bound=bound,
        t_spec_flow=t_flow,
        etas=etas,
        t_spec_gd=[o.t_spec for o in gd],
        error=error,
        error_per_step=[None if e is None else e / eta for e, eta in zip(error, etas, strict=True)],
        slope=slope,
        slope_err=slope_err,
        intercept=intercept,
        intercept_err=intercept_err,
        stability_etas=stab,
        success=[o.success for o in full],
        diverged=[o.diverged for o in full],
        first_order=first,
        first_order_err=first_err,
        order=order,
        order_err=order_err,
        stability_t_spec=[o.t_spec for o in full],
    )


EXTRAPOLATION_POINTS = 3
"""Limits η → 0 use the polynomial through this many of the smallest steps (degree 2: it removes
the η and η² terms of a smooth expansion; a least-squares quadratic over all steps does not, and
its η³ term biased C₁ by 5e-4, five of its own standard errors, measured against GD at η = T/4000)."""


def extrapolate_to_zero(x: np.ndarray, y: np.ndarray, points: int = EXTRAPOLATION_POINTS) -> tuple[float, float]:
    """``y(x → 0)`` for ``y = y_0 + a x + b x² + …`` sampled at ``x > 0``, with an error estimate.

    Richardson's idea in Neville's form: the polynomial through the ``points`` smallest ``x``
    evaluated at 0 (exact for a polynomial of degree ``points − 1``); the error estimate is its
    change from the polynomial through one point fewer (the size of the last term removed), a
    conservative bound when the expansion converges."""
    order = np.argsort(x)
    xs, ys = np.asarray(x, float)[order], np.asarray(y, float)[order]
    k = min(points, xs.size)
    if k < 2:
        raise ValueError("extrapolation needs at least two points")

    def at_zero(n: int) -> float:
        scale = xs[n - 1]  # conditioning: x/scale in (0, 1]
        return float(np.polynomial.polynomial.polyfit(xs[:n] / scale, ys[:n], n - 1)[0])

    value = at_zero(k)
    return value, abs(value - at_zero(k - 1))


def observed_order(eta: np.ndarray, log_error: np.ndarray) -> tuple[float, float]:
    """The order ``p`` of an error ``e(η) = C η^p (1 + a η + …)`` as η → 0, with an error estimate.

    The local orders ``p_k = Δ ln e / Δ ln η`` between consecutive steps tend to ``p`` smoothly
    in η (``p_k = p + a η_k/ln 2 + O(η²)`` for doubling steps); they are extrapolated to η = 0
    against their geometric mid-step by :func:`extrapolate_to_zero`. Needs four steps."""
    order = np.argsort(eta)
    lx, ly = np.log(eta[order]), log_error[order]
    local = np.diff(ly) / np.diff(lx)
    mid = np.exp(0.5 * (lx[1:] + lx[:-1]))
    return extrapolate_to_zero(mid, local)
