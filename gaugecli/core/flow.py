"""Population (or any :class:`~gaugecli.core.objective.Objective`'s) gradient flow.

Gradient flow is stiff: in the unfavorable gauge the coefficient relaxes at rate
~D while the direction turns at rate ~c/D. We therefore use scipy's LSODA, which
switches to BDF when the flow turns stiff, with the closed-form Hessian as Jacobian
(banded for ensembles, whose Jacobian is block-diagonal), instead of an explicit
method, whose step would be capped at ~1/D. Any other solve_ivp method can be chosen
through :class:`FlowOptions` (Radau and BDF get a block-sparse Jacobian).

Where the states are stored and the crossings located: :mod:`gaugecli.core.crossings`. A neuron that
reaches ``w = 0``, the ReLU's kink: :mod:`gaugecli.core.absorption`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse
from threadpoolctl import ThreadpoolController

from gaugecli.core.absorption import NearZero, can_be_absorbed
from gaugecli.core.crossings import (
    declared_grid,
    locate_crossings,
)
from gaugecli.core.defaults import EPS_ALIGN
from gaugecli.core.gauge import imbalance
from gaugecli.core.metrics import alignment
from gaugecli.core.model import Model
from gaugecli.core.objective import Objective, population_objective
from gaugecli.core.saveat import SaveAt, integrate
from gaugecli.core.tolerance import POPULATION_RTOL, Tolerance
from gaugecli.core.trajectory import NumericalFault, SolverStats, Trajectory
from gaugecli.core.types import Array, Indices, Progress

ENSEMBLE_CHUNK_STATES = 1000
"""Ensembles are integrated in chunks of at most this many unknowns (whole members). Within
a chunk all members share one step size, so chunks hold similar members and stay small; the
banded LU keeps the linear algebra linear in the chunk size. 750-1100 measured best (×16
over one by one for 256 members with D from 2 to 64, both gauges)."""


@dataclass(frozen=True)
class FlowOptions:
    """Tolerances of the flow solver.

    ``grad_tol``: stop once ``‖∇L‖ ≤ grad_tol`` in every ensemble member (the flow
    has converged; pruning and the loss floor are reached well before).
    ``max_gradient_evals``: a budget; exceeding it is a :class:`NumericalFault`.
    ``method``: a :func:`scipy.integrate.solve_ivp` method, or ``"auto"``: LSODA, which
    switches between Adams and BDF as the flow turns stiff, with the closed-form Hessian
    as Jacobian (banded for ensembles, whose Jacobian is block-diagonal); ensembles beyond
    :data:`ENSEMBLE_CHUNK_STATES` unknowns run as chunks of similar members.
    ``stop_at_convergence``: end the solve at the convergence event and hold the final state
    after it (cheaper, but the stored tail then depends on when the event fired); by default the
    flow is integrated over its whole declared horizon, so each stored state is the flow's own.
    ``jacobian``: ``"exact"`` passes the objective's closed-form Hessian to the implicit
    solvers; ``"none"`` lets them estimate it by finite differences of the gradient.
    """

    rtol: float = POPULATION_RTOL
    atol: float = Tolerance().atol
    method: str = "auto"
    grad_tol: float = 1e-10
    max_gradient_evals: int = 200_000
    grid_points: int = 400
    jacobian: str = "exact"
    stop_at_convergence: bool = False

    def __post_init__(self) -> None:
        if self.jacobian not in ("exact", "none"):
            raise ValueError(f"FlowOptions.jacobian must be 'exact' or 'none' (got {self.jacobian!r})")

    @classmethod
    def at(cls, tolerance: Tolerance, **options: Any) -> FlowOptions:
        """The options that solve to ``tolerance`` (its method, ``rtol`` and ``atol``), and any other
        field as given."""
        return cls(rtol=tolerance.rtol, atol=tolerance.atol, method=tolerance.method, **options)


PROGRESS_DECADES = 6.0
"""The flow's progress is read on a log scale over this many decades below ``t_max``: the solver
spends its steps about evenly per decade of t (fast relaxation early, slow alignment and
convergence late), so a linear t/t_max would sit near 0 for most of the run, then jump."""


def flow_progress(t: float, t_max: float) -> float:
    """``log(1 + t/τ) / log(1 + t_max/τ)`` with ``τ = t_max·10^-PROGRESS_DECADES``: 0 at t = 0, 1 at t_max."""
    tau = t_max * 10.0**-PROGRESS_DECADES
    return min(math.log1p(max(t, 0.0) / tau) / math.log1p(t_max / tau), 1.0)


@functools.cache
def _threadpools() -> ThreadpoolController:
    # made once per process: a new controller scans every loaded library (~1 ms, per flow)
    return ThreadpoolController()


def one_blas_thread() -> Any:
    """A context in which BLAS runs on one thread (the flows' small dense LUs: threaded BLAS was
    measured 5–7× slower on them on 2 shared cores)."""
    return _threadpools().limit(limits=1, user_api="blas")


def _pack(a: Array, W: Array) -> Array:
    batch = a.shape[:-1]
    m, d = W.shape[-2:]
    return np.concatenate([a.reshape(batch + (m,)), W.reshape(batch + (m * d,))], axis=-1).ravel()


def _unpack(y: Array, batch: tuple[int, ...], m: int, d: int) -> tuple[Array, Array]:
    Y = y.reshape(batch + (m * (d + 1),))
    return Y[..., :m], Y[..., m:].reshape(batch + (m, d))


class _Piecewise:
    """The dense output of a flow solved in segments (restarted where a neuron near ``w = 0`` was
    slaved or freed): segment ``s`` covers ``[starts[s], starts[s + 1])``; at a restart time the state
    is the new segment's. ``near``: the member's :class:`~gaugecli.core.absorption.NearZero`, whose
    extra states it drops and whose slaved neurons it rebuilds; ``None``: the states as solved."""

    def __init__(self, sols: list[Any], starts: list[float], near: NearZero | None) -> None:
        self.sols, self.starts, self.near = sols, np.asarray(starts, float), near

    def segment(self, t: Array) -> Indices:
        return np.clip(np.searchsorted(self.starts, t, side="right") - 1, 0, len(self.sols) - 1)

    def __call__(self, t: Array) -> Array:
        """States ``(n·P, len(t))`` at the times ``t`` (any order)."""
        t = np.atleast_1d(np.asarray(t, float))
        if len(self.sols) == 1 and self.near is None:
            return self.sols[0](t)
        seg = self.segment(t)
        Y = np.empty((self.sols[0](t[:1]).shape[0], t.size))
        for s in np.unique(seg):
            here = seg == s
            Y[:, here] = self.sols[s](t[here])
        if self.near is None:
            return Y
        return self.near.observed(seg, Y.T).T


@dataclass
class _Solved:
    """One flow over ``n`` members (one solve_ivp run, or several stitched at the events of a
    neuron near ``w = 0``): its dense output, stored steps and per-member crossings."""

    dense: _Piecewise
    t_end: float
    y0: Array
    n: int
    crossing: Array  # (n, m)
    held_at: Array  # (n, m): the first time w_j reached the slaving level (NaN: never)
    converged: Array  # (n,)
    steps: int
    grad_evals: int
    hess_evals: int
    method: str
    message: str

    def states(self, grid: Array) -> Array:
        """States ``(len(grid), n·P)``; beyond a converged run's end its final state is held
        (it moves at speed ≤ grad_tol there)."""
        Y = self.dense(np.minimum(grid, self.t_end)).T
        Y[grid == 0.0] = self.y0
        return Y


def _solve(
    a0: Array,
    W0: Array,
    model: Model,
    objective: Objective,
    t_max: float,
    eps_align: float,
    options: FlowOptions,
    method: str,
    progress: Progress | None,
) -> _Solved:
    n, m, d = W0.shape
    P = m * (d + 1)
    counts = {"grad": 0, "hess": 0}
    explicit = method in ("RK23", "RK45", "DOP853")  # no Jacobian to give
    hessian = objective.hessian if options.jacobian == "exact" and not explicit else None
    packed = objective.packed
    # A member whose neurons can reach w = 0 (gaugecli.core.absorption) runs alone (gradient_flow
    # sees to it), with one extra state per neuron: the norm of a neuron slaved near 0.
    near = NearZero(objective, model, a0[0], W0[0]) if n == 1 and objective.population else None
    if near is not None and not near.active:
        near = None

    def theta(y: Array) -> Array:
        return y if near is None else near.state(y)

    def rhs(t: float, y: Array) -> Array:
        counts["grad"] += 1
        state = theta(y)
        if counts["grad"] > options.max_gradient_evals:
            W = _unpack(state, (n,), m, d)[1]
            smallest = float(np.min(np.linalg.norm(W, axis=-1)))
            cause = (
                f"; a neuron's input weight is passing through w = 0 (‖w‖ = {smallest:.1e}), where the ReLU "
                "gradient is not smooth — this happens when c changes sign at δ > 0 (the population flow "
                "holds such neurons near 0, gaugecli.core.absorption; a finite-sample flow does not)"
                if smallest < 1e-6
                else ""
            )
            raise NumericalFault(
                f"gradient flow used its budget of {options.max_gradient_evals} gradient evaluations "
                f"and reached only t={t:.4g} of t_max={t_max:.4g}{cause}; shorten `t_max` or loosen rtol"
            )
        if packed is not None:  # the same numbers, without unpacking (Objective.packed)
            out = packed(state.reshape(n, P)).ravel()
            np.negative(out, out=out)
        else:
            ga, gW, _ = objective.gradient(*_unpack(state, (n,), m, d))
            out = -_pack(ga, gW)
        if near is not None:
            out = near.velocity(y, state, out)
        # one sum instead of isfinite over every entry: it is finite exactly when they all are (a sum
        # overflowing from finite entries would need gradients of ~1e308, a fault too)
        if not math.isfinite(float(np.add.reduce(out))):
            raise NumericalFault(f"non-finite gradient at t={t:.4g}: a neuron's norm reached 0 or overflowed")
        if progress is not None:
            progress(flow_progress(t, t_max))
        return out

    def jac(t: float, y: Array) -> Array | sparse.bsr_array:
        counts["hess"] += 1
        a, W = _unpack(theta(y), (n,), m, d)
        if near is not None:
            # slaved coordinates do not move as themselves: their rows and columns are 0 (a slaved
            # neuron's own block is singular at n = 0); only Newton's iteration sees the difference
            with np.errstate(divide="ignore", invalid="ignore"):
                H = -hessian(a, W)[0]  # type: ignore[misc]
            J = np.zeros((P + m, P + m))
            J[:P, :P] = H
            keep = ~near.frozen()
            J = np.where(keep[:, None] & keep[None, :], J, 0.0)
            J[P:, P:] = near.norm_jacobian(y)
            return J
        H = -hessian(a, W)  # type: ignore[misc]
        if n == 1:
            return H[0]
        if method == "LSODA":  # block-diagonal = banded: LSODA's packed band storage
            packed = np.zeros((2 * P - 1, n * P))
            packed[band_rows, band_cols] = H.reshape(n, P * P)
            return packed
        return sparse.bsr_array((H, np.arange(n), np.arange(n + 1)), shape=(n * P, n * P))

    def squared_gradient(y: Array) -> Array:
        state = theta(y)
        if packed is not None:
            G = packed(state.reshape(n, P))
        else:
            G = _pack(*objective.gradient(*_unpack(state, (n,), m, d))[:2]).reshape(n, P)
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

    banded = {}
    if method == "LSODA" and n > 1 and hessian is not None:
        # members do not interact: the Jacobian is block-diagonal, a band of half-width P − 1
        r, c = np.meshgrid(np.arange(P), np.arange(P), indexing="ij")
        band_rows = (P - 1 + r - c).ravel()[None, :]
        band_cols = np.arange(n)[:, None] * P + c.ravel()[None, :]
        banded = {"lband": P - 1, "uband": P - 1}
    y0 = _pack(a0, W0)
    jacobian = {} if explicit else {"jac": None if hessian is None else jac}
    # The solve restarts at each event of a neuron near w = 0 (slaved, freed); without one it is
    # one solve_ivp run.
    sols: list[Any] = []
    starts: list[float] = []
    t_steps: list[Array] = []
    y_steps: list[Array] = []
    t0, y, stopped = 0.0, (y0 if near is None else near.extend(y0)), False
    while True:
        events: list[Callable[[float, Array], float]] = [converged] if options.stop_at_convergence else []
        if near is not None:
            events += near.events()
        save = SaveAt(dense=True, events=events)
        sol = integrate(
            rhs, (t0, t_max), y, method=method, rtol=options.rtol, atol=options.atol, save=save, **jacobian, **banded
        )
        sols.append(sol.sol)
        starts.append(t0)
        t_steps.append(sol.t)
        y_steps.append(sol.y)
        if sol.status != 1:
            break
        fired = [e for e, times in zip(events, sol.t_events, strict=True) if times.size]
        if converged in fired:
            stopped = True
            break
        assert near is not None
        t0, y = float(sol.t[-1]), near.switch(float(sol.t[-1]), sol.y[:, -1], fired)
    dense = _Piecewise(sols, starts, near)
    steps_t = np.concatenate(t_steps)
    steps_y = np.concatenate([Y[: n * P] for Y in y_steps], axis=1)  # slaved neurons' w read as 0

    # T_spec: the first solver step at which α_j ≥ 1 − ε brackets the crossing; it is then located
    # on the dense output (as solve_ivp's own event location does). A slaved neuron (‖w‖ ≤ 2e-6·√δ)
    # reads α = 0 at the stored steps: it does not cross while slaved.
    thr = 1.0 - eps_align
    align = alignment(_unpack(steps_y.T, (steps_t.size, n), m, d)[1], model)[0]  # (steps, n, m)
    crossing = np.full((n, m), np.nan)
    members, neurons = np.nonzero(np.any(align >= thr, axis=0))
    first = np.argmax(align[:, members, neurons] >= thr, axis=0)  # the first step at or above
    crossing[members[first == 0], neurons[first == 0]] = 0.0
    later = first > 0
    members, neurons, first = members[later], neurons[later], first[later]
    if members.size:

        def gaps(t: Array, k: Indices) -> Array:
            W = _unpack(dense(t).T, (t.size, n), m, d)[1]  # (len(t), n, m, d)
            return alignment(W[np.arange(t.size), members[k], neurons[k]], model)[0] - thr

        crossing[members, neurons] = locate_crossings(gaps, steps_t[first - 1], steps_t[first])

    # Stopping on the convergence event means every member reached grad_tol (the event
    # watches the largest); otherwise judge each member, with slack for the ~1e-6
    # relative round-off of ‖∇L‖² at ‖∇L‖ ≈ 1e-10.
    last = y_steps[-1][:, -1]
    done = stopped | (squared_gradient(last) <= options.grad_tol**2 * (1 + 1e-3))
    held_at = np.full((n, m), np.nan) if near is None else near.entered[None].copy()
    return _Solved(
        dense,
        float(steps_t[-1]),
        y0,
        n,
        crossing,
        held_at,
        np.broadcast_to(done, (n,)),
        int(sum(t.size - 1 for t in t_steps)),
        counts["grad"],
        counts["hess"],
        method,
        str(sol.message) + ("" if near is None else near.note()),
    )


def _similarity_order(a0: Array, W0: Array) -> Indices:
    """Members sorted by their imbalances, so that a chunk holds runs on similar time
    scales and its shared step size suits all of them."""
    delta = imbalance(a0, W0)
    return np.lexsort((np.min(delta, axis=-1), np.max(delta, axis=-1)))


def gradient_flow(
    a0: Array,
    W0: Array,
    model: Model,
    t_max: float,
    *,
    eps_align: float = EPS_ALIGN,
    options: FlowOptions = FlowOptions(),
    objective: Objective | None = None,
    t_grid: Array | None = None,
    extra_times: Array | None = None,
    progress: Progress | None = None,
) -> Trajectory:
    """Integrate ``θ̇ = −∇L(θ)`` from ``(a0, W0)`` until ``t_max`` or convergence.

    ``objective`` is the loss that flows (default: the population loss; the empirical
    loss ``L_n`` of :func:`gaugecli.core.sample.empirical_objective` gives the finite-sample
    flow, with the same solver and the same event-located ``T_spec``). ``t_grid``: sample
    the trajectory at these times (clipped to the run's end) instead of the default log grid
    plus the crossing events — for comparing two runs time by time. ``extra_times``: declared
    times added to the default grid (a state wanted at a time another run located, say).

    With ``method="auto"`` an ensemble larger than :data:`ENSEMBLE_CHUNK_STATES` unknowns is
    split into chunks of similar members, each one LSODA system with a banded Jacobian; other
    methods integrate the whole ensemble as one system (Radau, BDF: block-sparse Jacobian).
    Its memory is checked by its caller (``gaugecli.experiments.budget.check_flow``), not here.
    """
    objective = objective or population_objective(model)
    a0, W0 = np.asarray(a0, float), np.asarray(W0, float)
    batch, (m, d) = a0.shape[:-1], W0.shape[-2:]
    a_flat, W_flat = a0.reshape(-1, m), W0.reshape(-1, m, d)
    n_members, P = a_flat.shape[0], m * (d + 1)
    # A member whose neurons can reach w = 0 runs alone, with the extra states of the neurons held
    # there (gaugecli.core.absorption.NearZero); the others as one system, or chunks of one.
    alone = np.any(can_be_absorbed(a_flat, W_flat, model), axis=-1) & objective.population
    if options.method != "auto":
        method = options.method
        shared = np.flatnonzero(~alone)
        size = max(1, shared.size)
    else:
        method = "LSODA"
        size = max(1, ENSEMBLE_CHUNK_STATES // P)
        order = _similarity_order(a_flat, W_flat)
        shared = order[~alone[order]]
    chunks = [shared[i : i + size] for i in range(0, shared.size, size)] + [
        np.array([i]) for i in np.flatnonzero(alone)
    ]

    solved = []
    # One BLAS thread: the dense LUs here have at most a few hundred unknowns, and threaded
    # BLAS was measured 5-7x slower on them on 2 shared cores.
    with one_blas_thread():
        for k, idx in enumerate(chunks):
            sub = None if progress is None else (lambda f, k=k: progress((k + f) / len(chunks)))
            solved.append(
                _solve(
                    a_flat[idx], W_flat[idx], model, objective.restricted(idx), t_max, eps_align, options, method, sub
                )
            )

    crossing = np.empty((n_members, m))
    absorbed_at = np.empty((n_members, m))
    converged = np.empty(n_members, bool)
    for idx, s in zip(chunks, solved, strict=True):
        crossing[idx], absorbed_at[idx], converged[idx] = s.crossing, s.held_at, s.converged
    if t_grid is None:
        grid = declared_grid(t_max, options.grid_points, crossing)
        if extra_times is not None:
            grid = np.unique(np.concatenate([grid, np.clip(np.asarray(extra_times, float), 0.0, t_max)]))
    else:
        grid = np.unique(np.maximum(np.asarray(t_grid, float), 0.0))  # beyond t_end: the final state

    a = np.empty((n_members, grid.size, m))
    W = np.empty((n_members, grid.size, m, d))
    for idx, s in zip(chunks, solved, strict=True):
        a_s, W_s = _unpack(s.states(grid), (grid.size, idx.size), m, d)
        a[idx], W[idx] = np.moveaxis(a_s, 0, 1), np.moveaxis(W_s, 0, 1)
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
