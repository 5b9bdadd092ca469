"""The population flow of an ensemble by ODEPACK's LSODA through :func:`scipy.integrate.odeint`
(``FlowOptions(method="odeint")``): the same algorithm as the default path
(:func:`gaugecli.core.integrate.flow.gradient_flow`: LSODA over a chunk of similar members on shared
steps, the closed-form Hessian as a banded Jacobian), called once per chunk from C with a compiled
right-hand side, so that no Python runs per step — solve_ivp's step machinery was 1.5–5.4 ms of a
phase map's 11–17 ms per cell (profiled; docs/design.md). Each member ``alone`` (its own steps, one call
each) is the other choice measured: ~11× the right-hand sides of a shared row, slower.

``odeint`` keeps no dense output; it returns the states at the times asked for, interpolated by LSODA
from its Nordsieck history (as ``solve_ivp``'s dense output is). They are asked on a fine log grid of
:data:`FINE_POINTS` times over the flow's twelve decades (with the declared grid and any other
declared time among them); between two of them the state is the cubic Hermite interpolant of the
states and velocities ``−∇L`` at both ends. The fine grid brackets each crossing ``α_j = 1 − ε``, and
:func:`~gaugecli.core.integrate.crossings.first_crossings` locates it on that interpolant as the default
path does on its dense output.

It applies (:func:`applies`) to population flows of the ReLU family's compiled closed forms
(:mod:`gaugecli.core.population.fused`) without weight decay; elsewhere, and for a member that can reach
``w = 0`` (:mod:`gaugecli.core.integrate.absorption`), the default path runs."""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.integrate import odeint

from gaugecli.core.integrate.crossings import GRID_DECADES, first_crossings
from gaugecli.core.integrate.flow_options import FlowOptions
from gaugecli.core.integrate.jacobian import BlockDiagonal
from gaugecli.core.integrate.members import solved
from gaugecli.core.integrate.segments import Solved
from gaugecli.core.integrate.trajectory import NumericalFault, log_time_grid
from gaugecli.core.model.metrics import alignment
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population import fused
from gaugecli.core.population.dynamics import _fused_weights
from gaugecli.core.population.objective import Objective
from gaugecli.core.types import Array, Indices

FINE_POINTS = 4096
"""Times of the fine log grid on which ``odeint`` reports the states (module docstring): neighbours
``10^(12/4095)`` apart, 0.68 %. The interpolant's error falls as ``h⁴``: T_spec of a 9 × 9 map (D = 1…64,
c0 = 0.01…1, −D) was within 2.3e-8 relative of the default path's at 1024 points, 1.9e-9 at 2048 and
5.0e-10 at 4096, where the two solvers' own difference is reached (+D: 5.9e-9, 5.2e-10, 1.9e-10)."""

_jit = njit(cache=True, nogil=True, error_model="numpy")


