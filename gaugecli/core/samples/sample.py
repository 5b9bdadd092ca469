"""Finite-sample training: the empirical loss L_n on a seeded Gaussian sample, its derivatives, SGD.

The empirical loss is

    L_n(θ) = (1/2n) Σ_i (f(x_i) − y(x_i))²,

its gradient and Hessian in closed form (torch, float64), minibatch gradients for SGD, and
what a finite-sample run costs (:func:`sample_memory_estimate`).

The gradient is written out — two matrix products, ``Z = X Wᵀ`` and ``Gᵀ X`` — rather than
taken by autograd: it is the whole cost of a step. For ReLU ``L_n`` is only piecewise smooth: the
indicator ``σ'(w_j·x_i) = 1(w_j·x_i > 0)`` jumps when a sample point crosses a neuron's hyperplane, so
``∂L_n/∂w`` has jumps of size ``|a_j r_i| ‖x_i‖/n`` there, and its derivative (a δ-function at
the kink) vanishes almost everywhere. The Hessian away from the kinks is therefore the
Gauss–Newton part plus the residual's ``a``–``w`` cross terms (:func:`empirical_hessian`).

Large samples: every sum runs over chunks of rows and the sample is kept or streamed from its
seed (:class:`~gaugecli.core.samples.empirical.EmpiricalSample`, in :mod:`gaugecli.core.samples.empirical`).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import torch

from gaugecli.core.activations.base import Activation
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population.objective import GradientOracle, Objective
from gaugecli.core.samples import sample_draw
from gaugecli.core.samples.empirical import EmpiricalSample
from gaugecli.core.samples.sample_draw import DEFAULT_CHUNK_BYTES, Seed, chunk_rows, resolve_device
from gaugecli.core.types import Array, Indices

__all__ = [
    "empirical_hessian",
    "empirical_loss",
    "empirical_loss_along",
    "empirical_objective",
    "empirical_oracle",
    "gradient_flops",
    "minibatch_oracle",
    "sample_memory_estimate",
    "stacked_empirical_objective",
]

Batches = Literal["fresh", "resampled"]


def empirical_loss(
    theta: Network,
    X: Array,
    y: Array,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    activation: Activation | None = None,
) -> Array:
    """``L_n(θ)``, with the ensemble axes of ``θ`` (``a (..., m)``, ``W (..., m, d)``) preserved (numpy,
    over chunks of rows; an independent check of the torch path). ReLU unless ``activation``."""
    sigma = (lambda z: np.maximum(z, 0.0)) if activation is None else activation.sigma
    a, W = np.asarray(theta.a, float), np.asarray(theta.W, float)
    n = X.shape[0]
    total = np.zeros(a.shape[:-1])
    rows = chunk_rows(chunk_bytes, max(W[..., 0].size, X.shape[1]))
    for start in range(0, n, rows):
        Xc, yc = X[start : start + rows], y[start : start + rows]
        f = sigma(np.einsum("nd,...md->...nm", Xc, W)) @ a[..., None]
        total += np.sum((f[..., 0] - yc) ** 2, axis=-1)
    return 0.5 * total / n


def empirical_oracle(
    X: Array, y: Array, *, device: str = "cpu", activation: Activation | None = None
) -> GradientOracle:
    """Gradient of ``L_n`` on ``(X, y)`` for :func:`gaugecli.core.integrate.descent.gradient_descent`
    (:meth:`EmpiricalSample.gradient`)."""
    return EmpiricalSample.from_arrays(X, y, device=device, activation=activation).oracle()


def empirical_hessian(theta: Network, X: Array, y: Array, activation: Activation | None = None) -> Array:
    """``∇²L_n(θ)`` on ``(X, y)`` away from the kinks (:meth:`EmpiricalSample.hessian`)."""
    return EmpiricalSample.from_arrays(X, y, activation=activation).hessian(theta.a, theta.W)


def empirical_objective(X: Array, y: Array, *, device: str = "cpu", activation: Activation | None = None) -> Objective:
    """``L_n`` on the sample ``(X, y)`` as an :class:`~gaugecli.core.population.objective.Objective`:
    gradient and closed-form Hessian, for the finite-sample gradient flow and full-batch GD."""
    return EmpiricalSample.from_arrays(X, y, device=device, activation=activation).objective()


def stacked_empirical_objective(
    samples: list[tuple[Array, Array]], *, device: str = "cpu", activation: Activation | None = None
) -> Objective:
    """One ``L_n`` per ensemble member: member ``b`` of ``a (B, m)``, ``W (B, m, d)`` descends the loss
    on ``samples[b]`` (all of one size ``n``). The same gradients as ``B`` :func:`empirical_objective`
    runs, to round-off, from one batched evaluation (:meth:`EmpiricalSample.stack`)."""
    return EmpiricalSample.stack(samples, device=device, activation=activation).objective()


def empirical_loss_along(theta: Network, X: Array | EmpiricalSample, y: Array | None = None) -> Array:
    """``L_n`` along a trajectory ``θ`` (``a (..., n_t, m)``, ``W (..., n_t, m, d)``) on ``(X, y)`` or an
    :class:`EmpiricalSample` (:meth:`EmpiricalSample.loss_along`)."""
    if isinstance(X, EmpiricalSample):
        return X.loss_along(theta)
    if y is None:
        raise ValueError("empirical_loss_along: give y with X")
    return EmpiricalSample.from_arrays(X, y).loss_along(theta)


def minibatch_oracle(
    model: Model,
    batch_size: int,
    seed: Seed,
    sample: tuple[Array, Array] | EmpiricalSample | None = None,
    *,
    device: str = "cpu",
) -> GradientOracle:
    """Minibatch gradients for SGD: each call (one per step) returns the gradient of
    ``(1/2B) Σ_{i∈batch} (f(x_i) − y(x_i))²`` on a new batch of ``B = batch_size`` points.

    ``sample=None`` — *fresh* batches: ``B`` new inputs ``x ~ N(0, I_d)`` every step (online
    SGD on the population loss). ``sample=(X, y)`` (or a stored :class:`EmpiricalSample`, whose
    device is then used) — *resampled* batches from that fixed sample: the sample is
    reshuffled every epoch and cut into consecutive batches (a batch that would straddle two
    epochs starts the next epoch; for ``B ≥ n`` every batch is the whole sample). Seeded by
    ``seed``; a new oracle restarts the stream.
    """
    rng = np.random.default_rng(seed)
    if sample is None:
        dev = resolve_device(device)

        def fresh(a: Array, W: Array) -> tuple[Array, Array, None]:
            X = rng.standard_normal((batch_size, model.d))
            Xt, yt = torch.from_numpy(X).to(dev), torch.from_numpy(model(X)).to(dev)
            batch = EmpiricalSample(batch_size, model.d, X=Xt, y=yt, device=dev, activation=model.activation)
            ga, gW, _ = batch.gradient(a, W)
            return ga, gW, None

        fresh.objective_name = f"population, fresh batches B={batch_size}"  # type: ignore[attr-defined]
        return fresh

    full = (
        sample
        if isinstance(sample, EmpiricalSample)
        else EmpiricalSample.from_arrays(*sample, device=device, activation=model.activation)
    )
    if full.X is None or full.y is None:
        raise ValueError("resampled minibatches need a stored sample (random access to its rows)")
    Xt, yt = full.X, full.y
    n = full.n
    B = min(batch_size, n)
    order = [rng.permutation(n)]  # this epoch's order of the rows
    position = [0]  # rows of it already used

    def next_batch() -> torch.Tensor:
        if position[0] + B > n:
            order[0], position[0] = rng.permutation(n), 0
        pos = position[0]
        position[0] = pos + B
        return torch.from_numpy(order[0][pos : pos + B]).to(full.device)

    def resampled(a: Array, W: Array) -> tuple[Array, Array, None]:
        idx = next_batch()
        ga, gW, _ = full.holding(Xt[idx], yt[idx]).gradient(a, W)
        return ga, gW, None

    resampled.objective_name = f"empirical n={n}, resampled batches B={B}"  # type: ignore[attr-defined]
    return resampled


EPOCH_BLOCK_ROWS = 4096
""":func:`stacked_minibatch_oracle` draws each member's epoch orders ``⌊4096/n⌋`` epochs at a time, in one
``Generator.permuted`` call per member: its rows are the orders that one ``permutation(n)`` per epoch
gives, from the same stream (tests/test_predict.py), at ~0.6 µs a row of 64 against ~3.5 µs a call. At
fig11's ``n = 64``, ``B = 32`` an epoch ends every second step, and 50 members' ``permutation`` calls were
0.95 of the SGD's 5.0 profiled CPU-s."""


