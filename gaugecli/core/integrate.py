"""Time integration: population gradient flow, gradient descent, finite-sample GD.

Every integrator takes initial parameters ``(a0, W0)`` of shapes ``(..., m)`` and
``(..., m, d)`` (leading axes are an ensemble integrated together) and returns a
:class:`Trajectory` sampled on a log-spaced grid that also contains every
specialization event.

Gradient flow is stiff: in the unfavorable gauge the coefficient relaxes at rate
~D while the direction turns at rate ~c/D. We therefore use scipy's LSODA, which
switches to BDF when the flow turns stiff, with the closed-form Hessian as Jacobian
(banded for ensembles, whose Jacobian is block-diagonal), instead of an explicit
method, whose step would be capped at ~1/D. Any other solve_ivp method can be chosen
through :class:`FlowOptions` (Radau and BDF get a block-sparse Jacobian).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, sparse
from scipy.integrate import solve_ivp
from threadpoolctl import threadpool_limits

from gaugecli.core.dynamics import population_gradient, population_hessian
from gaugecli.core.teacher import Teacher

Array = NDArray[np.float64]
Progress = Callable[[float], None]
"""Called with the fraction of work done (0..1); the CLI turns it into a progress bar."""


class NumericalFault(RuntimeError):
    """A numerical failure, with a message that says what to try instead."""


@dataclass(frozen=True)
class SolverStats:
    """How a trajectory was computed. ``step``: the GD/SGD step η (``None`` for flows);
    ``step_error``: the estimated relative discretisation error of ``T_spec`` at that step
    (:func:`choose_step`; ``None`` when not estimated); ``objective``: the loss descended."""

    method: str
    n_steps: int
    n_gradient_evals: int
    n_hessian_evals: int
    message: str
    step: float | None = None
    step_error: float | None = None
    objective: str = "population"


@dataclass
class Trajectory:
    """A sampled trajectory. Arrays carry the ensemble axes first, then time:
    ``a`` is ``(..., n, m)``, ``W`` is ``(..., n, m, d)``.

    ``crossing_times[..., j]`` is the first time ``α_j(t) = max_k u_j·v̂_k`` reaches
    ``1 − eps_align`` (NaN if never): located by root-finding on the solver's dense
    output for flow, by linear interpolation between iterates for GD.
    """

    t: Array
    a: Array
    W: Array
    crossing_times: Array
    eps_align: float
    stats: SolverStats
    converged: Array
    empirical_loss: Array | None = None


def _alignment(W: Array, teacher: Teacher) -> Array:
    U = W / np.linalg.norm(W, axis=-1, keepdims=True)
    return np.max(U @ teacher.unit_directions().T, axis=-1)


def log_time_grid(t_first: float, t_end: float, points: int) -> Array:
    """``0`` followed by ``points − 1`` log-spaced times in ``[t_first, t_end]``."""
    t_first = min(t_first, t_end)
    return np.concatenate([[0.0], np.geomspace(t_first, t_end, max(points - 1, 2))])


def stable_step_bound(a: Array, W: Array, teacher: Teacher, objective: Objective | None = None) -> float:
    """``2/λ_max(∇²L(θ))``: the largest step for which GD is linearly stable at θ
    (``objective``: the loss descended, default the population loss)."""
    hessian = population_objective(teacher).hessian if objective is None else objective.hessian
    if hessian is None:  # pragma: no cover - every objective here has a Hessian
        raise ValueError("the stable step bound needs the objective's Hessian")
    lam = np.linalg.eigvalsh(hessian(a, W))[..., -1]
    return float(2.0 / np.max(lam))


# ----------------------------------------------------------------------------------------
# objectives: what the flow and GD descend


GradientOracle = Callable[[Array, Array], tuple[Array, Array, Array | None]]
"""``(a, W) → (∂L/∂a, ∂L/∂W, loss or None)`` for the objective that GD descends."""

Hessian = Callable[[Array, Array], Array]
"""``(a, W) → ∇²L`` of shape ``(..., P, P)``, ``P = m (d + 1)``, packed ``θ = (a_1..a_m, w_1, ..., w_m)``."""


@dataclass(frozen=True)
class Objective:
    """A loss ``L`` to descend: ``gradient`` gives ``(∂L/∂a, ∂L/∂W, L or None)``, ``hessian``
    gives ``∇²L`` (``None``: the stiff solvers estimate their Jacobian by finite differences).
    ``name`` says which loss (``"population"``, ``"empirical n=…"``) in solver statistics.

    ``members``: for a loss that differs between the members of an ensemble (a ReLN with gates
    per member), ``members(idx)`` is the objective of the members ``idx`` of the flattened
    ensemble — the flow integrates chunks of members; ``None`` when every member shares it."""

    gradient: GradientOracle
    hessian: Hessian | None
    name: str
    members: Callable[[Array], Objective] | None = None

    def restricted(self, idx: Array) -> Objective:
        """The objective of the members ``idx`` (itself when members share one loss)."""
        return self if self.members is None else self.members(idx)


def population_objective(teacher: Teacher) -> Objective:
    """The population loss ``L`` of SPEC §1 in closed form (gradient and Hessian)."""

    def gradient(a: Array, W: Array) -> tuple[Array, Array, None]:
        g = population_gradient(a, W, teacher)
        return g.a, g.W, None

    return Objective(gradient, lambda a, W: population_hessian(a, W, teacher), "population")


def population_oracle(teacher: Teacher) -> GradientOracle:
    return population_objective(teacher).gradient


# ----------------------------------------------------------------------------------------
# gradient flow


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
    ``jacobian``: ``"exact"`` passes the objective's closed-form Hessian to the implicit
    solvers; ``"none"`` lets them estimate it by finite differences of the gradient.
    """

    rtol: float = 1e-10
    atol: float = 1e-13
    method: str = "auto"
    grad_tol: float = 1e-10
    max_gradient_evals: int = 200_000
    grid_points: int = 400
    jacobian: str = "exact"

    def __post_init__(self) -> None:
        if self.jacobian not in ("exact", "none"):
            raise ValueError(f"FlowOptions.jacobian must be 'exact' or 'none' (got {self.jacobian!r})")