@_jit
def _velocity(y, t, n, m, b, V, A, B):  # odeint passes t
    """``ẏ = −∇L(y)`` of ``n`` members' packed states ``y (n·P,)``."""
    Y = y.reshape(n, y.size // n)
    G = np.empty_like(Y)
    fused._gradient(Y, m, b, V, A, B, G)
    return -G.ravel()


def compile_loops() -> None:
    """Compile the right-hand side now (or load it from numba's on-disk cache) for the argument types
    ``odeint`` passes, as :func:`gaugecli.core.population.fused.compile_loops` (~0.9 s of CPU the first
    time on a machine, measured, with the fused loops loaded; ~0.05 s to load after)."""
    _velocity(np.array([1.0, 1.0, 0.5]), 0.0, 1, 1, np.array([1.0]), np.array([[0.0, 1.0]]), 1.0, 0.0)


def applies(model: Model, objective: Objective) -> bool:
    """Whether this path can take the flow of ``objective`` on ``model``: the population loss with
    the compiled closed forms, no weight decay."""
    return objective.population and model.weight_decay == 0.0 and _fused_weights(model) is not None


class _Hermite:
    """States of ``n`` members at any time in ``[0, t_end]`` from their states ``Y (n, T, P)`` at the
    times ``t (T,)``: exact at those times, the cubic Hermite interpolant between them (velocities
    from ``velocity(Y)``, evaluated only at the ends of the intervals asked for)."""

    def __init__(self, t: Array, Y: Array, velocity: object) -> None:
        self.t, self.Y, self.velocity = t, Y, velocity

    def __call__(self, times: Array) -> Array:
        """``(n·P, len(times))``, as :class:`~gaugecli.core.integrate.segments.Piecewise`."""
        times = np.atleast_1d(np.asarray(times, float))
        n, _, P = self.Y.shape
        k = np.clip(np.searchsorted(self.t, times, side="right") - 1, 0, self.t.size - 2)
        out = self.Y[:, k, :].copy()  # (n, len, P): exact where the time is a stored one
        between = times != self.t[k]
        if np.any(between):
            kb, tb = k[between], times[between]
            t0, t1 = self.t[kb], self.t[kb + 1]
            h = t1 - t0
            s = (tb - t0) / h
            y0, y1 = self.Y[:, kb, :], self.Y[:, kb + 1, :]
            f0 = self.velocity(y0.reshape(-1, P)).reshape(y0.shape)  # type: ignore[operator]
            f1 = self.velocity(y1.reshape(-1, P)).reshape(y1.shape)  # type: ignore[operator]
            s2, s3 = s * s, s * s * s
            h00, h10, h01, h11 = 2 * s3 - 3 * s2 + 1, s3 - 2 * s2 + s, -2 * s3 + 3 * s2, s3 - s2
            out[:, between, :] = (
                h00[:, None] * y0 + (h10 * h)[:, None] * f0 + h01[:, None] * y1 + (h11 * h)[:, None] * f1
            )
        return np.moveaxis(out, 0, 1).reshape(times.size, n * P).T


def solve_members(
    theta0: Network,
    model: Model,
    t_max: float,
    eps_align: float,
    options: FlowOptions,
    extra_times: Array | None,
    *,
    alone: bool = False,
) -> Solved:
    """The flows of the ``n`` members of ``θ0`` (``a (n, m)``, ``W (n, m, d)``) by ``odeint`` at
    ``options``' tolerances, as one :class:`Solved` (module docstring): one system on shared steps
    with the block-diagonal Jacobian as a band (as the default path's chunk), or each member ``alone``."""
    n, m, d = theta0.W.shape
    P = m * (d + 1)
    weights = _fused_weights(model)
    assert weights is not None  # applies() holds
    b, V = np.ascontiguousarray(model.coefficients, float), np.ascontiguousarray(model.directions, float)
    A, B = float(weights[0]), float(weights[1])
    t = log_time_grid(t_max * 10.0**-GRID_DECADES, t_max, options.grid_points)
    fine = log_time_grid(t_max * 10.0**-GRID_DECADES, t_max, FINE_POINTS)
    extra = np.empty(0) if extra_times is None else np.clip(np.asarray(extra_times, float), 0.0, t_max)
    times = np.unique(np.concatenate([[0.0], t, fine, extra]))
    y0 = theta0.flatten().reshape(n, P)
    Y = np.empty((n, times.size, P))
    steps = grads = hessians = 0
    for group in [np.array([e]) for e in range(n)] if alone else [np.arange(n)]:
        g = group.size
        blocks = BlockDiagonal(g, P, "LSODA")

        def jacobian(y: Array, _t: float, g: int, *_: object) -> Array:  # odeint passes the args after t
            H = np.zeros((g, P, P))
            fused._hessian(y.reshape(g, P), m, b, V, A, B, H)
            return blocks(-H)  # noqa: B023 - called within this iteration only

        band = {"ml": P - 1, "mu": P - 1} if g > 1 else {}
        solution, info = odeint(
            _velocity,
            y0[group].ravel(),
            times,
            args=(g, m, b, V, A, B),
            Dfun=jacobian,
            rtol=options.rtol,
            atol=options.atol,
            tcrit=np.array([t_max]),  # as solve_ivp's LSODA: no step past the horizon
            mxstep=options.max_gradient_evals,
            full_output=True,
            **band,
        )
        if info["message"] != "Integration successful." or not np.all(np.isfinite(solution)):
            raise NumericalFault(f"gradient flow (odeint) failed: {info['message']}; try a smaller rtol")
        Y[group] = np.moveaxis(solution.reshape(times.size, g, P), 0, 1)
        steps += int(info["nst"][-1])
        grads += int(info["nfe"][-1])
        hessians += int(info["nje"][-1])
    if grads > options.max_gradient_evals:
        raise NumericalFault(
            f"gradient flow (odeint) used {grads} gradient evaluations, past its budget of "
            f"{options.max_gradient_evals}; shorten `t_max` or loosen rtol"
        )
    Y[:, 0] = y0  # the start itself (odeint's first output is y0)

    def velocity(rows: Array) -> Array:
        return -fused.gradient_packed(np.ascontiguousarray(rows), m, b, V, weights)

    dense = _Hermite(times, Y, velocity)
    align = alignment(Network.unflatten(np.moveaxis(Y, 0, 1), m, d, (times.size, n)).W, model)[0]  # (T, n, m)

    def aligned_at(ts: Array, members: Indices, neurons: Indices) -> Array:
        W = Network.unflatten(dense(ts).T, m, d, (ts.size, n)).W
        return alignment(W[np.arange(ts.size), members, neurons], model)[0]

    crossing = first_crossings(times, align, 1.0 - eps_align, aligned_at)
    return solved(
        theta0,
        model,
        t_max,
        options,
        dense,
        Y[:, -1],
        crossing,
        (steps, grads, hessians),
        "odeint",
        "odeint: LSODA per member",
    )
