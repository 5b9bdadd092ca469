"""Finite-sample training: a Gaussian sample drawn from a seed, the empirical loss

    L_n(θ) = (1/2n) Σ_i (f(x_i) − y(x_i))²,

its gradient and Hessian in closed form (torch, float64), and minibatch gradients for SGD.

The gradient is written out — two matrix products, ``Z = X Wᵀ`` and ``Gᵀ X`` — rather than
taken by autograd: it is the whole cost of a step. ``L_n`` is only piecewise smooth: the
ReLU indicator ``1(w_j·x_i > 0)`` jumps when a sample point crosses a neuron's hyperplane, so
``∂L_n/∂w`` has jumps of size ``|a_j r_i| ‖x_i‖/n`` there, and its derivative (a δ-function at
the kink) vanishes almost everywhere. The Hessian away from the kinks is therefore the
Gauss–Newton part plus the residual's ``a``–``w`` cross terms (:func:`empirical_hessian`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

import numpy as np
import torch
from numpy.typing import NDArray

from gaugecli.core.integrate import GradientOracle, Objective
from gaugecli.core.teacher import Teacher

Array = NDArray[np.float64]
Batches = Literal["fresh", "resampled"]


def draw_sample(teacher: Teacher, n: int, seed: int | np.random.SeedSequence) -> tuple[Array, Array]:
    """``n`` inputs ``x ~ N(0, I_d)`` from ``numpy.random.default_rng(seed)`` and teacher labels."""
    X = np.random.default_rng(seed).standard_normal((n, teacher.d))
    return X, teacher(X)


def empirical_loss(a: Array, W: Array, X: Array, y: Array) -> Array:
    """``L_n(θ)``, with ensemble axes of ``a (..., m)``, ``W (..., m, d)`` preserved."""
    f = np.maximum(np.einsum("nd,...md->...nm", X, W), 0.0) @ a[..., None]
    return 0.5 * np.mean((f[..., 0] - y) ** 2, axis=-1)


def empirical_loss_along(a: Array, W: Array, X: Array, y: Array) -> Array:
    """``L_n`` along a trajectory ``a (..., n_t, m)``, ``W (..., n_t, m, d)``, one saved time
    at a time (the ``(n_t, n, m)`` activations of a whole run need not fit in memory)."""
    a, W = np.asarray(a, float), np.asarray(W, float)
    out = np.empty(a.shape[:-1])
    for idx in np.ndindex(a.shape[:-1]):
        f = np.maximum(X @ W[idx].T, 0.0) @ a[idx]
        out[idx] = 0.5 * np.mean((f - y) ** 2)
    return out


SMALL_PROBLEM_FLOPS = 5e7
"""Below this many multiply-adds per step, run torch on one thread: intra-op threads
cost more in synchronisation than they save, and on a busy 2-core machine they were
measured to slow small runs down a hundredfold."""


@contextmanager
def _threads_for(flops: float) -> Iterator[None]:
    threads = torch.get_num_threads()
    small = flops < SMALL_PROBLEM_FLOPS
    if small and threads != 1:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        if small and threads != 1:
            torch.set_num_threads(threads)


def _tensor(x: Array) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64))


def _gradient(
    a: Array, W: Array, Xt: torch.Tensor, yt: torch.Tensor
) -> tuple[Array, Array, Array, torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(∂L_n/∂a, ∂L_n/∂W, L_n)`` and the intermediates ``Z = X Wᵀ``, ``relu(Z)``, ``r``."""
    n = Xt.shape[0]
    at, Wt = _tensor(a), _tensor(W)
    Z = torch.matmul(Xt, Wt.transpose(-1, -2))  # (..., n, m)
    H = torch.relu(Z)
    r = torch.matmul(H, at.unsqueeze(-1)).squeeze(-1) - yt  # (..., n)
    ga = torch.matmul(H.transpose(-1, -2), r.unsqueeze(-1)).squeeze(-1) / n
    G = (Z > 0).to(Xt.dtype) * r.unsqueeze(-1)  # (..., n, m)
    gW = torch.matmul(G.transpose(-1, -2), Xt) * (at.unsqueeze(-1) / n)
    loss = 0.5 * torch.mean(r**2, dim=-1)
    return ga.numpy(), gW.numpy(), loss.numpy(), Z, H, r


def empirical_oracle(X: Array, y: Array) -> GradientOracle:
    """Gradient of ``L_n`` for :func:`gaugecli.core.integrate.gradient_descent`.

    ``∂L_n/∂a_j = (1/n) Σ_i r_i relu(w_j·x_i)`` and
    ``∂L_n/∂w_j = (a_j/n) Σ_i r_i 1(w_j·x_i > 0) x_i`` with ``r = f − y``.
    """
    Xt, yt = _tensor(X), _tensor(y)
    n = Xt.shape[0]

    def oracle(a: Array, W: Array) -> tuple[Array, Array, Array]:
        with _threads_for(2 * W.size * n):
            return _gradient(a, W, Xt, yt)[:3]

    oracle.objective_name = f"empirical n={n}"  # type: ignore[attr-defined]
    return oracle


