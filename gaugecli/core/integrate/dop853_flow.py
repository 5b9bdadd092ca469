"""The population flow of many small members, each on its own adaptive steps of a compiled DOP853 that hands a
member to the compiled BDF where it turns stiff (``FlowOptions(method="dop853-bdf")``).

DOP853 is scipy's (``scipy/integrate/_ivp/rk.py``, Hairer's explicit Runge–Kutta pair of order 8 with the
error estimate combining its 5th- and 3rd-order embedded formulas, scipy's first step and step control, and
its 7th-order dense output, ``Dop853DenseOutput``: three more stages a step), compiled for one member at a
time, the whole chunk in one call, its tableau read from ``scipy.integrate._ivp.dop853_coefficients``.

Why: most phase-map flows are not stiff (on the 33 × 33 maps, +D cells spend 5–56 explicit stability steps
``Σ Δt |λ_max| / 6`` along their whole trajectory), and there BDF's ~600 steps of two gradients, a Hessian,
an LU and Newton's bookkeeping do what DOP853 does in 50–100 steps of 15 gradients. Where a member is stiff
(most −D cells: the coefficient slaved at rate ~D, up to 22 000 explicit steps) an explicit method is
bounded by stability, so the stiffness test of Hairer's Fortran DOP853 watches every accepted step:
``h λ ≈ h ‖f(y_{n+1}) − k_12‖ / ‖y_{n+1} − Y_12‖`` from the last stage (``c = 1``) and the new state;
above :data:`STIFF_H_LAMBDA` on :data:`STIFF_STEPS` accepted steps (counted since the last run of
:data:`NONSTIFF_RESET` steps below it), the member continues from its current ``(t, y)`` on
:func:`gaugecli.core.integrate.bdf_flow._member`'s BDF, a fresh start there. A member at rest to
round-off is held to the horizon (:data:`~gaugecli.core.integrate.members.HOLD_SPEED`) on either method.

Both kinds of step are stored in the same arrays (:mod:`gaugecli.core.integrate.members`): a DOP853 row is
marked ``Ords = DOP853_ROW`` and holds ``y_old`` and scipy's seven interpolation coefficients ``F`` in
``Dd[k, 0]`` and ``Dd[k, 1:8]``; a BDF row its order and differences, as in ``bdf_flow``. One
:func:`_dense` reads both, and the crossings are located on it as every flow's are.

It applies where :mod:`gaugecli.core.integrate.odeint_flow` does (:func:`applies`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy.integrate._ivp import dop853_coefficients as tableau

from gaugecli.core.integrate import bdf_flow
from gaugecli.core.integrate.bdf_flow import _velocity, _velocity_once, bdf_at
from gaugecli.core.integrate.flow_options import FlowOptions
from gaugecli.core.integrate.members import at_rest, first_row, grown, held, solve_packed, step_of
from gaugecli.core.integrate.odeint_flow import applies
from gaugecli.core.integrate.segments import Solved
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population import fused
from gaugecli.core.types import Array

__all__ = ["applies", "compile_loops", "solve_members"]

_jit = njit(cache=True, nogil=True, error_model="numpy")

STAGES = tableau.N_STAGES
"""12 stages a step (the 13th, ``f(t + h, y_{n+1})``, is the next step's first: FSAL)."""
EXTENDED = tableau.N_STAGES_EXTENDED
"""16: the three more stages of the dense output."""
POWER = tableau.INTERPOLATOR_POWER
"""7 coefficients ``F`` of the dense output."""
_A, _B, _C = np.ascontiguousarray(tableau.A), np.ascontiguousarray(tableau.B), np.ascontiguousarray(tableau.C)
_E3, _E5, _DC = np.ascontiguousarray(tableau.E3), np.ascontiguousarray(tableau.E5), np.ascontiguousarray(tableau.D)
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0
"""scipy's step control (``rk.py``)."""
ERROR_EXPONENT = -1.0 / 8.0
"""``−1 / (error_estimator_order + 1)``: the estimate is of order 7."""
STIFF_H_LAMBDA = 0.75
"""The bound on Hairer's ``|h λ|`` estimate past which a step counts as stiff. Hairer's own, 6.1 (the Fortran
DOP853's ``HLAMB``: about the edge of the stability region on the negative real axis), let most −D members
run hundreds to thousands of stability-bound steps before their switch: their eigenvalues hold the step at
``|h λ|`` ≈ 3–6.4 (measured along three members of the −D map), and the −D chunks took 2.1 s against BDF
alone's 0.60 s. On the chunks of the cold 33 × 33 maps, over bounds 0.5–6.1 and counts 3–15 (the solver
alone, one run): 0.75 on 15 steps was the fastest for −D (0.49–0.51 s) and as fast as any for +D (0.12 s),
where 6.1 took 2.1 s and 0.13 s. A bound this low hands a member over once its step is a sizeable fraction
of its fastest time scale: at rtol 1e-10 an 8th-order step that long is already set by stability there."""
STIFF_STEPS = 15
"""Accepted steps past :data:`STIFF_H_LAMBDA` that make a member stiff (Hairer's ``IASTI = 15``)."""
NONSTIFF_RESET = 6
"""Consecutive accepted steps below :data:`STIFF_H_LAMBDA` that reset the count (Hairer's ``NONSTI = 6``)."""
DOP853_ROW = -1
"""``Ords`` of a stored DOP853 step (a BDF step's is its order, 1–5)."""
ROWS = 1 + POWER
"""``Dd``'s rows a step: ``y_old`` and ``F`` (BDF's differences use at most 6 of them)."""


@_jit
def _rk_step(y, f, h, m, b, V, A, B, K, ytmp, y12, ynew, Yb, Gb, gwork):
    """scipy's ``rk_step`` of DOP853 from ``(y, f)`` over ``h``: the stages in ``K[:13]`` (``K[12]`` the new
    state's velocity), the new state in ``ynew``, the last stage's argument (``c = 1``) in ``y12``."""
    P = y.size
    for x in range(P):
        K[0, x] = f[x]
    for s in range(1, STAGES + 1):  # stages 1..11, then the new state's velocity (FSAL)
        for x in range(P):
            acc = 0.0
            if s < STAGES:
                for j in range(s):
                    acc += K[j, x] * _A[s, j]
            else:
                for j in range(STAGES):
                    acc += K[j, x] * _B[j]
            ytmp[x] = y[x] + acc * h
        if s == STAGES - 1:
            for x in range(P):
                y12[x] = ytmp[x]
        if s == STAGES:
            for x in range(P):
                ynew[x] = ytmp[x]
        _velocity(ytmp, m, b, V, A, B, K[s], Yb, Gb, gwork)


@_jit
def _error_norm(K, h, y, ynew, rtol, atol):
    """scipy's DOP853 error norm: ``|h| ‖e5‖² / √((‖e5‖² + 0.01 ‖e3‖²) P)``, each component over
    ``atol + rtol max(|y|, |y_new|)``."""
    P = y.size
    e5, e3 = 0.0, 0.0
    for x in range(P):
        scale = atol + max(abs(y[x]), abs(ynew[x])) * rtol
        s5, s3 = 0.0, 0.0
        for j in range(STAGES + 1):
            s5 += K[j, x] * _E5[j]
            s3 += K[j, x] * _E3[j]
        e5 += (s5 / scale) ** 2
        e3 += (s3 / scale) ** 2
    if e5 == 0.0 and e3 == 0.0:
        return 0.0
    return abs(h) * e5 / math.sqrt((e5 + 0.01 * e3) * P)


@_jit
def _h_lambda(K, h, ynew, y12):
    """Hairer's estimate of ``|h λ|``: ``|h| ‖f(y_{n+1}) − k_12‖ / ‖y_{n+1} − Y_12‖`` (both at ``t + h``;
    ``−1`` where the two states coincide)."""
    num, den = 0.0, 0.0
    for x in range(ynew.size):
        num += (K[STAGES, x] - K[STAGES - 1, x]) ** 2
        den += (ynew[x] - y12[x]) ** 2
    return abs(h) * math.sqrt(num / den) if den > 0.0 else -1.0


@_jit
def _store_dense(y, ynew, h, m, b, V, A, B, K, ytmp, Yb, Gb, gwork, Dd, row):
    """scipy's ``_dense_output_impl``: the three more stages, and ``y_old``, ``F`` into ``Dd[row, :8]``."""
    P = y.size
    for s in range(STAGES + 1, EXTENDED):
        for x in range(P):
            acc = 0.0
            for j in range(s):
                acc += K[j, x] * _A[s, j]
            ytmp[x] = y[x] + acc * h
        _velocity(ytmp, m, b, V, A, B, K[s], Yb, Gb, gwork)
    for x in range(P):
        delta = ynew[x] - y[x]
        Dd[row, 0, x] = y[x]
        Dd[row, 1, x] = delta
        Dd[row, 2, x] = h * K[0, x] - delta
        Dd[row, 3, x] = 2.0 * delta - h * (K[STAGES, x] + K[0, x])
        for i in range(POWER - 3):
            acc = 0.0
            for j in range(EXTENDED):
                acc += _DC[i, j] * K[j, x]
            Dd[row, 4 + i, x] = h * acc


@_jit
def _first_step(y, f, t_end, rtol, atol, m, b, V, A, B, ytmp, f1, Yb, Gb, gwork):
    """scipy's ``select_initial_step`` for an estimate of order 7 (one gradient)."""
    P = y.size
    d0, d1 = 0.0, 0.0
    for x in range(P):
        scale = atol + abs(y[x]) * rtol
        d0 += (y[x] / scale) ** 2
        d1 += (f[x] / scale) ** 2
    d0, d1 = math.sqrt(d0 / P), math.sqrt(d1 / P)
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    h0 = min(h0, t_end)
    for x in range(P):
        ytmp[x] = y[x] + h0 * f[x]
    _velocity_once(ytmp, m, b, V, A, B, f1, Yb, Gb, gwork)
    d2 = 0.0
    for x in range(P):
        d2 += ((f1[x] - f[x]) / (atol + abs(y[x]) * rtol)) ** 2
    d2 = math.sqrt(d2 / P) / h0
    h1 = max(1e-6, h0 * 1e-3) if d1 <= 1e-15 and d2 <= 1e-15 else (0.01 / max(d1, d2)) ** (1.0 / 8.0)
    return min(100.0 * h0, h1, t_end)


@_jit
def _solve(Y0, t_end, rtol, atol, m, b, V, A, B, budget, stiff_bound, stiff_steps, capacity=-1):
    """Each member of ``Y0 (n, P)`` from ``t = 0`` to ``t_end`` on its own DOP853 steps, on BDF's from where it
    turns stiff. Returns the accepted steps of all members one after the other — times ``T (N,)``, states
    ``Y (N, P)``, the step's kind and dense output (``Hs (N,)``, ``Ords (N,)``, ``Dd (N, 8, P)``: module
    docstring) — the first row of each member ``start (n + 1,)``, and per member ``(steps, gradient
    evaluations, Jacobians, failed, DOP853 steps)``. ``capacity``: the rows made at first (``−1``: 128 a member;
    grown as needed)."""
    n, P = Y0.shape
    cap = 128 * n + 16 if capacity < 0 else capacity
    T, Y, Hs = np.empty(cap), np.empty((cap, P)), np.zeros(cap)
    Ords, Dd = np.zeros(cap, np.int64), np.zeros((cap, ROWS, P))
    start = np.empty(n + 1, np.int64)
    stats = np.zeros((n, 5), np.int64)
    K = np.empty((EXTENDED, P))
    y, f, ytmp, y12, ynew = np.empty(P), np.empty(P), np.empty(P), np.empty(P), np.empty(P)
    Yb, Gb = np.empty((1, P)), np.empty((1, P))
    gwork = fused._gradient_work(m, V)
    row = 0
    for e in range(n):
        start[e] = row
        T, Y, Hs, Ords, Dd = first_row(T, Y, Hs, Ords, Dd, row, Y0[e])
        for x in range(P):
            y[x] = Y0[e, x]
        row += 1
        t = 0.0
        _velocity_once(y, m, b, V, A, B, f, Yb, Gb, gwork)
        h_abs = _first_step(y, f, t_end, rtol, atol, m, b, V, A, B, ytmp, ynew, Yb, Gb, gwork)
        evals, steps, stiff, calm = 2, 0, 0, 0
        failed, switch = False, False
        while t < t_end:
            if evals > budget:
                failed = True
                break
            min_step = 10.0 * (np.nextafter(t, np.inf) - t)
            h_abs = max(h_abs, min_step)
            rejected = False
            h = h_abs
            while True:
                if h_abs < min_step:
                    failed = True
                    break
                t_new = min(t + h_abs, t_end)
                h = t_new - t
                h_abs = h
                _rk_step(y, f, h, m, b, V, A, B, K, ytmp, y12, ynew, Yb, Gb, gwork)
                evals += STAGES
                error = _error_norm(K, h, y, ynew, rtol, atol)
                if error < 1.0:
                    factor = MAX_FACTOR if error == 0.0 else min(MAX_FACTOR, SAFETY * error**ERROR_EXPONENT)
                    h_abs *= min(1.0, factor) if rejected else factor
                    break
                h_abs *= max(MIN_FACTOR, SAFETY * error**ERROR_EXPONENT)
                rejected = True
            if failed:
                break
            # Hairer's stiffness test on every accepted step (his NSTIFF = 1), at our bound
            if _h_lambda(K, h, ynew, y12) > stiff_bound:
                calm = 0
                stiff += 1
                switch = stiff >= stiff_steps
            else:
                calm += 1
                if calm == NONSTIFF_RESET:
                    stiff = 0
            if row >= T.size:
                T, Y, Hs, Ords, Dd = grown(T, Y, Hs, Ords, Dd, row)
            _store_dense(y, ynew, h, m, b, V, A, B, K, ytmp, Yb, Gb, gwork, Dd, row)
            evals += EXTENDED - STAGES - 1
            T[row], Hs[row], Ords[row] = t_new, h, DOP853_ROW
            for x in range(P):
                y[x] = ynew[x]
                f[x] = K[STAGES, x]
                Y[row, x] = y[x]
            t = t_new
            row += 1
            steps += 1
            if t < t_end and at_rest(Y, T, row):  # held to the horizon (HOLD_SPEED)
                T, Y, Hs, Ords, Dd, row = held(T, Y, Hs, Ords, Dd, row, t_end)
                # the hold ends the member even where this step also made it stiff: BDF would go on from t,
                # its rows after the held row's t_end, back in time
                switch = False
                break
            if switch and t < t_end:
                break
        stats[e, 4] = steps
        jacs = 0
        if switch and not failed and t < t_end:
            T, Y, Hs, Ords, Dd, row, more, evals, jacs, failed = bdf_flow._member(
                y, t, evals, t_end, rtol, atol, m, b, V, A, B, budget, T, Y, Hs, Ords, Dd, row
            )
            steps += more
        stats[e, 0], stats[e, 1], stats[e, 2], stats[e, 3] = steps, evals, jacs, 1 if failed else 0
    start[n] = row
    return T[:row], Y[:row], Hs[:row], Ords[:row], Dd[:row], start, stats


@_jit
def _dense(T, Y, Hs, Ords, Dd, start, members, times, out):
    """``out[q] = y_{members[q]}(times[q])``: on ``(T[k−1], T[k]]`` the dense output stored with step ``k`` —
    DOP853's (scipy's ``Dop853DenseOutput``: with ``x = (t − T[k−1]) / h``, the nested product
    ``y_old + x (F_0 + (1 − x)(F_1 + x (F_2 + …)))``) or BDF's (:func:`~gaugecli.core.integrate.bdf_flow.bdf_at`)."""
    P = Y.shape[1]
    for q in range(members.size):
        e, t = members[q], times[q]
        k = step_of(T, Y, start, e, t, out, q)
        if k < 0:
            continue
        if Ords[k] != DOP853_ROW:
            bdf_at(T, Hs, Ords, Dd, k, t, out, q)
            continue
        t_old = T[k - 1]
        x = (t - t_old) / (T[k] - t_old)
        for c in range(P):
            acc = 0.0
            for i in range(POWER):  # scipy's order: F reversed, times x and (1 − x) alternately
                acc += Dd[k, POWER - i, c]
                acc *= x if i % 2 == 0 else 1.0 - x
            out[q, c] = acc + Dd[k, 0, c]


def compile_loops() -> None:
    """Compile the solver now (or load it from numba's on-disk cache), with ``bdf_flow``'s it hands stiff
    members to."""
    b, V = np.array([1.0]), np.array([[0.0, 1.0]])
    T, Y, Hs, Ords, Dd, start, _ = _solve(
        np.array([[0.5, 1.0, 0.5]]), 1.0, 1e-6, 1e-9, 1, b, V, 1.0, 0.0, 10_000, STIFF_H_LAMBDA, STIFF_STEPS
    )
    _dense(T, Y, Hs, Ords, Dd, start, np.zeros(1, np.int64), np.array([0.5]), np.empty((1, 3)))


def solve_members(
    theta0: Network, model: Model, t_max: float, eps_align: float, options: FlowOptions, extra_times: Array | None
) -> Solved:
    """The flows of the ``n`` members of ``θ0``, each on its own DOP853 steps (BDF's where it turns stiff) at
    ``options``' tolerances."""
    del extra_times

    def describe(stats: Array) -> str:
        switched = int(np.count_nonzero(stats[:, 0] > stats[:, 4]))
        return f"dop853-bdf: DOP853 per member, {switched} of {stats.shape[0]} handed to BDF where stiff"

    return solve_packed(
        theta0, model, t_max, eps_align, options, _solve, _dense, "dop853-bdf", describe, STIFF_H_LAMBDA, STIFF_STEPS
    )
