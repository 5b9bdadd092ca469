"""A ReLU network with several hidden layers, ``f(x) = aᵀσ(W_L ⋯ σ(W_2 σ(W_1 x)))``, its per-neuron
balances and the rescalings that set them without changing the function.

Each hidden neuron ``j`` of layer ``ℓ`` can be rescaled, ``W_ℓ[j, :] → λ W_ℓ[j, :]`` and
``W_{ℓ+1}[:, j] → W_{ℓ+1}[:, j]/λ`` (``a_j → a_j/λ`` in the last hidden layer), ``λ > 0``: σ is
positively homogeneous, so ``f`` is unchanged. This is the gauge one layer deeper, one per hidden neuron.
Its conserved quantity under gradient flow (Du, Hu & Lee, NeurIPS 2018) is the neuron's **balance**

    δ_j^ℓ = ‖outgoing‖² − ‖incoming‖² = ‖W_{ℓ+1}[:, j]‖² − ‖W_ℓ[j, :]‖²,

written as SPEC's imbalance ``δ = a² − ‖w‖²`` is (outgoing first), so that ``+D`` is the favorable
(output-heavy) gauge at any depth; ``gaugecli laws`` states the same law as incoming − outgoing.

Setting balances (:func:`with_balances`). Rescale every hidden neuron by ``λ = e^ρ`` at once: weight
``W_ℓ[j, i]`` becomes ``e^{ρ_j^ℓ − ρ_i^{ℓ−1}} W_ℓ[j, i]`` (``ρ^0 = 0`` for the inputs and ``0`` for the
output). The squared norm of the rescaled parameters,

    F(ρ) = Σ_edges W_e² exp(2 b_e·ρ),   b_e = (+1 at the edge's head neuron, −1 at its tail),

is convex in ρ and ``∂F/∂ρ_j = 2(‖incoming_j‖² − ‖outgoing_j‖²) = −2 δ_j``: the balances are the
gradient of a convex function of the gauge. The gauge with balances δ* is therefore the minimiser of
``G(ρ) = F(ρ) + 2 δ*·ρ``, unique when every weight is non-zero (then G is coercive: a direction along
which no edge grows would need ``ρ^1 ≤ 0 ≤ ρ^L`` and ``ρ^ℓ`` non-increasing along every path, so ρ = 0),
and every δ* ∈ ℝ^{hidden} is reached.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from gaugecli.core.types import Array

BALANCE_GTOL = 1e-12
"""The gauge solve stops when every balance is within ``BALANCE_GTOL · (1 + ‖θ‖²)`` of its target
(the gradient of G, relative to the norm that sets the round-off of a sum of squares)."""


@dataclass(frozen=True)
class DeepNetwork:
    """``θ = (W_1, …, W_L, a)``: ``W_1 (m_1, d)``, ``W_ℓ (m_ℓ, m_{ℓ−1})``, readout ``a (m_L,)``; the
    network ``f(x) = Σ_k a_k σ(h^L_k(x))`` with ``h^1 = W_1 x``, ``h^ℓ = W_ℓ σ(h^{ℓ−1})``, σ = ReLU.
    Frozen: a flow or a step makes a new one."""

    weights: tuple[Array, ...]
    a: Array

    @classmethod
    def of(cls, weights: Sequence[ArrayLike], a: ArrayLike) -> DeepNetwork:
        """From array-likes, as float64 arrays."""
        return cls(tuple(np.asarray(W, float) for W in weights), np.asarray(a, float))

    @property
    def widths(self) -> tuple[int, ...]:
        """``(d, m_1, …, m_L)``: the input dimension and each hidden layer's width."""
        return (int(self.weights[0].shape[1]),) + tuple(int(W.shape[0]) for W in self.weights)

    @property
    def depth(self) -> int:
        """L, the number of hidden layers."""
        return len(self.weights)

    @property
    def size(self) -> int:
        """The number of parameters."""
        return sum(W.size for W in self.weights) + self.a.size

    def flatten(self) -> Array:
        """θ as one vector: ``W_1``, …, ``W_L`` (row-major), then ``a``."""
        return np.concatenate([W.ravel() for W in self.weights] + [self.a])

    @classmethod
    def unflatten(cls, z: Array, widths: Sequence[int]) -> DeepNetwork:
        """The inverse of :meth:`flatten` for layer widths ``(d, m_1, …, m_L)`` (views of ``z``)."""
        weights, start = [], 0
        for m_in, m_out in itertools.pairwise(widths):
            weights.append(z[start : start + m_out * m_in].reshape(m_out, m_in))
            start += m_out * m_in
        return cls(tuple(weights), z[start : start + widths[-1]])

    def hidden(self, X: Array) -> list[Array]:
        """The post-activations ``σ(h^ℓ)`` of every hidden layer on inputs ``X (n, d)``, each ``(n, m_ℓ)``."""
        out, h = [], X
        for W in self.weights:
            h = np.maximum(h @ W.T, 0.0)
            out.append(h)
        return out

    def __call__(self, X: Array) -> Array:
        """``f(X)``, shape ``(n,)``."""
        return self.hidden(X)[-1] @ self.a

    def incoming(self, layer: int) -> Array:
        """``‖W_ℓ[j, :]‖²`` of every neuron of hidden layer ``layer`` (1-based)."""
        return np.sum(self.weights[layer - 1] ** 2, axis=1)

    def outgoing(self, layer: int) -> Array:
        """``‖W_{ℓ+1}[:, j]‖²`` (``a_j²`` in the last hidden layer) of every neuron of layer ``layer``."""
        return self.a**2 if layer == self.depth else np.sum(self.weights[layer] ** 2, axis=0)

    def balances(self) -> list[Array]:
        """``δ^ℓ = ‖outgoing‖² − ‖incoming‖²`` per hidden layer ℓ = 1 … L, each ``(m_ℓ,)``."""
        return [self.outgoing(ell) - self.incoming(ell) for ell in range(1, self.depth + 1)]

    def rescaled(self, rho: Sequence[Array]) -> DeepNetwork:
        """Every hidden neuron rescaled by ``e^ρ`` (``rho[ℓ−1]`` for layer ℓ): ``W_ℓ[j, i] →
        e^{ρ_j^ℓ − ρ_i^{ℓ−1}} W_ℓ[j, i]``, ``a_k → e^{−ρ_k^L} a_k``. The function is unchanged."""
        before = np.zeros(self.widths[0])
        weights = []
        for W, r in zip(self.weights, rho, strict=True):
            weights.append(W * np.exp(np.asarray(r)[:, None] - before[None, :]))
            before = np.asarray(r, float)
        return DeepNetwork(tuple(weights), self.a * np.exp(-before))

    def norm_sq(self) -> float:
        """``‖θ‖²``, the sum of every parameter's square."""
        return float(sum(np.sum(W**2) for W in self.weights) + np.sum(self.a**2))