def empirical_hessian(a: Array, W: Array, X: Array, y: Array) -> Array:
    """Closed-form ``∇²L_n`` away from the kinks, packed ``θ = (a_1..a_m, w_1, ..., w_m)``.

    With ``J_i = ∂r_i/∂θ = (relu(w_j·x_i))_j ⊕ (a_j 1_ij x_i)_j`` (``1_ij = 1(w_j·x_i > 0)``):

        ∇²L_n = (1/n) Σ_i J_iᵀ J_i + (1/n) Σ_i r_i ∂²r_i,

    and the only non-zero second derivative of ``r_i`` off the kinks is
    ``∂²r_i/∂a_j∂w_j = 1_ij x_i`` (``∂²r_i/∂w_j² = a_j δ(w_j·x_i) x_i x_iᵀ`` vanishes a.e.).
    Shape ``(..., P, P)``, ``P = m (d + 1)``; ensemble axes of ``a``/``W`` are kept.
    """
    return _hessian(a, W, _tensor(X), _tensor(y))


def _hessian(a: Array, W: Array, Xt: torch.Tensor, yt: torch.Tensor) -> Array:
    n, d = Xt.shape
    m = W.shape[-2]
    with _threads_for(2 * n * (m * (d + 1)) ** 2 * max(1, W.size // (m * d))):
        _, _, _, Z, H, r = _gradient(a, W, Xt, yt)
        at = _tensor(a)
        ind = (Z > 0).to(Xt.dtype)  # (..., n, m)
        J_w = (ind * at.unsqueeze(-2)).unsqueeze(-1) * Xt.unsqueeze(-2)  # (..., n, m, d)
        J = torch.cat([H, J_w.reshape(J_w.shape[:-2] + (m * d,))], dim=-1)  # (..., n, P)
        Hess = torch.matmul(J.transpose(-1, -2), J) / n
        cross = torch.matmul((ind * r.unsqueeze(-1)).transpose(-1, -2), Xt) / n  # (..., m, d)
        for j in range(m):
            cols = slice(m + j * d, m + (j + 1) * d)
            Hess[..., j, cols] += cross[..., j, :]
            Hess[..., cols, j] += cross[..., j, :]
        return Hess.numpy()


def empirical_objective(X: Array, y: Array) -> Objective:
    """``L_n`` on the sample ``(X, y)`` as an :class:`~gaugecli.core.integrate.Objective`:
    gradient (:func:`empirical_oracle`) and closed-form Hessian (:func:`empirical_hessian`),
    for the finite-sample gradient flow and full-batch GD."""
    Xt, yt = _tensor(X), _tensor(y)
    oracle = empirical_oracle(X, y)
    return Objective(oracle, lambda a, W: _hessian(a, W, Xt, yt), oracle.objective_name)  # type: ignore[attr-defined]


def minibatch_oracle(
    teacher: Teacher,
    batch_size: int,
    seed: int | np.random.SeedSequence,
    sample: tuple[Array, Array] | None = None,
) -> GradientOracle:
    """Minibatch gradients for SGD: each call (one per step) returns the gradient of
    ``(1/2B) Σ_{i∈batch} (f(x_i) − y(x_i))²`` on a new batch of ``B = batch_size`` points.

    ``sample=None`` — *fresh* batches: ``B`` new inputs ``x ~ N(0, I_d)`` every step (online
    SGD on the population loss). ``sample=(X, y)`` — *resampled* batches from that fixed
    sample: the sample is reshuffled every epoch and cut into consecutive batches (a batch
    that would straddle two epochs starts the next epoch; for ``B ≥ n`` every batch is
    the whole sample). Seeded by ``seed``; a new oracle restarts the stream.
    """
    rng = np.random.default_rng(seed)
    if sample is None:

        def fresh(a: Array, W: Array) -> tuple[Array, Array, None]:
            X = rng.standard_normal((batch_size, teacher.d))
            with _threads_for(2 * W.size * batch_size):
                ga, gW, *_ = _gradient(a, W, _tensor(X), _tensor(teacher(X)))
            return ga, gW, None

        fresh.objective_name = f"population, fresh batches B={batch_size}"  # type: ignore[attr-defined]
        return fresh

    X, y = sample
    Xt, yt = _tensor(X), _tensor(y)
    n = Xt.shape[0]
    B = min(batch_size, n)
    state: dict[str, object] = {"order": rng.permutation(n), "pos": 0}

    def next_batch() -> torch.Tensor:
        if int(state["pos"]) + B > n:  # type: ignore[arg-type]
            state["order"], state["pos"] = rng.permutation(n), 0
        pos = int(state["pos"])  # type: ignore[arg-type]
        state["pos"] = pos + B
        return torch.from_numpy(np.asarray(state["order"])[pos : pos + B])

    def resampled(a: Array, W: Array) -> tuple[Array, Array, None]:
        idx = next_batch()
        with _threads_for(2 * W.size * B):
            ga, gW, *_ = _gradient(a, W, Xt[idx], yt[idx])
        return ga, gW, None

    resampled.objective_name = f"empirical n={n}, resampled batches B={B}"  # type: ignore[attr-defined]
    return resampled
