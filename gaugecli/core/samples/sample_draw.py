"""A sample of inputs and teacher labels, drawn from its seed and read in chunks of rows, on a torch
device (:class:`SampleRows`): kept in memory, or regenerated block by block from its seed at every
pass. The empirical loss on it is :mod:`gaugecli.core.samples.empirical`'s.

``X`` is either kept (``8 n d`` bytes: 1.28 GB at ``n = 10⁷, d = 16``) or, beyond
:data:`STORE_LIMIT_BYTES`, regenerated chunk by chunk from its seed at every pass: numpy's Gaussian
stream drawn in consecutive blocks is the same stream drawn at once, so both give the same ``X`` to
the bit. A stored sample may also be a *stack*, one sample per member of an ensemble (``X (B, n, d)``,
``y (B, n)``, :meth:`SampleRows.stack`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Self

import numpy as np

from gaugecli.core.activations.base import Activation
from gaugecli.core.activations.relu import ReLU
from gaugecli.core.model.model import Model
from gaugecli.core.types import Array

if TYPE_CHECKING:  # torch is imported where a sample is drawn or read: the configs and plots do not need it
    import torch

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


def resolve_device(device: str) -> torch.device:
    """The torch device for ``cpu`` | ``cuda`` | ``auto``; ``ValueError`` (with the remedy)
    for another name, or for ``cuda`` where torch sees no CUDA device."""
    import torch

    if device not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)} (got {device!r})")
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        build = "a CPU-only build" if torch.version.cuda is None else f"built for CUDA {torch.version.cuda}"
        raise ValueError(f"cuda: torch ({torch.__version__}, {build}) sees no CUDA device; use cpu or auto")
    return torch.device(device)


def draw_sample(model: Model, n: int, seed: Seed, sphere: bool = False) -> tuple[Array, Array]:
    """``n`` inputs ``x ~ N(0, I_d)`` from ``numpy.random.default_rng(seed)`` and teacher labels;
    ``sphere``: each input divided by its norm, uniform on the unit sphere (Kunin et al.'s inputs).

    Drawn in blocks of rows (the same numbers as one ``standard_normal((n, d))`` call), so that
    the labels' intermediates stay small."""
    X = np.empty((n, model.d))
    y = np.empty(n)
    rng = np.random.default_rng(seed)
    rows = chunk_rows(DEFAULT_CHUNK_BYTES, model.d + model.k)
    for start in range(0, n, rows):
        block = slice(start, min(start + rows, n))
        rng.standard_normal(out=X[block])
        if sphere:
            X[block] /= np.linalg.norm(X[block], axis=1, keepdims=True)
        y[block] = model(X[block])
    return X, y


def chunk_rows(chunk_bytes: int, width: int) -> int:
    """Rows per chunk so that a ``rows × width`` float64 intermediate fits ``chunk_bytes``."""
    return max(1, int(chunk_bytes) // (8 * max(1, int(width))))


def to_numpy(t: torch.Tensor) -> Array:
    return t.detach().cpu().numpy()


class SampleRows:
    """A sample of ``n`` points ``(x_i, y_i)``, ``x_i ∈ ℝ^d``, read in chunks of rows (the empirical
    loss on it: :class:`gaugecli.core.samples.empirical.EmpiricalSample`).

    Either *stored* — ``X (n, d)`` and ``y (n,)`` as tensors on ``device`` — or *streamed*:
    ``X`` regenerated from ``seed`` by :func:`numpy.random.default_rng` at every pass, block by
    block (the same numbers as :func:`draw_sample`; memory ``O(chunk)``, time ~7× per pass).
    Each pass holds at most ``chunk_bytes`` per ``rows × columns`` intermediate. The student's
    activation is ``activation`` (default: the model's for a streamed sample, else ReLU).
    ``sphere``: the inputs are the Gaussian draws divided by their norms (:func:`draw_sample`).
    """

    def __init__(
        self,
        n: int,
        d: int,
        *,
        X: torch.Tensor | None = None,
        y: torch.Tensor | None = None,
        model: Model | None = None,
        seed: Seed | None = None,
        device: torch.device | str = "cpu",
        chunk_bytes: int = DEFAULT_CHUNK_BYTES,
        activation: Activation | None = None,
        sphere: bool = False,
    ) -> None:
        if (X is None) != (y is None) or (X is None and (model is None or seed is None)):
            raise ValueError("EmpiricalSample: give X and y (stored), or model and seed (streamed)")
        import torch

        self.n, self.d = int(n), int(d)
        self.X, self.y = X, y
        self.model, self.seed = model, seed
        self.activation = activation or (model.activation if model is not None else ReLU())
        self.device = torch.device(device) if isinstance(device, str) else device
        self.chunk_bytes = int(chunk_bytes)
        self.sphere = bool(sphere)

    # -- construction -----------------------------------------------------------------

    @classmethod
    def from_arrays(
        cls,
        X: Array,
        y: Array,
        *,
        device: str = "cpu",
        chunk_bytes: int = DEFAULT_CHUNK_BYTES,
        activation: Activation | None = None,
    ) -> Self:
        """A stored sample from arrays (on the CPU: shared with them, no copy); the student's
        activation ``activation`` (default ReLU)."""
        import torch

        dev = resolve_device(device)
        Xt = torch.from_numpy(np.ascontiguousarray(X, dtype=np.float64)).to(dev)
        yt = torch.from_numpy(np.ascontiguousarray(y, dtype=np.float64)).to(dev)
        n, d = Xt.shape[-2:]
        return cls(n, d, X=Xt, y=yt, device=dev, chunk_bytes=chunk_bytes, activation=activation)

    @classmethod
    def draw(
        cls,
        model: Model,
        n: int,
        seed: Seed,
        *,
        device: str = "cpu",
        store: bool | None = None,
        chunk_bytes: int = DEFAULT_CHUNK_BYTES,
        sphere: bool = False,
    ) -> Self:
        """The sample of :func:`draw_sample` (same numbers), stored on ``device`` or streamed.

        ``store=None``: keep it if ``8 n (d + 1) ≤`` :data:`STORE_LIMIT_BYTES` (on a GPU, and
        under half its free memory). It is drawn block by block straight into its tensor, so
        a GPU run never holds it in host memory."""
        import torch

        dev = resolve_device(device)
        d = model.d
        if store is None:
            size = 8 * n * (d + 1)
            store = size <= STORE_LIMIT_BYTES
            if dev.type == "cuda":
                store = store and size <= torch.cuda.mem_get_info(dev)[0] // 2
        if not store:
            return cls(n, d, model=model, seed=seed, device=dev, chunk_bytes=chunk_bytes, sphere=sphere)
        act = model.activation
        if dev.type == "cpu":
            X, y = draw_sample(model, n, seed, sphere)
            return cls(
                n, d, X=torch.from_numpy(X), y=torch.from_numpy(y), device=dev, chunk_bytes=chunk_bytes, activation=act
            )
        Xt = torch.empty((n, d), dtype=torch.float64, device=dev)
        yt = torch.empty(n, dtype=torch.float64, device=dev)
        streamed = cls(n, d, model=model, seed=seed, device=dev, chunk_bytes=chunk_bytes, sphere=sphere)
        start = 0
        for Xc, yc in streamed.chunks(d + model.k):
            Xt[start : start + Xc.shape[0]] = Xc
            yt[start : start + Xc.shape[0]] = yc
            start += Xc.shape[0]
        return cls(n, d, X=Xt, y=yt, device=dev, chunk_bytes=chunk_bytes, activation=act)

    # -- reading ----------------------------------------------------------------------

    @property
    def stored(self) -> bool:
        return self.X is not None

    @property
    def name(self) -> str:
        """As in solver statistics: ``empirical n=…`` (with the device where not the CPU)."""
        where = "" if self.device.type == "cpu" else f" on {self.device.type}"
        stack = "" if self.members is None else f", one of {self.members} samples per member"
        return f"empirical n={self.n}{stack}{where}"

    def rows_per_chunk(self, width: int) -> int:
        """Rows of a chunk whose widest intermediate has ``width`` columns (and ``X``'s ``d``)."""
        return chunk_rows(self.chunk_bytes, max(width, self.d))

    def chunks(self, width: int) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        """``(X_c, y_c)`` over consecutive blocks of rows, on the sample's device."""
        import torch

        rows = self.rows_per_chunk(width)
        if self.X is not None and self.y is not None:
            for start in range(0, self.n, rows):
                yield self.X[..., start : start + rows, :], self.y[..., start : start + rows]
            return
        assert self.model is not None and self.seed is not None
        rng = np.random.default_rng(self.seed)
        for start in range(0, self.n, rows):
            Xc = rng.standard_normal((min(rows, self.n - start), self.d))
            if self.sphere:
                Xc /= np.linalg.norm(Xc, axis=1, keepdims=True)
            yc = self.model(Xc)
            yield torch.from_numpy(Xc).to(self.device), torch.from_numpy(yc).to(self.device)

    def arrays(self) -> tuple[Array, Array]:
        """``(X, y)`` as numpy arrays (materialised: a streamed sample is drawn in full)."""
        if self.X is not None and self.y is not None:
            return to_numpy(self.X), to_numpy(self.y)
        assert self.model is not None and self.seed is not None
        return draw_sample(self.model, self.n, self.seed, self.sphere)

    @classmethod
    def stack(
        cls, samples: list[tuple[Array, Array]], *, device: str = "cpu", activation: Activation | None = None
    ) -> Self:
        """One sample per ensemble member: ``X (B, n, d)``, ``y (B, n)`` from ``B`` samples ``(X_b, y_b)``
        of one size ``n``; the gradient and Hessian of member ``b`` (leading axis of ``a``, ``W``) are
        those of ``L_n`` on sample ``b``."""
        sizes = {np.shape(X) for X, _ in samples}
        if len(sizes) != 1 or len(next(iter(sizes))) != 2:
            raise ValueError(f"EmpiricalSample.stack: samples must share one shape (n, d) (got {sorted(sizes)})")
        X = np.stack([np.asarray(X, float) for X, _ in samples])
        y = np.stack([np.asarray(y, float) for _, y in samples])
        return cls.from_arrays(X, y, device=device, activation=activation)

    @property
    def members(self) -> int | None:
        """How many samples a stack holds (``None``: one sample, shared by every member)."""
        return None if self.X is None or self.X.dim() == 2 else int(self.X.shape[0])

    def holding(self, X: torch.Tensor, y: torch.Tensor) -> Self:
        """A stored sample of these rows ``X (…, n', d)``, ``y (…, n')`` (a batch, a stack's members) on
        this sample's device, chunk size and activation."""
        return type(self)(
            X.shape[-2], self.d, X=X, y=y, device=self.device, chunk_bytes=self.chunk_bytes, activation=self.activation
        )

    def _tensor(self, x: Array) -> torch.Tensor:
        import torch

        return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64)).to(self.device)
