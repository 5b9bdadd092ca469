"""Finite-sample training: a Gaussian sample drawn from a seed and the gradient of

    L_n(θ) = (1/2n) Σ_i (f(x_i) − y(x_i))²

computed in torch (float64). The gradient is written out — two matrix products,
``Z = X Wᵀ`` and ``Gᵀ X`` — rather than taken by autograd: it is the whole cost of a
step and this form is what the benchmarks compare against.
"""

from __future__ import annotations

import numpy as np
import torch
from numpy.typing import NDArray

from gaugecli.core.integrate import GradientOracle
from gaugecli.core.teacher import Teacher

Array = NDArray[np.float64]


def draw_sample(teacher: Teacher, n: int, seed: int | np.random.SeedSequence) -> tuple[Array, Array]:
    """``n`` inputs ``x ~ N(0, I_d)`` from ``numpy.random.default_rng(seed)`` and teacher labels."""
    X = np.random.default_rng(seed).standard_normal((n, teacher.d))
    return X, teacher(X)


def empirical_loss(a: Array, W: Array, X: Array, y: Array) -> Array:
    """``L_n(θ)``, with ensemble axes of ``a (..., m)``, ``W (..., m, d)`` preserved."""
    f = np.maximum(np.einsum("nd,...md->...nm", X, W), 0.0) @ a[..., None]
    return 0.5 * np.mean((f[..., 0] - y) ** 2, axis=-1)


SMALL_PROBLEM_FLOPS = 5e7
"""Below this many multiply-adds per step, run torch on one thread: intra-op threads
cost more in synchronisation than they save, and on a busy 2-core machine they were
measured to slow small runs down a hundredfold."""


def empirical_oracle(X: Array, y: Array) -> GradientOracle:
    """Gradient of ``L_n`` for :func:`gaugecli.core.integrate.gradient_descent`.

    ``∂L_n/∂a_j = (1/n) Σ_i r_i relu(w_j·x_i)`` and
    ``∂L_n/∂w_j = (a_j/n) Σ_i r_i 1(w_j·x_i > 0) x_i`` with ``r = f − y``.
    """
    Xt = torch.from_numpy(np.ascontiguousarray(X, dtype=np.float64))
    yt = torch.from_numpy(np.ascontiguousarray(y, dtype=np.float64))
    n = Xt.shape[0]

    def oracle(a: Array, W: Array) -> tuple[Array, Array, Array]:
        threads = torch.get_num_threads()
        small = 2 * W.size * n < SMALL_PROBLEM_FLOPS
        if small:
            torch.set_num_threads(1)
        try:
            return _gradient(a, W)
        finally:
            if small:
                torch.set_num_threads(threads)

    def _gradient(a: Array, W: Array) -> tuple[Array, Array, Array]:
        at = torch.from_numpy(a)
        Wt = torch.from_numpy(W)
        Z = torch.matmul(Xt, Wt.transpose(-1, -2))  # (..., n, m)
        H = torch.relu(Z)
        r = torch.matmul(H, at.unsqueeze(-1)).squeeze(-1) - yt  # (..., n)
        ga = torch.matmul(H.transpose(-1, -2), r.unsqueeze(-1)).squeeze(-1) / n
        G = (Z > 0).to(Xt.dtype) * r.unsqueeze(-1)  # (..., n, m)
        gW = torch.matmul(G.transpose(-1, -2), Xt) * (at.unsqueeze(-1) / n)
        loss = 0.5 * torch.mean(r**2, dim=-1)
        return ga.numpy(), gW.numpy(), loss.numpy()

    return oracle
