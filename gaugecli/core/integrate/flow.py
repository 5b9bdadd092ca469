"""Population (or any :class:`~gaugecli.core.population.objective.Objective`'s) gradient flow of the student
:class:`~gaugecli.core.model.state.Network` — the package's one flow: on its declared log grid
(:func:`gradient_flow`), or on a uniform "epoch" grid for the lock-in (:func:`population_flow_on_grid`).

Gradient flow is stiff: in the unfavorable gauge the coefficient relaxes at rate
~D while the direction turns at rate ~c/D. We therefore use scipy's LSODA, which
switches to BDF when the flow turns stiff, with the closed-form Hessian as Jacobian
(banded for ensembles, whose Jacobian is block-diagonal: :mod:`gaugecli.core.integrate.jacobian`), instead
of an explicit method, whose step would be capped at ~1/D. Any other solve_ivp method can be chosen
through :class:`~gaugecli.core.integrate.flow_options.FlowOptions` (Radau and BDF get a block-sparse Jacobian).

Where the states are stored and the crossings located: :mod:`gaugecli.core.integrate.crossings` and
:mod:`gaugecli.core.integrate.saveat`; the solve in segments: :mod:`gaugecli.core.integrate.segments`. A neuron that
reaches ``w = 0``, the ReLU's kink: :mod:`gaugecli.core.integrate.absorption`.
"""

from __future__ import annotations

import math
from importlib import import_module
from typing import Any, NamedTuple

import numpy as np
from scipy import sparse

from gaugecli.core.defaults import EPS_ALIGN
from gaugecli.core.integrate import odeint_flow
from gaugecli.core.integrate.absorption import NearZero, can_be_absorbed
from gaugecli.core.integrate.crossings import declared_grid, first_crossings
from gaugecli.core.integrate.flow_options import ENSEMBLE_CHUNK_STATES, FlowOptions, flow_progress
from gaugecli.core.integrate.jacobian import BlockDiagonal
from gaugecli.core.integrate.saveat import Event, SaveAt, UniformGrid, integrate, one_blas_thread
from gaugecli.core.integrate.segments import Piecewise, Solved, solve_restarted
from gaugecli.core.integrate.tolerance import POPULATION_RTOL, Tolerance
from gaugecli.core.integrate.trajectory import NumericalFault, SolverStats, Trajectory
from gaugecli.core.model.gauge import imbalance
from gaugecli.core.model.metrics import alignment
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population.objective import Objective, population_objective
from gaugecli.core.types import Array, Indices, Progress

__all__ = ["FlowOptions", "FlowSamples", "gradient_flow", "population_flow_on_grid"]

COMPILED = {"odeint": "odeint_flow", "bdf": "bdf_flow", "dop853-bdf": "dop853_flow", "dop853-torch": "dop853_torch"}
"""The population flows solved by compiled code where they apply (``FlowOptions.method``), each a module of
:mod:`gaugecli.core.integrate` with ``solve_members``, imported when a flow asks for it (``dop853_torch``
imports torch): ``odeint``, LSODA once per chunk; ``bdf``, each member on its own BDF steps; ``dop853-bdf``,
each on its own DOP853 steps, BDF's from where it turns stiff; ``dop853-torch``, the same DOP853 vectorised
over the members on a torch device (``FlowOptions.device``), the stiff members' BDF on the CPU."""