def _pack(a: Array, W: Array) -> Array:
    batch = a.shape[:-1]
    m, d = W.shape[-2:]
    return np.concatenate([a.reshape(batch + (m,)), W.reshape(batch + (m * d,))], axis=-1).ravel()


def _unpack(y: Array, batch: tuple[int, ...], m: int, d: int) -> tuple[Array, Array]:
    Y = y.reshape(batch + (m * (d + 1),))
    return Y[..., :m], Y[..., m:].reshape(batch + (m, d))


@dataclass
class _Solved:
    """One solve_ivp run over ``n`` members: its dense output and per-member crossings."""

    sol: Any
    y0: Array
    n: int
    crossing: Array  # (n, m)
    converged: Array  # (n,)
    steps: int
    grad_evals: int
    hess_evals: int
    method: str
    message: str

    @property
    def t_end(self) -> float:
        return float(self.sol.t[-1])

    def states(self, grid: Array) -> Array:
        """States ``(len(grid), n·P)``; beyond a converged run's end its final state is held
        (it moves at speed ≤ grad_tol there)."""
        Y = self.sol.sol(np.minimum(grid, self.t_end)).T
        Y[grid == 0.0] = self.y0
        return Y


def _solve(
    a0: Array,
    W0: Array,
    teacher: Teacher,
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

    def rhs(t: float, y: Array) -> Array:
        counts["grad"] += 1
        a, W = _unpack(y, (n,), m, d)
        if counts["grad"] > options.max_gradient_evals:
            smallest = float(np.min(np.linalg.norm(W, axis=-1)))
            cause = (
                f"; a neuron's input weight is passing through w = 0 (‖w‖ = {smallest:.1e}), where the ReLU "
                "gradient is not smooth — this happens when c changes sign at δ > 0"
                if smallest < 1e-6
                else ""
            )
            raise NumericalFault(
                f"gradient flow used its budget of {options.max_gradient_evals} gradient evaluations "
                f"and reached only t={t:.4g} of t_max={t_max:.4g}{cause}; shorten --t-max or loosen rtol"
            )
        ga, gW, _ = objective.gradient(a, W)
        out = -_pack(ga, gW)
        if not np.all(np.isfinite(out)):
            raise NumericalFault(f"non-finite gradient at t={t:.4g}: a neuron's norm reached 0 or overflowed")
        if progress is not None:
            progress(min(t / t_max, 1.0))
        return out

    def jac(t: float, y: Array) -> Array | sparse.bsr_array:
        counts["hess"] += 1
        a, W = _unpack(y, (n,), m, d)
        H = -hessian(a, W)  # type: ignore[misc]
        if n == 1:
            return H[0]
        if method == "LSODA":  # block-diagonal = banded: LSODA's packed band storage
            packed = np.zeros((2 * P - 1, n * P))
            packed[band_rows, band_cols] = H.reshape(n, P * P)
            return packed
        return sparse.bsr_array((H, np.arange(n), np.arange(n + 1)), shape=(n * P, n * P))

    def squared_gradient(y: Array) -> Array:
        a, W = _unpack(y, (n,), m, d)
        ga, gW, _ = objective.gradient(a, W)
        return np.sum(ga**2, axis=-1) + np.sum(gW**2, axis=(-1, -2))

    def converged(t: float, y: Array) -> float:
        counts["grad"] += 1
        return float(np.log(np.max(squared_gradient(y)) + 1e-300) - 2.0 * np.log(options.grad_tol))

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
    sol = solve_ivp(
        rhs,
        (0.0, t_max),
        y0,
        method=method,
        **jacobian,
        rtol=options.rtol,
        atol=options.atol,
        dense_output=True,
        events=converged,
        **banded,
    )
    if sol.status == -1:
        raise NumericalFault(f"gradient flow failed at t={sol.t[-1]:.4g}: {sol.message}; try a smaller rtol")

    # T_spec: the first solver step at which α_j ≥ 1 − ε brackets the crossing; brentq
    # then finds it on the dense output (as solve_ivp's own event location does).
    thr = 1.0 - eps_align
    align = _alignment(_unpack(sol.y.T, (sol.t.size, n), m, d)[1], teacher)  # (steps, n, m)
    crossing = np.full((n, m), np.nan)
    for b, j in zip(*np.nonzero(np.any(align >= thr, axis=0)), strict=True):
        i = int(np.argmax(align[:, b, j] >= thr))
        if i == 0:
            crossing[b, j] = 0.0
            continue

        def gap(t: float, b: int = b, j: int = j) -> float:
            W = _unpack(sol.sol(t), (n,), m, d)[1]
            return float(_alignment(W[b, j], teacher) - thr)

        crossing[b, j] = optimize.brentq(gap, sol.t[i - 1], sol.t[i], xtol=1e-14, rtol=1e-13)

    # Stopping on the convergence event means every member reached grad_tol (the event
    # watches the largest); otherwise judge each member, with slack for the ~1e-6
    # relative round-off of ‖∇L‖² at ‖∇L‖ ≈ 1e-10.
    done = (sol.status == 1) | (squared_gradient(sol.y[:, -1]) <= options.grad_tol**2 * (1 + 1e-3))
    return _Solved(
        sol,
        y0,
        n,
        crossing,
        np.broadcast_to(done, (n,)),
        int(sol.t.size - 1),
        counts["grad"],
        counts["hess"],
        method,
        str(sol.message),
    )


def _similarity_order(a0: Array, W0: Array) -> Array:
    """Members sorted by their imbalances, so that a chunk holds runs on similar time
    scales and its shared step size suits all of them."""
    delta = a0**2 - np.sum(W0**2, axis=-1)
    return np.lexsort((np.min(delta, axis=-1), np.max(delta, axis=-1)))


def gradient_flow(
    a0: Array,
    W0: Array,
    teacher: Teacher,
    t_max: float,
    *,
    eps_align: float = 0.01,
    options: FlowOptions = FlowOptions(),
    objective: Objective | None = None,
    t_grid: Array | None = None,
    progress: Progress | None = None,
) -> Trajectory:
    """Integrate ``θ̇ = −∇L(θ)`` from ``(a0, W0)`` until ``t_max`` or convergence.

    ``objective`` is the loss that flows (default: the population loss; the empirical
    loss ``L_n`` of :func:`gaugecli.core.sample.empirical_objective` gives the finite-sample
    flow, with the same solver and the same event-located ``T_spec``). ``t_grid``: sample
    the trajectory at these times (clipped to the run's end) instead of the default log grid
    plus the crossing events — for comparing two runs time by time.

    With ``method="auto"`` an ensemble larger than :data:`ENSEMBLE_CHUNK_STATES` unknowns is
    split into chunks of similar members, each one LSODA system with a banded Jacobian; other
    methods integrate the whole ensemble as one system (Radau, BDF: block-sparse Jacobian).
    """
    objective = objective or population_objective(teacher)
    a0, W0 = np.asarray(a0, float), np.asarray(W0, float)
    batch, (m, d) = a0.shape[:-1], W0.shape[-2:]
    a_flat, W_flat = a0.reshape(-1, m), W0.reshape(-1, m, d)
    n_members, P = a_flat.shape[0], m * (d + 1)
    if options.method != "auto":
        chunks = [np.arange(n_members)]
        method = options.method
    else:
        method = "LSODA"
        size = max(1, ENSEMBLE_CHUNK_STATES // P)
        order = _similarity_order(a_flat, W_flat)
        chunks = [order[i : i + size] for i in range(0, n_members, size)]

    solved = []
    # One BLAS thread: the dense LUs here have at most a few hundred unknowns, and threaded
    # BLAS was measured 5-7x slower on them on 2 shared cores.
    with threadpool_limits(limits=1, user_api="blas"):
        for k, idx in enumerate(chunks):
            sub = None if progress is None else (lambda f, k=k: progress((k + f) / len(chunks)))
            solved.append(
                _solve(
                    a_flat[idx], W_flat[idx], teacher, objective.restricted(idx), t_max, eps_align, options, method, sub
                )
            )

    t_end = max(s.t_end for s in solved)
    t_first = min(float(s.sol.t[1]) if s.sol.t.size > 1 else s.t_end for s in solved)
    crossing = np.empty((n_members, m))
    converged = np.empty(n_members, bool)
    for idx, s in zip(chunks, solved, strict=True):
        crossing[idx], converged[idx] = s.crossing, s.converged
    if t_grid is None:
        grid = log_time_grid(max(t_first, t_end * 1e-12), t_end, options.grid_points)
        events = crossing[np.isfinite(crossing)]
        grid = np.unique(np.concatenate([grid, events[(events > 0) & (events < t_end)]]))
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
            method=method if len(chunks) == 1 else f"{method} in {len(chunks)} chunks",
            n_steps=sum(s.steps for s in solved),
            n_gradient_evals=sum(s.grad_evals for s in solved),
            n_hessian_evals=sum(s.hess_evals for s in solved),
            message="; ".join(dict.fromkeys(s.message for s in solved)),
        ),
        converged=converged.reshape(batch),
    )


