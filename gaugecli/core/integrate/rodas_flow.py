"""The population flow of many small members, each on its own adaptive steps of a compiled stiff
solver (``FlowOptions(method="rodas")``): Rodas5P (Steinebach 2023), a Rosenbrock method of order 5
(embedded order 4, stiffly accurate, L-stable) of Hairer and Wanner's Rodas5 form, with the closed-form
Hessian as its Jacobian, the whole chunk in one compiled call.

Why a solver of our own: a phase map is ~1000 flows of 2–3 unknowns; LSODA on shared steps (the default
path, and ``odeint``'s rows) makes every cell of a row take the steps of its stiffest one, and LSODA per
cell pays a Python call per right-hand side (``odeint``: ~11× the evaluations of a shared row, slower;
benchmarks row o3). No well-kept library integrates a batch of small stiff systems each on its own steps
from compiled code with a dense output on this Python: numbalsoda (LSODA from compiled code) has no
wheel for it, scikit-sundae's CVODE cost 6–9 ms a cell through its Python callbacks, and a batched BDF
or diffrax's vectorised implicit solvers share their steps (the batch runs as long as its slowest
member). A Rosenbrock step is a fixed sequence of linear solves with one Jacobian — no Newton
iteration to converge or fail — so it compiles to a short loop (docs/design.md, "A phase map's cells").

The method, per member (autonomous ``ẏ = f(y) = −∇L(y)``, ``J = −∇²L``): with ``W = I/(hγ) − J``,
eight stages ``W k_i = f(y + Σ_{j<i} a_ij k_j) + Σ_{j<i} (C_ij/h) k_j``; the new state is
``y + Σ_{j≤7} a_8j k_j + k_8`` (stiffly accurate) and ``k_8`` the local error estimate, judged as
``solve_ivp`` does: the RMS of ``k_8 / (atol + rtol·max(|y|, |y_new|))`` ≤ 1. The coefficients are
Rodas5P's in the W-transformed form (the values OrdinaryDiffEq.jl's tableau states; Rodas5's own lost
more steps to the stiff −D flows, measured). Its dense output is the method's continuous extension of
order 4, ``y(t_k + θh) = (1 − θ) y_k + θ (y_{k+1} + (1 − θ)(d_1 + θ (d_2 + θ d_3)))``, ``d_i`` fixed
combinations of the stages; the crossings ``α_j = 1 − ε`` are located on it as every flow's are
(:func:`~gaugecli.core.integrate.crossings.locate_crossings`).

Where it loses: on the −D flows' slow manifold (the coefficient slaved at rate ~D to a direction turning
at rate ~c/D) a Rosenbrock step loses order — the fast coefficient's local error fell as ~h³, not h⁶,
measured on a D = 64 state — so a −D cell takes 1000–1600 steps of 8 gradients each, and LSODA's BDF on
shared rows stays faster there (benchmarks rows r1, r2).

It applies (:func:`applies`) where :mod:`gaugecli.core.integrate.odeint_flow` does: population flows of the
ReLU family's compiled closed forms (:mod:`gaugecli.core.population.fused`) without weight decay, and
no member that can reach ``w = 0``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gaugecli.core.integrate.crossings import locate_crossings
from gaugecli.core.integrate.flow_options import FlowOptions
from gaugecli.core.integrate.odeint_flow import applies
from gaugecli.core.integrate.segments import Solved
from gaugecli.core.integrate.trajectory import NumericalFault
from gaugecli.core.model.metrics import alignment
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population import fused
from gaugecli.core.population.dynamics import _fused_weights
from gaugecli.core.types import Array, Indices

__all__ = ["applies", "compile_loops", "solve_members"]

_jit = njit(cache=True, nogil=True, error_model="numpy")

# Rodas5P (Steinebach 2023; γ = 0.21193756319429014): Rodas5's structure with coefficients chosen against
# the order reduction of stiff problems
_GAMMA = 0.21193756319429014
# a_ij, rows i = 2 … 6 (a_7j = a_6j with a_76 = 1; a_8j = a_7j with a_87 = 1)
_A = np.array(
    [
        [0.0, 0.0, 0.0, 0.0, 0.0],
        [3.0, 0.0, 0.0, 0.0, 0.0],
        [2.849394379747939, 0.45842242204463923, 0.0, 0.0, 0.0],
        [-6.954028509809101, 2.489845061869568, -10.358996098473584, 0.0, 0.0],
        [2.8029986275628964, 0.5072464736228206, -0.3988312541770524, -0.04721187230404641, 0.0],
        [-7.502846399306121, 2.561846144803919, -11.627539656261098, -0.18268767659942256, 0.030198172008377946],
    ]
)
# C_ij, rows i = 1 … 8 (row 0 unused), columns j = 1 … 7
_C = np.array(
    [
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [-14.155112264123755, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [-17.97296035885952, -2.859693295451294, 0.0, 0.0, 0.0, 0.0, 0.0],
        [147.12150275711716, -1.41221402718213, 71.68940251302358, 0.0, 0.0, 0.0, 0.0],
        [165.43517024871676, -0.4592823456491126, 42.90938336958603, -5.961986721573306, 0.0, 0.0, 0.0],
        [24.854864614690072, -3.0009227002832186, 47.4931110020768, 5.5814197821558125, -0.6610691825249471, 0.0,
         0.0],
        [30.91273214028599, -3.1208243349937974, 77.79954646070892, 34.28646028294783, -19.097331116725623,
         -28.087943162872662, 0.0],
        [37.80277123390563, -3.2571969029072276, 112.26918849496327, 66.9347231244047, -40.06618937091002,
         -54.66780262877968, -9.48861652309627],
    ]
)  # fmt: skip
# the dense output's d_1, d_2, d_3 as combinations of k_1 … k_8
_H = np.array(
    [
        [25.948786856663858, -2.5579724845846235, 10.433815404888879, -2.3679251022685204, 0.524948541321073,
         1.1241088310450404, 0.4272876194431874, -0.17202221070155493],
        [-9.91568850695171, -0.9689944594115154, 3.0438037242978453, -24.495224566215796, 20.176138334709044,
         15.98066361424651, -6.789040303419874, -6.710236069923372],
        [11.419903575922262, 2.8879645146136994, 72.92137995996029, 80.12511834622643, -52.072871366152654,
         -59.78993625266729, -0.15582684282751913, 4.883087185713722],
    ]
)  # fmt: skip
STAGES = 8
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 6.0
"""Step control: ``h ← h · clip(0.9 · err^(−1/5), 0.2, 6)`` (Hairer and Wanner's RODAS bounds), and no
growth on the step after a rejected one."""


@_jit
def _velocity(y, m, b, V, A, B, out, Yb, Gb):
    """``out = f(y) = −∇L(y)`` for one member's packed state ``y (P,)`` (``Yb``, ``Gb``: (1, P) work rows)."""
    for x in range(y.size):
        Yb[0, x] = y[x]
    fused._gradient(Yb, m, b, V, A, B, Gb)
    for x in range(y.size):
        out[x] = -Gb[0, x]


def step_work(P: int) -> tuple[Array, Array, Array]:
    """The work arrays :func:`_step` takes after ``piv``, for ``P`` unknowns."""
    return np.empty((1, P)), np.empty((1, P)), np.empty((1, P, P))


@_jit
def _lu(M, piv):
    """``M`` overwritten by its LU factors with partial pivoting (``piv``: the row swapped in at each step)."""
    n = M.shape[0]
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(M[i, k]) > abs(M[p, k]):
                p = i
        piv[k] = p
        if p != k:
            for j in range(n):
                M[k, j], M[p, j] = M[p, j], M[k, j]
        for i in range(k + 1, n):
            M[i, k] /= M[k, k]
            for j in range(k + 1, n):
                M[i, j] -= M[i, k] * M[k, j]


@_jit
def _lu_solve(M, piv, x):
    """``x ← M⁻¹ x`` from :func:`_lu`'s factors."""
    n = M.shape[0]
    for k in range(n):
        p = piv[k]
        if p != k:
            x[k], x[p] = x[p], x[k]
    for i in range(n):
        for j in range(i):
            x[i] -= M[i, j] * x[j]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            x[i] -= M[i, j] * x[j]
        x[i] /= M[i, i]


@_jit
def _step(y, h, m, b, V, A, B, coef_a, coef_c, K, u, f, Wm, piv, Yb, Gb, Hb):
    """One Rodas5P step of size ``h`` from ``y``: the stages into ``K (8, P)``; returns nothing, the new
    state is ``u`` (``y + Σ a_8j k_j + k_8``) and the error estimate ``K[7]``."""
    P = y.size
    for x in range(P):
        Yb[0, x] = y[x]
        for z in range(P):
            Hb[0, x, z] = 0.0
    fused._hessian(Yb, m, b, V, A, B, Hb)
    inv = 1.0 / (h * _GAMMA)
    for i in range(P):
        for j in range(P):
            Wm[i, j] = Hb[0, i, j]  # −J = ∇²L
        Wm[i, i] += inv
    _lu(Wm, piv)
    for s in range(STAGES):
        # the stage's state: y + Σ a_sj k_j (stages 7 and 8 add k_6, then k_7, to stage 6's)
        if s == 0:
            for x in range(P):
                u[x] = y[x]
        elif s <= 5:
            for x in range(P):
                acc = y[x]
                for j in range(s):
                    acc += coef_a[s, j] * K[j, x]
                u[x] = acc
        else:
            for x in range(P):
                u[x] += K[s - 1, x]
        _velocity(u, m, b, V, A, B, f, Yb, Gb)
        for x in range(P):
            acc = f[x]
            for j in range(s):
                acc += coef_c[s, j] / h * K[j, x]
            K[s, x] = acc
        _lu_solve(Wm, piv, K[s])
    for x in range(P):
        u[x] += K[STAGES - 1, x]


@_jit
def _grown(T, Y, D, rows):
    """``T``, ``Y``, ``D`` in arrays twice their length, their first ``rows`` copied."""
    T2, Y2, D2 = np.empty(2 * T.size), np.empty((2 * T.size, Y.shape[1])), np.zeros((2 * T.size, 3, Y.shape[1]))
    for i in range(rows):
        T2[i] = T[i]
        for x in range(Y.shape[1]):
            Y2[i, x] = Y[i, x]
            for j in range(3):
                D2[i, j, x] = D[i, j, x]
    return T2, Y2, D2


@_jit
def _solve(Y0, t_end, rtol, atol, m, b, V, A, B, coef_a, coef_c, coef_h, budget):
    """Each member of ``Y0 (n, P)`` from ``t = 0`` to ``t_end`` on its own steps. Returns the accepted
    steps of all members one after the other — times ``T (N,)``, states ``Y (N, P)``, the dense output's
    ``D (N, 3, P)`` of the step starting there — the first row of each member ``start (n + 1,)``, and per
    member ``(steps, gradient evaluations, Hessians, failed)``."""
    n, P = Y0.shape
    cap = 256 * n + 16
    T, Y, D = np.empty(cap), np.empty((cap, P)), np.zeros((cap, 3, P))
    start = np.empty(n + 1, np.int64)
    stats = np.zeros((n, 4), np.int64)
    K, u, f, y, f0 = np.empty((STAGES, P)), np.empty(P), np.empty(P), np.empty(P), np.empty(P)
    Wm, piv = np.empty((P, P)), np.empty(P, np.int64)
    Yb, Gb, Hb = np.empty((1, P)), np.empty((1, P)), np.empty((1, P, P))
    row = 0
    for e in range(n):
        start[e] = row
        for x in range(P):
            y[x] = Y0[e, x]
        t = 0.0
        # the first step: 1 % of the state over its velocity (scipy's first guess), within the span
        _velocity(y, m, b, V, A, B, f0, Yb, Gb)
        d0, d1 = 0.0, 0.0
        for x in range(P):
            sc = atol + rtol * abs(y[x])
            d0 += (y[x] / sc) ** 2
            d1 += (f0[x] / sc) ** 2
        d0, d1 = math.sqrt(d0 / P), math.sqrt(d1 / P)
        h = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
        h = min(h, t_end * 1e-6)
        rejected = False
        evals, hessians, steps = 1, 0, 0
        while True:
            if row + 1 >= T.size:  # room for this state and the next
                T, Y, D = _grown(T, Y, D, row)
            T[row] = t
            for x in range(P):
                Y[row, x] = y[x]
            if t >= t_end:
                row += 1
                break
            if evals > budget:
                stats[e, 3] = 1
                row += 1
                break
            last = t + h >= t_end
            step = t_end - t if last else h
            _step(y, step, m, b, V, A, B, coef_a, coef_c, K, u, f, Wm, piv, Yb, Gb, Hb)
            evals += STAGES
            hessians += 1
            err = 0.0
            for x in range(P):
                sc = atol + rtol * max(abs(y[x]), abs(u[x]))
                err += (K[STAGES - 1, x] / sc) ** 2
            err = math.sqrt(err / P)
            if not math.isfinite(err):
                h = step * MIN_FACTOR
                rejected = True
                continue
            factor = MAX_FACTOR if err == 0.0 else min(MAX_FACTOR, max(MIN_FACTOR, SAFETY * err**-0.2))
            if err > 1.0:
                h = step * min(1.0, factor)
                rejected = True
                continue
            for i in range(3):
                for x in range(P):
                    acc = 0.0
                    for j in range(STAGES):
                        acc += coef_h[i, j] * K[j, x]
                    D[row, i, x] = acc
            row += 1
            steps += 1
            t = t_end if last else t + step
            for x in range(P):
                y[x] = u[x]
            h = step * (min(1.0, factor) if rejected else factor)
            rejected = False
        stats[e, 0], stats[e, 1], stats[e, 2] = steps, evals, hessians
    start[n] = row
    return T[:row], Y[:row], D[:row], start, stats


@_jit
def _dense(T, Y, D, start, members, times, out):
    """``out[q] = y_{members[q]}(times[q])`` on the dense output of :func:`_solve`'s steps."""
    for q in range(members.size):
        e, t = members[q], times[q]
        lo, hi = start[e], start[e + 1] - 1  # the member's first and last stored state
        if t >= T[hi] or t <= T[lo]:
            at = hi if t >= T[hi] else lo
            for x in range(Y.shape[1]):
                out[q, x] = Y[at, x]
            continue
        while hi - lo > 1:  # T[lo] ≤ t < T[hi]
            mid = (lo + hi) // 2
            if T[mid] <= t:
                lo = mid
            else:
                hi = mid
        th = (t - T[lo]) / (T[hi] - T[lo])
        th1 = 1.0 - th
        for x in range(Y.shape[1]):
            inner = D[lo, 0, x] + th * (D[lo, 1, x] + th * D[lo, 2, x])
            out[q, x] = th1 * Y[lo, x] + th * (Y[hi, x] + th1 * inner)


def _run(Y0: Array, t_end: float, rtol: float, atol: float, model: Model, budget: int) -> tuple:
    weights = _fused_weights(model)
    assert weights is not None  # applies() holds
    b, V = np.ascontiguousarray(model.coefficients, float), np.ascontiguousarray(model.directions, float)
    m = Y0.shape[1] // (V.shape[1] + 1)
    return _solve(
        np.ascontiguousarray(Y0, float), float(t_end), float(rtol), float(atol), m, b, V,
        float(weights[0]), float(weights[1]), _A, _C, _H, int(budget),
    )  # fmt: skip


def compile_loops() -> None:
    """Compile the solver now (or load it from numba's on-disk cache), as
    :func:`gaugecli.core.population.fused.compile_loops`."""
    b, V = np.array([1.0]), np.array([[0.0, 1.0]])
    T, Y, D, start, _ = _solve(np.array([[0.5, 1.0, 0.5]]), 1.0, 1e-6, 1e-9, 1, b, V, 1.0, 0.0, _A, _C, _H, 10_000)
    _dense(T, Y, D, start, np.zeros(1, np.int64), np.array([0.5]), np.empty((1, 3)))


def solve_members(
    theta0: Network, model: Model, t_max: float, eps_align: float, options: FlowOptions, extra_times: Array | None
) -> Solved:
    """The flows of the ``n`` members of ``θ0`` (``a (n, m)``, ``W (n, m, d)``), each on its own Rodas5P
    steps at ``options``' tolerances, as one :class:`Solved` (module docstring); ``extra_times`` are not
    needed (the dense output serves any time)."""
    del extra_times
    n, m, d = theta0.W.shape
    P = m * (d + 1)
    y0 = theta0.flatten().reshape(n, P)
    T, Y, D, start, stats = _run(y0, t_max, options.rtol, options.atol, model, options.max_gradient_evals)
    if np.any(stats[:, 3]) or not np.all(np.isfinite(Y)):
        worst = int(np.argmax(stats[:, 1]))
        raise NumericalFault(
            f"gradient flow (rodas) used {int(stats[worst, 1])} gradient evaluations, past its budget of "
            f"{options.max_gradient_evals}; shorten `t_max` or loosen rtol"
        )

    def dense(times: Array) -> Array:
        """``(n·P, len(times))``, as :class:`~gaugecli.core.integrate.segments.Piecewise`."""
        times = np.atleast_1d(np.asarray(times, float))
        members = np.repeat(np.arange(n), times.size)
        out = np.empty((members.size, P))
        _dense(T, Y, D, start, members, np.tile(times, n), out)
        return out.reshape(n, times.size, P).transpose(1, 0, 2).reshape(times.size, n * P).T

    def aligned_at(ts: Array, members: Array, neurons: Array) -> Array:
        out = np.empty((ts.size, P))
        _dense(T, Y, D, start, np.asarray(members, np.int64), np.asarray(ts, float), out)
        W = Network.unflatten(out, m, d, (ts.size,)).W
        return alignment(W[np.arange(ts.size), neurons], model)[0]

    # each neuron's first stored state at or above the threshold brackets its crossing with the one before
    threshold = 1.0 - eps_align
    align = alignment(Network.unflatten(Y, m, d, (Y.shape[0],)).W, model)[0]  # (N, m)
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
            return aligned_at(t, members[k], neurons[k]) - threshold

        crossing[members, neurons] = locate_crossings(gaps, np.concatenate(lo), np.concatenate(hi))
    last = Y[start[1:] - 1]
    weights = _fused_weights(model)
    assert weights is not None
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
        int(stats[:, 0].sum()),
        int(stats[:, 1].sum()),
        int(stats[:, 2].sum()),
        "rodas",
        "rodas: Rodas5P per member",
    )