def _solve(
    theta0: Network,
    model: Model,
    objective: Objective,
    t_max: float,
    eps_align: float,
    options: FlowOptions,
    method: str,
    progress: Progress | None,
    crossings: bool = True,
) -> Solved:
    """The flow of the ``n`` members of ``θ0`` (``a (n, m)``, ``W (n, m, d)``) as one system; ``crossings``:
    locate each neuron's ``T_spec`` (else NaN)."""
    n, m, d = theta0.W.shape
    P = m * (d + 1)
    counts = {"grad": 0, "hess": 0}
    explicit = method in ("RK23", "RK45", "DOP853")  # no Jacobian to give
    hessian = objective.hessian if options.jacobian == "exact" and not explicit else None
    packed = objective.packed
    # A member whose neurons can reach w = 0 (gaugecli.core.integrate.absorption) runs alone (gradient_flow
    # sees to it), with one extra state per neuron: the norm of a neuron slaved near 0.
    near = NearZero(objective, model, theta0[0]) if n == 1 and objective.population else None
    if near is not None and not near.active:
        near = None

    def theta(y: Array) -> Array:
        return y if near is None else near.state(y)

    def rhs(t: float, y: Array) -> Array:
        counts["grad"] += 1
        state = theta(y)
        if counts["grad"] > options.max_gradient_evals:
            raise _over_budget(Network.unflatten(state, m, d, (n,)), options, t, t_max)
        if packed is not None:  # the same numbers, without unpacking (Objective.packed)
            out = packed(state.reshape(n, P)).ravel()
            np.negative(out, out=out)
        else:
            network = Network.unflatten(state, m, d, (n,))
            ga, gW, _ = objective.gradient(network.a, network.W)
            out = -Network(ga, gW).flatten()
        if near is not None:
            out = near.velocity(y, state, out)
        # one sum instead of isfinite over every entry: it is finite exactly when they all are (a sum
        # overflowing from finite entries would need gradients of ~1e308, a fault too)
        if not math.isfinite(float(np.add.reduce(out))):
            raise NumericalFault(f"non-finite gradient at t={t:.4g}: a neuron's norm reached 0 or overflowed")
        if progress is not None:
            progress(flow_progress(t, t_max))
        return out

    blocks = BlockDiagonal(n, P, method)

    def jac(t: float, y: Array) -> Array | sparse.bsr_array:
        counts["hess"] += 1
        network = Network.unflatten(theta(y), m, d, (n,))
        if near is not None:
            with np.errstate(divide="ignore", invalid="ignore"):  # a slaved neuron's own block at n = 0
                H = -hessian(network.a, network.W)[0]  # type: ignore[misc]
            return near.jacobian(H, y)
        return blocks(-hessian(network.a, network.W))  # type: ignore[misc]

    def squared_gradient(y: Array) -> Array:
        state = theta(y)
        if packed is not None:
            G = packed(state.reshape(n, P))
        else:
            network = Network.unflatten(state, m, d, (n,))
            G = Network(*objective.gradient(network.a, network.W)[:2]).flatten().reshape(n, P)
        if near is not None:  # a slaved neuron moves by its norm: |ṅ_j| = |a_j g(u*_j)|
            G = -near.velocity(y, state, -G.ravel())[None]
        return np.sum(G**2, axis=-1)

    def converged(t: float, y: Array) -> float:
        counts["grad"] += 1
        return float(np.log(np.max(squared_gradient(y)) + 1e-300) - 2.0 * np.log(options.grad_tol))

    # With stop_at_convergence the event ends the solve once every member has converged, and the
    # stored states past it are that final state. Otherwise no event is watched: it would change
    # no step (solve_ivp locates events after each step) yet cost a gradient per step, a quarter
    # of a flow's gradient evaluations; convergence is then judged at the end (`done` below).
    converged.terminal = True  # type: ignore[attr-defined]
    converged.direction = -1  # type: ignore[attr-defined]

    banded = blocks.solver_options if hessian is not None else {}
    y0 = theta0.flatten()
    jacobian: dict[str, Any] = {} if explicit else {"jac": None if hessian is None else jac}

    def solve(t0: float, y: Array, events: list[Event]) -> Any:
        save = SaveAt(dense=True, events=events)
        return integrate(
            rhs, (t0, t_max), y, method=method, rtol=options.rtol, atol=options.atol, save=save, **jacobian, **banded
        )

    convergence = converged if options.stop_at_convergence else None
    run = solve_restarted(solve, y0 if near is None else near.extend(y0), near, convergence)
    dense = Piecewise(run.sols, run.starts, near)
    steps_t = np.concatenate(run.t_steps)
    steps_y = np.concatenate([Y[: n * P] for Y in run.y_steps], axis=1)  # slaved neurons' w read as 0

    # T_spec: bracketed by the solver's stored steps, located on the dense output. A slaved neuron
    # (‖w‖ ≤ 2e-6·√δ) reads α = 0 at the stored steps: it does not cross while slaved.
    def aligned_at(t: Array, members: Indices, neurons: Indices) -> Array:
        W = Network.unflatten(dense(t).T, m, d, (t.size, n)).W  # (len(t), n, m, d)
        return alignment(W[np.arange(t.size), members, neurons], model)[0]

    crossing = np.full((n, m), np.nan)
    if crossings:
        align = alignment(Network.unflatten(steps_y.T, m, d, (steps_t.size, n)).W, model)[0]  # (steps, n, m)
        crossing = first_crossings(steps_t, align, 1.0 - eps_align, aligned_at)

    # Stopping on the convergence event means every member reached grad_tol (the event
    # watches the largest); otherwise judge each member, with slack for the ~1e-6
    # relative round-off of ‖∇L‖² at ‖∇L‖ ≈ 1e-10.
    last = run.y_steps[-1][:, -1]
    done = run.stopped | (squared_gradient(last) <= options.grad_tol**2 * (1 + 1e-3))
    held_at = np.full((n, m), np.nan) if near is None else near.entered[None].copy()
    return Solved(
        dense,
        float(steps_t[-1]),
        y0,
        n,
        crossing,
        held_at,
        np.broadcast_to(done, (n,)),
        int(sum(t.size - 1 for t in run.t_steps)),
        counts["grad"],
        counts["hess"],
        method,
        run.message + ("" if near is None else near.note()),
    )