# ----------------------------------------------------------------------------------------
# gradient descent (population and finite sample)


def _record_steps(n_steps: int, points: int) -> Array:
    return np.unique(np.concatenate([[0], np.geomspace(1, n_steps, max(points - 1, 2)).round().astype(int)]))


def _divergence_message(eta: float, step: int, bound: float) -> str:
    return (
        f"gradient descent diverged at step {step} with eta={eta:g}; "
        f"the stable bound at the initial point is eta < {bound:.4g}"
    )


def gradient_descent(
    a0: Array,
    W0: Array,
    teacher: Teacher,
    eta: float,
    t_max: float,
    *,
    oracle: GradientOracle | Objective | None = None,
    eps_align: float = 0.01,
    grad_tol: float = 1e-10,
    grid_points: int = 400,
    stop_at_crossing: bool = False,
    method: str = "gd",
    progress: Progress | None = None,
) -> Trajectory:
    """``θ ← θ − η g_k(θ)``; iterate ``k`` sits at time ``t = kη``.

    ``oracle`` gives the gradient ``g_k`` of the objective, called exactly once per step
    (default: the population loss; :func:`gaugecli.core.sample.empirical_objective` gives
    full-batch ``L_n``, :func:`gaugecli.core.sample.minibatch_oracle` a fresh minibatch each
    step — SGD, then ``method="sgd"`` labels it). ``stop_at_crossing``: stop once every member
    has a neuron at ``α ≥ 1 − ε`` (the pilot runs of :func:`choose_step` need no more).
    Divergence — a non-finite or exploding gradient — is a :class:`NumericalFault` naming the
    stable step bound.
    """
    objective_name = "population"
    if isinstance(oracle, Objective):
        objective_name, oracle = oracle.name, oracle.gradient
    elif oracle is not None:
        objective_name = getattr(oracle, "objective_name", "custom")
    oracle = oracle or population_oracle(teacher)
    a, W = np.array(a0, float), np.array(W0, float)
    batch, m = a.shape[:-1], a.shape[-1]
    n_steps = max(1, math.ceil(t_max / eta))
    record_set = set(_record_steps(n_steps, grid_points).tolist())
    thr = 1.0 - eps_align
    crossing = np.full(batch + (m,), np.nan)
    prev_align = _alignment(W, teacher)
    crossing[prev_align >= thr] = 0.0
    saved: list[tuple[float, Array, Array, Array | None]] = []
    converged = np.zeros(batch, bool)
    gsq0 = None
    k = 0
    for k in range(n_steps + 1):
        ga, gW, loss = oracle(a, W)
        gsq = np.sum(ga**2, axis=-1) + np.sum(gW**2, axis=(-1, -2))
        gsq0 = np.maximum(gsq, 1e-30) if gsq0 is None else gsq0
        if not np.all(np.isfinite(gsq)) or np.any(gsq > 1e12 * np.maximum(gsq0, 1.0)):
            raise NumericalFault(
                _divergence_message(eta, k, stable_step_bound(np.asarray(a0), np.asarray(W0), teacher))
            )
        converged = gsq <= grad_tol**2
        crossed = bool(np.all(np.any(np.isfinite(crossing), axis=-1)))
        done = k == n_steps or bool(np.all(converged)) or (stop_at_crossing and crossed)
        if k in record_set or done:
            saved.append((k * eta, a.copy(), W.copy(), loss))
            if progress is not None:
                progress(k / n_steps)
        if done:
            break
        a = a - eta * ga
        W = W - eta * gW
        align = _alignment(W, teacher)
        new = (align >= thr) & (prev_align < thr) & np.isnan(crossing)
        if np.any(new):
            # linear interpolation between iterates k and k+1
            frac = (thr - prev_align[new]) / (align[new] - prev_align[new])
            crossing[new] = (k + frac) * eta
        prev_align = align
    if progress is not None:
        progress(1.0)
    t = np.array([s[0] for s in saved])
    losses = [s[3] for s in saved]
    return Trajectory(
        t=t,
        a=np.moveaxis(np.array([s[1] for s in saved]), 0, -2),
        W=np.moveaxis(np.array([s[2] for s in saved]), 0, -3),
        crossing_times=crossing,
        eps_align=eps_align,
        stats=SolverStats(method, k, k + 1, 0, f"{k} steps of size {eta:g}", step=eta, objective=objective_name),
        converged=np.asarray(converged),
        empirical_loss=None if losses[0] is None else np.moveaxis(np.array(losses), 0, -1),
    )


