"""Where a flow stores its states, apart from how it is solved (as diffrax's ``SaveAt`` beside its
solver): a declared grid, the dense output, events (:class:`SaveAt`) — and the one ``solve_ivp``
call of the package's flows (:func:`integrate`), which :mod:`gaugecli.core.flow` and the
uniform-grid flow of :mod:`gaugecli.core.flow_grid` both solve with."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scipy.integrate import solve_ivp

from gaugecli.core.trajectory import NumericalFault
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


def integrate(
    rhs: Callable[[float, Array], Array],
    t_span: tuple[float, float],
    y0: Array,
    *,
    method: str,
    rtol: float,
    atol: float,
    save: SaveAt,
    **solver: Any,
) -> Any:
    """Solve ``ẏ = rhs(t, y)`` over ``t_span`` from ``y0`` by ``method`` at tolerances ``rtol``,
    ``atol``, keeping what ``save`` asks; ``solver``: the method's own options (``jac``, the band
    of a banded Jacobian). Returns ``solve_ivp``'s result; a failed solve is a :class:`NumericalFault`."""
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