def _over_budget(state: Network, options: FlowOptions, t: float, t_max: float) -> NumericalFault:
    """The fault of a flow past its budget of gradient evaluations, naming the likely cause: a neuron
    passing through the ReLU's kink at ``w = 0``."""
    smallest = float(np.min(np.linalg.norm(state.W, axis=-1)))
    cause = (
        f"; a neuron's input weight is passing through w = 0 (‖w‖ = {smallest:.1e}), where the ReLU "
        "gradient is not smooth — this happens when c changes sign at δ > 0 (the population flow "
        "holds such neurons near 0, gaugecli.core.integrate.absorption; a finite-sample flow does not)"
        if smallest < 1e-6
        else ""
    )
    return NumericalFault(
        f"gradient flow used its budget of {options.max_gradient_evals} gradient evaluations "
        f"and reached only t={t:.4g} of t_max={t_max:.4g}{cause}; shorten `t_max` or loosen rtol"
    )


def _similarity_order(theta0: Network) -> Indices:
    """Members sorted by their imbalances, so that a chunk holds runs on similar time
    scales and its shared step size suits all of them."""
    delta = imbalance(theta0)
    return np.lexsort((np.min(delta, axis=-1), np.max(delta, axis=-1)))


def gradient_flow(
    theta0: Network,
    model: Model,
    t_max: float,
    *,
    eps_align: float = EPS_ALIGN,
    options: FlowOptions = FlowOptions(),
    objective: Objective | None = None,
    t_grid: Array | None = None,
    extra_times: Array | None = None,
    progress: Progress | None = None,
    crossings: bool = True,
) -> Trajectory:
    """Integrate ``θ̇ = −∇L(θ)`` from ``θ0`` (``a (..., m)``, ``W (..., m, d)``: one network or an
    ensemble) until ``t_max`` or convergence.

    ``objective`` is the loss that flows (default: the population loss; the empirical
    loss ``L_n`` of :func:`gaugecli.core.samples.sample.empirical_objective` gives the finite-sample
    flow, with the same solver and the same event-located ``T_spec``). ``t_grid``: sample
    the trajectory at these times (clipped to the run's end) instead of the default log grid
    plus the crossing events — for comparing two runs time by time. ``extra_times``: declared
    times added to the default grid (a state wanted at a time another run located, say).
    ``crossings=False``: locate no crossing (``crossing_times`` NaN, none added to the grid), for a
    caller that reads the states alone: the root finding on the dense output was a quarter of a
    small LSODA ensemble's cost (predict's final states). The solver's steps are the same either way.

    With ``method="auto"`` an ensemble larger than :data:`ENSEMBLE_CHUNK_STATES` unknowns is
    split into chunks of similar members, each one LSODA system with a banded Jacobian; other
    methods integrate the whole ensemble as one system (Radau, BDF: block-sparse Jacobian).
    Its memory is checked by its caller (``gaugecli.experiments.budget.check_flow``), not here.
    """
    objective = objective or population_objective(model)
    theta0 = Network.of(theta0.a, theta0.W)
    batch, m, d = theta0.batch, theta0.m, theta0.d
    members = theta0.members()
    n_members, P = members.a.shape[0], m * (d + 1)
    # A member whose neurons can reach w = 0 runs alone, with the extra states of the neurons held
    # there (gaugecli.core.integrate.absorption.NearZero); the others as one system, or chunks of one.
    alone = np.any(can_be_absorbed(members, model), axis=-1) & objective.population
    # odeint: the same LSODA over the same chunks, called once per chunk (gaugecli.core.integrate.odeint_flow);
    # bdf: each member on its own compiled BDF steps (gaugecli.core.integrate.bdf_flow)
    compiled = options.method in COMPILED and odeint_flow.applies(model, objective)
    if options.method in ("auto", *COMPILED):
        method = options.method if compiled else "LSODA"
        size = max(1, ENSEMBLE_CHUNK_STATES // P)
        order = _similarity_order(members)
        shared = order[~alone[order]]
    else:
        method = options.method
        shared = np.flatnonzero(~alone)
        size = max(1, shared.size)
    chunks = [shared[i : i + size] for i in range(0, shared.size, size)] + [
        np.array([i]) for i in np.flatnonzero(alone)
    ]

    solved = []
    # One BLAS thread: the dense LUs here have at most a few hundred unknowns, and threaded
    # BLAS was measured 5-7x slower on them on 2 shared cores.
    with one_blas_thread():
        for k, idx in enumerate(chunks):
            sub = None if progress is None else (lambda f, k=k: progress((k + f) / len(chunks)))
            if compiled and not alone[idx[0]]:
                solver = import_module(f"gaugecli.core.integrate.{COMPILED[options.method]}").solve_members
                solved.append(solver(members[idx], model, t_max, eps_align, options, extra_times))
                continue
            way = "LSODA" if compiled else method
            solved.append(
                _solve(members[idx], model, objective.restricted(idx), t_max, eps_align, options, way, sub, crossings)
            )

    crossing = np.empty((n_members, m))
    absorbed_at = np.empty((n_members, m))
    converged = np.empty(n_members, bool)
    for idx, s in zip(chunks, solved, strict=True):
        crossing[idx], absorbed_at[idx], converged[idx] = s.crossing, s.held_at, s.converged
    if not crossings:  # the compiled solvers locate theirs anyway
        crossing[:] = np.nan
    if t_grid is None:
        grid = declared_grid(t_max, options.grid_points, crossing)
        if extra_times is not None:
            grid = np.unique(np.concatenate([grid, np.clip(np.asarray(extra_times, float), 0.0, t_max)]))
    else:
        grid = np.unique(np.maximum(np.asarray(t_grid, float), 0.0))  # beyond t_end: the final state

    a = np.empty((n_members, grid.size, m))
    W = np.empty((n_members, grid.size, m, d))
    for idx, s in zip(chunks, solved, strict=True):
        states = Network.unflatten(s.states(grid), m, d, (grid.size, idx.size))
        a[idx], W[idx] = np.moveaxis(states.a, 0, 1), np.moveaxis(states.W, 0, 1)
    if progress is not None:
        progress(1.0)
    return Trajectory(
        t=grid,
        a=a.reshape((*batch, grid.size, m)),
        W=W.reshape((*batch, grid.size, m, d)),
        crossing_times=crossing.reshape((*batch, m)),
        eps_align=eps_align,
        stats=SolverStats(
            objective=objective.name,
            population=objective.population,
            method=method if len(chunks) == 1 else f"{method} in {len(chunks)} chunks",
            n_steps=sum(s.steps for s in solved),
            n_gradient_evals=sum(s.grad_evals for s in solved),
            n_hessian_evals=sum(s.hess_evals for s in solved),
            message="; ".join(dict.fromkeys(s.message for s in solved)),
        ),
        converged=converged.reshape(batch),
        absorption_times=absorbed_at.reshape((*batch, m)) if np.any(np.isfinite(absorbed_at)) else None,
    )


def _class_projector(m: int, d: int, groups: list[list[int]]) -> Array:
    """``Π`` (``P × P``, ``P = m(d+1)``) averaging ``(a_j, w_j)`` over each group: the orthogonal
    projector onto the invariant set where every group's members are equal."""
    P = m * (d + 1)
    Pi = np.eye(P)
    for g in groups:
        idx = np.asarray(g)
        for block in [idx] + [m + idx * d + k for k in range(d)]:
            Pi[np.ix_(block, block)] = 1.0 / len(g)
    return Pi


class FlowSamples(NamedTuple):
    """States ``θ`` (``a (n, m)``, ``W (n, m, d)``) at ``t (n,)`` and the first time ``max_j α_j``
    reaches ``1 − ε_align`` (``None`` if not within the horizon; 0 if aligned at the start)."""

    t: Array
    theta: Network
    t_spec: float | None


_SPAN_OR_TIMES = "give exactly one of span (grid from this flow's T_spec) or times"


def population_flow_on_grid(
    theta0: Network,
    model: Model,
    eps_align: float,
    *,
    span: float | None = None,
    times: Array | None = None,
    per: int = 200,
    groups: list[list[int]] | None = None,
    rtol: float = POPULATION_RTOL,
    t_max: float = 1e6,
) -> FlowSamples:
    """Population gradient flow ``θ̇ = −∇L`` from ``θ0`` (``a (m,)``, ``W (m, d)``) on a uniform
    grid (RELATED.md §2): the trajectory the lock-in diagnostics (:mod:`gaugecli.core.analyses.lockin`) read.

    Either ``times`` is given, or the grid is ``k T_spec/per`` for ``k = 0 … span·per``, with
    ``T_spec`` the first time ``max_j α_j = 1 − ε_align`` of this very flow (a
    :class:`~gaugecli.core.integrate.saveat.UniformGrid` of the integrator: a terminal event, then the flow
    continues to ``span · T_spec``). Closed-form gradient and Hessian, LSODA, one BLAS thread, as
    :func:`gradient_flow`.

    ``groups``: integrate the flow *restricted to the invariant set* where each group's members are
    equal, ``θ̇ = −Π∇L(Πθ)`` (``Π`` averages over each group; the integrator's ``project``), so that
    round-off cannot split them; this is the trajectory on which the duplicates' separation rate
    is defined.
    """
    if (span is None) == (times is None):
        raise ValueError(_SPAN_OR_TIMES)
    theta0 = Network.of(theta0.a, theta0.W)
    m, d = theta0.m, theta0.d
    Pi = _class_projector(m, d, groups) if groups else None
    threshold = 1.0 - eps_align
    objective = population_objective(model)  # its gradient and Hessian, as gradient_flow's

    def rhs(_t: float, y: Array) -> Array:
        network = Network.unflatten(y, m, d)
        ga, gW, _ = objective.gradient(network.a, network.W)
        return -np.concatenate([ga, gW.ravel()])

    def jac(_t: float, y: Array) -> Array:
        network = Network.unflatten(y, m, d)
        return -objective.hessian(network.a, network.W)  # type: ignore[misc]

    def aligned(_t: float, y: Array) -> float:
        return float(np.max(alignment(Network.unflatten(y, m, d).W, model)[0]) - threshold)

    aligned.direction = 1  # type: ignore[attr-defined]
    aligned.terminal = False  # type: ignore[attr-defined]
    tolerance = Tolerance(rtol, "LSODA")
    y0 = theta0.flatten()
    t_spec: float | None
    with one_blas_thread():
        start_aligned = aligned(0.0, y0) >= 0
        if times is None:
            if span is None:  # excluded above; narrows the type
                raise ValueError(_SPAN_OR_TIMES)
            if start_aligned:
                raise ValueError("the flow starts aligned (T_spec = 0): give the grid times explicitly")
            unmet = f"no neuron reached alignment 1 − ε = {threshold:g} by t = {t_max:g}; raise t_max"
            save = SaveAt(uniform=UniformGrid(aligned, span, per, t_max, unmet))
            t_end = t_max
        else:
            save = SaveAt(times=np.asarray(times, float), events=(aligned,))
            t_end = float(save.times[-1])  # type: ignore[index]
        sol = integrate(
            rhs,
            (0.0, t_end),
            y0,
            method=tolerance.method,
            rtol=tolerance.rtol,
            atol=tolerance.atol,
            save=save,
            project=Pi,
            jac=jac,
        )
    hits = sol.t_events[0]
    if times is None:
        t, t_spec = sol.t, float(hits[0])
    else:
        t, t_spec = save.times, 0.0 if start_aligned else (float(hits[0]) if hits.size else None)
    Y = sol.y.T
    if Pi is not None:
        Y = Y @ Pi  # Π is symmetric: removes the round-off the solver's linear algebra adds
    return FlowSamples(t, Network.unflatten(Y, m, d, (t.size,)), t_spec)