# ----------------------------------------------------------------------------------------
# step policy: a step whose discretisation error of T_spec is stated


STEP_ERROR_TARGET = 0.01
"""Default bound on the relative discretisation error of ``T_spec`` that :func:`choose_step` aims at."""

PILOT_START_FRACTION = 0.1
"""The first pilot step, as a fraction of the GD stability bound ``2/λ_max(∇²L(θ0))``."""

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
    a0: Array, W0: Array, teacher: Teacher, objective: Objective, eta: float, t_max: float, eps_align: float
) -> tuple[Array, int]:
    """First time any neuron of each member reaches ``α = 1 − ε`` under GD with step ``eta``."""
    tr = gradient_descent(
        a0, W0, teacher, eta, t_max, oracle=objective, eps_align=eps_align, grid_points=3, stop_at_crossing=True
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
    a0: Array,
    W0: Array,
    teacher: Teacher,
    eta: float,
    t_max: float,
    *,
    objective: Objective | None = None,
    eps_align: float = 0.01,
    t_eta: Array | None = None,
) -> StepChoice:
    """The estimated relative error of ``T_spec`` for GD with a given step ``eta``, from one
    pilot at ``η/2`` (and one at ``η`` unless its crossing times ``t_eta`` are given)."""
    objective = objective or population_objective(teacher)
    steps = 0
    if t_eta is None:
        t_eta, steps = _first_crossing(a0, W0, teacher, objective, eta, t_max, eps_align)
    t_half, s = _first_crossing(a0, W0, teacher, objective, eta / 2, t_max, eps_align)
    return StepChoice(eta, _relative_step_error(np.asarray(t_eta), t_half), t_half, steps + s)


