"""Where a flow stores its states, apart from how it is solved (as diffrax's ``SaveAt`` beside its
solver): a declared grid, a uniform grid set by an event of the flow itself, the dense output,
events (:class:`SaveAt`, :class:`UniformGrid`) — and the one ``solve_ivp`` call of the package's
flows (:func:`integrate`), with an optional linear constraint (a projector onto an invariant set
the flow is held to). :func:`gaugecli.core.integrate.flow.gradient_flow` and the lock-in's population flow
on an epoch grid (:func:`gaugecli.core.integrate.flow.population_flow_on_grid`) both solve with it."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.integrate import solve_ivp
from threadpoolctl import ThreadpoolController

from gaugecli.core.integrate.trajectory import NumericalFault
from gaugecli.core.types import Array

Event = Callable[[float, Array], float]
"""``(t, y) → g``: a root of ``g`` is an event, located on the dense output (``terminal``/``direction``
attributes as :func:`scipy.integrate.solve_ivp` reads them)."""


@dataclass(frozen=True)
class SaveAt:
    """What a solve keeps: the states at the declared ``times`` (each read off the step that covers
    it, as ``solve_ivp``'s ``t_eval``), the ``dense`` output (a polynomial per step, for times
    chosen later: crossings, log grids), and the roots of ``events`` (a terminal one ends the solve).
    The solver's own steps are always kept."""

    times: Array | None = None
    dense: bool = False
    events: Sequence[Event] = ()
    uniform: UniformGrid | None = None


@dataclass(frozen=True)
class UniformGrid:
    """Save on ``t_k = k T/per``, ``k = 0 … round(span·per)``, with ``T`` the first root of ``event``
    (an increasing crossing, searched up to ``t_max``): the flow is solved to that root as a
    terminal event, then on to ``span·T``, and the grid read off the two dense outputs (the state at
    ``t = 0`` is the start itself). No root by ``t_max`` is a :class:`NumericalFault` saying
    ``unmet``."""

    event: Event
    span: float
    per: int
    t_max: float
    unmet: str = "the event that sets the grid did not fire"


class Saved:
    """What a solve on a :class:`UniformGrid` keeps, in ``solve_ivp``'s layout: the times ``t``,
    the states ``y`` (``P × len(t)``) and ``t_events`` (the root that set the grid)."""

    def __init__(self, t: Array, y: Array, t_events: list[Array]) -> None:
        self.t, self.y, self.t_events = t, y, t_events


@functools.cache
def _threadpools() -> ThreadpoolController:
    # made once per process: a new controller scans every loaded library (~1 ms, per flow)
    return ThreadpoolController()


def one_blas_thread() -> Any:
    """A context in which BLAS runs on one thread (the flows' small dense LUs: threaded BLAS was
    measured 5–7× slower on them on 2 shared cores)."""
    return _threadpools().limit(limits=1, user_api="blas")


def integrate(
    rhs: Callable[[float, Array], Array],
    t_span: tuple[float, float],
    y0: Array,
    *,
    method: str,
    rtol: float,
    atol: float,
    save: SaveAt,
    project: Array | None = None,
    **solver: Any,
) -> Any:
    """Solve ``ẏ = rhs(t, y)`` over ``t_span`` from ``y0`` by ``method`` at tolerances ``rtol``,
    ``atol``, keeping what ``save`` asks; ``solver``: the method's own options (``jac``, the band
    of a banded Jacobian). Returns ``solve_ivp``'s result (on a ``save.uniform`` grid a
    :class:`Saved`); a failed solve is a :class:`NumericalFault`.

    ``project``: a symmetric projector ``Π`` onto an invariant linear set; the flow solved is then
    ``ẏ = Π rhs(t, Π y)`` with Jacobian ``Π J(Π y) Π``, held to the set so that round-off cannot
    leave it. The saved states are the solver's (within its round-off of the set; ``Y Π`` of the
    states ``Y (n, P)`` removes it)."""
    if project is not None:
        rhs, solver = _projected(rhs, solver, project)
    if save.uniform is not None:
        return _on_uniform_grid(rhs, t_span[0], y0, save.uniform, method=method, rtol=rtol, atol=atol, **solver)
    sol = solve_ivp(
        rhs,
        t_span,
        y0,
        method=method,
        rtol=rtol,
        atol=atol,
        t_eval=save.times,
        dense_output=save.dense,
        events=list(save.events) or None,
        **solver,
    )
    if sol.status == -1:
        raise NumericalFault(f"gradient flow failed at t={sol.t[-1]:.4g}: {sol.message}; try a smaller rtol")
    return sol


def _projected(rhs: Callable[[float, Array], Array], solver: dict[str, Any], Pi: Array) -> tuple[Any, dict[str, Any]]:
    """``Π rhs(t, Π y)`` and its Jacobian ``Π J(t, Π y) Π`` (``solver["jac"]``, when given)."""

    def held(t: float, y: Array) -> Array:
        return Pi @ rhs(t, Pi @ y)

    jac = solver.get("jac")
    if jac is None:
        return held, solver

    def held_jac(t: float, y: Array) -> Array:
        return Pi @ jac(t, Pi @ y) @ Pi

    return held, {**solver, "jac": held_jac}


def _on_uniform_grid(
    rhs: Callable[[float, Array], Array], t0: float, y0: Array, grid: UniformGrid, **solver: Any
) -> Saved:
    """The two solves of a :class:`UniformGrid`: to the event's first root (terminal), then on."""

    def stop(t: float, y: Array) -> float:
        return grid.event(t, y)

    stop.terminal = True  # type: ignore[attr-defined]
    stop.direction = getattr(grid.event, "direction", 0)  # type: ignore[attr-defined]
    first = integrate(rhs, (t0, grid.t_max), y0, save=SaveAt(dense=True, events=(stop,)), **solver)
    if first.status != 1:
        raise NumericalFault(grid.unmet)
    t_event = float(first.t_events[0][0])
    times = np.arange(round(grid.span * grid.per) + 1) * (t_event / grid.per)
    rest = integrate(rhs, (t_event, float(times[-1])), first.y[:, -1], save=SaveAt(dense=True), **solver)
    Y = np.empty((times.size, y0.size))
    before = times <= t_event
    Y[before] = first.sol(times[before]).T
    if np.any(~before):
        Y[~before] = rest.sol(times[~before]).T
    Y[0] = y0
    return Saved(times, Y.T, [np.array([t_event])])
