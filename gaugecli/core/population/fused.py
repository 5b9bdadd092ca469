"""The population gradient and Hessian of the ReLU family as compiled loops over neuron pairs.

For a student and teacher of one activation ``σ = α relu + β id`` (ReLU, leaky ReLU, linear) the
kernel is ``K(w, w') = A κ(w, w') + B w·w'`` with ``κ`` the arc-cosine kernel of
:mod:`gaugecli.core.kernels.arccos`, ``A = α²`` and ``B = β(α + β)`` (:func:`kernel_weights`), and the
population loss is a sum over pairs,

    L = ½ Σ_ij a_i a_j K(w_i, w_j) − Σ_ik a_i b_k K(w_i, v_k) + ½ Σ_kl b_k b_l K(v_k, v_l),

so with ``c = (a, −b)`` and ``X = (W, V)`` its gradient is one pass over the pairs ``(i, j)`` of a
neuron ``i`` and a row ``j`` of ``X`` (shown for ReLU, ``A = 1, B = 0``):

    ∂L/∂a_i = Σ_j c_j κ(w_i, x_j),
    ∂L/∂w_i = a_i/(2π) · ( Σ_j c_j (π − φ_ij) x_j + (Σ_j c_j sin φ_ij ‖x_j‖) ŵ_i ),

and its Hessian (:func:`gaugecli.core.population.dynamics.population_hessian` states the blocks) one more.
These are the closed forms of :mod:`gaugecli.core.kernels.arccos` — the same angle ``φ = atan2(‖q‖, ρ)``,
the same clipping of ``ρ`` and the same floor on ``sin φ`` — summed in loops that numba compiles.

Why compiled loops: the flows of the figures integrate a few neurons in the invariant subspace
(``r = 2 … 10`` coordinates), where one numpy gradient is ~25 calls of 2–5 µs each on arrays of
tens of entries; these loops do the same arithmetic in ~1 µs (benchmark rows l1, l2). The sums run
in another order than numpy's matrix products, so results agree with the numpy route to round-off
(tests: ``k·ε`` of the terms' scale), not bit for bit; the compiled code is built for the machine
it runs on, without ``fastmath``, so no sum is reordered by the compiler (``make check-portable``
builds it for a generic x86-64, ``NUMBA_CPU_NAME=generic``, as part of its second arithmetic path).

Compiled functions are cached on disk (numba's ``cache=True``: ``__pycache__`` beside this file,
or numba's user cache where that is read-only), so a process after the first loads them in
~0.2 s. Set ``GAUGECLI_FUSED=0`` to use the numpy route everywhere (a check that the two agree).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gaugecli.core.types import Array

_SIN_FLOOR = 1e-300  # as gaugecli.core.kernels.arccos: below it the rank-one terms q qᵀ / sin φ are 0

_jit = njit(cache=True, nogil=True, error_model="numpy")
_jiti = njit(cache=True, nogil=True, error_model="numpy", inline="always")
"""For the small helpers a compiled solver calls per evaluation (:func:`_table`, :func:`_angle`,
:func:`_gradient_member`): inlined by numba into the caller, so that a call does not pass (and reference-count)
its arrays — at a one-neuron member that overhead was as large as the arithmetic. The same operations in the
same order: the numbers are the same bit for bit."""


@_jiti
def _table(Y, e, m, b, V, U, nrm, c, X):
    """The pair table of member ``e``: rows ``x_j`` (its ``m`` neurons, then the teacher's ``k``), their
    norms, unit vectors and weights ``c = (a, −b)``."""
    k, r = V.shape
    for j in range(m + k):
        t = 0.0
        for x in range(r):
            X[j, x] = Y[e, m + j * r + x] if j < m else V[j - m, x]
            t += X[j, x] * X[j, x]
        nrm[j] = math.sqrt(t)
        c[j] = Y[e, j] if j < m else -b[j - m]
        for x in range(r):  # a neuron at w = 0 has no direction: U = 0 (its pairs then carry κ = 0)
            U[j, x] = X[j, x] / nrm[j] if nrm[j] > 0.0 else 0.0


@_jiti
def _angle(U, i, j):
    """``(ρ, sin φ, φ)`` of rows ``i`` and ``j``: ``sin φ = ‖û_j − ρ û_i‖``, accurate at tiny angles."""
    r = U.shape[1]
    rho = 0.0
    for x in range(r):
        rho += U[i, x] * U[j, x]
    rho = min(max(rho, -1.0), 1.0)
    s2 = 0.0
    for x in range(r):
        qx = U[j, x] - rho * U[i, x]
        s2 += qx * qx
    sn = math.sqrt(s2)
    return rho, sn, math.atan2(sn, rho)


@_jit
def _gradient(Y, m, b, V, A, B, G):
    """``G = ∇L`` of the packed states ``Y (B, P)``, ``P = m (r + 1)``, in the same packing, for the
    kernel ``K = A κ + B w·w'``."""
    work = _gradient_work(m, V)
    for e in range(Y.shape[0]):
        _gradient_member(Y, e, m, b, V, A, B, G, work)


@_jit
def _gradient_work(m, V):
    """The work arrays of :func:`_gradient_member` for ``m`` neurons against the teacher ``V (k, r)``:
    made once by a caller that evaluates many gradients (a compiled solver), since allocating them
    cost as much as the arithmetic of a one-neuron member (``_gradient_member``)."""
    k, r = V.shape
    n = m + k
    return np.empty((n, r)), np.empty(n), np.empty(n), np.empty((n, r)), np.empty(r), np.empty(r)


@_jiti
def _gradient_member(Y, e, m, b, V, A, B, G, work):
    """Row ``e`` of :func:`_gradient` (``work``: :func:`_gradient_work`'s arrays, overwritten)."""
    k, r = V.shape
    n = m + k
    two_pi = 2.0 * math.pi
    U, nrm, c, X, h, h_lin = work
    arc = A != 0.0  # a linear network (A = 0) has no angles, and neurons at w = 0 are allowed
    _table(Y, e, m, b, V, U, nrm, c, X)
    for i in range(m):
        g_a, radial, g_lin = 0.0, 0.0, 0.0
        for x in range(r):
            h[x] = 0.0
            h_lin[x] = 0.0
        for j in range(n):
            if arc:
                rho, sn, phi = _angle(U, i, j)
                g_a += c[j] * (nrm[i] * nrm[j] * (sn + (math.pi - phi) * rho))
                radial += c[j] * (sn * nrm[j])
                turn = (math.pi - phi) * c[j]
                for x in range(r):
                    h[x] += turn * X[j, x]
            if B != 0.0:
                dot = 0.0
                for x in range(r):
                    dot += X[i, x] * X[j, x]
                    h_lin[x] += c[j] * X[j, x]
                g_lin += c[j] * dot
        G[e, i] = A * (g_a / two_pi) + B * g_lin
        for x in range(r):
            kernel_part = A * ((h[x] + radial * U[i, x]) / two_pi) if arc else 0.0
            G[e, m + i * r + x] = c[i] * (kernel_part + B * h_lin[x])


@_jit
def _hessian(Y, m, b, V, A, B, H):
    """``H = ∇²L (B, P, P)`` of the packed states ``Y (B, P)`` (blocks: ``population_hessian``) for the
    kernel ``K = A κ + B w·w'`` (``∂²K/∂w² = A ∂²κ/∂w²``, ``∂²K/∂w∂w' = A ∂²κ/∂w∂w' + B I``)."""
    work = _hessian_work(m, V)
    for e in range(Y.shape[0]):
        _hessian_member(Y, e, m, b, V, A, B, H[e], work)


@_jit
def _hessian_work(m, V):
    """The work arrays of :func:`_hessian_member` (as :func:`_gradient_work`)."""
    k, r = V.shape
    n = m + k
    return (np.empty((n, r)), np.empty(n), np.empty(n), np.empty((n, r)), np.empty((m, r)), np.empty((r, r)),
            np.empty(r), np.empty(r))  # fmt: skip


@_jit
def _hessian_member(Y, e, m, b, V, A, B, He, work):
    """``He (P, P)``: row ``e`` of :func:`_hessian` (``work``: :func:`_hessian_work`'s arrays, overwritten)."""
    k, r = V.shape
    n = m + k
    two_pi = 2.0 * math.pi
    U, nrm, c, X, h, curv, q, qp = work
    arc = A != 0.0
    _table(Y, e, m, b, V, U, nrm, c, X)
    for j in range(m):
        # h_j = Σ_l c_l ∂₁K(w_j, x_l) and the curvature A Σ_l c_l ∂²₁₁κ(w_j, x_l)
        radial = 0.0
        for x in range(r):
            h[j, x] = 0.0
            for y in range(r):
                curv[x, y] = 0.0
        for col in range(n):
            if not arc:
                continue
            rho, sn, phi = _angle(U, j, col)
            radial += c[col] * (sn * nrm[col])
            for x in range(r):
                h[j, x] += (math.pi - phi) * c[col] * X[col, x]
            scale = c[col] * ((nrm[col] / nrm[j]) / two_pi)
            inv = 1.0 / sn if sn > _SIN_FLOOR else 0.0
            for x in range(r):
                q[x] = U[col, x] - rho * U[j, x]
            for x in range(r):
                for y in range(r):
                    proj = (1.0 if x == y else 0.0) - U[j, x] * U[j, y]
                    curv[x, y] += scale * (sn * proj + q[x] * q[y] * inv)
        for x in range(r):
            lin = 0.0
            for col in range(n):
                lin += c[col] * X[col, x]
            kernel_part = A * ((h[j, x] + radial * U[j, x]) / two_pi) if arc else 0.0
            h[j, x] = kernel_part + B * lin
        for x in range(r):
            for y in range(r):
                He[m + j * r + x, m + j * r + y] = c[j] * (A * curv[x, y])
    for i in range(m):
        for j in range(m):
            dot = 0.0
            for x in range(r):
                dot += X[j, x] * X[i, x]
            if arc:
                rho, sn, phi = _angle(U, j, i)  # the pair (w_j, w_i), as the numpy blocks
            else:
                rho, sn, phi = 1.0, 0.0, 0.0
            kappa = nrm[j] * nrm[i] * (sn + (math.pi - phi) * rho) / two_pi if arc else 0.0
            He[i, j] = A * kappa + B * dot
            # ∂²L/∂a_i∂w_j = δ_ij h_j + a_j ∂₁K(w_j, w_i)
            for x in range(r):
                g = ((math.pi - phi) * X[i, x] + sn * nrm[i] * U[j, x]) / two_pi if arc else 0.0
                v = c[j] * (A * g + B * X[i, x]) + (h[j, x] if i == j else 0.0)
                He[i, m + j * r + x] = v
                He[m + j * r + x, i] = v
            # a_j a_i ∂²₁₂K(w_j, w_i), with A ∂²₁₂κ = A ((π − φ) I + q q'ᵀ / sin φ + sin φ ŵ_j ŵ_iᵀ) / 2π,
            # added to the curvature already on the diagonal block
            inv = 1.0 / sn if sn > _SIN_FLOOR else 0.0
            for x in range(r):
                q[x] = U[i, x] - rho * U[j, x] if arc else 0.0
                qp[x] = U[j, x] - rho * U[i, x] if arc else 0.0
            coef = c[j] * c[i]
            for x in range(r):
                for y in range(r):
                    t = q[x] * qp[y] * inv + sn * U[j, x] * U[i, y] if arc else 0.0
                    if x == y and arc:
                        t += math.pi - phi
                    block = coef * (A * (t / two_pi) + (B if x == y else 0.0))
                    if i == j:
                        He[m + j * r + x, m + i * r + y] += block
                    else:
                        He[m + j * r + x, m + i * r + y] = block


@_jit
def _reaction_transport(Y, m, b, V, out):
    """``out[e] = (R, T)`` of the packed states ``Y (B, P)`` for ReLU (``A = 1``, ``B = 0``, degree 1), from the
    function coordinates as :func:`gaugecli.core.population.dynamics.reaction_transport` (its formulas, term by
    term): ``c_j = a_j ‖w_j‖``, ``u_j = w_j/‖w_j‖``, the pair kernels of the rows ``x = (u, v)`` re-normalised as
    :mod:`gaugecli.core.kernels.arccos` does, ``∂L/∂c_j = Σ_i c_i κ(u_j, x_i)`` and
    ``grad_{u_j} L = (I − u_j u_jᵀ) c_j Σ_i c_i ∂₁κ(u_j, x_i)`` with the teacher's weights ``−b``,
    ``R = Σ_j M^c_j (∂L/∂c_j)²`` and ``T = Σ_j M^u_j ‖grad_{u_j} L‖²``."""
    k, r = V.shape
    n = m + k
    two_pi = 2.0 * math.pi
    X, U, nrm, c = np.empty((n, r)), np.empty((n, r)), np.empty(n), np.empty(n)
    u, delta, h = np.empty((m, r)), np.empty(m), np.empty(r)
    for e in range(Y.shape[0]):
        for j in range(n):
            t = 0.0
            for x in range(r):
                X[j, x] = V[j - m, x] if j >= m else Y[e, m + j * r + x]
                t += X[j, x] * X[j, x]
            norm = math.sqrt(t)
            if j < m:  # function_coordinates: the row is u_j, weighted by c_j; δ_j = a_j² − ‖w_j‖²
                a = Y[e, j]
                c[j], delta[j] = a * norm, a * a - t
                for x in range(r):
                    X[j, x] = X[j, x] / (norm if norm > 0.0 else 1.0)
                    u[j, x] = X[j, x]
                t = 0.0
                for x in range(r):
                    t += X[j, x] * X[j, x]
                norm = math.sqrt(t)
            else:
                c[j] = -b[j - m]
            nrm[j] = norm
            for x in range(r):
                U[j, x] = X[j, x] / (norm if norm > 0.0 else 1.0)
        R, T = 0.0, 0.0
        for j in range(m):
            dc, radial = 0.0, 0.0
            for x in range(r):
                h[x] = 0.0
            for i in range(n):
                rho, sn, phi = _angle(U, j, i)
                dc += c[i] * (nrm[j] * nrm[i] * ((sn + (math.pi - phi) * rho) / two_pi))
                radial += c[i] * (sn * nrm[i])
                for x in range(r):
                    h[x] += c[i] * ((math.pi - phi) * X[i, x])
            along, sq = 0.0, 0.0
            for x in range(r):
                h[x] = c[j] * ((h[x] + radial * U[j, x]) / two_pi)
                along += h[x] * u[j, x]
            for x in range(r):
                g = h[x] - along * u[j, x]
                sq += g * g
            s = math.hypot(delta[j], 2.0 * c[j])
            R += s * dc * dc
            T += (2.0 / (s - delta[j]) if delta[j] <= 0.0 else (s + delta[j]) / (2.0 * c[j] ** 2)) * sq
        out[e, 0], out[e, 1] = R, T


def reaction_transport(a: Array, W: Array, b: Array, V: Array) -> tuple[Array, Array]:
    """``(R, T)`` of a ReLU student ``(a (..., m), W (..., m, r))`` against the teacher ``(b (k,), V (k, r))``,
    each of shape ``a.shape[:-1]``: :func:`gaugecli.core.population.dynamics.reaction_transport`'s numbers, its
    sums taken in another order (equal to a few ε of their terms)."""
    W = np.asarray(W)
    out = np.empty((int(np.prod(W.shape[:-2], dtype=np.int64)), 2))
    _reaction_transport(pack(a, W), W.shape[-2], np.ascontiguousarray(b, float), np.ascontiguousarray(V, float), out)
    return out[:, 0].reshape(W.shape[:-2]), out[:, 1].reshape(W.shape[:-2])


def pack(a: Array, W: Array) -> Array:
    """The states ``(a (..., m), W (..., m, r))`` packed as ``(B, P)`` rows ``(a_1..a_m, w_1, ..., w_m)``."""
    W = np.asarray(W, dtype=np.float64)
    a = np.asarray(a, dtype=np.float64)
    m, r = W.shape[-2:]
    if a.shape != W.shape[:-1]:
        a = np.broadcast_to(a, W.shape[:-1])
    return np.concatenate((a.reshape(-1, m), W.reshape(-1, m * r)), axis=1)


def kernel_weights(alpha: float, beta: float) -> tuple[float, float]:
    """``(A, B)`` of ``K = A κ + B w·w'`` for ``σ = α relu + β id`` (student and teacher alike):
    ``E[relu(u) v] = E[uv]/2`` for zero-mean Gaussian ``(u, v)``, so ``A = α²``, ``B = β(α + β)``
    (ReLU ``(1, 0)``, leaky ReLU ``((1 − β)², β)``, linear ``(0, 1)``)."""
    return alpha * alpha, beta * (alpha + beta)


def gradient_packed(Y: Array, m: int, b: Array, V: Array, weights: tuple[float, float] = (1.0, 0.0)) -> Array:
    """``∇L`` of packed states ``Y (B, P)`` (C-contiguous float64, :func:`pack`) against the teacher
    ``(b (k,), V (k, r))`` for the kernel ``weights = (A, B)`` (:func:`kernel_weights`; default ReLU), in
    the same packing: the flow's right-hand side without unpacking
    (:attr:`gaugecli.core.population.objective.Objective.packed`)."""
    G = np.empty_like(Y)
    _gradient(Y, m, b, V, float(weights[0]), float(weights[1]), G)
    return G


def gradient(a: Array, W: Array, b: Array, V: Array, weights: tuple[float, float] = (1.0, 0.0)) -> tuple[Array, Array]:
    """``(∂L/∂a, ∂L/∂W)`` of a student ``(a (..., m), W (..., m, r))`` against the teacher
    ``(b (k,), V (k, r))``, as :func:`gaugecli.core.population.dynamics.population_gradient`."""
    W = np.asarray(W)
    m = W.shape[-2]
    G = gradient_packed(pack(a, W), m, b, V, weights)
    return G[:, :m].reshape(W.shape[:-1]), G[:, m:].reshape(W.shape)


def hessian(a: Array, W: Array, b: Array, V: Array, weights: tuple[float, float] = (1.0, 0.0)) -> Array:
    """``∇²L`` packed ``θ = (a_1..a_m, w_1, ..., w_m)``, shape ``(..., P, P)``, ``P = m (r + 1)``, as
    :func:`gaugecli.core.population.dynamics.population_hessian` (arguments as for :func:`gradient`)."""
    W = np.asarray(W)
    m = W.shape[-2]
    Y = pack(a, W)
    H = np.zeros((Y.shape[0], Y.shape[1], Y.shape[1]))
    _hessian(Y, m, b, V, float(weights[0]), float(weights[1]), H)
    return H.reshape(W.shape[:-2] + H.shape[-2:])


def compile_loops() -> None:
    """Compile the loops now (or load them from numba's on-disk cache) for every argument type the
    flows pass: packed states ``Y`` C- and Fortran-ordered (the stiff solvers hand the right-hand side
    a column-major block), and the Hessian's. A process that calls this first makes the cache, so that
    processes started beside it load the loops (~0.2 s) instead of compiling them too (~3 s each)."""
    a, W = np.array([1.0, 0.5]), np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5]])
    b, V = np.array([1.0]), np.array([[0.0, 1.0, 0.0]])
    Y = pack(a, W)
    gradient_packed(Y, 2, b, V)
    gradient_packed(np.asfortranarray(np.vstack((Y, Y))), 2, b, V)
    hessian(a, W, b, V)
    reaction_transport(a, W, b, V)