def _newton(G: Callable[[Array], tuple[float, Array]], H: Callable[[Array], Array], r: Array, gtol: float) -> Array:
    """Newton's method with a backtracking (Armijo) line search on the strictly convex G, until
    ``‖∇G‖_∞/2 ≤ gtol`` (a balance within ``gtol`` of its target); quadratic near the minimiser."""
    value, grad = G(r)
    for _ in range(200):
        if np.max(np.abs(grad), initial=0.0) <= 2.0 * gtol:
            return r
        step = np.linalg.solve(H(r), -grad)
        t = 1.0
        # the Newton decrement −∇G·step below G's round-off: a line search on G cannot see the
        # decrease, and the full step is quadratically convergent there
        if -float(grad @ step) <= 1e3 * np.finfo(float).eps * (1.0 + abs(value)):
            r = r + step
            value, grad = G(r)
            continue
        while True:
            trial, trial_grad = G(r + t * step)
            if trial <= value + 1e-4 * t * float(grad @ step) or t < 1e-12:
                break
            t *= 0.5
        r, value, grad = r + t * step, trial, trial_grad
    raise ValueError("with_balances: Newton's method did not converge in 200 steps")


def with_balances(net: DeepNetwork, targets: Sequence[Array], free: Sequence[bool] | None = None) -> DeepNetwork:
    """The same function with balances ``targets`` (one array per hidden layer): the minimiser of the
    convex ``G(ρ) = F(ρ) + 2 δ*·ρ`` of the module's docstring, by Newton's method (a line search, the exact
    Hessian ``4 Σ_e W_e² e^{2 b_e·ρ} b_e b_eᵀ``). ``free[ℓ−1] = False`` holds layer ℓ's rescaling at 1
    (its neurons' balances then follow from the others'; their targets are ignored)."""
    widths = net.widths
    free = [True] * net.depth if free is None else list(free)
    offsets = np.cumsum([0] + list(widths[1:]))
    heads, tails, w2 = [], [], []
    for ell, W in enumerate(net.weights, start=1):
        j, i = np.meshgrid(np.arange(W.shape[0]), np.arange(W.shape[1]), indexing="ij")
        heads.append(offsets[ell - 1] + j.ravel())
        tails.append(offsets[ell - 2] + i.ravel() if ell > 1 else np.full(W.size, -1))
        w2.append((W**2).ravel())
    L = net.depth
    heads.append(np.full(widths[-1], -1))
    tails.append(offsets[L - 1] + np.arange(widths[-1]))
    w2.append(net.a**2)
    n = int(offsets[-1])
    B = np.zeros((sum(h.size for h in heads), n))
    rows = np.arange(B.shape[0])
    head, tail = np.concatenate(heads), np.concatenate(tails)
    B[rows[head >= 0], head[head >= 0]] += 1.0
    B[rows[tail >= 0], tail[tail >= 0]] -= 1.0
    c = np.concatenate(w2)
    mask = np.concatenate([np.full(widths[ell], free[ell - 1]) for ell in range(1, L + 1)])
    B = B[:, mask]
    target = np.concatenate([np.asarray(t, float) for t in targets])[mask]

    def G(r: Array) -> tuple[float, Array]:
        e = c * np.exp(2.0 * (B @ r))
        return float(e.sum() + 2.0 * target @ r), 2.0 * (B.T @ e) + 2.0 * target

    def H(r: Array) -> Array:
        e = c * np.exp(2.0 * (B @ r))
        return 4.0 * (B.T * e) @ B

    scale = 1.0 + net.norm_sq() + float(np.abs(target).sum())
    rho = _newton(G, H, np.zeros(B.shape[1]), BALANCE_GTOL * scale)
    rho_all = np.zeros(n)
    rho_all[mask] = rho
    out = net.rescaled([rho_all[offsets[ell - 1] : offsets[ell]] for ell in range(1, L + 1)])
    reached = np.concatenate(out.balances())[mask]
    if not np.all(np.abs(reached - target) <= 1e-9 * scale):
        raise ValueError(f"with_balances: the gauge solve missed its targets by {np.max(np.abs(reached - target)):.2e}")
    return out
