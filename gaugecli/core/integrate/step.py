"""The step policy of gradient descent: a step whose discretisation error of ``T_spec`` is stated."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaugecli.core.defaults import EPS_ALIGN
from gaugecli.core.integrate.descent import gradient_descent
from gaugecli.core.integrate.optimizers.base import Optimizer
from gaugecli.core.integrate.trajectory import NumericalFault
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population.objective import Objective, population_objective
from gaugecli.core.types import Array

STEP_ERROR_TARGET = 0.01
"""Default bound on the relative discretisation error of ``T_spec`` that :func:`choose_step` aims at."""

PILOT_START_FRACTION = 0.1
"""The first pilot step, as a fraction of ``2/max|λ(∇²L(θ0))|``: the GD stability bound ``2/λ_max``
unless a growing direction is faster (``λ_min < −λ_max``). Then GD at the stability bound multiplies
that direction by ``1 + η|λ_min|`` per step: σ = x² in the favorable gauge has ``λ_min ≈ −4`` against
``λ_max ≈ 0.075`` at its start, and a pilot at a tenth of the stability bound (η = 2.7) diverged in two steps."""

MIN_STEPS_TO_CROSSING = 100
"""A step is accepted only if the run reaches its first crossing in at least this many steps,
so that the first-order error model behind the η/2 comparison holds (measured: with fewer
than ~20 steps to T_spec the error of GD is not yet linear in η)."""


@dataclass(frozen=True)
class StepChoice:
    """The outcome of :func:`choose_step` (or :func:`step_error` for a given η).

    ``eta``: the step; ``step_error``: estimated relative error of the first crossing time
    (``T_spec`` whenever the owner is the first neuron to align) at ``eta``, maximal over the
    ensemble members that cross, ``2|T(η) − T(η/2)| / T(η/2)`` (first order in η: ``T(η) =
    T₀ + Cη``); ``None`` when no member crossed within the horizon (nothing to control).
    ``t_cross``: ``T(η/2)`` per member (NaN where it did not cross). ``pilot_steps``: GD
    steps spent in pilot runs, which stop at the first crossing."""

    eta: float
    step_error: float | None
    t_cross: Array
    pilot_steps: int


def _first_crossing(
    theta0: Network,
    model: Model,
    objective: Objective,
    eta: float,
    t_max: float,
    eps_align: float,
    optimizer: Optimizer | None = None,
) -> tuple[Array, int]:
    """First time any neuron of each member reaches ``α = 1 − ε`` under GD (or ``optimizer``) with step ``eta``."""
    tr = gradient_descent(
        theta0,
        model,
        eta,
        t_max,
        oracle=objective,
        eps_align=eps_align,
        grid_points=3,
        stop_at_crossing=True,
        optimizer=optimizer,
    )
    crossing = np.where(np.isnan(tr.crossing_times), np.inf, tr.crossing_times)
    first = np.min(crossing, axis=-1)
    return np.where(np.isfinite(first), first, np.nan), tr.stats.n_steps


def _relative_step_error(t_eta: Array, t_half: Array) -> float | None:
    ok = np.isfinite(t_eta) & np.isfinite(t_half) & (t_half > 0)
    if not np.any(ok):
        return None
    return float(np.max(2.0 * np.abs(t_eta[ok] - t_half[ok]) / t_half[ok]))


def step_error(
    theta0: Network,
    model: Model,
    eta: float,
    t_max: float,
    *,
    objective: Objective | None = None,
    eps_align: float = EPS_ALIGN,
    t_eta: Array | None = None,
    optimizer: Optimizer | None = None,
) -> StepChoice:
    """The estimated relative error of ``T_spec`` for GD (or ``optimizer``: every rule here is first
    order in η at fixed hyper-parameters) with a given step ``eta``, from one pilot at ``η/2`` (and one
    at ``η`` unless its crossing times ``t_eta`` are given) from ``θ0``."""
    objective = objective or population_objective(model)
    steps = 0
    if t_eta is None:
        t_eta, steps = _first_crossing(theta0, model, objective, eta, t_max, eps_align, optimizer)
    t_half, s = _first_crossing(theta0, model, objective, eta / 2, t_max, eps_align, optimizer)
    return StepChoice(eta, _relative_step_error(np.asarray(t_eta), t_half), t_half, steps + s)


def _fastest_rate_step(theta0: Network, objective: Objective) -> float:
    """``2/max|λ(∇²L)|`` at the start (every member): the stability bound, or less where the
    linearised flow grows faster than its stable modes decay."""
    if objective.hessian is None:  # pragma: no cover - every objective here has a Hessian
        raise ValueError("the step choice needs the objective's Hessian")
    eigs = np.linalg.eigvalsh(objective.hessian(theta0.a, theta0.W))
    return float(2.0 / np.max(np.abs(eigs)))


def choose_step(
    theta0: Network,
    model: Model,
    t_max: float,
    *,
    objective: Objective | None = None,
    eps_align: float = EPS_ALIGN,
    target: float = STEP_ERROR_TARGET,
    max_rounds: int = 8,
) -> StepChoice:
    """A GD step from ``θ0`` for which the relative discretisation error of ``T_spec`` is ≤ ``target``.

    GD with step η is a first-order method: ``T(η) = T₀ + Cη + O(η²)``, so pilot runs at η
    and η/2 (stopped at the first crossing) estimate the error at η as
    ``2|T(η) − T(η/2)|``. Starting from :data:`PILOT_START_FRACTION` of the stability
    bound, the step is rescaled to meet half the target (a factor-2 margin) and checked
    again, until the estimate is below ``target`` and the run has at least
    :data:`MIN_STEPS_TO_CROSSING` steps before its crossing. The time scale is therefore the
    run's own ``T_spec``, not the stability bound. If no member crosses within ``t_max``
    the pilot step is returned with ``step_error=None``.
    """
    objective = objective or population_objective(model)
    eta = PILOT_START_FRACTION * _fastest_rate_step(theta0, objective)
    eta = min(eta, t_max / MIN_STEPS_TO_CROSSING)
    t_eta, steps = _first_crossing(theta0, model, objective, eta, t_max, eps_align)
    if not np.any(np.isfinite(t_eta)):
        return StepChoice(eta, None, t_eta, steps)
    for _ in range(max_rounds):
        t_half, s = _first_crossing(theta0, model, objective, eta / 2, t_max, eps_align)
        steps += s
        if not np.any(np.isfinite(t_half)):
            # crossed at η but not at η/2 within t_max: no error to estimate (a crossing that
            # round-off decides, as off an exact saddle, moves with the arithmetic of the step)
            return StepChoice(eta, None, t_half, steps)
        err = _relative_step_error(t_eta, t_half)
        shortest = float(np.nanmin(t_half))
        resolved = eta <= shortest / MIN_STEPS_TO_CROSSING
        if err is not None and err <= target and resolved:
            return StepChoice(eta, err, t_half, steps)
        # first order: err ∝ η; aim at target/2, and at least halve (η/2 is already run)
        new = eta * 0.5 * target / err if err else eta / 2
        new = min(new, eta / 2, shortest / (2 * MIN_STEPS_TO_CROSSING))
        if new == eta / 2:
            t_eta = t_half
        else:
            t_eta, s = _first_crossing(theta0, model, objective, new, t_max, eps_align)
            steps += s
        eta = new
    last = "none" if err is None else f"{err:.2g}"
    raise NumericalFault(
        f"no gradient-descent step met a {target:.0%} error on T_spec in {max_rounds} rounds "
        f"(last estimate {last} at eta={eta:.3g}); give `eta` explicitly or use a flow mode"
    )
