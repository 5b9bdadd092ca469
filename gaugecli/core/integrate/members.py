"""What a solver that integrates each member of an ensemble on its own steps
(:mod:`gaugecli.core.integrate.bdf_flow`) hands the flow: every neuron's first crossing of
``α = 1 − ε``, located on its dense output (:func:`crossings_of`), and the chunk's
:class:`~gaugecli.core.integrate.segments.Solved` (:func:`finish`; :func:`solved` for every compiled
ensemble solver).

The members' accepted steps are stored one member after the other — times ``T (N,)``, states
``Y (N, P)`` — with member ``e``'s rows ``start[e] … start[e + 1] − 1``; its dense output is
``states(members, times)``, the state of ``members[q]`` at ``times[q]``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numba import njit

from gaugecli.core.integrate.crossings import locate_crossings
from gaugecli.core.integrate.flow_options import FlowOptions
from gaugecli.core.integrate.segments import Solved
from gaugecli.core.integrate.trajectory import NumericalFault
from gaugecli.core.model.metrics import alignment
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population import fused
from gaugecli.core.population.dynamics import _fused_weights
from gaugecli.core.types import Array, Indices

NEAR_THRESHOLD = 1e-12
"""Where the compiled ``α`` of a stored state (:func:`_alignments`) lies this close to the threshold, the state's
``α`` is :func:`~gaugecli.core.model.metrics.alignment`'s: the two differ by a few ulps at most (the same
formula; numpy's product may take BLAS's order of the sum over ``d``), so every state's side of the
threshold, and hence every bracket, is the one ``alignment`` gives."""


_jit = njit(cache=True, nogil=True, error_model="numpy")

HOLD_SPEED = 1e-14
"""A member whose state moved by at most this times its last step (``|ẏ| ≤ 1e-14``, three decades below the
convergence test's ``grad_tol``) is at rest to round-off and held there to the horizon: at the exact alignment
``w ∥ v`` the ReLU's pair kernel is not smooth in the orthogonal component, and an implicit solver's error estimate (BDF's), fed its
round-off, shrank the steps without end (measured: 60 000 gradients on one cell, ~2000 on the others)."""


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def at_rest(Y, T, row):
    """Whether the member's last stored step (row ``row − 1``) moved its state by at most :data:`HOLD_SPEED`
    times its length."""
    speed = 0.0
    for x in range(Y.shape[1]):
        speed = max(speed, abs(Y[row - 1, x] - Y[row - 2, x]))
    return speed <= HOLD_SPEED * (T[row - 1] - T[row - 2])


@_jit
def first_row(T, Y, Hs, Ords, Dd, row, y0):
    """A member's start ``y0`` stored at ``t = 0`` in row ``row``, the arrays grown first where the members
    before filled them exactly (it was written one past their end: a heap corruption)."""
    if row >= T.size:
        T, Y, Hs, Ords, Dd = grown(T, Y, Hs, Ords, Dd, row)
    T[row] = 0.0
    for x in range(Y.shape[1]):
        Y[row, x] = y0[x]
    return T, Y, Hs, Ords, Dd


@_jit
def held(T, Y, Hs, Ords, Dd, row, t_end):
    """The last stored state held to ``t_end``: one more row, a constant (order 1, zero slope, as a BDF row)."""
    if row >= T.size:
        T, Y, Hs, Ords, Dd = grown(T, Y, Hs, Ords, Dd, row)
    T[row], Hs[row], Ords[row] = t_end, t_end - T[row - 1], 1
    for x in range(Y.shape[1]):
        Y[row, x] = Y[row - 1, x]
        Dd[row, 0, x] = Y[row - 1, x]
        Dd[row, 1, x] = 0.0
    return T, Y, Hs, Ords, Dd, row + 1


@_jit
def grown(T, Y, Hs, Ords, Dd, rows):
    """The step arrays at twice their length, their first ``rows`` rows copied."""
    N, P, K = 2 * T.size, Y.shape[1], Dd.shape[1]
    T2, Y2, H2, Ords2, D2 = np.empty(N), np.empty((N, P)), np.zeros(N), np.zeros(N, np.int64), np.zeros((N, K, P))
    for i in range(rows):
        T2[i], H2[i], Ords2[i] = T[i], Hs[i], Ords[i]
        for x in range(P):
            Y2[i, x] = Y[i, x]
            for j in range(K):
                D2[i, j, x] = Dd[i, j, x]
    return T2, Y2, H2, Ords2, D2


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def step_of(T, Y, start, e, t, out, q):
    """The row ``k`` of member ``e`` whose step ``(T[k−1], T[k]]`` holds ``t``; outside the member's steps
    ``out[q]`` is its first or last state and ``−1`` is returned."""
    lo, hi = start[e], start[e + 1] - 1
    if t >= T[hi] or t <= T[lo]:
        at = hi if t >= T[hi] else lo
        for x in range(Y.shape[1]):
            out[q, x] = Y[at, x]
        return -1
    while hi - lo > 1:  # T[lo] < t ≤ T[hi]
        mid = (lo + hi) // 2
        if T[mid] < t:
            lo = mid
        else:
            hi = mid
    return hi


@_jit
def _alignments(Y, m, d, Vh, even, out):
    """``out[q, j] = α_j`` of the packed state ``Y[q]`` (``(a_1..a_m, w_1, ..., w_m)``, ``w_j ∈ R^d``) against the
    teacher's unit directions ``Vh (k, d)``: :func:`~gaugecli.core.model.metrics.alignment`'s formula —
    ``max_k (w_j/‖w_j‖)·v̂_k`` (``|·|`` for an even σ; ``0`` for ``w = 0``) — one loop over the stored states
    instead of numpy's calls on arrays of ~10⁴ tiny rows (a phase chunk's steps: ~1 ms there, ~0.1 ms here)."""
    for q in range(Y.shape[0]):
        for j in range(m):
            t = 0.0
            for x in range(d):
                w = Y[q, m + j * d + x]
                t += w * w
            norm = math.sqrt(t)
            den = norm if norm > 0.0 else 1.0
            best = -np.inf
            for k in range(Vh.shape[0]):
                s = 0.0
                for x in range(d):
                    s += (Y[q, m + j * d + x] / den) * Vh[k, x]
                best = max(best, abs(s) if even else s)
            out[q, j] = best


States = Callable[[Array, Array], Array]
"""``(members (q,), times (q,)) → states (q, P)``: a per-member solver's dense output."""


def crossings_of(
    T: Array, Y: Array, start: Indices, m: int, d: int, model: Model, eps_align: float, states: States
) -> Array:
    """``(n, m)``: each neuron's first crossing of ``α = 1 − ε`` (NaN: never; 0: at the start) from the
    members' stored steps ``T``, ``Y`` (member ``e``'s rows ``start[e] … start[e + 1] − 1``): the first stored
    state at or above the threshold brackets it with the one before, and it is located on ``states``."""
    n = start.size - 1
    threshold = 1.0 - eps_align
    align = np.empty((Y.shape[0], m))  # (N, m)
    _alignments(np.ascontiguousarray(Y), m, d, model.unit_directions(), model.activation.even, align)
    # alignment's own α wherever the compiled one is near the threshold: the same rows above it, bit for bit
    near = np.flatnonzero(np.any(np.abs(align - threshold) <= NEAR_THRESHOLD, axis=1))
    if near.size:
        align[near] = alignment(Network.unflatten(Y[near], m, d, (near.size,)).W, model)[0]
    owner = np.repeat(np.arange(n), np.diff(start))
    crossing = np.full((n, m), np.nan)
    lo, hi, who, which = [], [], [], []
    for j in range(m):
        above = np.flatnonzero(align[:, j] >= threshold)
        if above.size == 0:
            continue
        first = above[np.concatenate([[True], owner[above[1:]] != owner[above[:-1]]])]  # per member
        at_start = first == start[owner[first]]
        crossing[owner[first[at_start]], j] = 0.0
        k = first[~at_start]
        lo.append(T[k - 1])
        hi.append(T[k])
        who.append(owner[k])
        which.append(np.full(k.size, j))
    if lo:
        members, neurons = np.concatenate(who), np.concatenate(which)

        def gaps(t: Array, k: Indices) -> Array:
            W = Network.unflatten(states(members[k], t), m, d, (t.size,)).W
            return alignment(W[np.arange(t.size), neurons[k]], model)[0] - threshold

        crossing[members, neurons] = locate_crossings(gaps, np.concatenate(lo), np.concatenate(hi))
    return crossing


def solve_packed(
    theta0: Network,
    model: Model,
    t_max: float,
    eps_align: float,
    options: FlowOptions,
    solve: Callable[..., tuple],
    dense: Callable[..., None],
    method: str,
    describe: Callable[[Array], str],
    *extra: float,
) -> Solved:
    """The flows of the ``n`` members of ``θ0`` on a compiled per-member solver at ``options``' tolerances:
    ``solve(Y0, t_end, rtol, atol, m, b, V, A, B, budget, *extra)`` gives the members' steps one after the
    other (``T, Y, Hs, Ords, Dd, start, stats``; ``stats[:, 1]`` the gradients, ``stats[:, 3]`` failed) and
    ``dense(T, Y, Hs, Ords, Dd, start, members, times, out)`` reads them; a member past its gradient budget, its
    step below round-off, or a state not finite is a :class:`NumericalFault` naming ``method``;
    ``describe(stats)`` is the solver's message. Applies where the compiled loops do
    (:func:`gaugecli.core.integrate.odeint_flow.applies`)."""
    n, m, d = theta0.W.shape
    P = m * (d + 1)
    weights = _fused_weights(model)
    assert weights is not None  # applies() holds
    b, V = np.ascontiguousarray(model.coefficients, float), np.ascontiguousarray(model.directions, float)
    y0 = np.ascontiguousarray(theta0.flatten().reshape(n, P), float)
    T, Y, Hs, Ords, Dd, start, stats = solve(
        y0, float(t_max), float(options.rtol), float(options.atol), m, b, V, float(weights[0]), float(weights[1]),
        int(options.max_gradient_evals), *extra,
    )  # fmt: skip
    if np.any(stats[:, 3]) or not np.all(np.isfinite(Y)):
        worst = int(np.argmax(stats[:, 1]))
        raise NumericalFault(
            f"gradient flow ({method}) used {int(stats[worst, 1])} gradient evaluations, past its budget of "
            f"{options.max_gradient_evals}, or its step fell below round-off; shorten `t_max` or loosen rtol"
        )

    def states(members: Array, times: Array) -> Array:
        out = np.empty((members.size, P))
        dense(T, Y, Hs, Ords, Dd, start, members, times, out)
        return out

    crossing = crossings_of(T, Y, start, m, d, model, eps_align, states)
    return finish(theta0, model, t_max, options, Y, start, stats, crossing, states, method, describe(stats))


def finish(
    theta0: Network,
    model: Model,
    t_max: float,
    options: FlowOptions,
    Y: Array,
    start: Array,
    stats: Array,
    crossing: Array,
    states: States,
    method: str,
    message: str,
) -> Solved:
    """The :class:`Solved` of a per-member solver (its dense output ``states``, convergence judged at the end)."""
    n, m, d = theta0.W.shape
    P = m * (d + 1)

    def dense(times: Array) -> Array:
        """``(n·P, len(times))``, as :class:`~gaugecli.core.integrate.segments.Piecewise`."""
        times = np.atleast_1d(np.asarray(times, float))
        out = states(np.repeat(np.arange(n), times.size), np.tile(times, n))
        return out.reshape(n, times.size, P).transpose(1, 0, 2).reshape(times.size, n * P).T

    counts = (int(stats[:, 0].sum()), int(stats[:, 1].sum()), int(stats[:, 2].sum()))
    return solved(theta0, model, t_max, options, dense, Y[start[1:] - 1], crossing, counts, method, message)


def solved(
    theta0: Network,
    model: Model,
    t_max: float,
    options: FlowOptions,
    dense: Callable[[Array], Array],
    last: Array,
    crossing: Array,
    counts: tuple[int, int, int],
    method: str,
    message: str,
) -> Solved:
    """The :class:`Solved` of an ensemble integrated by compiled code (``odeint``'s rows or a per-member
    solver): its dense output, the members' states ``last (n, P)`` at ``t_max``, each judged converged
    where ``‖∇L‖ ≤ grad_tol`` there (the fused gradient), and the steps, gradients and Hessians counted."""
    n, m = crossing.shape
    weights = _fused_weights(model)
    assert weights is not None  # the fused loops apply: odeint_flow.applies
    b, V = np.ascontiguousarray(model.coefficients, float), np.ascontiguousarray(model.directions, float)
    done = np.sum(fused.gradient_packed(np.ascontiguousarray(last), m, b, V, weights) ** 2, axis=-1)
    return Solved(
        dense,  # type: ignore[arg-type]
        float(t_max),
        theta0.flatten(),
        n,
        crossing,
        np.full((n, m), np.nan),
        done <= options.grad_tol**2 * (1 + 1e-3),
        *counts,
        method,
        message,
    )
