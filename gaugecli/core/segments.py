"""One flow as solved: the dense output of a solve restarted in segments (:class:`Piecewise`) and what
a solve over ``n`` members hands back to :func:`gaugecli.core.flow.gradient_flow` (:class:`Solved`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gaugecli.core.absorption import NearZero
from gaugecli.core.types import Array, Indices


class Piecewise:
    """The dense output of a flow solved in segments (restarted where a neuron near ``w = 0`` was
    slaved or freed): segment ``s`` covers ``[starts[s], starts[s + 1])``; at a restart time the state
    is the new segment's. ``near``: the member's :class:`~gaugecli.core.absorption.NearZero`, whose
    extra states it drops and whose slaved neurons it rebuilds; ``None``: the states as solved."""

    def __init__(self, sols: list[Any], starts: list[float], near: NearZero | None) -> None:
        self.sols, self.starts, self.near = sols, np.asarray(starts, float), near

    def segment(self, t: Array) -> Indices:
        return np.clip(np.searchsorted(self.starts, t, side="right") - 1, 0, len(self.sols) - 1)

    def __call__(self, t: Array) -> Array:
        """States ``(n·P, len(t))`` at the times ``t`` (any order)."""
        t = np.atleast_1d(np.asarray(t, float))
        if len(self.sols) == 1 and self.near is None:
            return self.sols[0](t)
        seg = self.segment(t)
        Y = np.empty((self.sols[0](t[:1]).shape[0], t.size))
        for s in np.unique(seg):
            here = seg == s
            Y[:, here] = self.sols[s](t[here])
        if self.near is None:
            return Y
        return self.near.observed(seg, Y.T).T


@dataclass
class Solved:
    """One flow over ``n`` members (one solve_ivp run, or several stitched at the events of a
    neuron near ``w = 0``): its dense output, stored steps and per-member crossings."""

    dense: Piecewise
    t_end: float
    y0: Array
    n: int
    crossing: Array  # (n, m)
    held_at: Array  # (n, m): the first time w_j reached the slaving level (NaN: never)
    converged: Array  # (n,)
    steps: int
    grad_evals: int
    hess_evals: int
    method: str
    message: str

    def states(self, grid: Array) -> Array:
        """States ``(len(grid), n·P)``; beyond a converged run's end its final state is held
        (it moves at speed ≤ grad_tol there)."""
        Y = self.dense(np.minimum(grid, self.t_end)).T
        Y[grid == 0.0] = self.y0
        return Y
