"""The gradient of the empirical loss ``L_n`` of the ReLU family as one compiled pass per member.

For a student ``σ = α relu + β id`` (ReLU, leaky ReLU, linear: :meth:`~gaugecli.core.activations.base.Activation.parts`)
on a stored sample ``(X, y)`` with ``Xᵀ (d, n)`` at hand, member ``b`` of the packed states
``Y (B, P)``, ``P = m (d + 1)``, rows ``θ = (a_1..a_m, w_1, ..., w_m)``, gets

    Z = W Xᵀ                                  (m × n, one matrix product)
    r_i = Σ_j a_j σ(z_ji) − y_i,              L_n = (1/2n) Σ_i r_i²,
    ∂L_n/∂a_j = (1/n) Σ_i r_i σ(z_ji),        ∂L_n/∂w_j = (a_j/n) Σ_i σ'(z_ji) r_i x_i   (G Xᵀᵀ, a second product),

the sums of :func:`gaugecli.core.samples.empirical._gradient_sums_numpy` in the same layout (neurons ×
rows). The two products stay BLAS's (``np.dot`` inside the compiled code); what the loop saves is the
numpy route's eight passes over the ``m × n`` intermediates (``σ(Z)``, ``σ'(Z)`` as floats, their
products, ``r``, its square) and its ~20 calls per gradient, each a few µs — the whole cost at the
small ``n`` of the figures' finite-sample flows, where one gradient is a few thousand multiply-adds
(benchmark row d4). σ and σ' are those of the activation's numpy route: ``relu(z) = z`` where
``z > 0``, else ``0`` (a NaN stays NaN, so that a fault still shows in the gradient), ``σ'(z) = α 1(z > 0) + β``.

SGD's minibatch step (:func:`batch_gradient_packed`) runs the same pass on rows it gathers itself from
each member's stored sample, in the batch's order: the same numbers as the pass over a stack holding
those rows, without building that stack at every step.

The sums run in another order than numpy's (``Σ_j a_j σ(z_ji)`` and the row sums in a loop instead of
BLAS's gemv), so the gradient agrees with the numpy route to round-off (tests: ``k·ε`` of the terms'
scale), not bit for bit; compiled without ``fastmath``, on disk as :mod:`gaugecli.core.population.fused`'s
loops (``cache=True``), and taken only where :func:`gaugecli.core.population.route.fused_enabled`
(``GAUGECLI_FUSED=0``: the numpy route everywhere).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gaugecli.core.types import Array, Indices

_jit = njit(cache=True, nogil=True, error_model="numpy")


@_jit
def _member(Y, b, m, XT, y, alpha, beta, W, H, D, r, G, loss):
    """Row ``b`` of ``G`` and ``loss`` from member ``b``'s states ``Y[b]`` on the sample ``XT (d, n)``, ``y (n)``
    (``W (m, d)``, ``H``, ``D (m, n)``, ``r (n)``: work arrays)."""
    d, n = XT.shape
    for j in range(m):
        for x in range(d):
            W[j, x] = Y[b, m + j * d + x]
    Z = np.dot(W, XT)  # (m, n)
    for j in range(m):
        for i in range(n):
            z = Z[j, i]
            h = 0.0 if z <= 0.0 else z  # relu, a NaN kept
            H[j, i] = alpha * h if beta == 0.0 else alpha * h + beta * z
            D[j, i] = (alpha if z > 0.0 else 0.0) + beta
    for i in range(n):
        f = 0.0
        for j in range(m):
            f += Y[b, j] * H[j, i]
        r[i] = f - y[i]
    squares = 0.0
    for i in range(n):
        squares += r[i] * r[i]
    for j in range(m):
        g_a = 0.0
        for i in range(n):
            g_a += H[j, i] * r[i]
            D[j, i] *= r[i]  # σ'(z) r
        G[b, j] = g_a / n
    g_W = np.dot(D, XT.T)  # (m, d)
    for j in range(m):
        scale = Y[b, j] / n
        for x in range(d):
            G[b, m + j * d + x] = g_W[j, x] * scale
    loss[b] = 0.5 * squares / n


@_jit
def _gradient(Y, m, XT, y, alpha, beta, G, loss):
    """``G = ∇L_n`` of the packed states ``Y (B, P)`` in the same packing and ``loss = L_n (B,)``, on the
    samples ``XT (S, d, n)``, ``y (S, n)``: member ``b`` on sample ``b`` (``S = B``, a stack) or all on
    sample 0 (``S = 1``)."""
    S, d, n = XT.shape
    W = np.empty((m, d))
    H = np.empty((m, n))
    D = np.empty((m, n))
    r = np.empty(n)
    for b in range(Y.shape[0]):
        s = b if S > 1 else 0
        _member(Y, b, m, XT[s], y[s], alpha, beta, W, H, D, r, G, loss)


@_jit
def _batch_gradient(Y, m, X, y, rows, alpha, beta, G, loss):
    """:func:`_gradient` of a stack (member ``b`` on sample ``b``, ``X (S, n, d)``) on the minibatch
    ``rows[b] (B,)`` of each sample: the batch's ``Xᵀ (d, B)`` and ``y (B)`` gathered into work arrays
    (the same numbers as a stack holding the gathered rows)."""
    d = X.shape[2]
    B = rows.shape[1]
    W = np.empty((m, d))
    H = np.empty((m, B))
    D = np.empty((m, B))
    r = np.empty(B)
    XTb = np.empty((d, B))
    yb = np.empty(B)
    for b in range(Y.shape[0]):
        for i in range(B):
            k = rows[b, i]
            yb[i] = y[b, k]
            for x in range(d):
                XTb[x, i] = X[b, k, x]
        _member(Y, b, m, XTb, yb, alpha, beta, W, H, D, r, G, loss)


def gradient_packed(Y: Array, XT: Array, y: Array, parts: tuple[float, float]) -> tuple[Array, Array]:
    """``(∇L_n (B, P), L_n (B,))`` of the packed states ``Y (B, P)`` (C-contiguous float64) on the samples
    ``XT (S, d, n)``, ``y (S, n)`` (C-contiguous; ``S = B`` or ``1``) for ``σ = α relu + β id``,
    ``parts = (α, β)``."""
    m = Y.shape[1] // (XT.shape[1] + 1)
    if (
        Y.shape[1] != m * (XT.shape[1] + 1)
        or XT.shape[0] not in (1, Y.shape[0])
        or y.shape != (XT.shape[0], XT.shape[2])
    ):
        raise ValueError(f"states {Y.shape} do not fit the samples Xᵀ {XT.shape}, y {y.shape}")
    G = np.empty_like(Y)
    loss = np.empty(Y.shape[0])
    _gradient(Y, m, XT, y, float(parts[0]), float(parts[1]), G, loss)
    return G, loss


def batch_gradient_packed(
    Y: Array, X: Array, y: Array, rows: Indices, parts: tuple[float, float]
) -> tuple[Array, Array]:
    """:func:`gradient_packed` of a stack's members ``Y (S, P)`` on their samples ``X (S, n, d)``, ``y (S, n)``
    (C-contiguous), each on its minibatch ``rows (S, B)`` (row indices into its own sample, summed in that
    order)."""
    m = Y.shape[1] // (X.shape[2] + 1)
    S = Y.shape[0]
    if Y.shape[1] != m * (X.shape[2] + 1) or X.shape[0] != S or y.shape != X.shape[:2] or rows.shape[0] != S:
        raise ValueError(f"states {Y.shape} do not fit the samples X {X.shape}, y {y.shape}, rows {rows.shape}")
    G = np.empty_like(Y)
    loss = np.empty(S)
    _batch_gradient(Y, m, X, y, np.ascontiguousarray(rows, dtype=np.int64), float(parts[0]), float(parts[1]), G, loss)
    return G, loss


def compile_loops() -> None:
    """Compile the loop now (or load it from numba's on-disk cache) for the argument types the flows
    and GD pass, so that a worker that calls this first makes the cache for the others."""
    XT, y = np.ones((1, 2, 3)), np.zeros((1, 3))
    gradient_packed(np.ones((2, 3)), XT, y, (1.0, 0.0))
    batch_gradient_packed(np.ones((1, 3)), np.ones((1, 3, 2)), y, np.zeros((1, 2), dtype=np.int64), (1.0, 0.0))
