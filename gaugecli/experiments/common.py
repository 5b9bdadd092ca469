"""The one function that runs an ensemble of initial conditions under a model and its dynamics,
and the helpers every experiment shares (duplicates, serial points, the width budget)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from gaugecli.core.analyses.observables import RunObservables, observe
from gaugecli.core.integrate.descent import gradient_descent, stable_step_bound
from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
from gaugecli.core.integrate.optimizers import ROTATION_INVARIANT
from gaugecli.core.integrate.step import StepChoice, choose_step, step_error
from gaugecli.core.integrate.trajectory import NumericalFault, Trajectory
from gaugecli.core.model.gauge import duplicate_initial_condition, imbalance
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.model.subspace import Subspace, invariant_subspace, random_basis
from gaugecli.core.population.objective import GradientOracle, Objective, decayed, population_objective
from gaugecli.core.types import Array, Progress
from gaugecli.experiments import budget
from gaugecli.experiments.budget import check_flow, check_run, check_steps, warn_if_streamed_and_slow
from gaugecli.experiments.config import BATCH_STREAM, SAMPLE_LSODA_BUDGET, DynamicsConfig, ModelConfig, auto_horizon
from gaugecli.experiments.declare import ConfigError, require
from gaugecli.experiments.params import MAX_RANDOM_BASIS_D, Mode


class UnstableStep(ConfigError, NumericalFault):
    """A GD step η at or beyond the stability bound 2/λ_max at the start: a value outside the range
    this run allows, refused before it runs as any other (the command line's exit code 2), and a
    run that would diverge to whoever runs such steps on purpose (perturb's step sweep counts it)."""


def run_serially(fn: Callable[[Any], Any], points: Sequence[Any], progress: Progress | None = None) -> list[Any]:
    out = []
    for i, point in enumerate(points):
        out.append(fn(point))
        if progress is not None:
            progress((i + 1) / len(points))
    return out


def duplicates(model: ModelConfig, deltas: Array) -> tuple[Array, Array]:
    """The complete initial function for imbalances ``deltas`` of shape ``(..., m)``."""
    return duplicate_initial_condition(model.build(), np.asarray(deltas, float), model.c0, model.theta0)


def _check_budget(
    dynamics: DynamicsConfig,
    members: int,
    m: int,
    r: int,
    d: int,
    t_max: float | None,
    available: int | None = None,
    **width: Any,
) -> None:
    mode = dynamics.mode
    check_run(
        "sample" if dynamics.sample_size is not None else ("descent" if mode.stepped else "flow"),
        members=members,
        m=m,
        r=r,
        d=d,
        grid_points=dynamics.grid_points,
        n=dynamics.sample_size,
        t_max=t_max,
        eta=dynamics.eta,
        max_steps=dynamics.step_budget,
        batch_size=dynamics.minibatch if mode is Mode.sgd else None,
        available=available,
        **width,
    )


def check_widths(model: ModelConfig, dynamics: DynamicsConfig, W0: Array, flag: str = "ms") -> None:
    """Refuse, before it is built, the owner sweep's ensemble at width ``m``: ``m`` starts (one
    per designated owner) shaped like ``W0 (m, d)``, which :func:`run_ensemble` would refuse for
    its memory (the starts alone are ``m² d`` floats), assuming every start spans ``W0``'s subspace."""
    net = model.build()
    W0 = np.asarray(W0, float)[None]
    population = dynamics.sample_size is None and dynamics.mode is not Mode.sgd
    space = invariant_subspace(net, W0) if population else None
    r = space.coordinates(W0).shape[-1] if space is not None else net.d
    m = W0.shape[-2]
    _check_budget(dynamics, m, m, r, net.d, None, width_flag=flag, members_per_width=True)


def run_ensemble(
    model: ModelConfig,
    dynamics: DynamicsConfig,
    theta0: Network,
    *,
    seed: int | np.random.SeedSequence = 0,
    times: Sequence[float] = (),
    progress: Progress | None = None,
) -> list[RunObservables]:
    """Integrate the ensemble ``θ0`` (``a (B, m)``, ``W (B, m, d)``; :func:`integrate_ensemble`) and
    observe every member."""
    traj, full = integrate_ensemble(model, dynamics, theta0, seed=seed, times=times, progress=progress)
    return observe_members(traj, full)


def observe_members(traj: Trajectory, full: Model) -> list[RunObservables]:
    """The observables of every member of an ensemble's trajectory."""
    return [observe(traj, full, (b,)) for b in range(traj.a.shape[0])]


def integrate_ensemble(
    model: ModelConfig,
    dynamics: DynamicsConfig,
    theta0: Network,
    *,
    seed: int | np.random.SeedSequence = 0,
    times: Sequence[float] = (),
    progress: Progress | None = None,
    network: Model | None = None,
    sphere: bool = False,
    steps: int | None = None,
    record_steps: tuple[int, ...] = (),
    flow_method: str = "auto",
    crossings: bool = True,
    flow_device: str = "cpu",
) -> tuple[Trajectory, Model]:
    """Integrate the ensemble ``θ0`` (``a (B, m)``, ``W (B, m, d)``; one network is an ensemble of one); returns its trajectory — in the invariant
    subspace's coordinates where the dynamics stay there (``trajectory.basis``) — and the model to
    observe it with.

    Every member shares one sample (drawn from ``seed``) and, in stepped modes, one step η:
    the given ``eta``, or :func:`~gaugecli.core.integrate.step.choose_step` on the loss that the
    step discretises (the population loss for ``gd`` and fresh ``sgd``, ``L_n`` for
    ``sample-gd`` and resampled ``sgd``). The estimated relative error of ``T_spec`` at that
    step is recorded in ``stats.step_error`` (for SGD: the full-batch discretisation error,
    without the minibatch noise) — at a given ``eta`` only with ``step_error``, else ``None``. ``times``: declared times the flow's states are stored at, in
    addition to its log grid (flow modes only: a stepped run stores its own steps).
    ``network``: the model to run (default ``model.build()``: the standard teacher; simulate's
    ``teacher`` random gives another); ``sphere``: the sample's inputs lie on the unit sphere;
    ``steps``, ``record_steps``: a stepped run takes exactly ``steps`` steps and saves these iterates
    too (:func:`~gaugecli.core.integrate.descent.gradient_descent`). ``flow_method``: the population
    flow's :attr:`FlowOptions.method <gaugecli.core.integrate.flow_options.FlowOptions.method>` (``"odeint"``:
    the same LSODA called once per chunk, :mod:`gaugecli.core.integrate.odeint_flow`; the phase maps' cells);
    ``flow_device``: its torch device (``FlowOptions.device``: ``"dop853-torch"``'s).
    ``crossings=False``: locate no ``T_spec`` (``crossing_times`` NaN; the states are the same), for a caller
    that reads the states alone.
    """
    full = net = model.build() if network is None else network
    a0, W0 = np.atleast_2d(theta0.a), np.asarray(theta0.W, float).reshape((-1,) + np.shape(theta0.W)[-2:])
    deltas = imbalance(Network(a0, W0))
    t_max = dynamics.t_max or auto_horizon(deltas, model.c0)
    if steps is not None and dynamics.eta is not None:  # a run of exactly `steps` steps: its horizon
        t_max = steps * dynamics.eta
    mode = dynamics.mode
    rule = dynamics.update_rule(net.weight_decay) if mode.stepped else None
    space = None if dynamics.sample_size is not None or mode is Mode.sgd else invariant_subspace(net, W0)
    if rule is not None and (dynamics.basis == "random" or not ROTATION_INVARIANT[rule.name]):
        # S's coordinates are a rotation, which Adam's per-coordinate rule would see: a rule that is not
        # rotation invariant steps in the stated basis, and `basis` random turns all of R^d by its Q instead
        space = None
        if dynamics.basis == "random":
            require(
                full.d <= MAX_RANDOM_BASIS_D,
                "basis",
                f"random needs d ≤ {MAX_RANDOM_BASIS_D} (got {full.d}): a dense d × d rotation, drawn in O(d³)",
            )
            space = random_basis(d=full.d, seed=dynamics.basis_seed or 0)
    if space is not None:  # population dynamics never leave S (core/model/subspace.py): integrate there
        net, W0 = space.model(net), space.coordinates(W0)
    if rule is not None and rule.decay:  # AdamW: the decay is the optimizer's, the gradient the loss's alone
        net = replace(net, weight_decay=0.0)
    (members, m, r), d = W0.shape, full.d
    # a population flow's two checks (the run's estimate here, the flow's Jacobian below) ask about one moment:
    # nothing of the run is allocated between them, so the memory available is read once (/proc's and the
    # cgroup's files, ≈ 0.12 ms a read: a 129 × 129 phase map's 387 chunks read them twice each before)
    population_flow = dynamics.sample_size is None and not mode.stepped
    free = budget.available_memory() if population_flow else None
    _check_budget(dynamics, members, m, r, d, t_max, free)
    objective = population_objective(net)
    sample = None
    if dynamics.sample_size is not None:
        from gaugecli.core.samples import sample_draw
        from gaugecli.core.samples.empirical import EmpiricalSample

        if dynamics.batch_source != "resampled":  # resampled batches keep the sample whatever its size
            warn_if_streamed_and_slow(dynamics.sample_size, d, m, members, sample_draw.STORE_LIMIT_BYTES)

        # kept in memory, or streamed from the seed when too large (the same numbers); the sums
        # over it run in chunks of rows, so n = 10⁷ fits in a few GB
        # (resampled minibatches need random access to rows: always kept)
        store = True if dynamics.batch_source == "resampled" else None
        sample = EmpiricalSample.draw(
            net, dynamics.sample_size, seed, device=dynamics.torch_device, store=store, sphere=sphere
        )
        objective = sample.objective().with_weight_decay(net.weight_decay)

    if not mode.stepped:
        # The population flow is integrated over its whole horizon (each stored state is the flow's
        # own; cheap). A flow on L_n stops once ‖∇L_n‖ ≤ grad_tol — a root of the dense output, not
        # a step — and holds that state: its tail moves by ≤ ~grad_tol/λ, far inside its rtol 1e-4,
        # and integrating it on to the horizon made plot all 104 s instead of 85 s (one machine).
        options = FlowOptions.at(
            dynamics.tolerance,
            grid_points=dynamics.grid_points,
            stop_at_convergence=dynamics.sample_size is not None,
        )
        flow = partial(
            gradient_flow,
            Network(a0, W0),
            net,
            t_max,
            eps_align=model.eps_align,
            objective=objective,
            extra_times=np.asarray(times, float) if times else None,
            progress=progress,
            crossings=crossings,
        )
        check_flow(np.shape(W0), options.grid_points, free)  # the flow's own Jacobian, beside the run's estimate
        if mode is Mode.flow:
            chosen = replace(options, method=flow_method, device=flow_device) if flow_method != "auto" else options
            traj = flow(options=chosen)
        else:
            try:
                traj = flow(options=replace(options, max_gradient_evals=SAMPLE_LSODA_BUDGET))
            except NumericalFault as fault:
                # L_n can hold a sample point on a neuron's hyperplane (a sliding mode), where the
                # implicit steps stall; the explicit RK45 crosses it (see SAMPLE_LSODA_BUDGET)
                traj = flow(options=replace(options, method="RK45"))
                traj.stats = replace(traj.stats, message=f"{traj.stats.message} (LSODA: {fault})")
            traj.empirical_loss = sample.loss_along(traj.theta)  # type: ignore[union-attr]
        return _in_basis(traj, space), full

    assert rule is not None  # a stepped mode
    if dynamics.eta is None:  # GD's own step (any other optimizer is given its learning rate)
        choice = choose_step(Network(a0, W0), net, t_max, objective=objective, eps_align=model.eps_align)
        eta = choice.eta
        check_steps(math.ceil(t_max / eta), dynamics.step_budget, eta, t_max, chosen=True)
    else:
        eta, choice = dynamics.eta, None
        bound = stable_step_bound(Network(a0, W0), net, objective) if rule.is_gd else math.inf
        if eta >= bound:
            raise UnstableStep(
                "eta",
                f"must be below the gradient-descent stability bound 2/λ_max = {bound:.4g} at the initial point "
                f"(got {eta:g}); use `eta` below {bound:.4g}, or leave it out for a step with ≤ 1 % error",
            )
    oracle: GradientOracle | Objective = objective
    if mode is Mode.sgd:
        from gaugecli.core.samples.sample import minibatch_oracle

        root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        stream = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, BATCH_STREAM))
        # the minibatch's data term, with the model's decay +λθ (the objective above carries it)
        oracle = decayed(
            minibatch_oracle(
                net,
                dynamics.minibatch,
                stream,
                sample if dynamics.batch_source == "resampled" else None,
                device=dynamics.torch_device,
            ),
            net.weight_decay,
        )
    every_step = bool(dynamics.imbalance_every_step)
    if every_step:
        _check_imbalance_every_step(math.ceil(t_max / eta) + 1, members, m)
    traj = gradient_descent(
        Network(a0, W0),
        net,
        eta,
        t_max,
        oracle=oracle,
        eps_align=model.eps_align,
        grid_points=dynamics.grid_points,
        steps=steps,
        record_steps=record_steps,
        method=("sgd" if mode is Mode.sgd else "gd") if rule.name == "sgd" else rule.name,
        progress=progress,
        optimizer=None if rule.is_gd else rule,
        imbalance_every_step=every_step,
        crossings=crossings,
    )
    t_eta = None if mode is Mode.sgd else _first_crossings(traj.crossing_times)
    if choice is None and not (dynamics.step_error and (t_eta is None or np.any(np.isfinite(t_eta)))):
        # a given step's error only when asked for (`step_error`: its pilot at η/2 costs twice the
        # run's steps to T_spec, ×2.3 the training on Kunin et al.'s cell), and never for a run that
        # crossed nowhere: it has no T_spec whose error to estimate
        choice = StepChoice(eta, None, np.full(np.shape(traj.a)[:-2], np.nan), 0)
    if choice is None:
        # a given step: its error from one pilot at η/2 (full batch, so for SGD the same
        # discretisation estimate as for an automatic step), stopped at its first crossing
        choice = step_error(
            Network(a0, W0),
            net,
            eta,
            t_max,
            objective=objective,
            eps_align=model.eps_align,
            t_eta=t_eta,
            optimizer=None if rule.is_gd else rule,
        )
    traj.stats = replace(traj.stats, step_error=choice.step_error)
    return _in_basis(traj, space), full


def _check_imbalance_every_step(steps: int, members: int, m: int) -> None:
    """Refuse, before it starts, a run whose δ per step would exceed the budget (one line, naming the option)."""
    from gaugecli.core.integrate.descent import IMBALANCE_PER_STEP_BUDGET

    numbers = steps * members * m
    require(
        numbers <= IMBALANCE_PER_STEP_BUDGET,
        "imbalance_every_step",
        f"would keep {numbers:.3g} numbers ({steps} steps × {members} runs × {m} neurons, "
        f"{8 * numbers / 2**20:.0f} MiB), above its budget of 2^24 (128 MiB); shorten `t_max` or raise `eta`",
    )


def _in_basis(traj: Trajectory, space: Subspace | None) -> Trajectory:
    traj.basis = None if space is None else space.basis
    return traj


def _first_crossings(crossing_times: Array) -> Array:
    first = np.min(np.where(np.isnan(crossing_times), np.inf, crossing_times), axis=-1)
    return np.where(np.isfinite(first), first, np.nan)