def choose_step(
    a0: Array,
    W0: Array,
    teacher: Teacher,
    t_max: float,
    *,
    objective: Objective | None = None,
    eps_align: float = 0.01,
    target: float = STEP_ERROR_TARGET,
    max_rounds: int = 8,
) -> StepChoice:
    """A GD step for which the relative discretisation error of ``T_spec`` is ≤ ``target``.

    GD with step η is a first-order method: ``T(η) = T₀ + Cη + O(η²)``, so pilot runs at η
    and η/2 (stopped at the first crossing) estimate the error at η as
    ``2|T(η) − T(η/2)|``. Starting from :data:`PILOT_START_FRACTION` of the stability
    bound, the step is rescaled to meet half the target (a factor-2 margin) and checked
    again, until the estimate is below ``target`` and the run has at least
    :data:`MIN_STEPS_TO_CROSSING` steps before its crossing. The time scale is therefore the
    run's own ``T_spec``, not the stability bound. If no member crosses within ``t_max``
    the pilot step is returned with ``step_error=None``.
    """
    objective = objective or population_objective(teacher)
    eta = PILOT_START_FRACTION * stable_step_bound(a0, W0, teacher, objective)
    eta = min(eta, t_max / MIN_STEPS_TO_CROSSING)
    t_eta, steps = _first_crossing(a0, W0, teacher, objective, eta, t_max, eps_align)
    if not np.any(np.isfinite(t_eta)):
        return StepChoice(eta, None, t_eta, steps)
    for _ in range(max_rounds):
        t_half, s = _first_crossing(a0, W0, teacher, objective, eta / 2, t_max, eps_align)
        steps += s
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
            t_eta, s = _first_crossing(a0, W0, teacher, objective, new, t_max, eps_align)
            steps += s
        eta = new
    last = "none" if err is None else f"{err:.2g}"
    raise NumericalFault(
        f"no gradient-descent step met a {target:.0%} error on T_spec in {max_rounds} rounds "
        f"(last estimate {last} at eta={eta:.3g}); give --eta explicitly or use a flow mode"
    )
