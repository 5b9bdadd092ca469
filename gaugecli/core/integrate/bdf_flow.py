"""The population flow of many small members, each on its own adaptive steps of a compiled
variable-order BDF (``FlowOptions(method="bdf")``): scipy's ``BDF`` algorithm (orders 1–5 in the
quasi-constant step form of Shampine and Reichelt's NDF/BDF, the differences array rescaled on every step
change, simplified Newton iterations with the closed-form Hessian as Jacobian), compiled for one member at
a time, the whole chunk in one call.

Why a solver of our own: a phase map is ~1000 flows of 2–3 unknowns; LSODA on shared steps (the default
path, and ``odeint``'s rows) makes every cell of a row take the steps of its stiffest one, and LSODA per
cell pays a Python call per right-hand side (``odeint``: ~11× the evaluations of a shared row, slower;
benchmarks row o3). No well-kept library integrates a batch of small stiff systems each on its own steps
from compiled code with a dense output on this Python: numbalsoda (LSODA from compiled code) has no wheel
for it, scikit-sundae's CVODE cost 6–9 ms a cell through its Python callbacks, and a batched BDF or
diffrax's vectorised implicit solvers share their steps (the batch runs as long as its slowest member).
A compiled Rosenbrock method (Rodas5P, written and measured first) lost: on the −D flows' slow manifold its
steps lose order (the fast coefficient's local error fell as ~h³, not h⁶) and a −D map took 4.8 s against
2.2 s here (docs/design.md); BDF, whose stages are the solution's own past values, does not, and takes two
to three gradients a step. The algorithm is scipy's (``scipy/integrate/_ivp/bdf.py``: the first step, the Newton tolerance and
its four iterations, the error constants, the order and step changes) but for two choices:
:data:`FRESH_JACOBIAN` and :data:`HOLD_SPEED`; the dense output is its interpolating polynomial through the
last ``order + 1`` points. The crossings ``α_j = 1 − ε`` are located on it as every
flow's are (:func:`~gaugecli.core.integrate.crossings.locate_crossings`).

It applies where :mod:`gaugecli.core.integrate.odeint_flow` does (:func:`applies`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gaugecli.core.integrate.flow_options import FlowOptions
from gaugecli.core.integrate.members import HOLD_SPEED, at_rest, first_row, grown, held, solve_packed, step_of
from gaugecli.core.integrate.odeint_flow import applies
from gaugecli.core.integrate.segments import Solved
from gaugecli.core.integrate.small_lu import lu_factor, lu_solve
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population import fused
from gaugecli.core.types import Array

__all__ = ["HOLD_SPEED", "applies", "compile_loops", "solve_members"]

_jit = njit(cache=True, nogil=True, error_model="numpy")
# every step's helpers, inlined into _solve (as fused's): the calls' argument passing was half the solve; the
# rarer Hessian, change of step and of order stay calls (inlined too, the cold compile tripled for a few per cent)
_jiti = njit(cache=True, nogil=True, error_model="numpy", inline="always")

MAX_ORDER = 5
FRESH_JACOBIAN = True
"""Evaluate the Jacobian at the predicted state whenever the iteration matrix is rebuilt (scipy keeps it until a
Newton iteration fails): one closed-form Hessian costs about a gradient here, and a current one saves iterations."""
NEWTON_MAXITER = 4
MIN_FACTOR, MAX_FACTOR = 0.2, 10.0
_KAPPA = np.array([0.0, -0.1850, -1.0 / 9.0, -0.0823, -0.0415, 0.0])
_GAMMA = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, MAX_ORDER + 1))))
_ALPHA = (1.0 - _KAPPA) * _GAMMA
_ERROR_CONST = _KAPPA * _GAMMA + 1.0 / np.arange(1, MAX_ORDER + 2)
"""scipy's BDF constants (``kappa``: the NDF modification is zero here only at orders 0 and 5 — scipy's values)."""


@_jiti
def _velocity(y, m, b, V, A, B, out, Yb, Gb, work):
    """``out = ẏ = −∇L(y)`` of a packed state ``y (P,)`` (``work``: fused's ``_gradient_work``, made once)."""
    for x in range(y.size):
        Yb[0, x] = y[x]
    fused._gradient_member(Yb, 0, m, b, V, A, B, Gb, work)
    for x in range(y.size):
        out[x] = -Gb[0, x]


@_jit
def _velocity_once(y, m, b, V, A, B, out, Yb, Gb, work):  # at a member's start: a call (less to compile)
    _velocity(y, m, b, V, A, B, out, Yb, Gb, work)


@_jit
def _jacobian(y, m, b, V, A, B, J, Yb, work):
    """``J = ∂f/∂y = −∇²L(y)`` of a packed state ``y (P,)`` (``work``: fused's ``_hessian_work``)."""
    P = y.size
    for x in range(P):
        Yb[0, x] = y[x]
    J[:, :] = 0.0
    fused._hessian_member(Yb, 0, m, b, V, A, B, J, work)
    J *= -1.0  # exactly −H


@_jiti
def _rms(v, scale):
    s = 0.0
    for x in range(v.size):
        s += (v[x] / scale[x]) ** 2
    return math.sqrt(s / v.size)


@_jit
def _change_D(D, order, factor, R, U, RU, tmp):
    """scipy's ``change_D``: the differences of the interpolating polynomial for a step ``factor`` times
    the last (``D[:order + 1] ← (R(factor) U)ᵀ D[:order + 1]``)."""
    n = order + 1
    for which in range(2):
        M = R if which == 0 else U
        f = factor if which == 0 else 1.0
        for j in range(n):
            M[0, j] = 1.0
        for i in range(1, n):
            M[i, 0] = 0.0
            for j in range(1, n):
                M[i, j] = (i - 1 - f * j) / i
        for i in range(1, n):  # cumulative product down the rows
            for j in range(n):
                M[i, j] *= M[i - 1, j]
    for i in range(n):
        for j in range(n):
            s = 0.0
            for k in range(n):
                s += R[i, k] * U[k, j]
            RU[i, j] = s
    P = D.shape[1]
    for j in range(n):
        for x in range(P):
            s = 0.0
            for i in range(n):
                s += RU[i, j] * D[i, x]
            tmp[j, x] = s
    for j in range(n):
        for x in range(P):
            D[j, x] = tmp[j, x]


@_jiti
def _newton(yp, c, psi, scale, newton_tol, m, b, V, A, B, Wm, piv, ynew, d, f, dy, Yb, Gb, gwork):
    """scipy's ``solve_bdf_system``: simplified Newton iterations on ``y = y_p + d`` with the LU of
    ``I − cJ`` in ``Wm``, ``piv``; returns ``(converged, iterations)`` (each iteration one gradient), the
    state in ``ynew`` and its correction in ``d``."""
    P = yp.size
    for x in range(P):
        ynew[x] = yp[x]
        d[x] = 0.0
    dy_norm_old = -1.0
    for k in range(NEWTON_MAXITER):
        _velocity(ynew, m, b, V, A, B, f, Yb, Gb, gwork)
        for x in range(P):
            if not math.isfinite(f[x]):
                return False, k + 1
        for x in range(P):
            dy[x] = c * f[x] - psi[x] - d[x]
        lu_solve(Wm, piv, dy)
        dy_norm = _rms(dy, scale)
        rate = -1.0 if dy_norm_old < 0.0 else dy_norm / dy_norm_old
        if rate >= 0.0 and (rate >= 1.0 or rate ** (NEWTON_MAXITER - k) / (1.0 - rate) * dy_norm > newton_tol):
            return False, k + 1
        for x in range(P):
            ynew[x] += dy[x]
            d[x] += dy[x]
        if dy_norm == 0.0 or (rate >= 0.0 and rate / (1.0 - rate) * dy_norm < newton_tol):
            return True, k + 1
        dy_norm_old = dy_norm
    return False, NEWTON_MAXITER


@_jit
def _next_order(D, order, error_norm, safety, scale, work):
    """scipy's choice of the next order (one down, the same, one up: the largest step each allows, from the
    error estimates of the differences ``D``) and the step's factor; ``work``: a (P,) array."""
    P = D.shape[1]
    error_m_norm = np.inf
    error_p_norm = np.inf
    if order > 1:
        for x in range(P):
            work[x] = _ERROR_CONST[order - 1] * D[order, x]
        error_m_norm = _rms(work, scale)
    if order < MAX_ORDER:
        for x in range(P):
            work[x] = _ERROR_CONST[order + 1] * D[order + 2, x]
        error_p_norm = _rms(work, scale)
    best, delta = -1.0, 0
    for which in range(3):
        norm_ = error_m_norm if which == 0 else (error_norm if which == 1 else error_p_norm)
        fac = np.inf if norm_ == 0.0 else norm_ ** (-1.0 / (order + which))
        if fac > best:
            best, delta = fac, which - 1
    return min(MAX_ORDER, max(1, order + delta)), min(MAX_FACTOR, safety * best)


@_jit
def _member(y0, t0, evals0, t_end, rtol, atol, m, b, V, A, B, budget, T, Y, Hs, Ords, Dd, row):
    """One member from ``(t0, y0)`` to ``t_end`` on its own BDF steps, a fresh start (order 1, scipy's first
    step; its work arrays its own: made once per solve and passed in as a tuple, the solve was ~7 % slower),
    its accepted steps stored from ``row`` on (the row of ``(t0, y0)`` is the caller's; ``Dd``: room for
    at least 6 differences); ``evals0`` gradients already spent on it count against ``budget``. Returns the
    (perhaps grown) arrays, the next free row and ``(steps, gradient evaluations, Jacobians, failed)``."""
    P = y0.size
    D = np.empty((MAX_ORDER + 3, P))
    y, f, f1, yp, psi, d, dy, scale, ynew = (np.empty(P), np.empty(P), np.empty(P), np.empty(P), np.empty(P),
                                            np.empty(P), np.empty(P), np.empty(P), np.empty(P))  # fmt: skip
    J, Wm, piv = np.empty((P, P)), np.empty((P, P)), np.empty(P, np.int64)
    R, U, RU, tmp = np.empty((6, 6)), np.empty((6, 6)), np.empty((6, 6)), np.empty((6, P))
    Yb, Gb = np.empty((1, P)), np.empty((1, P))
    gwork, hwork = fused._gradient_work(m, V), fused._hessian_work(m, V)  # per member: a few µs of ~500
    newton_tol = max(10.0 * 2.220446049250313e-16 / rtol, min(0.03, rtol**0.5))
    for x in range(P):
        y[x] = y0[x]
    t = t0
    _velocity_once(y, m, b, V, A, B, f, Yb, Gb, gwork)
    evals, jacs, steps = evals0 + 1, 0, 0
    # scipy's select_initial_step (order 1)
    for x in range(P):
        scale[x] = atol + abs(y[x]) * rtol
    d0, d1 = _rms(y, scale), _rms(f, scale)
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    h0 = min(h0, t_end - t0)
    for x in range(P):
        yp[x] = y[x] + h0 * f[x]
    _velocity_once(yp, m, b, V, A, B, f1, Yb, Gb, gwork)
    evals += 1
    for x in range(P):
        dy[x] = f1[x] - f[x]
    d2 = _rms(dy, scale) / h0
    h1 = max(1e-6, h0 * 1e-3) if d1 <= 1e-15 and d2 <= 1e-15 else (0.01 / max(d1, d2)) ** 0.5
    h_abs = min(100.0 * h0, h1, t_end - t0)
    for x in range(P):
        D[0, x] = y[x]
        D[1, x] = f[x] * h_abs
    order, n_equal = 1, 0
    # the Jacobian at the start; the LU of I − cJ is made when needed
    _jacobian(y, m, b, V, A, B, J, Yb, hwork)
    jacs += 1
    have_lu = False
    failed = False
    while t < t_end:
        if evals > budget:
            failed = True
            break
        min_step = 10.0 * max(t * 2.220446049250313e-16, 5e-324)  # ~10 ulp of t
        current_jac = False
        accepted = False
        n_iter = 0
        t_new = t
        while not accepted:
            if h_abs < min_step:
                failed = True
                break
            h = h_abs
            t_new = t + h
            if t_new - t_end > 0.0:
                t_new = t_end
                _change_D(D, order, abs(t_new - t) / h_abs, R, U, RU, tmp)
                n_equal = 0
                have_lu = False
            h = t_new - t
            h_abs = abs(h)
            for x in range(P):
                s = 0.0
                for i in range(order + 1):
                    s += D[i, x]
                yp[x] = s
                scale[x] = atol + rtol * abs(s)
                s = 0.0
                for i in range(1, order + 1):
                    s += D[i, x] * _GAMMA[i]
                psi[x] = s / _ALPHA[order]
            c = h / _ALPHA[order]
            converged = False
            while not converged:
                if not have_lu:  # scipy keeps the LU after a rejected step's error (a simplified Newton)
                    if FRESH_JACOBIAN and not current_jac:  # the Hessian is cheap: at every new LU
                        _jacobian(yp, m, b, V, A, B, J, Yb, hwork)
                        jacs += 1
                        current_jac = True
                    for i in range(P):
                        for j in range(P):
                            Wm[i, j] = (1.0 if i == j else 0.0) - c * J[i, j]
                    lu_factor(Wm, piv)
                    have_lu = True
                converged, n_iter = _newton(
                    yp, c, psi, scale, newton_tol, m, b, V, A, B, Wm, piv, ynew, d, f, dy, Yb, Gb, gwork
                )
                evals += n_iter
                if not converged:
                    if current_jac:
                        break
                    _jacobian(yp, m, b, V, A, B, J, Yb, hwork)
                    jacs += 1
                    have_lu = False
                    current_jac = True
            if not converged:
                h_abs *= 0.5
                _change_D(D, order, 0.5, R, U, RU, tmp)
                n_equal = 0
                have_lu = False
                continue
            safety = 0.9 * (2 * NEWTON_MAXITER + 1) / (2 * NEWTON_MAXITER + n_iter)
            for x in range(P):
                scale[x] = atol + rtol * abs(ynew[x])
                dy[x] = _ERROR_CONST[order] * d[x]
            error_norm = _rms(dy, scale)
            if error_norm > 1.0:
                factor = max(MIN_FACTOR, safety * error_norm ** (-1.0 / (order + 1)))
                h_abs *= factor
                _change_D(D, order, factor, R, U, RU, tmp)
                n_equal = 0
            else:
                accepted = True
        if failed:
            break
        n_equal += 1
        t = t_new
        for x in range(P):
            y[x] = ynew[x]
            D[order + 2, x] = d[x] - D[order + 1, x]
            D[order + 1, x] = d[x]
        for i in range(order, -1, -1):
            for x in range(P):
                D[i, x] += D[i + 1, x]
        if n_equal >= order + 1:
            order, factor = _next_order(D, order, error_norm, safety, scale, dy)
            h_abs *= factor
            _change_D(D, order, factor, R, U, RU, tmp)
            n_equal = 0
            have_lu = False
        # the step ending at t: its interpolating polynomial (after any change of order and step, as
        # scipy's dense output reads it)
        if row >= T.size:
            T, Y, Hs, Ords, Dd = grown(T, Y, Hs, Ords, Dd, row)
        T[row] = t
        Hs[row] = h_abs
        Ords[row] = order
        for x in range(P):
            Y[row, x] = y[x]
            for i in range(order + 1):
                Dd[row, i, x] = D[i, x]
        row += 1
        steps += 1
        if t < t_end and at_rest(Y, T, row):  # held to the horizon (HOLD_SPEED)
            T, Y, Hs, Ords, Dd, row = held(T, Y, Hs, Ords, Dd, row, t_end)
            break
    return T, Y, Hs, Ords, Dd, row, steps, evals, jacs, failed


@_jit
def _solve(Y0, t_end, rtol, atol, m, b, V, A, B, budget, capacity=-1):
    """Each member of ``Y0 (n, P)`` from ``t = 0`` to ``t_end`` on its own BDF steps (:func:`_member`). Returns
    the accepted steps of all members one after the other — times ``T (N,)``, states ``Y (N, P)``, and for the
    step ending there its interpolating polynomial: step ``Hs (N,)``, order ``Ords (N,)``, differences
    ``Dd (N, 6, P)`` — the first row of each member ``start (n + 1,)``, and per member ``(steps, gradient
    evaluations, Jacobians, failed)``. ``capacity``: the rows made at first (``−1``: 256 a member; grown as needed)."""
    n, P = Y0.shape
    cap = 256 * n + 16 if capacity < 0 else capacity
    T, Y, Hs = np.empty(cap), np.empty((cap, P)), np.zeros(cap)
    Ords, Dd = np.zeros(cap, np.int64), np.zeros((cap, MAX_ORDER + 1, P))
    start = np.empty(n + 1, np.int64)
    stats = np.zeros((n, 4), np.int64)
    row = 0
    for e in range(n):
        start[e] = row
        T, Y, Hs, Ords, Dd = first_row(T, Y, Hs, Ords, Dd, row, Y0[e])
        # the count an int64, not a literal 0: dop853_flow calls _member with an int64, so one signature (~9 s to compile)
        T, Y, Hs, Ords, Dd, row, steps, evals, jacs, failed = _member(
            Y0[e], 0.0, np.int64(0), t_end, rtol, atol, m, b, V, A, B, budget, T, Y, Hs, Ords, Dd, row + 1
        )
        stats[e, 0], stats[e, 1], stats[e, 2], stats[e, 3] = steps, evals, jacs, 1 if failed else 0
    start[n] = row
    return T[:row], Y[:row], Hs[:row], Ords[:row], Dd[:row], start, stats


@_jiti
def bdf_at(T, Hs, Ords, Dd, k, t, out, q):
    """``out[q] = `` the interpolating polynomial stored with BDF step ``k`` at ``t``,
    ``D_0 + Σ_j D_j Π_{i<j} (t − (T[k] − i h)) / ((i + 1) h)`` (scipy's ``BdfDenseOutput``)."""
    h, order = Hs[k], Ords[k]
    for x in range(out.shape[1]):
        out[q, x] = Dd[k, 0, x]
    p = 1.0
    for j in range(1, order + 1):
        p *= (t - (T[k] - (j - 1) * h)) / (j * h)
        for x in range(out.shape[1]):
            out[q, x] += Dd[k, j, x] * p


@_jit
def _dense(T, Y, Hs, Ords, Dd, start, members, times, out):
    """``out[q] = y_{members[q]}(times[q])``: on ``(T[k−1], T[k]]`` the interpolating polynomial stored with
    step ``k`` (:func:`bdf_at`)."""
    for q in range(members.size):
        e, t = members[q], times[q]
        k = step_of(T, Y, start, e, t, out, q)
        if k >= 0:
            bdf_at(T, Hs, Ords, Dd, k, t, out, q)


def compile_loops() -> None:
    """Compile the solver now (or load it from numba's on-disk cache)."""
    b, V = np.array([1.0]), np.array([[0.0, 1.0]])
    T, Y, Hs, Ords, Dd, start, _ = _solve(np.array([[0.5, 1.0, 0.5]]), 1.0, 1e-6, 1e-9, 1, b, V, 1.0, 0.0, 10_000)
    _dense(T, Y, Hs, Ords, Dd, start, np.zeros(1, np.int64), np.array([0.5]), np.empty((1, 3)))


def solve_members(
    theta0: Network, model: Model, t_max: float, eps_align: float, options: FlowOptions, extra_times: Array | None
) -> Solved:
    """The flows of the ``n`` members of ``θ0``, each on its own BDF steps at ``options``' tolerances."""
    del extra_times
    return solve_packed(
        theta0, model, t_max, eps_align, options, _solve, _dense, "bdf", lambda _: "bdf: BDF per member"
    )
