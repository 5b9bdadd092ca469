"""Minibatch SGD of a stack of networks on their own samples as one compiled loop over given batches.

:func:`gaugecli.core.integrate.descent.gradient_descent` spends ~50 µs of Python a step around SGD's
compiled minibatch gradient (the oracle's dispatch, the packing of ``(a, W)``, the divergence and
convergence checks, the imbalance law, the update) — nearly as much as the gradient itself at fig11's
50 members × 32 rows. Where the oracle is a :class:`MinibatchStream` on the compiled route (a stack of
ReLU-family students, one stored CPU sample each), :func:`descend` runs that loop compiled instead: the
batches are the stream's own (its epoch orders, passed in a block at a time), the gradient is the
same compiled pass (:func:`gaugecli.core.samples.empirical_fused.batch_gradient_packed`'s), and the
update ``θ ← θ − η g`` the same elementwise operation, so every iterate is the Python loop's to the
bit. The imbalance law ``δ̂_{k+1} = (1 − 2ηλ) δ̂_k + η² (g_a² − ‖g_w‖²/p)`` sums ``‖g_w‖²`` in numpy's
pairwise order (:func:`_pairwise`), so it is the Python loop's too. The squared gradient norm read by
the divergence and convergence tests is summed in another order: it may differ in its last bits,
which moves a decision only for a norm within round-off of its threshold.

numba caches this loop on disk with the gradient it calls compiled in: a change to
:mod:`gaugecli.core.samples.empirical_fused` needs this file's cache cleared too (numba tracks a file's
own timestamp only), as for :mod:`gaugecli.core.integrate.momentum_loop`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
from numba import njit
from numpy.typing import NDArray

from gaugecli.core.samples.empirical_fused import _batch_gradient
from gaugecli.core.types import Array, Indices

__all__ = ["MinibatchStream", "SGDRun", "compile_loops", "descend"]

PAIRWISE_BLOCK = 128
"""The widest ``d`` :func:`_pairwise` sums in numpy's order: the loop runs for inputs up to this dimension."""
MORE, DONE, FAULT = 0, 1, 2
""":func:`_descend`'s outcomes: the batches given are used up, the run ended, the gradient diverged."""


@runtime_checkable
class MinibatchStream(Protocol):
    """A minibatch oracle whose batches can be read ahead (:func:`gaugecli.core.samples.sample.stacked_minibatch_oracle`)."""

    def route(self, m: int) -> tuple[Array, Array, tuple[float, float]] | None:
        """``(X (S, n, d), y (S, n), (α, β))`` of the compiled minibatch pass for ``S`` members of ``m``
        neurons (C-contiguous float64), or ``None`` where it does not apply."""

    def batches(self) -> Indices:
        """The next batches ``(count, S, B)`` the oracle would draw, one a call (``count ≥ 1``), not yet taken."""

    def advance(self, count: int) -> None:
        """Take the first ``count`` batches of :meth:`batches`, as ``count`` calls of the oracle would."""


@njit(cache=True, nogil=True, error_model="numpy")
def _pairwise(v, n):  # pragma: no cover - compiled
    """``Σ v[:n]`` for ``n ≤`` :data:`PAIRWISE_BLOCK` in numpy's order (``pairwise_sum`` of its add
    reduction): up to 8 terms in sequence, else eight interleaved partial sums added as a tree, then the
    terms past the last multiple of 8. (Past 128 numpy halves the range; not compiled: numba's cached
    recursive function crashed on load here.)"""
    if n < 8:
        s = 0.0
        for i in range(n):
            s += v[i]
        return s
    r0, r1, r2, r3, r4, r5, r6, r7 = v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
    i = 8
    while i < n - n % 8:
        r0, r1, r2, r3 = r0 + v[i], r1 + v[i + 1], r2 + v[i + 2], r3 + v[i + 3]
        r4, r5, r6, r7 = r4 + v[i + 4], r5 + v[i + 5], r6 + v[i + 6], r7 + v[i + 7]
        i += 8
    s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        s += v[i]
        i += 1
    return s


