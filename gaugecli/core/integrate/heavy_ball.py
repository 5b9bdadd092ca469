"""The heavy-ball flow ``θ̈ + γθ̇ = −∇J(θ)``: momentum's ODE limit, to tell "momentum" from "finite step".

Torch's momentum with learning rate ``η`` and ``β`` unrolls to ``θ_{k+1} − θ_k = β(θ_k − θ_{k−1}) − η g_k``.
With a time step ``h`` per iterate (``t = kh``), ``η = h²`` and ``β = 1 − γh`` this is the central
difference ``(θ_{k+1} − 2θ_k + θ_{k−1})/h² + γ(θ_k − θ_{k−1})/h = −∇J(θ_k)``, a first-order scheme
for the flow above (started at rest, ``θ̇(0) = 0``, as torch's zero buffer). Its gauge quantity obeys
no conservation law (Marcotte, Gribonval & Peyré 2024): with ``p = 1``, ``δ = a² − ‖w‖²`` and Euler's
identity ``a ∂_a L = w·∇_w L`` give ``δ̈ + γδ̇ = 2(ȧ² − ‖ẇ‖²)``, a kinetic imbalance that drives δ.

The doubled state ``(θ, θ̇)`` is solved by :func:`gaugecli.core.integrate.saveat.integrate` (the package's one
``solve_ivp`` call); the crossings ``α_j = 1 − ε`` are its events on the dense output.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.core.defaults import EPS_ALIGN
from gaugecli.core.integrate.saveat import Event, SaveAt, integrate
from gaugecli.core.integrate.trajectory import SolverStats, Trajectory
from gaugecli.core.model.metrics import alignment
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population.objective import Objective, population_objective
from gaugecli.core.types import Array

HEAVY_BALL_METHOD = "DOP853"
"""An explicit high-order method: the doubled system is not stiff at the model's rates (γ ~ 1)."""


def heavy_ball_solve(
    theta0: Network,
    gamma: float,
    t_max: float,
    objective: Objective,
    *,
    rtol: float = 1e-10,
    atol: float = 1e-12,
    save: SaveAt | None = None,
) -> Any:
    """``solve_ivp``'s solution of ``θ̈ = −γθ̇ − ∇J(θ)`` from ``θ0 = (a0 (m,), W0 (m, d))`` at rest: rows
    of ``y`` are ``(a, W.ravel(), ȧ, Ẇ.ravel())`` (the velocities too, for the laws that read them)."""
    a0, W0 = np.asarray(theta0.a, float), np.asarray(theta0.W, float)
    m, d = W0.shape
    n = m * (d + 1)

    packed = objective.packed  # the compiled gradient in this packing, where it applies: the same numbers

    def rhs(_t: float, y: Array) -> Array:
        if packed is not None:  # the unpacking and the objective's dispatch cost more than the compiled sum
            g = packed(y[None, :n])[0]
        else:
            ga, gW, _ = objective.gradient(y[:m], y[m:n].reshape(m, d))
            g = np.concatenate([ga, gW.ravel()])
        return np.concatenate([y[n:], -gamma * y[n:] - g])

    y0 = np.concatenate([a0, W0.ravel(), np.zeros(n)])
    return integrate(rhs, (0.0, t_max), y0, method=HEAVY_BALL_METHOD, rtol=rtol, atol=atol, save=save or SaveAt())


def heavy_ball_flow(
    theta0: Network,
    model: Model,
    gamma: float,
    t_max: float,
    *,
    objective: Objective | None = None,
    eps_align: float = EPS_ALIGN,
    rtol: float = 1e-10,
    atol: float = 1e-12,
    grid_points: int = 400,
) -> Trajectory:
    """``θ̈ = −γθ̇ − ∇J(θ)`` from ``θ0 = (a0 (m,), W0 (m, d))`` at rest, to ``t_max``; one network (no
    ensemble axis). ``crossing_times[j]``: the first root of ``α_j − (1 − ε)`` (NaN: none before ``t_max``)."""
    objective = objective or population_objective(model)
    W0 = np.asarray(theta0.W, float)
    m, d = W0.shape
    n = m * (d + 1)

    def crossing(j: int) -> Event:
        def event(_t: float, y: Array) -> float:
            return float(alignment(y[m:n].reshape(m, d), model)[0][j] - (1.0 - eps_align))

        event.direction = 1.0  # type: ignore[attr-defined]
        return event

    times = np.concatenate([[0.0], np.geomspace(min(1e-3, t_max / 10), t_max, grid_points - 1)])
    save = SaveAt(times=times, events=[crossing(j) for j in range(m)])
    sol = heavy_ball_solve(theta0, gamma, t_max, objective, rtol=rtol, atol=atol, save=save)
    start = alignment(W0, model)[0] >= 1.0 - eps_align
    crossing_times = np.array(
        [0.0 if start[j] else (sol.t_events[j][0] if len(sol.t_events[j]) else np.nan) for j in range(m)]
    )
    states = sol.y[:n].T
    a = states[:, :m]
    W = states[:, m:].reshape(-1, m, d)
    ga, gW, _ = objective.gradient(a[-1], W[-1])
    gradient_norm = float(np.sqrt(np.sum(ga**2) + np.sum(gW**2)))
    return Trajectory(
        t=sol.t,
        a=a,
        W=W,
        crossing_times=crossing_times,
        eps_align=eps_align,
        stats=SolverStats(
            "heavy-ball",
            len(sol.t),
            int(sol.nfev),
            0,
            f"heavy-ball flow γ = {gamma:g}: {sol.message}",
            objective=objective.name,
            population=objective.population,
        ),
        converged=np.asarray(gradient_norm <= 1e-10),
    )
