"""The population gradient flow on a uniform "epoch" grid ``t_k = k τ`` (RELATED.md §2): a save
policy of the package's one integrator.

It is the trajectory the lock-in diagnostics (:mod:`gaugecli.core.lockin`) read, optionally
restricted to the invariant set where duplicates of one gauge class stay equal. The right-hand side
and Jacobian are the population objective's (:func:`gaugecli.core.objective.population_objective`,
as :func:`gaugecli.core.flow.gradient_flow` integrates), solved by the same call
(:func:`gaugecli.core.saveat.integrate`: LSODA, one BLAS thread); what differs is only where the
states are saved (:class:`gaugecli.core.saveat.SaveAt`): on a declared grid, or on a uniform grid
whose step is set by this flow's own ``T_spec`` (a terminal event, then the dense output).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from gaugecli.core.flow import one_blas_thread
from gaugecli.core.metrics import alignment
from gaugecli.core.model import Model
from gaugecli.core.objective import population_objective
from gaugecli.core.saveat import SaveAt, integrate
from gaugecli.core.tolerance import POPULATION_RTOL, Tolerance
from gaugecli.core.trajectory import NumericalFault
from gaugecli.core.types import Array


def _class_projector(m: int, d: int, groups: list[list[int]]) -> Array:
    """``Π`` (``P × P``, ``P = m(d+1)``) averaging ``(a_j, w_j)`` over each group: the orthogonal
    projector onto the invariant set where every group's members are equal."""
    P = m * (d + 1)
    Pi = np.eye(P)
    for g in groups:
        idx = np.asarray(g)
        for block in [idx] + [m + idx * d + k for k in range(d)]:
            Pi[np.ix_(block, block)] = 1.0 / len(g)
    return Pi


class FlowSamples(NamedTuple):
    """States ``a (n, m)``, ``W (n, m, d)`` at ``t (n,)`` and the first time ``max_j α_j`` reaches
    ``1 − ε_align`` (``None`` if not within the horizon; 0 if aligned at the start)."""

    t: Array
    a: Array
    W: Array
    t_spec: float | None


_SPAN_OR_TIMES = "give exactly one of span (grid from this flow's T_spec) or times"


def population_flow_on_grid(
    a0: Array,
    W0: Array,
    model: Model,
    eps_align: float,
    *,
    span: float | None = None,
    times: Array | None = None,
    per: int = 200,
    groups: list[list[int]] | None = None,
    rtol: float = POPULATION_RTOL,
    t_max: float = 1e6,
) -> FlowSamples:
    """Population gradient flow ``θ̇ = −∇L`` from ``(a0 (m,), W0 (m, d))`` sampled on a uniform grid.

    Either ``times`` is given, or the grid is ``k T_spec/per`` for ``k = 0 … span·per``, with
    ``T_spec`` the first time ``max_j α_j = 1 − ε_align`` of this very flow (located as a terminal
    solver event, then the flow continues to ``span · T_spec``). The right-hand side and Jacobian are
    those of :func:`gaugecli.core.flow.gradient_flow` (closed-form gradient and Hessian, LSODA,
    one BLAS thread), but the states come on the uniform grid the diagnostics need.

    ``groups``: integrate the flow *restricted to the invariant set* where each group's members are
    equal, ``θ̇ = −Π∇L(Πθ)`` (``Π`` averages over each group), so that round-off cannot split
    them; this is the trajectory on which the duplicates' separation rate is defined.
    """
    if (span is None) == (times is None):
        raise ValueError(_SPAN_OR_TIMES)
    a0, W0 = np.asarray(a0, float), np.asarray(W0, float)
    m, d = W0.shape
    Pi = _class_projector(m, d, groups) if groups else None
    threshold = 1.0 - eps_align
    objective = population_objective(model)  # its gradient and Hessian, as gradient_flow's

    def split(y: Array) -> tuple[Array, Array]:
        return y[:m], y[m:].reshape(m, d)

    def rhs(_t: float, y: Array) -> Array:
        if Pi is not None:
            y = Pi @ y
        ga, gW, _ = objective.gradient(*split(y))
        out = -np.concatenate([ga, gW.ravel()])
        return out if Pi is None else Pi @ out

    def jac(_t: float, y: Array) -> Array:
        if Pi is not None:
            y = Pi @ y
        H = -objective.hessian(*split(y))  # type: ignore[misc]
        return H if Pi is None else Pi @ H @ Pi

    def aligned(_t: float, y: Array) -> float:
        W = split(y)[1]
        return float(np.max(alignment(W, model)[0]) - threshold)

    aligned.direction = 1  # type: ignore[attr-defined]
    tolerance = Tolerance(rtol, "LSODA")
    y0 = np.concatenate([a0, W0.ravel()])

    def solve(t0: float, t1: float, y: Array, terminal: bool | None, times: Array | None = None) -> Any:
        """``terminal``: stop at the first alignment (True), record it (False), or no event (None);
        ``times``: save there (else the dense output)."""
        if terminal is not None:
            aligned.terminal = terminal  # type: ignore[attr-defined]
        save = SaveAt(times=times, dense=times is None, events=() if terminal is None else (aligned,))
        return integrate(
            rhs, (t0, t1), y, method=tolerance.method, rtol=tolerance.rtol, atol=tolerance.atol, save=save, jac=jac
        )

    with one_blas_thread():
        start_aligned = aligned(0.0, y0) >= 0
        t_spec: float | None
        if times is None:
            if span is None:  # excluded above; narrows the type
                raise ValueError(_SPAN_OR_TIMES)
            if start_aligned:
                raise ValueError("the flow starts aligned (T_spec = 0): give the grid times explicitly")
            first = solve(0.0, t_max, y0, True)
            if first.status != 1:
                raise NumericalFault(f"no neuron reached alignment 1 − ε = {threshold:g} by t = {t_max:g}; raise t_max")
            t_spec = float(first.t_events[0][0])
            times = np.arange(round(span * per) + 1) * (t_spec / per)
            rest = solve(t_spec, float(times[-1]), first.y[:, -1], None)
            Y = np.empty((times.size, y0.size))
            before = times <= t_spec
            Y[before] = first.sol(times[before]).T
            if np.any(~before):
                Y[~before] = rest.sol(times[~before]).T
            Y[0] = y0
        else:
            times = np.asarray(times, float)
            sol = solve(0.0, float(times[-1]), y0, False, times)
            Y = sol.y.T
            hits = sol.t_events[0]
            t_spec = 0.0 if start_aligned else (float(hits[0]) if hits.size else None)
    if Pi is not None:
        Y = Y @ Pi  # Π is symmetric: removes the round-off the solver's linear algebra adds
    a, W = Y[:, :m], Y[:, m:].reshape(-1, m, d)
    return FlowSamples(times, a, W, t_spec)