@njit(cache=True, nogil=True, error_model="numpy")
def _diverged(G, k, limit, converged, tol2):  # pragma: no cover - compiled
    """The gradient's tests at iterate ``k``, for each run ``s`` of ``G (S, P)``: ``‖g‖²`` (summed in index
    order) against ``limit[s]`` (set at ``k = 0`` to ``1e12 max(‖g‖², 1)``), and ``converged[s] = ‖g‖² ≤ tol2``.
    Returns ``(diverged, every)``: a run past its limit (or NaN), and whether every run converged."""
    every = True
    for s in range(G.shape[0]):
        gsq = 0.0
        for q in range(G.shape[1]):
            gsq += G[s, q] * G[s, q]
        if k == 0:
            limit[s] = 1e12 * max(gsq, 1.0)
        if not gsq <= limit[s]:  # NaN too
            return True, every
        converged[s] = gsq <= tol2
        every = every and converged[s]
    return False, every


@njit(cache=True, nogil=True, error_model="numpy")
def _save(Y, law, k, saved, laws, steps, slot):  # pragma: no cover - compiled
    """Iterate ``k`` (``Y``, its ``δ̂`` ``law``) into ``saved[slot]``, ``laws[slot]``, ``steps[slot]``; returns
    the next slot. Element by element: an array's slice assignment was 3 s of the compile."""
    for s in range(Y.shape[0]):
        for q in range(Y.shape[1]):
            saved[slot, s, q] = Y[s, q]
    for s in range(law.shape[0]):
        for j in range(law.shape[1]):
            laws[slot, s, j] = law[s, j]
    steps[slot] = k
    return slot + 1


@njit(cache=True, nogil=True, error_model="numpy")
def _track(G, law, r, shrink, eta2, p, g2):  # pragma: no cover - compiled
    """GD's ``δ̂`` a step on: ``δ̂_j ← shrink δ̂_j + η² (g_{a_j}² − ‖g_{w_j}‖² / p)`` for each run and neuron
    (``G (S, m(r + 1))``, the ``a`` first; ``‖g_w‖²`` in numpy's pairwise order, through ``g2 (r,)``)."""
    m = law.shape[1]
    for s in range(G.shape[0]):
        for j in range(m):
            for x in range(r):
                g2[x] = G[s, m + j * r + x] ** 2
            law[s, j] = shrink * law[s, j] + eta2 * (G[s, j] ** 2 - _pairwise(g2, r) / p)


@njit(cache=True, nogil=True, error_model="numpy")
def _descend(  # pragma: no cover - compiled
    Y, X, y, rows, alpha, beta, eta, k, n_steps, record, saved, laws, steps, slot, law, track, shrink, eta2, p, limit, tol2,
    converged,
):  # fmt: skip
    """From iterate ``k`` of the packed states ``Y (S, P)``, one step per batch ``rows[t] (S, B)``:
    gradient, divergence test against ``limit`` (set at ``k = 0``), convergence (``‖g‖² ≤ tol2``),
    the iterate saved into ``saved[slot]`` (with ``law`` and ``k``) where ``record[k]`` or the run ends,
    then ``δ̂`` (where ``track``) and ``Y ← Y − η g``. Returns ``(outcome, k, slot)``: :data:`MORE` at
    the iterate after the last batch, :data:`DONE` at the last iterate, :data:`FAULT` at the diverging one."""
    S, P = Y.shape
    d = X.shape[2]
    m = P // (d + 1)
    G = np.empty_like(Y)
    loss = np.empty(S)
    g2 = np.empty(d)
    for t in range(rows.shape[0]):
        _batch_gradient(Y, m, X, y, rows[t], alpha, beta, G, loss)
        diverged, every = _diverged(G, k, limit, converged, tol2)
        if diverged:
            return FAULT, k, slot
        done = k == n_steps or every
        if record[k] or done:
            slot = _save(Y, law, k, saved, laws, steps, slot)
        if done:
            return DONE, k, slot
        if track:
            _track(G, law, d, shrink, eta2, p, g2)
        for b in range(S):
            for q in range(P):
                Y[b, q] = Y[b, q] - eta * G[b, q]
        k += 1
    return MORE, k, slot


