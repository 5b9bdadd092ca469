"""The conservation laws of gradient flow for a fully connected architecture, counted numerically
(Marcotte, Gribonval & Peyré, NeurIPS 2023), and the known ones checked along a flow.

A loss ``L(θ) = ℓ(φ(θ))`` that depends on the parameters θ ∈ ℝ^D only through a reparametrization
φ: ℝ^D → ℝ^N moves θ along ``−∇L(θ) = −∂φ(θ)ᵀ ∇ℓ ∈ W(θ) = span{∇φ_i(θ)}``. A function h is
conserved for every such loss iff ``∇h(θ) ⊥ W(θ)``; such an h is then also orthogonal to every Lie
bracket ``[X, Y] = ∂Y·X − ∂X·Y`` of the fields ``χ_i = ∇φ_i``, and (Frobenius) where the trace
``Lie(W)(θ)`` of the generated algebra has locally constant dimension r there are exactly ``D − r``
independent laws.

φ is the path lifting for ReLU and leaky ReLU (on each region of fixed activation pattern the
network is a fixed linear function of its path products ``W_L[k,j_{L−1}] ⋯ W_1[j_1,i]``, a bias
starting a path of its own), and the end-to-end affine map ``(W_L⋯W_1, the composed bias)`` for a
linear network.

The algebra is built by levels: ``V_1 = {χ_i}``, ``V_{k+1} = {[χ_i, Y] : Y ∈ V_k}`` (right-nested
brackets span the generated algebra, by the Jacobi identity). A field is a torch function of θ; a
bracket's derivatives come from forward-mode autodiff (``torch.func.jacfwd``), float64. Candidates
that are, as functions, real combinations of the fields already kept are dropped, judged on the
fields' values stacked over several random points; each level's kept fields are orthonormal there.
The build stops at the first level that adds no dimension to the trace at any point: the span of
the levels so far is then closed under bracketing with the generators on a neighbourhood of the
(generic) points, so it is the whole trace.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch.func import jacfwd, jacrev, vmap

from gaugecli.core.analyses.architecture import Architecture
from gaugecli.core.integrate.saveat import SaveAt, integrate

RANK_RTOL = 1e-8
"""A singular value counts when it exceeds ``RANK_RTOL · σ_max``: ~√ε, far above the round-off of
the nested derivatives (their trailing singular values sit at 1e-14 … 1e-12 of σ_max, the gap
reported beside the count) and far below the algebra's own smallest values (≥ 1e-3 of σ_max in
the architectures tested)."""

Field = Callable[[torch.Tensor], torch.Tensor]
"""θ (D,) → the values of B vector fields at θ, (B, D)."""


@dataclass
class LieTrace:
    """The trace of the generated algebra at each of the random ``points`` (P, D): its ``rank``
    (the same at every point for a generic draw), the number of ``laws`` ``D − rank``, the
    ``singular_values`` at each point (P, D), the ``gap`` ``σ_r/σ_{r+1}`` at the worst point (∞ at
    full rank), the trace's rank after each level (``levels``), the kept fields per level
    (``fields``), and ``null`` (D, D − rank), an orthonormal basis of its orthogonal complement at
    the first point: the gradients of the laws there."""

    points: np.ndarray
    rank: int
    laws: int
    singular_values: np.ndarray
    gap: float
    levels: list[int]
    fields: list[int]
    null: np.ndarray


def _rank(s: np.ndarray, scale: float) -> int:
    return int(np.count_nonzero(s > RANK_RTOL * scale))


def _bracket_level(generators: Field, previous: Field) -> Field:
    """``θ ↦ ([χ_i, Y_b](θ))_{i,b}`` for the generators χ_i and the fields Y_b of ``previous``:
    ``[χ, Y] = ∂Y·χ − ∂χ·Y``, both Jacobians by forward-mode autodiff."""

    def raw(theta: torch.Tensor) -> torch.Tensor:
        g, dg = generators(theta), jacfwd(generators)(theta)  # (N, D), (N, D, D)
        y, dy = previous(theta), jacfwd(previous)(theta)  # (B, D), (B, D, D)
        brackets = torch.einsum("bde,ie->ibd", dy, g) - torch.einsum("ide,be->ibd", dg, y)
        return brackets.reshape(-1, theta.shape[0])

    return raw


def _combined(raw: Field, keep: torch.Tensor, kept: Field | None, minus: torch.Tensor | None) -> Field:
    """``θ ↦ keep @ raw(θ) − minus @ kept(θ)``: the new level's fields, the part of its candidates
    outside the span of the fields kept before."""

    def fields(theta: torch.Tensor) -> torch.Tensor:
        out = keep @ raw(theta)
        return out if kept is None or minus is None else out - minus @ kept(theta)

    return fields


def _concat(a: Field | None, b: Field) -> Field:
    return b if a is None else (lambda theta: torch.cat([a(theta), b(theta)]))


def lie_trace(arch: Architecture, n_points: int = 4, seed: int = 0, max_levels: int = 8) -> LieTrace:
    """The trace of ``Lie(W_φ)`` at ``n_points`` standard normal points, built level by level
    (the module's docstring) until a level adds no dimension at any point."""
    gen = torch.Generator().manual_seed(seed)
    D = arch.n_params
    points = torch.randn(n_points, D, generator=gen, dtype=torch.float64)
    generators: Field = jacrev(arch.reparametrization)  # θ ↦ ∂φ(θ), the rows χ_i(θ)
    level: Field = generators
    raw: Field = generators
    kept: Field | None = None
    kept_stack = torch.zeros(0, n_points * D, dtype=torch.float64)  # orthonormal rows
    traces = torch.zeros(n_points, 0, D, dtype=torch.float64)
    levels: list[int] = []
    fields: list[int] = []
    for _ in range(max_levels):
        values = vmap(raw)(points)  # (P, B, D)
        stack = values.permute(1, 0, 2).reshape(values.shape[1], -1)
        scale = float(torch.linalg.matrix_norm(stack, ord=2)) if stack.numel() else 0.0
        minus = stack @ kept_stack.T
        U, s, _ = torch.linalg.svd(stack - minus @ kept_stack, full_matrices=False)
        r = _rank(s.numpy(), scale)
        if r == 0:
            break
        keep = (U[:, :r] / s[:r]).T  # the new fields' stacked values are orthonormal
        level = _combined(raw, keep, kept, keep @ minus if kept is not None else None)
        new_values = vmap(level)(points)
        kept_stack = torch.cat([kept_stack, new_values.permute(1, 0, 2).reshape(r, -1)])
        kept = _concat(kept, level)
        traces = torch.cat([traces, new_values], dim=1)
        sv = torch.linalg.svdvals(traces).numpy()
        ranks = [_rank(row, row[0]) for row in sv]
        fields.append(r)
        if levels and min(ranks) == levels[-1] and max(ranks) == levels[-1]:
            break
        levels.append(max(ranks))
        if levels[-1] == D:
            break
        raw = _bracket_level(generators, level)
    else:
        raise RuntimeError(f"the Lie algebra's trace still grew after {max_levels} levels")
    sv = torch.linalg.svdvals(traces).numpy()
    rank = levels[-1]
    gap = float(min(row[rank - 1] / row[rank] for row in sv)) if rank < D else float("inf")
    _, _, Vh = torch.linalg.svd(traces[0])
    return LieTrace(points.numpy(), rank, D - rank, sv[:, :D], gap, levels, fields, Vh[rank:].T.numpy())


def known_rank(arch: Architecture, theta: np.ndarray) -> tuple[int, float]:
    """The number of independent known laws at θ (the rank of their gradients, :data:`RANK_RTOL`)
    and the largest principal-angle sine between their gradients' span and ``null``'s columns —
    see :func:`known_angle`."""
    grads = jacrev(arch.known_laws)(torch.as_tensor(theta)).numpy()
    s = np.linalg.svd(grads, compute_uv=False)
    return _rank(s, s[0]), float(s[0])


def known_angle(arch: Architecture, theta: np.ndarray, null: np.ndarray) -> float:
    """The largest sine of the principal angles between the known laws' gradients at θ and the
    orthogonal complement ``null`` of the trace there (0: every known law is found, and where the
    counts agree, every law found is a known one)."""
    grads = jacrev(arch.known_laws)(torch.as_tensor(theta)).numpy()
    U, s, _ = np.linalg.svd(grads.T, full_matrices=False)
    basis = U[:, : _rank(s, s[0])]
    if basis.shape[1] == 0 or null.shape[1] == 0:
        return 0.0
    inside = null @ (null.T @ basis)  # the known gradients' projection on the complement
    return float(np.linalg.norm(basis - inside, ord=2))


@dataclass
class LawDrift:
    """Gradient flow on ``L(θ) = (1/2n) Σ_s ‖f_θ(x_s) − y_s‖²`` (x_s ~ N(0, I), random targets
    y_s ~ N(0, I), float64) from θ(0): the times ``t``, each known law along the flow ``laws``
    (len(t), K), their ``drift`` ``max_t |h(θ(t)) − h(θ(0))|`` (K,), the ``scale``
    ``max_t ‖θ(t)‖²`` a quadratic law is measured against, the ``loss`` at the ends, and
    ``moved`` ``‖θ(T) − θ(0)‖ / ‖θ(0)‖`` and ``norm_change`` ``max_t |‖θ(t)‖² − ‖θ(0)‖²|``, a
    quadratic that is not conserved (how far the flow went: a law that holds on a flow that barely
    moves says nothing)."""

    t: np.ndarray
    laws: np.ndarray
    drift: np.ndarray
    scale: float
    loss: tuple[float, float]
    moved: float
    norm_change: float


def law_drift(
    arch: Architecture,
    sigma: Callable[[torch.Tensor], torch.Tensor],
    *,
    n_samples: int,
    t_max: float,
    rtol: float,
    seed: int = 0,
    max_evaluations: int = 3_000,
) -> LawDrift:
    """Integrate the flow (``saveat.integrate``, DOP853, absolute tolerance ``rtol · 1e-2``) and
    track the known laws along it, on 40 intervals of ``[0, t_max]`` until ``max_evaluations``
    gradients are spent (``t`` ends where it stopped). θ(0) is drawn per layer as ``N(0, 1/fan_in)``."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n_samples, arch.widths[0], generator=gen, dtype=torch.float64)
    y = torch.randn(n_samples, arch.widths[-1], generator=gen, dtype=torch.float64)
    start = [torch.randn(n * m, generator=gen, dtype=torch.float64) / np.sqrt(m) for n, m in arch.shapes]
    theta0 = torch.cat(start).numpy()

    def loss(theta: torch.Tensor) -> torch.Tensor:
        return 0.5 * ((arch.forward(theta, x, sigma) - y) ** 2).sum(dim=1).mean()

    def rhs(_t: float, theta: np.ndarray) -> np.ndarray:
        at = torch.tensor(theta, requires_grad=True)  # reverse mode: ~0.3 ms a call, torch.func's ~10 ms
        (gradient,) = torch.autograd.grad(loss(at), at)
        return -gradient.numpy()

    # solved grid interval by grid interval, up to ``max_evaluations`` gradients: where samples
    # slide along a ReLU kink the steps shrink without end, and the flow stops at the last interval
    times = np.linspace(0.0, t_max, 41)
    states, count = [theta0], [0]

    def counted(t: float, theta: np.ndarray) -> np.ndarray:
        count[0] += 1
        return rhs(t, theta)

    for t0, t1 in itertools.pairwise(times):
        if count[0] >= max_evaluations:
            break
        sol = integrate(counted, (t0, t1), states[-1], method="DOP853", rtol=rtol, atol=rtol * 1e-2, save=SaveAt())
        states.append(sol.y[:, -1])
    Y = torch.as_tensor(np.stack(states))
    laws = vmap(arch.known_laws)(Y).numpy()
    return LawDrift(
        times[: len(states)],
        laws,
        np.max(np.abs(laws - laws[0]), axis=0),
        float(torch.max((Y**2).sum(dim=1))),
        (float(loss(Y[0])), float(loss(Y[-1]))),
        float(torch.linalg.norm(Y[-1] - Y[0]) / torch.linalg.norm(Y[0])),
        float(torch.max(torch.abs((Y**2).sum(dim=1) - (Y[0] ** 2).sum()))),
    )
