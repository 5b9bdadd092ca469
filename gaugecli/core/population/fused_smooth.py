"""The population gradient and Hessian of squared ReLU, square and erf as compiled loops over neuron pairs.

For a student and teacher of one of these activations (:data:`KINDS`), each kernel's first-argument
gradient has the form ``∂₁K(w, w') = α w + β w'`` with scalars ``α, β`` of the pair:

* squared ReLU (:mod:`gaugecli.core.activations.relu2`): with ``ρ = cos φ``, ``s = sin φ``,
  ``K = ‖w‖²‖w'‖² (3 s ρ + (π − φ)(1 + 2ρ²)) / (2π)``, ``α = ‖w'‖² (s ρ + π − φ)/π``,
  ``β = 2‖w‖‖w'‖ (s + (π − φ) ρ)/π``;
* square (:mod:`gaugecli.core.activations.square`): with ``c = w·w'``, ``K = ‖w‖²‖w'‖² + 2c²``,
  ``α = 2‖w'‖²``, ``β = 4c``;
* erf (:mod:`gaugecli.core.activations.erf`): with ``P = 1 + ‖w‖²``, ``P' = 1 + ‖w'‖²``, ``D = P P' − c²``,
  ``K = (2/π) arcsin(c/√(P P'))``, ``β = (2/π) D^{-1/2}``, ``α = −β c/P``.

With ``c = (a, −b)`` and ``X = (W, V)`` the population gradient is one pass over the pairs ``(i, j)``:

    ∂L/∂a_i = Σ_j c_j K(w_i, x_j),   ∂L/∂w_i = a_i Σ_j c_j (α_ij w_i + β_ij x_j),

and the Hessian (blocks: :func:`gaugecli.core.population.dynamics.population_hessian`) one more, with the
activations' closed forms of ``∂²K/∂w²`` and ``∂²K/∂w∂w'`` (their module docstrings), term by term.
The angle of squared ReLU is :mod:`gaugecli.core.population.fused`'s (``φ = atan2(‖q‖, ρ)``, as
:mod:`gaugecli.core.kernels.arccos`), and its pair table is that module's.

Why compiled loops: the flows of the figures (fig8's other activations) integrate one to a few neurons in
``d = 16``, where one numpy gradient is ~20 calls of a few µs on arrays of tens of entries; these loops do the
same arithmetic in about a µs. The sums run in another order than numpy's, so the numbers agree with the
numpy route to round-off (tests: a few ε of the terms' scale), not bit for bit. Built as
:mod:`gaugecli.core.population.fused` (``cache=True``, no ``fastmath``) and off on the numpy route
(:func:`gaugecli.core.population.route.use_fused`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gaugecli.core.activations.base import Activation
from gaugecli.core.activations.erf import Erf
from gaugecli.core.activations.relu2 import ReLU2
from gaugecli.core.activations.square import Square
from gaugecli.core.population.fused import _angle, _table, pack
from gaugecli.core.types import Array

KINDS: dict[type[Activation], int] = {ReLU2: 0, Square: 1, Erf: 2}
"""The activations these loops compute, and their codes in the loops."""

_jit = njit(cache=True, nogil=True, error_model="numpy")
# the pair helpers are not inlined by numba (inline="always", as fused's): that measured the same speed here
# (LLVM inlines them) and doubled the cold compile (3.5 → 7 CPU-s)


@_jit
def _dot(X, i, j):
    t = 0.0
    for x in range(X.shape[1]):
        t += X[i, x] * X[j, x]
    return t


@_jit
def _pair(kind, X, U, nrm, i, j):
    """``(K, α, β)`` of the pair ``(x_i, x_j)``: ``K(x_i, x_j)`` and ``∂₁K(x_i, x_j) = α x_i + β x_j``."""
    if kind == 0:
        rho, sn, phi = _angle(U, i, j)
        n1, n2 = nrm[i], nrm[j]
        K = (n1 * n1) * (n2 * n2) * (3.0 * sn * rho + (math.pi - phi) * (1.0 + 2.0 * rho * rho)) / (2.0 * math.pi)
        return K, n2 * n2 * (sn * rho + math.pi - phi) / math.pi, 2.0 * n1 * n2 * (sn + (math.pi - phi) * rho) / math.pi
    c = _dot(X, i, j)
    if kind == 1:
        s1, s2 = _dot(X, i, i), _dot(X, j, j)
        return s1 * s2 + 2.0 * c * c, 2.0 * s2, 4.0 * c
    P1, P2 = 1.0 + _dot(X, i, i), 1.0 + _dot(X, j, j)
    pre = (2.0 / math.pi) / math.sqrt(P1 * P2 - c * c)
    return (2.0 / math.pi) * math.asin(c / math.sqrt(P1 * P2)), -pre * (c / P1), pre


@_jit
def _pair_hessians(kind, X, U, nrm, i, j, h11, h12, u, v):
    """``h11 = ∂²K/∂w²`` and ``h12 = ∂²K/∂w∂w'`` at ``(w, w') = (x_i, x_j)`` (``u, v``: work vectors)."""
    r = X.shape[1]
    if kind == 0:
        # h11 = α I + (2/π)(‖w'‖² s ŵ qᵀ + (π − φ) w' w'ᵀ + s ‖w'‖ w' ŵᵀ),                q = ŵ' − ρŵ
        # h12 = β I + w ((2/π)(sρ + π − φ) w' + (2/π)‖w'‖ s q')ᵀ + (2/π) w' ((π − φ) w + s‖w‖ ŵ')ᵀ, q' = ŵ − ρŵ'
        rho, sn, phi = _angle(U, i, j)
        n1, n2 = nrm[i], nrm[j]
        A = n2 * n2 * (sn * rho + math.pi - phi) / math.pi
        B = 2.0 * n1 * n2 * (sn + (math.pi - phi) * rho) / math.pi
        k = 2.0 / math.pi
        for x in range(r):
            u[x] = k * ((sn * rho + math.pi - phi) * X[j, x] + n2 * sn * (U[i, x] - rho * U[j, x]))  # ∂A/∂w'
            v[x] = k * ((math.pi - phi) * X[i, x] + sn * n1 * U[j, x])  # ∂B/∂w'
        for x in range(r):
            for y in range(r):
                eye = 1.0 if x == y else 0.0
                q_y = U[j, y] - rho * U[i, y]
                h11[x, y] = A * eye + k * (
                    (n2 * n2) * sn * (U[i, x] * q_y)
                    + (math.pi - phi) * (X[j, x] * X[j, y])
                    + (sn * n2) * (X[j, x] * U[i, y])
                )
                h12[x, y] = B * eye + X[i, x] * u[y] + X[j, x] * v[y]
        return
    c = _dot(X, i, j)
    if kind == 1:
        # h11 = 2‖w'‖² I + 4 w' w'ᵀ,  h12 = 4c I + 4 w w'ᵀ + 4 w' wᵀ
        s2 = _dot(X, j, j)
        for x in range(r):
            for y in range(r):
                eye = 1.0 if x == y else 0.0
                h11[x, y] = 2.0 * s2 * eye + 4.0 * (X[j, x] * X[j, y])
                h12[x, y] = 4.0 * c * eye + 4.0 * (X[i, x] * X[j, y]) + 4.0 * (X[j, x] * X[i, y])
        return
    # erf, with v = w' − (c/P) w and pre = (2/π) D^{-1/2}:
    # h11 = pre (−(c/P) I − w (w'/P − 2c w/P²)ᵀ − v (P' w − c w')ᵀ / D),  h12 = pre (I − w wᵀ/P − v (P w' − c w)ᵀ / D)
    P1, P2 = 1.0 + _dot(X, i, i), 1.0 + _dot(X, j, j)
    D = P1 * P2 - c * c
    pre = (2.0 / math.pi) / math.sqrt(D)
    for x in range(r):
        v[x] = X[j, x] - (c / P1) * X[i, x]
    for x in range(r):
        for y in range(r):
            eye = 1.0 if x == y else 0.0
            dv = -(c / P1) * eye - X[i, x] * (X[j, y] / P1 - 2.0 * (c / (P1 * P1)) * X[i, y])
            h11[x, y] = pre * (dv - v[x] * (P2 * X[i, y] - c * X[j, y]) / D)
            h12[x, y] = pre * (eye - X[i, x] * X[i, y] / P1 - v[x] * (P1 * X[j, y] - c * X[i, y]) / D)


@_jit
def _work(m, V):
    k, r = V.shape
    n = m + k
    return np.empty((n, r)), np.empty(n), np.empty(n), np.empty((n, r))


@_jit
def _gradient(Y, m, b, V, kind, G):
    """``G = ∇L`` of the packed states ``Y (B, P)``, ``P = m (r + 1)``, in the same packing."""
    k, r = V.shape
    n = m + k
    U, nrm, c, X = _work(m, V)
    h = np.empty(r)
    for e in range(Y.shape[0]):
        _table(Y, e, m, b, V, U, nrm, c, X)
        for i in range(m):
            g_a, g_self = 0.0, 0.0
            for x in range(r):
                h[x] = 0.0
            for j in range(n):
                K, alpha, beta = _pair(kind, X, U, nrm, i, j)
                g_a += c[j] * K
                g_self += c[j] * alpha
                for x in range(r):
                    h[x] += (c[j] * beta) * X[j, x]
            G[e, i] = g_a
            for x in range(r):
                G[e, m + i * r + x] = c[i] * (h[x] + g_self * X[i, x])


@_jit
def _hessian(Y, m, b, V, kind, H):
    """``H = ∇²L (B, P, P)`` of the packed states ``Y (B, P)``, blocks as ``population_hessian``:
    ``∂²L/∂a_i∂a_j = K(w_i, w_j)``, ``∂²L/∂a_i∂w_j = δ_ij h_j + a_j ∂₁K(w_j, w_i)`` and
    ``∂²L/∂w_j∂w_i = δ_ij a_j Σ_l c_l ∂²₁₁K(w_j, x_l) + a_j a_i ∂²₁₂K(w_j, w_i)``."""
    k, r = V.shape
    n = m + k
    U, nrm, c, X = _work(m, V)
    h, curv = np.empty((m, r)), np.empty((r, r))
    h11, h12, u, v = np.empty((r, r)), np.empty((r, r)), np.empty(r), np.empty(r)
    for e in range(Y.shape[0]):
        He = H[e]
        _table(Y, e, m, b, V, U, nrm, c, X)
        for j in range(m):  # h_j = Σ_l c_l ∂₁K(w_j, x_l) and the curvature Σ_l c_l ∂²₁₁K(w_j, x_l)
            for x in range(r):
                h[j, x] = 0.0
                for y in range(r):
                    curv[x, y] = 0.0
            for col in range(n):
                _, alpha, beta = _pair(kind, X, U, nrm, j, col)
                for x in range(r):
                    h[j, x] += c[col] * (alpha * X[j, x] + beta * X[col, x])
                _pair_hessians(kind, X, U, nrm, j, col, h11, h12, u, v)
                for x in range(r):
                    for y in range(r):
                        curv[x, y] += c[col] * h11[x, y]
            for x in range(r):
                for y in range(r):
                    He[m + j * r + x, m + j * r + y] = c[j] * curv[x, y]
        for i in range(m):
            for j in range(m):
                K, alpha, beta = _pair(kind, X, U, nrm, j, i)  # the pair (w_j, w_i), as the numpy blocks
                He[i, j] = K
                for x in range(r):
                    val = c[j] * (alpha * X[j, x] + beta * X[i, x]) + (h[j, x] if i == j else 0.0)
                    He[i, m + j * r + x] = val
                    He[m + j * r + x, i] = val
                _pair_hessians(kind, X, U, nrm, j, i, h11, h12, u, v)
                coef = c[j] * c[i]
                for x in range(r):
                    for y in range(r):
                        if i == j:
                            He[m + j * r + x, m + i * r + y] += coef * h12[x, y]
                        else:
                            He[m + j * r + x, m + i * r + y] = coef * h12[x, y]


def gradient_packed(Y: Array, m: int, b: Array, V: Array, kind: int) -> Array:
    """``∇L`` of packed states ``Y (B, P)`` (:func:`gaugecli.core.population.fused.pack`) against the teacher
    ``(b (k,), V (k, r))`` of the activation ``kind`` (:data:`KINDS`), in the same packing (C-ordered: a
    stiff solver's column-major block is copied, ~1 µs, rather than compiled for a second time, ~2 s)."""
    Y = np.ascontiguousarray(Y, dtype=np.float64)
    G = np.empty_like(Y)
    _gradient(Y, m, np.ascontiguousarray(b, float), np.ascontiguousarray(V, float), kind, G)
    return G


def gradient(a: Array, W: Array, b: Array, V: Array, kind: int) -> tuple[Array, Array]:
    """``(∂L/∂a, ∂L/∂W)`` of a student ``(a (..., m), W (..., m, r))`` against the teacher
    ``(b (k,), V (k, r))``, as :func:`gaugecli.core.population.dynamics.population_gradient`."""
    W = np.asarray(W)
    m = W.shape[-2]
    G = gradient_packed(pack(a, W), m, b, V, kind)
    return G[:, :m].reshape(W.shape[:-1]), G[:, m:].reshape(W.shape)


def hessian(a: Array, W: Array, b: Array, V: Array, kind: int) -> Array:
    """``∇²L`` packed ``θ = (a_1..a_m, w_1, ..., w_m)``, shape ``(..., P, P)``, as
    :func:`gaugecli.core.population.dynamics.population_hessian` (arguments as for :func:`gradient`)."""
    W = np.asarray(W)
    m = W.shape[-2]
    Y = pack(a, W)
    H = np.zeros((Y.shape[0], Y.shape[1], Y.shape[1]))
    _hessian(Y, m, np.ascontiguousarray(b, float), np.ascontiguousarray(V, float), kind, H)
    return H.reshape(W.shape[:-2] + H.shape[-2:])


def compile_loops() -> None:
    """Compile the loops now (or load them from numba's on-disk cache) for the argument types the flows pass
    (one each: every kind is an argument of the same loops), as :func:`gaugecli.core.population.fused.compile_loops`:
    ~4 CPU-s into an empty cache, ~0.2 s to load."""
    a, W = np.array([1.0, 0.5]), np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5]])
    b, V = np.array([1.0]), np.array([[0.0, 1.0, 0.0]])
    gradient(a, W, b, V, 0)
    hessian(a, W, b, V, 0)
