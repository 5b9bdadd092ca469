"""The student's parameters ``θ = (a_j, w_j)_j`` as one object (SPEC: ``f(x) = Σ_j a_j σ(w_j·x)``).

:class:`Network` holds the layers as fields — the readout ``a (…, m)`` and the input weights
``W (…, m, d)`` — with any leading ensemble or time axes ``…`` shared by both; the solvers see it
flattened, member by member, as ``θ = (a_1 … a_m, w_1 … w_m)`` (:meth:`Network.flatten`, the order
of every closed-form Hessian of the package), and read it back with :meth:`Network.unflatten`. A
network with more layers is more fields here and a longer flattened vector; whatever takes a
:class:`Network` need not change its signature.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from gaugecli.core.types import Array


@dataclass(frozen=True)
class Network:
    """``θ = (a, W)``: readout ``a (…, m)`` and input weights ``W (…, m, d)`` (row ``j`` is ``w_j``),
    with the same leading axes ``…`` (an ensemble, a trajectory's times; none for one network).

    Frozen: a flow or a step makes a new one. The arrays are stored as given (no copy, no cast)."""

    a: Array
    W: Array

    @classmethod
    def of(cls, a: Array, W: Array) -> Network:
        """``θ`` from array-likes, as float64 arrays (the solvers' dtype; a copy only where a cast is needed)."""
        return cls(np.asarray(a, float), np.asarray(W, float))

    @property
    def m(self) -> int:
        """Neurons per network."""
        return int(self.W.shape[-2])

    @property
    def d(self) -> int:
        """Input dimension."""
        return int(self.W.shape[-1])

    @property
    def batch(self) -> tuple[int, ...]:
        """The leading (ensemble, time) axes."""
        return tuple(self.a.shape[:-1])

    @property
    def size(self) -> int:
        """``P = m (d + 1)``: unknowns per network in the flattened ``θ``."""
        return self.m * (self.d + 1)

    def flatten(self) -> Array:
        """``θ`` as one vector: each network's ``(a_1 … a_m, w_1 … w_m)``, the networks one after another."""
        batch, m, d = self.batch, self.m, self.d
        return np.concatenate([self.a.reshape(batch + (m,)), self.W.reshape(batch + (m * d,))], axis=-1).ravel()

    @classmethod
    def unflatten(cls, z: Array, m: int, d: int, batch: tuple[int, ...] = ()) -> Network:
        """The inverse of :meth:`flatten` for ``batch`` networks of ``m`` neurons in ``d`` dimensions
        (views of ``z``, no copy)."""
        Z = z.reshape(batch + (m * (d + 1),))
        return cls(Z[..., :m], Z[..., m:].reshape(batch + (m, d)))

    def members(self) -> Network:
        """The leading axes as one: ``a (B, m)``, ``W (B, m, d)`` with ``B`` = their product (views)."""
        return Network(self.a.reshape(-1, self.m), self.W.reshape(-1, self.m, self.d))

    def __getitem__(self, index: Any) -> Network:
        """The networks at ``index`` of the leading axes (``theta[k]``, ``theta[idx]``)."""
        return Network(self.a[index], self.W[index])

    def reshaped(self, batch: tuple[int, ...]) -> Network:
        """The same networks with leading axes ``batch`` (as many in all)."""
        if math.prod(batch) != math.prod(self.batch):
            raise ValueError(f"Network.reshaped: {self.batch} has {math.prod(self.batch)} networks, not {batch}")
        return Network(self.a.reshape(batch + (self.m,)), self.W.reshape(batch + (self.m, self.d)))
