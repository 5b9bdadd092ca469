"""The frozen-gate ReLNs of ``gaugecli reln``: restarts from the ReLU state with the gates frozen at
the current directions, and the fixed-gate envelope (the fastest fixed gate at each loss level)."""

from __future__ import annotations

import math

import numpy as np

from gaugecli.core.integrate.flow import gradient_flow
from gaugecli.core.integrate.trajectory import Trajectory
from gaugecli.core.model.gauge import initial_direction
from gaugecli.core.model.metrics import first_time_below
from gaugecli.core.model.state import Network
from gaugecli.core.population.dynamics import population_loss
from gaugecli.core.reduced.reln import RelnGeometry, reln_floor, reln_flow, reln_geometry, trajectory_loss
from gaugecli.core.types import Array
from gaugecli.experiments.budget import check_flow
from gaugecli.experiments.common import duplicates
from gaugecli.experiments.reln.config import RelnConfig, flow_options, horizon
from gaugecli.experiments.reln.result import RESOLVED_LOSS, RelnEnvelope, RelnRestart
from gaugecli.experiments.reln.series import time_to


def _relu_state_at(tr: Trajectory, b: int, t0: float, config: RelnConfig) -> tuple[Array, Array]:
    """The ReLU state of member ``b`` at exactly ``t0``: from the last saved time before it, flowed
    the rest of the way (a saved grid point is not a restart time)."""
    net = config.model.build()
    i = int(np.searchsorted(tr.t, t0, side="right") - 1)
    a, W = tr.a[b, i], tr.W[b, i]
    if tr.t[i] == t0 or i == tr.t.size - 1:
        return a, W
    check_flow(W[None].shape, flow_options(config).grid_points)
    short = gradient_flow(
        Network(a[None], W[None]), net, t0 - tr.t[i], eps_align=config.model.eps_align, options=flow_options(config)
    )
    return short.a[0, -1], short.W[0, -1]


def _frozen_flow(
    config: RelnConfig, a0: Array, W0: Array, gates: Array, geo: RelnGeometry, delta: float
) -> tuple[Trajectory, Array]:
    """The ReLN flow with frozen ``gates`` (geometry ``geo``) from ``(a0, W0)`` over the horizon of
    imbalance ``delta``, and its loss along the trajectory."""
    check_flow(np.shape(W0), flow_options(config).grid_points)
    run = reln_flow(
        Network(a0, W0),
        gates,
        config.model.build(),
        horizon(config, np.array([delta])),
        eps_align=config.model.eps_align,
        options=flow_options(config),
    )
    return run, trajectory_loss(run, geo)


def compare_restarts(config: RelnConfig, relu: Trajectory, deltas: Array) -> list[RelnRestart]:
    """For each ±D run that specializes and each ``t0 = k·T_spec`` (k in ``config.restart``): the ReLN
    started from the ReLU state at t0 with gates frozen at the current directions (so it equals the
    ReLU at t0), and the time after t0 each needs to reach ``L(t0)/level``."""
    net = config.model.build()
    loss_relu = population_loss(Network(relu.a, relu.W), net)
    out: list[RelnRestart] = []
    for b, delta in enumerate(deltas):
        t_spec = relu.crossing_times[b, 0]
        if not np.isfinite(t_spec):
            continue
        t0s = [k * float(t_spec) for k in config.restart]
        states = [_relu_state_at(relu, b, t0, config) for t0 in t0s]
        a0 = np.stack([s[0] for s in states])
        W0 = np.stack([s[1] for s in states])
        gates = W0  # frozen at the current directions: the ReLN equals the ReLU at t0
        geo = reln_geometry(gates, net)
        run, loss_reln = _frozen_flow(config, a0, W0, gates, geo, delta)
        floors = reln_floor(geo)
        for r, (k, t0) in enumerate(zip(config.restart, t0s, strict=True)):
            L0 = float(population_loss(Network(a0[r], W0[r]), net))
            after = relu.t >= t0
            for level in config.levels:
                target = L0 / level
                resolved = target >= RESOLVED_LOSS
                el_relu = el_reln = err = None
                if resolved:
                    t_relu = time_to(
                        np.concatenate([[t0], relu.t[after]]), np.concatenate([[L0], loss_relu[b, after]]), target
                    )
                    el_relu = None if t_relu is None else t_relu - t0
                    el_reln = time_to(run.t, loss_reln[r], target)
                    if el_relu is not None and el_reln is not None and el_relu > 0:
                        err = (el_reln - el_relu) / el_relu
                out.append(
                    RelnRestart(
                        D=abs(float(delta)),
                        delta=float(delta),
                        t0_over_t_spec=float(k),
                        t0=float(t0),
                        loss_t0=L0,
                        gate_floor=float(floors[r]),
                        level=float(level),
                        time_relu=el_relu,
                        time_reln=el_reln,
                        rel_error=err,
                        resolved=resolved,
                    )
                )
    return out


def fixed_gate_envelope(config: RelnConfig, relu: Trajectory, deltas: Array) -> list[RelnEnvelope]:
    """For each ±D run and each level ℓ: the ReLU's time to reach ℓ against the fastest of the ReLNs
    with one fixed gate at angle ψ from v (rotated towards u0, ψ on ``config.psi_grid()``), all started
    from the ReLU's initial state."""
    net = config.model.build()
    v = net.unit_directions()[0]
    u0 = initial_direction(net, config.model.theta0)
    # the gate rotates from v towards the student's start u0, in their plane (for θ0 = 0 any ⊥ axis)
    perp = u0 - (u0 @ v) * v
    perp = perp / np.linalg.norm(perp) if np.linalg.norm(perp) > 1e-12 else initial_direction(net, math.pi / 2)
    psi, psi_deg = config.psi_grid(), config.psi_grid_deg()
    gates = (np.cos(psi)[:, None] * v + np.sin(psi)[:, None] * perp)[:, None, :]  # (n_ψ, 1, d)
    geo = reln_geometry(gates, net)
    loss_relu = population_loss(Network(relu.a, relu.W), net)
    out = []
    for b, delta in enumerate(deltas):
        a0, W0 = duplicates(config.model, np.full((psi.size, 1), float(delta)))
        run, loss = _frozen_flow(config, a0, W0, gates, geo, delta)
        t_relu, t_best, psi_best, ratio = [], [], [], []
        for ell in config.envelope_levels:
            tr = time_to(relu.t, loss_relu[b], ell)
            times = np.array([first_time_below(run.t, loss[i], ell) for i in range(psi.size)])
            ok = np.isfinite(times)
            best = int(np.argmin(np.where(ok, times, np.inf))) if np.any(ok) else None
            tb = None if best is None else float(times[best])
            t_relu.append(tr)
            t_best.append(tb)
            psi_best.append(None if best is None else float(psi_deg[best]))
            ratio.append(None if tr is None or tb is None or tb == 0 else tr / tb)
        out.append(
            RelnEnvelope(abs(float(delta)), float(delta), list(config.envelope_levels), t_relu, t_best, psi_best, ratio)
        )
    return out