@dataclass(frozen=True)
class SGDRun:
    """What :func:`descend` returns: the saved iterates ``a (R, S, m)``, ``W (R, S, m, d)`` at steps
    ``steps (R,)``, ``δ̂`` there (``law``, ``None`` untracked), the last iterate ``k``, the members'
    convergence at it, and ``fault``: the diverging iterate (``None``: none)."""

    a: Array
    W: Array
    steps: Indices
    law: Array | None
    k: int
    converged: NDArray[np.bool_]
    fault: int | None


def descend(
    a0: Array,
    W0: Array,
    stream: MinibatchStream,
    route: tuple[Array, Array, tuple[float, float]],
    eta: float,
    n_steps: int,
    record: set[int],
    grad_tol: float,
    law: Array | None,
    shrink: float,
    p: float,
    progress: Callable[[float], None] | None = None,
) -> SGDRun:
    """SGD ``θ ← θ − η g_k`` of the members ``a0 (S, m)``, ``W0 (S, m, d)`` on the stream's batches for
    up to ``n_steps`` steps, as :func:`gaugecli.core.integrate.descent.gradient_descent`'s loop runs it
    (one gradient at every iterate ``0 … n_steps``; stop where every member's ``‖g‖ ≤ grad_tol``; save
    the iterates in ``record`` and the last), ``route`` the stream's :meth:`MinibatchStream.route`;
    ``law``: ``δ̂_0 (S, m)`` (``None``: not tracked), decayed by ``shrink = 1 − 2ηλ`` at degree ``p``."""
    S, m, d = W0.shape
    Y = np.ascontiguousarray(np.concatenate((a0, W0.reshape(S, m * d)), axis=1), dtype=np.float64)
    X, y, (alpha, beta) = route
    marks = np.zeros(n_steps + 1, np.bool_)
    marks[[k for k in record if 0 <= k <= n_steps]] = True
    slots = int(marks.sum()) + 1  # the last iterate too, recorded or not
    saved, steps = np.empty((slots, S, Y.shape[1])), np.empty(slots, np.intp)
    track = law is not None
    delta = np.array(law, dtype=np.float64) if track else np.zeros((S, m))  # a copy: stepped in place
    laws = np.empty((slots, S, m))
    limit, converged = np.empty(S), np.zeros(S, np.bool_)
    k, slot, outcome = 0, 0, MORE
    while outcome == MORE:
        rows = stream.batches()[: n_steps + 1 - k]
        start = k
        outcome, k, slot = _descend(
            Y, X, y, rows, float(alpha), float(beta), float(eta), k, n_steps, marks, saved, laws, steps, slot,
            delta, track, float(shrink), float(eta) ** 2, float(p), limit, float(grad_tol) ** 2, converged,
        )  # fmt: skip
        stream.advance(k - start + (outcome != MORE))  # the last iterate's batch was drawn too
        if progress is not None:
            progress(k / n_steps)
    kept = saved[:slot]
    return SGDRun(
        a=kept[:, :, :m].copy(),
        W=kept[:, :, m:].reshape(slot, S, m, d),
        steps=steps[:slot].copy(),
        law=laws[:slot].copy() if track else None,
        k=int(k),
        converged=converged,
        fault=int(k) if outcome == FAULT else None,
    )


def compile_loops() -> None:
    """Compile the loop now (or load it from numba's on-disk cache) for the argument types SGD passes."""
    S, m, d, n = 1, 1, 2, 2
    X, y = np.ones((S, n, d)), np.zeros((S, n))
    rows = np.zeros((1, S, 1), np.int64)
    _descend(
        np.ones((S, m * (d + 1))), X, y, rows, 1.0, 0.0, 0.1, 0, 0, np.ones(1, np.bool_), np.empty((1, S, m * (d + 1))),
        np.empty((1, S, m)), np.empty(1, np.intp), 0, np.zeros((S, m)), True, 1.0, 0.01, 1.0, np.empty(S), 0.0,
        np.zeros(S, np.bool_),
    )  # fmt: skip
