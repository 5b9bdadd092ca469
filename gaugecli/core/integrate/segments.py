"""One flow as solved in segments: the solve restarted at each event of a neuron near ``w = 0``
(:func:`solve_restarted`), the dense output stitched from its segments (:class:`Piecewise`), and what
a solve over ``n`` members hands back to :func:`gaugecli.core.integrate.flow.gradient_flow` (:class:`Solved`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gaugecli.core.integrate.absorption import NearZero
from gaugecli.core.integrate.saveat import Event
from gaugecli.core.types import Array, Indices


class Piecewise:
    """The dense output of a flow solved in segments (restarted where a neuron near ``w = 0`` was
    slaved or freed): segment ``s`` covers ``[starts[s], starts[s + 1])``; at a restart time the state
    is the new segment's. ``near``: the member's :class:`~gaugecli.core.integrate.absorption.NearZero`, whose
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


@dataclass
class Restarts:
    """The segments of one solve: each one's dense output, start, stored steps ``t`` and states ``y``
    (``solve_ivp``'s layout), whether the convergence event ended it, and the last solve's message."""

    sols: list[Any] = field(default_factory=list)
    starts: list[float] = field(default_factory=list)
    t_steps: list[Array] = field(default_factory=list)
    y_steps: list[Array] = field(default_factory=list)
    stopped: bool = False
    message: str = ""


def solve_restarted(
    solve: Callable[[float, Array, list[Event]], Any], y: Array, near: NearZero | None, convergence: Event | None
) -> Restarts:
    """Solve from ``t = 0`` and state ``y`` (``solve(t0, y, events)``: one ``solve_ivp`` run on to the
    horizon), restarting at each event of a neuron near ``w = 0`` (slaved, freed:
    :meth:`NearZero.switch`) until the horizon or the terminal ``convergence`` event; without a neuron
    near 0 it is one run."""
    out = Restarts()
    t0 = 0.0
    while True:
        events: list[Event] = [convergence] if convergence is not None else []
        if near is not None:
            events += near.events()
        sol = solve(t0, y, events)
        out.sols.append(sol.sol)
        out.starts.append(t0)
        out.t_steps.append(sol.t)
        out.y_steps.append(sol.y)
        out.message = str(sol.message)
        if sol.status != 1:
            return out
        fired = [e for e, times in zip(events, sol.t_events, strict=True) if times.size]
        if convergence is not None and convergence in fired:
            out.stopped = True
            return out
        assert near is not None
        t0, y = float(sol.t[-1]), near.switch(float(sol.t[-1]), sol.y[:, -1], fired)
