"""The ``select`` comparison of ``gaugecli reln``: which neuron owns the teacher feature, in the ReLU
run and in the ReLN with the ReLU's final activation pattern."""

from __future__ import annotations

import numpy as np

from gaugecli.core.integrate.flow import gradient_flow
from gaugecli.core.model.gauge import function_coordinates, owner_imbalances
from gaugecli.core.model.metrics import alignment, final_owner, nonowner_norm
from gaugecli.core.model.state import Network
from gaugecli.core.population.dynamics import population_loss
from gaugecli.core.reduced.reln import pathway_norm, reln_flow, reln_geometry, trajectory_loss
from gaugecli.core.types import Array
from gaugecli.experiments.budget import check_flow
from gaugecli.experiments.common import duplicates
from gaugecli.experiments.reln.config import RelnConfig, flow_options, horizon
from gaugecli.experiments.reln.result import RelnSelect
from gaugecli.experiments.reln.series import curve_grid, finite_or_none, resample


def compare_select(config: RelnConfig) -> tuple[RelnSelect, list[tuple[Array, Array]]]:
    """The ``select`` comparison (m neurons, ``owner`` at +D, the others −D): the ReLU run, the ReLN
    with its final activation pattern and the ReLN whose pathways all share the gate v. Also returns
    nine ReLU states along the run, for the identity check."""
    model, net = config.model, config.model.build()
    deltas = owner_imbalances(config.m, config.select_strength, config.owner)
    a0, W0 = duplicates(model, deltas[None, :])
    t_max = horizon(config, deltas)
    check_flow(np.shape(W0), flow_options(config).grid_points)  # every flow below starts from (a0, W0)
    relu = gradient_flow(Network(a0, W0), net, t_max, eps_align=model.eps_align, options=flow_options(config))
    c_relu, U_relu = function_coordinates(Network(relu.a[0], relu.W[0]))
    alpha_relu, _ = alignment(relu.W[0], net)
    owner_relu, _ = final_owner(c_relu[-1], alpha_relu[-1], model.eps_align)
    # the final activation pattern: the owner's half-space is the teacher's, the others keep theirs
    v = net.unit_directions()[0]
    gates = U_relu[-1].copy()
    gates[int(owner_relu)] = v
    geo = reln_geometry(gates, net)
    run = reln_flow(Network(a0, W0), gates, net, t_max, eps_align=model.eps_align, options=flow_options(config))
    c_reln, _ = function_coordinates(Network(run.a[0], run.W[0]))
    alpha_reln, _ = alignment(run.W[0], net)
    owner_reln, _ = final_owner(c_reln[-1], alpha_reln[-1], model.eps_align)
    loss_relu = population_loss(Network(relu.a[0], relu.W[0]), net)
    loss_reln = trajectory_loss(run, geo)[0]
    t_end = max(relu.t[-1], run.t[-1])
    grid = curve_grid(min(relu.t[1], run.t[1]), t_end)
    L_relu_g = resample(relu.t, loss_relu, grid)
    L_reln_g = resample(run.t, loss_reln, grid)
    dense = np.unique(np.concatenate([relu.t, run.t]))
    dloss = np.max(np.abs(resample(relu.t, loss_relu, dense) - resample(run.t, loss_reln, dense))) / loss_relu[0]
    keep = np.arange(config.m) != int(owner_reln)
    # one gate v shared by every pathway: the gates designate no owner, only the gauges can
    shared_gates = np.tile(v, (config.m, 1))
    shared = reln_flow(
        Network(a0, W0), shared_gates, net, t_max, eps_align=model.eps_align, options=flow_options(config)
    )
    c_sh, _ = function_coordinates(Network(shared.a[0, -1], shared.W[0, -1]))
    owner_sh, _ = final_owner(c_sh, alignment(shared.W[0, -1], net)[0], model.eps_align)
    keep_sh = np.arange(config.m) != int(owner_sh)

    def on_grid(t: Array, series: Array) -> Array:
        return np.stack([np.interp(grid, t, series[:, j]) for j in range(series.shape[1])], axis=1)

    sel = RelnSelect(
        m=config.m,
        D=float(config.select_strength),
        designated=config.owner,
        owner_relu=int(owner_relu),
        owner_reln=int(owner_reln),
        t_spec_relu=finite_or_none(relu.crossing_times[0, owner_relu]),
        t_spec_reln=finite_or_none(run.crossing_times[0, owner_reln]),
        max_abs_dloss_over_l0=float(dloss),
        nonowner_norm_end=float(pathway_norm(Network(run.a[0, -1], run.W[0, -1]), geo, keep)),
        nonowner_norm_end_relu=float(nonowner_norm(c_relu[-1], U_relu[-1], int(owner_relu))),
        owner_reln_shared=int(owner_sh),
        t_spec_reln_shared=finite_or_none(shared.crossing_times[0, owner_sh]),
        nonowner_norm_end_shared=float(
            pathway_norm(Network(shared.a[0, -1], shared.W[0, -1]), reln_geometry(shared_gates, net), keep_sh)
        ),
        t=grid,
        loss_relu=L_relu_g,
        loss_reln=L_reln_g,
        c_relu=on_grid(relu.t, c_relu),
        c_reln=on_grid(run.t, c_reln),
        alpha_relu=on_grid(relu.t, alpha_relu),
        alpha_reln=on_grid(run.t, alpha_reln),
    )
    states = [(relu.a[0, i], relu.W[0, i]) for i in np.linspace(0, relu.t.size - 1, 9).astype(int)]
    return sel, states
