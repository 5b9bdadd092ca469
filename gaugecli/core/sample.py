"""Finite-sample training: a Gaussian sample drawn from a seed, the empirical loss

    L_n(θ) = (1/2n) Σ_i (f(x_i) − y(x_i))²,

its gradient and Hessian in closed form (torch, float64), and minibatch gradients for SGD.

The gradient is written out — two matrix products, ``Z = X Wᵀ`` and ``Gᵀ X`` — rather than
taken by autograd: it is the whole cost of a step. ``L_n`` is only piecewise smooth: the
ReLU indicator ``1(w_j·x_i > 0)`` jumps when a sample point crosses a neuron's hyperplane, so
``∂L_n/∂w`` has jumps of size ``|a_j r_i| ‖x_i‖/n`` there, and its derivative (a δ-function at
the kink) vanishes almost everywhere. The Hessian away from the kinks is therefore the
Gauss–Newton part plus the residual's ``a``–``w`` cross terms (:func:`empirical_hessian`).

**Large samples.** Every sum over the sample runs over chunks of rows
(:class:`EmpiricalSample`), so that no intermediate — ``Z``, ``relu(Z)``, ``G`` (``n × m``) or
the Hessian's ``J`` (``n × m(d+1)``) — is larger than :data:`DEFAULT_CHUNK_BYTES`; the sums are
the same up to the order of floating-point additions (round-off). The sample ``X`` itself is
either kept (``8 n d`` bytes: 1.28 GB at ``n = 10⁷, d = 16``) or, beyond
:data:`STORE_LIMIT_BYTES`, regenerated chunk by chunk from its seed at every pass: numpy's
Gaussian stream drawn in consecutive blocks is the same stream drawn at once, so both give the
same ``X`` to the bit, but regeneration makes a gradient evaluation ~7× slower (measured at
``n = 10⁶, d = 16, m = 1``: 0.21 s streamed against 0.03 s stored). The torch work runs on
``device`` (``cpu``, ``cuda``, or ``auto``: CUDA where torch sees a GPU).
"""

from __future__ import annotations

import math
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
Seed = int | np.random.SeedSequence

DEVICES = ("cpu", "cuda", "auto")
"""Where the torch work runs: ``cpu``, ``cuda`` (an error if torch sees no CUDA device), or
``auto`` (CUDA if available, else the CPU)."""

DEFAULT_CHUNK_BYTES = 2 * 2**20
"""Bound on each ``rows × columns`` intermediate of a pass over the sample. Small enough that a
chunk of ``X`` read by ``X_c Wᵀ`` is still in cache when ``G_cᵀ X_c`` reads it again, large
enough that torch's per-call cost is amortised: measured at n = 10⁶, d = 16 (one thread, best
of 7), gradient at m = 1 / 8 / 64: 31 / 85 / 555 ms at 2 MiB against 39 / 149 / 787 ms at
16 MiB and 33 / 99 / 533 ms at 1 MiB; Hessian (m = 1) 41 ms against 106 ms at 16 MiB; L_n at
400 saved states 0.68 s against 1.8 s at 16 MiB."""

STORE_LIMIT_BYTES = 4 * 2**30
"""A sample of at most this many bytes (``8 n (d + 1)``: ``X`` and ``y``) is kept in memory; a
larger one is regenerated from its seed at every pass (the same numbers, ~7× the time per
gradient). 4 GiB keeps ``n = 10⁷`` at ``d ≤ 49`` in memory."""

SMALL_PROBLEM_FLOPS = 5e7
"""Below this many multiply-adds per step, run torch on one thread: intra-op threads
cost more in synchronisation than they save, and on a busy 2-core machine they were
measured to slow small runs down a hundredfold."""


def resolve_device(device: str) -> torch.device:
    """The torch device for ``cpu`` | ``cuda`` | ``auto``; ``ValueError`` (with the remedy)
    for another name, or for ``cuda`` where torch sees no CUDA device."""
    if device not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)} (got {device!r})")
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        build = "a CPU-only build" if torch.version.cuda is None else f"built for CUDA {torch.version.cuda}"
        raise ValueError(f"cuda: torch ({torch.__version__}, {build}) sees no CUDA device; use cpu or auto")
    return torch.device(device)