def stacked_minibatch_oracle(
    samples: list[tuple[Array, Array]],
    batch_size: int,
    seeds: list[int],
    *,
    device: str = "cpu",
    activation: Activation | None = None,
) -> StackedMinibatches:
    """SGD for an ensemble, one member per sample: each call returns, for every member ``b``, the
    gradient of ``(1/2B) Σ_{i∈batch_b} (f(x_i) − y_i)²`` on a batch of ``B = batch_size`` rows of its
    own sample ``samples[b]`` (all of one size ``n``), drawn as :func:`minibatch_oracle`'s resampled
    batches are — the sample reshuffled every epoch from ``default_rng(seeds[b])`` and cut into
    consecutive batches, ``B ≥ n`` taking the whole sample — so that member ``b`` follows the same
    stream as a :func:`minibatch_oracle` run alone from that seed, to round-off. One batched
    gradient per step instead of one per member."""
    full = EmpiricalSample.stack(samples, device=device, activation=activation)
    assert full.X is not None
    if len(seeds) != full.X.shape[0]:
        raise ValueError(f"stacked_minibatch_oracle: one seed per sample (got {len(seeds)} for {full.X.shape[0]})")
    return StackedMinibatches(full, batch_size, seeds)


class StackedMinibatches:
    """:func:`stacked_minibatch_oracle`'s oracle: a call is one step's gradients on the next batches, and the
    batches can be read ahead (:class:`gaugecli.core.integrate.sgd_loop.MinibatchStream`: the compiled SGD
    loop takes them a block at a time). Batch ``t`` of a block of :data:`EPOCH_BLOCK_ROWS` is epoch
    ``t // ⌊n/B⌋``'s rows ``B·(t mod ⌊n/B⌋) …`` of its order: the epoch's consecutive batches, the rest of it
    unused."""

    def __init__(self, full: EmpiricalSample, batch_size: int, seeds: list[int]) -> None:
        assert full.X is not None
        self.full = full
        members, self.n = full.X.shape[0], full.X.shape[1]
        self.B = min(batch_size, self.n)
        self._rngs = [np.random.default_rng(seed) for seed in seeds]
        self._epochs = max(1, EPOCH_BLOCK_ROWS // self.n)
        self._rows = np.broadcast_to(np.arange(self.n), (self._epochs, self.n))
        self._block = self._draw()
        self._used = 0  # batches of the block already taken
        self.objective_name = f"empirical n={self.n} per member, resampled batches B={self.B}"
        assert self._block.shape[1] == members

    def _draw(self) -> Indices:
        """``(epochs·⌊n/B⌋, members, B)``: each member's next ``epochs`` epoch orders, one
        ``Generator.permuted`` call per member (:data:`EPOCH_BLOCK_ROWS`), cut into batches."""
        orders = np.stack([rng.permuted(self._rows, axis=1) for rng in self._rngs])  # (members, epochs, n)
        per_epoch = self.n // self.B
        cut = orders[:, :, : per_epoch * self.B].reshape(orders.shape[0], self._epochs * per_epoch, self.B)
        return np.ascontiguousarray(cut.transpose(1, 0, 2), dtype=np.int64)

    def batches(self) -> Indices:
        """The batches not yet taken of the current block (a new block drawn where it is used up)."""
        if self._used == self._block.shape[0]:
            self._block, self._used = self._draw(), 0
        return self._block[self._used :]

    def advance(self, count: int) -> None:
        """Take the first ``count`` batches of :meth:`batches`."""
        self._used += count

    def route(self, m: int) -> tuple[Array, Array, tuple[float, float]] | None:
        """The arrays of the compiled minibatch pass for the stack's members of ``m`` neurons, if it applies
        (:meth:`EmpiricalSample.batch_route`)."""
        return self.full.batch_route(m)

    def __call__(self, a: Array, W: Array) -> tuple[Array, Array, None]:
        rows = self.batches()[0]
        self.advance(1)
        ga, gW, _ = self.full.batch_gradient(a, W, rows)
        return ga, gW, None


def sample_memory_estimate(
    n: int,
    d: int,
    m: int,
    chunk: int = DEFAULT_CHUNK_BYTES,
    *,
    members: int = 1,
    stored: bool | None = None,
    hessian: bool = True,
    grid_points: int = 400,
) -> int:
    """Peak bytes that a finite-sample run allocates beyond the interpreter and its libraries
    (python + numpy + scipy + torch: ~0.3 GB resident, not counted here).

    * the sample ``X``, ``y``: ``8 n (d + 1)`` if stored (``stored=None``: by
      :data:`~gaugecli.core.samples.sample_draw.STORE_LIMIT_BYTES`, as :meth:`EmpiricalSample.draw` decides), else nothing;
    * a pass over the sample: ≤ 6 intermediates of ``chunk`` bytes (gradient: ``Z``,
      ``relu(Z)``, ``1(Z>0)``, ``G``, ``r``; Hessian: ``J`` and ``J_w``'s factors; a streamed
      block of ``X``), each at most ``rows × max(members·m·(d+1), d)`` floats;
    * with ``hessian`` (the flow's Jacobian, or GD's step bound): the ``members × P × P``
      Hessian (``P = m (d + 1)``) and the solver's copies — LSODA's negated Jacobian, its
      banded/dense work array and LU: 4 copies in all;
    * the saved trajectory, ``grid_points × members × m (d + 1)`` floats, ×3 (dense output,
      grid, observables);
    * a stored sample that is one chunk for the gradient also keeps ``Xᵀ``: ``8 n d`` more.
    """
    P = m * (d + 1)
    if stored is None:
        stored = 8 * n * (d + 1) <= sample_draw.STORE_LIMIT_BYTES
    sample = 8 * n * (d + 1) if stored else 0
    if stored and chunk_rows(chunk, max(members * m, d)) >= n:
        sample += 8 * n * d
    width = max(members * (P if hessian else m), d)
    rows = min(n, chunk_rows(chunk, width))
    passes = 6 * 8 * rows * width
    jac = 4 * 8 * members * P * P if hessian else 0
    trajectory = 3 * 8 * grid_points * members * P
    return int(sample + passes + jac + trajectory)


def gradient_flops(n: int, d: int, m: int, members: int = 1) -> float:
    """Multiply-adds of one gradient of ``L_n``: ``Z = X Wᵀ`` and ``Gᵀ X``, ``2 n m d`` each."""
    return float(4 * n * m * d * members)
