"""The quadratic-activation model σ(z) = z², the contrast Xu draws with ReLU.

Student ``f(x) = Σ_j a_j (w_j·x)² = xᵀAx`` with ``A = Σ_j a_j w_j w_jᵀ``; teacher
``y(x) = Σ_k b_k (v_k·x)² = xᵀV x`` (default ``b = 1``, ``v = e1``). With ``M = A − V`` and
``x ~ N(0, I)`` the Gaussian fourth moments ``E[(xᵀMx)²] = (tr M)² + 2 tr(M²)`` give the
population loss in closed form,

    L = ½ E[(f − y)²] = ½ ((tr M)² + 2‖M‖_F²),    ∂L/∂M = (tr M) I + 2M =: Q,

so ``∂L/∂a_j = w_jᵀ Q w_j`` and ``∂L/∂w_j = 2 a_j Q w_j``.

**Gauge.** The neuron is homogeneous of degree 1 in ``a`` and 2 in ``w``: ``(a, w) → (a/λ², λw)``
leaves it unchanged, and ``w·∂L/∂w = 2a ∂L/∂a`` makes the imbalance
``δ = a² − ‖w‖²/2`` a conserved quantity of gradient flow (not ``a² − ‖w‖²`` as for ReLU).
Function coordinates: coefficient ``c = a‖w‖²``, direction ``u = w/‖w‖``, neuron ``c (u·x)²``.

**The saddle.** If every ``w_j ⊥ v_k`` then ``Q w_j = (tr M) w_j + 2 A w_j ∈ span(W)``: the
gradient has no teacher component and the set ``{W ⊥ V}`` is invariant. The population flow
from the paper's start ``u0 ⊥ v`` therefore never aligns (an exact saddle); only a finite sample
(or round-off in a rotated basis) breaks it. :func:`exact_saddle` says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import torch

from gaugecli.core.teacher import Teacher
from gaugecli.core.trajectory import NumericalFault
from gaugecli.core.types import Array


def _teacher_matrix(teacher: Teacher) -> Array:
    return np.einsum("k,ki,kj->ij", teacher.coefficients, teacher.directions, teacher.directions)


def _residual_matrix(a: Array, W: Array, teacher: Teacher) -> Array:
    return np.einsum("...j,...ji,...jk->...ik", a, W, W) - _teacher_matrix(teacher)


def quadratic_loss(a: Array, W: Array, teacher: Teacher) -> Array:
    """Population ``L = ½((tr M)² + 2‖M‖_F²)``, shape ``a.shape[:-1]``."""
    M = _residual_matrix(np.asarray(a, float), np.asarray(W, float), teacher)
    return 0.5 * (np.trace(M, axis1=-2, axis2=-1) ** 2 + 2.0 * np.sum(M * M, axis=(-1, -2)))


class QuadraticGradient(NamedTuple):
    a: Array
    W: Array


def quadratic_gradient(a: Array, W: Array, teacher: Teacher) -> QuadraticGradient:
    """``∂L/∂a_j = w_jᵀQw_j``, ``∂L/∂w_j = 2a_j Q w_j`` with ``Q = (tr M) I + 2M``."""
    a, W = np.asarray(a, float), np.asarray(W, float)
    M = _residual_matrix(a, W, teacher)
    Q = np.trace(M, axis1=-2, axis2=-1)[..., None, None] * np.eye(W.shape[-1]) + 2.0 * M
    QW = np.einsum("...ik,...jk->...ji", Q, W)
    return QuadraticGradient(np.sum(W * QW, axis=-1), 2.0 * a[..., None] * QW)


def quadratic_hessian(a: Array, W: Array, teacher: Teacher) -> Array:
    """Hessian of the population loss in the packed order ``(a_1..a_m, w_1, ..., w_m)``, for one
    member (``a (m,)``, ``W (m, d)``); by automatic differentiation of the polynomial loss (exact:
    there is no ``arccos`` here)."""
    V = torch.from_numpy(_teacher_matrix(teacher))
    m, d = np.shape(W)

    def loss(theta: torch.Tensor) -> torch.Tensor:
        at, Wt = theta[:m], theta[m:].reshape(m, d)
        M = torch.einsum("j,ji,jk->ik", at, Wt, Wt) - V
        return 0.5 * (torch.trace(M) ** 2 + 2.0 * torch.sum(M * M))

    theta = torch.from_numpy(np.concatenate([np.asarray(a, float), np.asarray(W, float).ravel()]))
    return torch.autograd.functional.hessian(loss, theta).numpy()


def quadratic_stable_step(a: Array, W: Array, teacher: Teacher) -> float:
    """``2/λ_max(∇²L(θ))``: the largest linearly stable GD step at θ (population curvature)."""
    return float(2.0 / np.linalg.eigvalsh(quadratic_hessian(a, W, teacher))[-1])


def quadratic_imbalance(a: Array, W: Array) -> Array:
    """The conserved gauge ``δ = a² − ‖w‖²/2``."""
    return np.asarray(a, float) ** 2 - 0.5 * np.sum(np.asarray(W, float) ** 2, axis=-1)


def quadratic_function_coordinates(a: Array, W: Array) -> tuple[Array, Array]:
    """``(c, U)``: coefficient ``c = a‖w‖²`` and unit direction ``u = w/‖w‖``."""
    norm = np.linalg.norm(W, axis=-1)
    return np.asarray(a, float) * norm**2, np.asarray(W, float) / norm[..., None]


def quadratic_parameters_from_function(c: Array, U: Array, delta: Array) -> tuple[Array, Array]:
    """Invert ``(a, w) → (c, u, δ)``: ``s = ‖w‖²`` is the positive root of ``s³/2 + δ s² − c² = 0``
    (unique: the cubic is −c² < 0 at 0, has at most one positive critical point, and grows),
    then ``a = c/s``, ``w = √s u``. Newton from an upper bound."""
    c, delta = np.broadcast_arrays(np.asarray(c, float), np.asarray(delta, float))
    if np.any(c == 0):
        raise ValueError("quadratic gauge: c = 0 has no unique (a, w); give c ≠ 0")
    # Upper bound on the root: at s = max(−2δ, 0) + (2c²)^{1/3} the cubic is ≥ 0, and it is convex
    # from there down to the root (g'' = 3s + 2δ > 0 beyond −2δ/3), so Newton descends monotonically.
    s = np.maximum(-2.0 * delta, 0.0) + np.cbrt(2.0 * c**2)
    for _ in range(200):
        g = 0.5 * s**3 + delta * s**2 - c**2
        dg = 1.5 * s**2 + 2.0 * delta * s
        step = g / dg
        s = s - step
        if np.all(np.abs(step) <= 1e-15 * s):
            break
    U = np.asarray(U, float)
    return c / s, np.sqrt(s)[..., None] * U / np.linalg.norm(U, axis=-1, keepdims=True)


def quadratic_duplicates(
    teacher: Teacher, deltas: Array, c0: float = 0.1, theta0: float = np.pi / 2
) -> tuple[Array, Array]:
    """The complete initial function for σ = x²: ``m`` duplicates with direction ``u0`` and
    coefficient ``c0/m`` each, gauges ``δ_j = a_j² − ‖w_j‖²/2``; ``(a (..., m), W (..., m, d))``."""
    from gaugecli.core.gauge import initial_direction

    deltas = np.asarray(deltas, float)
    u0 = initial_direction(teacher, theta0)
    U = np.broadcast_to(u0, deltas.shape + (teacher.d,))
    return quadratic_parameters_from_function(np.full(deltas.shape, c0 / deltas.shape[-1]), U, deltas)


def quadratic_alignment(W: Array, teacher: Teacher) -> Array:
    """``α_j = max_k |u_j·v̂_k|``: σ = x² is even, so ``u`` and ``−u`` are the same feature."""
    U = np.asarray(W, float) / np.linalg.norm(W, axis=-1, keepdims=True)
    return np.max(np.abs(U @ teacher.unit_directions().T), axis=-1)


SADDLE_TOLERANCE = 1e-14
"""``|u·v̂| ≤ 1e-14`` counts as orthogonal: ``u0`` at θ0 = π/2 is built as ``cos(π/2) v + sin(π/2) e2``
and carries ``cos(π/2) = 6.1e-17`` along v, so the start is a saddle up to that round-off (from
which a population flow would escape after ≈ ln(1/6e-17)/rate, a time set by round-off alone)."""


def exact_saddle(W: Array, teacher: Teacher, tol: float = SADDLE_TOLERANCE) -> bool:
    """Whether every neuron is orthogonal to every teacher feature (``|u_j·v̂_k| ≤ tol``): then the
    population gradient has no teacher component and the flow never leaves ``{W ⊥ V}``."""
    U = np.asarray(W, float) / np.linalg.norm(W, axis=-1, keepdims=True)
    return bool(np.all(np.abs(U @ teacher.unit_directions().T) <= tol))


SADDLE_NOTE = (
    "σ=x² population flow from u0 ⊥ v is not run: it starts at an exact saddle (the gradient has no "
    "v-component, so W stays ⊥ v and never aligns); the x² runs are finite-sample GD"
)


# ----------------------------------------------------------------------------------------
# finite sample


def quadratic_labels(X: Array, teacher: Teacher) -> Array:
    """Teacher outputs ``Σ_k b_k (v_k·x)²`` on inputs ``X (n, d)``."""
    return ((X @ teacher.directions.T) ** 2) @ teacher.coefficients


QuadraticOracle = Callable[[Array, Array], tuple[Array, Array, float]]


def quadratic_empirical_oracle(X: Array, y: Array) -> QuadraticOracle:
    """Gradient of ``L_n = (1/2n) Σ_i (f(x_i) − y_i)²`` for σ = x², in torch on one thread:
    ``∂L_n/∂a_j = (1/n) Σ_i r_i (w_j·x_i)²``, ``∂L_n/∂w_j = (2a_j/n) Σ_i r_i (w_j·x_i) x_i``, ``r = f − y``.
    Returns ``(∂L_n/∂a (m,), ∂L_n/∂W (m, d), L_n)``."""
    Xt = torch.from_numpy(np.ascontiguousarray(X, dtype=np.float64))
    XT = Xt.T.contiguous()  # (d, n): Z laid out neurons × points, contiguous per neuron (×1.4 per call)
    yt = torch.from_numpy(np.ascontiguousarray(y, dtype=np.float64))
    n = Xt.shape[0]

    def oracle(a: Array, W: Array) -> tuple[Array, Array, float]:
        at, Wt = torch.from_numpy(np.asarray(a, float)), torch.from_numpy(np.asarray(W, float))
        Z = Wt @ XT  # (m, n)
        H = Z * Z
        r = at @ H - yt
        ga = H @ r / n
        gW = ((Z * r) @ Xt) * (2.0 * at[:, None] / n)
        return ga.numpy(), gW.numpy(), float(0.5 * torch.dot(r, r) / n)

    return oracle


class QuadraticRun(NamedTuple):
    """Iterates recorded every ``record_every`` steps: times ``t (k,)``, ``a (k, m)``, ``W (k, m, d)``."""

    t: Array
    a: Array
    W: Array
    eta: float


def quadratic_gradient_descent(
    a0: Array, W0: Array, oracle: QuadraticOracle, eta: float, n_steps: int, record_every: int = 1
) -> QuadraticRun:
    """Full-batch GD ``θ ← θ − η∇L_n(θ)``, iterate ``k`` at time ``kη``; one torch thread.

    A non-finite or exploding gradient is a :class:`NumericalFault` naming the step.
    """
    a, W = np.array(a0, float), np.array(W0, float)
    ts, As, Ws = [0.0], [a.copy()], [W.copy()]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny matmuls: threads only synchronise (see core.sample)
    try:
        g0 = None
        for k in range(1, n_steps + 1):
            ga, gW, _ = oracle(a, W)
            gsq = float(np.sum(ga**2) + np.sum(gW**2))
            g0 = max(gsq, 1e-30) if g0 is None else g0
            if not np.isfinite(gsq) or gsq > 1e12 * max(g0, 1.0):
                raise NumericalFault(
                    f"σ=x² gradient descent diverged at step {k} with eta={eta:g}; "
                    "the fourth-moment curvature needs a smaller step: lower `eta`"
                )
            a -= eta * ga
            W -= eta * gW
            if k % record_every == 0:
                ts.append(k * eta)
                As.append(a.copy())
                Ws.append(W.copy())
    finally:
        torch.set_num_threads(threads)
    return QuadraticRun(np.array(ts), np.array(As), np.array(Ws), eta)