def _labels(teacher: Teacher, X: Array) -> Array:
    return teacher(X)


def draw_sample(teacher: Teacher, n: int, seed: Seed) -> tuple[Array, Array]:
    """``n`` inputs ``x ~ N(0, I_d)`` from ``numpy.random.default_rng(seed)`` and teacher labels.

    Drawn in blocks of rows (the same numbers as one ``standard_normal((n, d))`` call), so that
    the labels' intermediates stay small."""
    X = np.empty((n, teacher.d))
    y = np.empty(n)
    rng = np.random.default_rng(seed)
    rows = _rows(DEFAULT_CHUNK_BYTES, teacher.d + teacher.k)
    for start in range(0, n, rows):
        block = slice(start, min(start + rows, n))
        rng.standard_normal(out=X[block])
        y[block] = _labels(teacher, X[block])
    return X, y


def _rows(chunk_bytes: int, width: int) -> int:
    """Rows per chunk so that a ``rows × width`` float64 intermediate fits ``chunk_bytes``."""
    return max(1, int(chunk_bytes) // (8 * max(1, int(width))))


def empirical_loss(a: Array, W: Array, X: Array, y: Array, chunk_bytes: int = DEFAULT_CHUNK_BYTES) -> Array:
    """``L_n(θ)``, with ensemble axes of ``a (..., m)``, ``W (..., m, d)`` preserved (numpy,
    over chunks of rows; an independent check of the torch path)."""
    a, W = np.asarray(a, float), np.asarray(W, float)
    n = X.shape[0]
    total = np.zeros(a.shape[:-1])
    rows = _rows(chunk_bytes, max(W[..., 0].size, X.shape[1]))
    for start in range(0, n, rows):
        Xc, yc = X[start : start + rows], y[start : start + rows]
        f = np.maximum(np.einsum("nd,...md->...nm", Xc, W), 0.0) @ a[..., None]
        total += np.sum((f[..., 0] - yc) ** 2, axis=-1)
    return 0.5 * total / n


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


def _to_numpy(t: torch.Tensor) -> Array:
    return t.detach().cpu().numpy()


class EmpiricalSample:
    """A sample of ``n`` points ``(x_i, y_i)``, ``x_i ∈ ℝ^d``, read in chunks of rows, and the
    empirical loss ``L_n`` on it: gradient, Hessian, loss (also along a trajectory).

    Either *stored* — ``X (n, d)`` and ``y (n,)`` as tensors on ``device`` — or *streamed*:
    ``X`` regenerated from ``seed`` by :func:`numpy.random.default_rng` at every pass, block by
    block (the same numbers as :func:`draw_sample`; memory ``O(chunk)``, time ~7× per pass).
    Each pass holds at most ``chunk_bytes`` per ``rows × columns`` intermediate.
    """

    def __init__(
        self,
        n: int,
        d: int,
        *,
        X: torch.Tensor | None = None,
        y: torch.Tensor | None = None,
        teacher: Teacher | None = None,
        seed: Seed | None = None,
        device: torch.device | str = "cpu",
        chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    ) -> None:
        if (X is None) != (y is None) or (X is None and (teacher is None or seed is None)):
            raise ValueError("EmpiricalSample: give X and y (stored), or teacher and seed (streamed)")
        self.n, self.d = int(n), int(d)
        self.X, self.y = X, y
        self.teacher, self.seed = teacher, seed
        self.device = torch.device(device) if isinstance(device, str) else device
        self.chunk_bytes = int(chunk_bytes)

    # -- construction -----------------------------------------------------------------

    @classmethod
    def from_arrays(
        cls, X: Array, y: Array, *, device: str = "cpu", chunk_bytes: int = DEFAULT_CHUNK_BYTES
    ) -> EmpiricalSample:
        """A stored sample from arrays (on the CPU: shared with them, no copy)."""
        dev = resolve_device(device)
        Xt = torch.from_numpy(np.ascontiguousarray(X, dtype=np.float64)).to(dev)
        yt = torch.from_numpy(np.ascontiguousarray(y, dtype=np.float64)).to(dev)
        return cls(Xt.shape[0], Xt.shape[1], X=Xt, y=yt, device=dev, chunk_bytes=chunk_bytes)

    @classmethod
    def draw(
        cls,
        teacher: Teacher,
        n: int,
        seed: Seed,
        *,
        device: str = "cpu",
        store: bool | None = None,
        chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    ) -> EmpiricalSample:
        """The sample of :func:`draw_sample` (same numbers), stored on ``device`` or streamed.

        ``store=None``: keep it if ``8 n (d + 1) ≤`` :data:`STORE_LIMIT_BYTES` (on a GPU, and
        under half its free memory). It is drawn block by block straight into its tensor, so
        a GPU run never holds it in host memory."""
        dev = resolve_device(device)
        d = teacher.d
        if store is None:
            size = 8 * n * (d + 1)
            store = size <= STORE_LIMIT_BYTES
            if dev.type == "cuda":
                store = store and size <= torch.cuda.mem_get_info(dev)[0] // 2
        if not store:
            return cls(n, d, teacher=teacher, seed=seed, device=dev, chunk_bytes=chunk_bytes)
        if dev.type == "cpu":
            X, y = draw_sample(teacher, n, seed)
            return cls(n, d, X=torch.from_numpy(X), y=torch.from_numpy(y), device=dev, chunk_bytes=chunk_bytes)
        Xt = torch.empty((n, d), dtype=torch.float64, device=dev)
        yt = torch.empty(n, dtype=torch.float64, device=dev)
        streamed = cls(n, d, teacher=teacher, seed=seed, device=dev, chunk_bytes=chunk_bytes)
        start = 0
        for Xc, yc in streamed.chunks(d + teacher.k):
            Xt[start : start + Xc.shape[0]] = Xc
            yt[start : start + Xc.shape[0]] = yc
            start += Xc.shape[0]
        return cls(n, d, X=Xt, y=yt, device=dev, chunk_bytes=chunk_bytes)

    # -- reading ----------------------------------------------------------------------

    @property
    def stored(self) -> bool:
        return self.X is not None

    @property
    def name(self) -> str:
        """As in solver statistics: ``empirical n=…`` (with the device where not the CPU)."""
        where = "" if self.device.type == "cpu" else f" on {self.device.type}"
        return f"empirical n={self.n}{where}"

    def rows_per_chunk(self, width: int) -> int:
        """Rows of a chunk whose widest intermediate has ``width`` columns (and ``X``'s ``d``)."""
        return _rows(self.chunk_bytes, max(width, self.d))

    def chunks(self, width: int) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        """``(X_c, y_c)`` over consecutive blocks of rows, on the sample's device."""
        rows = self.rows_per_chunk(width)
        if self.X is not None and self.y is not None:
            for start in range(0, self.n, rows):
                yield self.X[start : start + rows], self.y[start : start + rows]
            return
        assert self.teacher is not None and self.seed is not None
        rng = np.random.default_rng(self.seed)
        for start in range(0, self.n, rows):
            Xc = rng.standard_normal((min(rows, self.n - start), self.d))
            yc = _labels(self.teacher, Xc)
            yield torch.from_numpy(Xc).to(self.device), torch.from_numpy(yc).to(self.device)

    def arrays(self) -> tuple[Array, Array]:
        """``(X, y)`` as numpy arrays (materialised: a streamed sample is drawn in full)."""
        if self.X is not None and self.y is not None:
            return _to_numpy(self.X), _to_numpy(self.y)
        assert self.teacher is not None and self.seed is not None
        return draw_sample(self.teacher, self.n, self.seed)

    def _tensor(self, x: Array) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64)).to(self.device)

    # -- the loss and its derivatives ---------------------------------------------------

    def gradient(self, a: Array, W: Array) -> tuple[Array, Array, Array]:
        """``(∂L_n/∂a, ∂L_n/∂W, L_n)`` with the ensemble axes of ``a (..., m)``, ``W (..., m, d)``:

        ``∂L_n/∂a_j = (1/n) Σ_i r_i relu(w_j·x_i)``, ``∂L_n/∂w_j = (a_j/n) Σ_i r_i 1(w_j·x_i > 0) x_i``,
        ``r = f − y``, summed chunk by chunk."""
        with _threads_for(2 * np.size(W) * self.n):
            at = self._tensor(a)
            ga, gW, sq = _gradient_sums(at, self._tensor(W), self._chunks_for(W))
            return _to_numpy(ga / self.n), _to_numpy(gW * (at.unsqueeze(-1) / self.n)), _to_numpy(0.5 * sq / self.n)

    def _chunks_for(self, W: Array) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        return self.chunks(int(np.prod(np.shape(W)[:-1])))  # (members × m) columns

    def hessian(self, a: Array, W: Array) -> Array:
        """Closed-form ``∇²L_n`` away from the kinks, packed ``θ = (a_1..a_m, w_1, ..., w_m)``.

        With ``J_i = ∂r_i/∂θ = (relu(w_j·x_i))_j ⊕ (a_j 1_ij x_i)_j`` (``1_ij = 1(w_j·x_i > 0)``):

            ∇²L_n = (1/n) Σ_i J_iᵀ J_i + (1/n) Σ_i r_i ∂²r_i,

        and the only non-zero second derivative of ``r_i`` off the kinks is
        ``∂²r_i/∂a_j∂w_j = 1_ij x_i`` (``∂²r_i/∂w_j² = a_j δ(w_j·x_i) x_i x_iᵀ`` vanishes a.e.).
        Shape ``(..., P, P)``, ``P = m (d + 1)``; ensemble axes are kept. ``J`` is built one
        chunk of rows at a time (``rows × members × P`` ≤ ``chunk_bytes``).
        """
        at, Wt = self._tensor(a), self._tensor(W)
        batch, (m, d) = tuple(at.shape[:-1]), tuple(Wt.shape[-2:])
        P = m * (d + 1)
        members = math.prod(batch)
        with _threads_for(2 * self.n * P**2 * members):
            hess = torch.zeros(batch + (P, P), dtype=torch.float64, device=self.device)
            cross = torch.zeros(batch + (m, d), dtype=torch.float64, device=self.device)
            WT, a_col, a_row = Wt.transpose(-1, -2), at.unsqueeze(-1), at.unsqueeze(-2)
            for Xc, yc in self.chunks(members * P):
                Z = torch.matmul(Xc, WT)  # (..., c, m)
                H = torch.relu(Z)
                r = torch.matmul(H, a_col).squeeze(-1) - yc
                ind = (Z > 0).to(torch.float64)
                J = torch.empty(batch + (Xc.shape[0], P), dtype=torch.float64, device=self.device)
                J[..., :m] = H
                J_w = J[..., m:].view(batch + (Xc.shape[0], m, d))
                torch.mul((ind * a_row).unsqueeze(-1), Xc.unsqueeze(-2), out=J_w)
                hess += torch.matmul(J.transpose(-1, -2), J)
                ind *= r.unsqueeze(-1)
                cross += torch.matmul(ind.transpose(-1, -2), Xc)
            hess /= self.n
            cross /= self.n
            rows = torch.arange(m, device=self.device).repeat_interleave(d)
            cols = m + torch.arange(m * d, device=self.device)
            flat = cross.reshape(batch + (m * d,))
            hess[..., rows, cols] += flat
            hess[..., cols, rows] += flat
            return _to_numpy(hess)

    def loss(self, a: Array, W: Array) -> Array:
        """``L_n(θ)`` with the ensemble axes of ``a``, ``W``."""
        a = np.asarray(a, float)
        return self.loss_along(a[..., None, :], np.asarray(W, float)[..., None, :, :])[..., 0]

    def loss_along(self, a: Array, W: Array) -> Array:
        """``L_n`` along a trajectory ``a (..., n_t, m)``, ``W (..., n_t, m, d)``: every saved
        state in one product ``X_c W_allᵀ`` per chunk of rows (blocks of states keep the
        ``rows × states·m`` intermediate within ``chunk_bytes``)."""
        a, W = np.asarray(a, float), np.asarray(W, float)
        lead, (m, d) = a.shape[:-1], W.shape[-2:]
        states = math.prod(lead)
        a_all, W_all = a.reshape(states, m), W.reshape(states * m, d)
        # at least 1024 rows per chunk: a block of states has ≤ chunk_bytes / (8·1024·m) of them
        block = max(1, self.chunk_bytes // (8 * 1024 * m))
        out = np.empty(states)
        with _threads_for(2 * self.n * W.size):
            for s0 in range(0, states, block):
                s1 = min(s0 + block, states)
                at = self._tensor(a_all[s0:s1])  # (s, m)
                WT = self._tensor(W_all[s0 * m : s1 * m]).T  # (d, s·m)
                sq = torch.zeros(s1 - s0, dtype=torch.float64, device=self.device)
                for Xc, yc in self.chunks((s1 - s0) * m):
                    H = torch.relu_(torch.matmul(Xc, WT)).view(Xc.shape[0], s1 - s0, m)
                    r = torch.sum(H.mul_(at), dim=-1) - yc.unsqueeze(-1)  # (c, s)
                    sq += torch.sum(r * r, dim=0)
                out[s0:s1] = _to_numpy(0.5 * sq / self.n)
        return out.reshape(lead)

    def oracle(self) -> GradientOracle:
        """:meth:`gradient` as a :data:`~gaugecli.core.integrate.GradientOracle` for GD."""

        def oracle(a: Array, W: Array) -> tuple[Array, Array, Array]:
            return self.gradient(a, W)

        oracle.objective_name = self.name  # type: ignore[attr-defined]
        return oracle

    def objective(self) -> Objective:
        """``L_n`` as an :class:`~gaugecli.core.integrate.Objective` (gradient and Hessian)."""
        return Objective(self.oracle(), self.hessian, self.name)


def _gradient_sums(
    at: torch.Tensor, Wt: torch.Tensor, chunks: Iterator[tuple[torch.Tensor, torch.Tensor]]
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``Σ_i r_i relu(Z_i)``, ``Σ_i (1(Z_i > 0) r_i) x_iᵀ`` and ``Σ_i r_i²`` over the chunks
    (``Z = X Wᵀ``, ``r = relu(Z) a − y``): the unnormalised gradient of ``L_n`` and ``2 n L_n``."""
    WT, a_col = Wt.transpose(-1, -2), at.unsqueeze(-1)
    sums: list[torch.Tensor] = []
    for Xc, yc in chunks:
        Z = torch.matmul(Xc, WT)  # (..., c, m)
        H = torch.relu(Z)
        r = torch.matmul(H, a_col).squeeze(-1) - yc  # (..., c)
        G = torch.where(Z > 0, r.unsqueeze(-1), 0.0)  # (..., c, m)
        terms = (
            torch.matmul(H.transpose(-1, -2), r.unsqueeze(-1)).squeeze(-1),
            torch.matmul(G.transpose(-1, -2), Xc),
            torch.sum(r * r, dim=-1),
        )
        if sums:  # the first chunk's terms start the sums (one chunk: no extra work at small n)
            for total, term in zip(sums, terms, strict=True):
                total += term
        else:
            sums = list(terms)
    return sums[0], sums[1], sums[2]


def empirical_oracle(X: Array, y: Array, *, device: str = "cpu") -> GradientOracle:
    """Gradient of ``L_n`` on ``(X, y)`` for :func:`gaugecli.core.integrate.gradient_descent`
    (:meth:`EmpiricalSample.gradient`)."""
    return EmpiricalSample.from_arrays(X, y, device=device).oracle()


def empirical_hessian(a: Array, W: Array, X: Array, y: Array) -> Array:
    """``∇²L_n`` on ``(X, y)`` away from the kinks (:meth:`EmpiricalSample.hessian`)."""
    return EmpiricalSample.from_arrays(X, y).hessian(a, W)


def empirical_objective(X: Array, y: Array, *, device: str = "cpu") -> Objective:
    """``L_n`` on the sample ``(X, y)`` as an :class:`~gaugecli.core.integrate.Objective`:
    gradient and closed-form Hessian, for the finite-sample gradient flow and full-batch GD."""
    return EmpiricalSample.from_arrays(X, y, device=device).objective()


def empirical_loss_along(a: Array, W: Array, X: Array | EmpiricalSample, y: Array | None = None) -> Array:
    """``L_n`` along a trajectory ``a (..., n_t, m)``, ``W (..., n_t, m, d)`` on ``(X, y)`` or an
    :class:`EmpiricalSample` (:meth:`EmpiricalSample.loss_along`)."""
    if isinstance(X, EmpiricalSample):
        return X.loss_along(a, W)
    if y is None:
        raise ValueError("empirical_loss_along: give y with X")
    return EmpiricalSample.from_arrays(X, y).loss_along(a, W)


def minibatch_oracle(
    teacher: Teacher,
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
            X = rng.standard_normal((batch_size, teacher.d))
            Xt, yt = torch.from_numpy(X).to(dev), torch.from_numpy(teacher(X)).to(dev)
            batch = EmpiricalSample(batch_size, teacher.d, X=Xt, y=yt, device=dev)
            ga, gW, _ = batch.gradient(a, W)
            return ga, gW, None

        fresh.objective_name = f"population, fresh batches B={batch_size}"  # type: ignore[attr-defined]
        return fresh

    full = sample if isinstance(sample, EmpiricalSample) else EmpiricalSample.from_arrays(*sample, device=device)
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
        batch = EmpiricalSample(B, full.d, X=Xt[idx], y=yt[idx], device=full.device, chunk_bytes=full.chunk_bytes)
        ga, gW, _ = batch.gradient(a, W)
        return ga, gW, None

    resampled.objective_name = f"empirical n={n}, resampled batches B={B}"  # type: ignore[attr-defined]
    return resampled


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
      :data:`STORE_LIMIT_BYTES`, as :meth:`EmpiricalSample.draw` decides), else nothing;
    * a pass over the sample: ≤ 6 intermediates of ``chunk`` bytes (gradient: ``Z``,
      ``relu(Z)``, ``1(Z>0)``, ``G``, ``r``; Hessian: ``J`` and ``J_w``'s factors; a streamed
      block of ``X``), each at most ``rows × max(members·m·(d+1), d)`` floats;
    * with ``hessian`` (the flow's Jacobian, or GD's step bound): the ``members × P × P``
      Hessian (``P = m (d + 1)``) and the solver's copies — LSODA's negated Jacobian, its
      banded/dense work array and LU: 4 copies in all;
    * the saved trajectory, ``grid_points × members × m (d + 1)`` floats, ×3 (dense output,
      grid, observables).
    """
    P = m * (d + 1)
    if stored is None:
        stored = 8 * n * (d + 1) <= STORE_LIMIT_BYTES
    sample = 8 * n * (d + 1) if stored else 0
    width = max(members * (P if hessian else m), d)
    rows = min(n, _rows(chunk, width))
    passes = 6 * 8 * rows * width
    jac = 4 * 8 * members * P * P if hessian else 0
    trajectory = 3 * 8 * grid_points * members * P
    return int(sample + passes + jac + trajectory)


def gradient_flops(n: int, d: int, m: int, members: int = 1) -> float:
    """Multiply-adds of one gradient of ``L_n``: ``Z = X Wᵀ`` and ``Gᵀ X``, ``2 n m d`` each."""
    return float(4 * n * m * d * members)
