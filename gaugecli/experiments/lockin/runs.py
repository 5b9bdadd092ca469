"""The ReLU runs of ``gaugecli lockin``: the population flow per assignment and D, and finite-sample
GD of ``select`` and its aligned control, each sampled on its epoch grid and diagnosed."""

from __future__ import annotations

import math

import numpy as np

from gaugecli.core.analyses import lockin as lk
from gaugecli.core.analyses.symmetry import equal_groups
from gaugecli.core.integrate.flow import population_flow_on_grid
from gaugecli.core.model.gauge import function_coordinates
from gaugecli.core.model.metrics import alignment
from gaugecli.core.model.state import Network
from gaugecli.core.population.dynamics import population_gradient
from gaugecli.experiments.lockin.config import LockinConfig, condition_model, start_state
from gaugecli.experiments.lockin.diagnose import Condition, Trajectory, diagnose, unique_owner
from gaugecli.experiments.lockin.result import LockinRun
from gaugecli.experiments.lockin.training import finite_sample_on_grid


def flow_run(config: LockinConfig, assign: str, D: float, control: bool, t_unit: float | None) -> LockinRun:
    """The population flow of ``assign`` at strength D (θ0 = 0 for the ``control``).

    ``t_unit=None``: the clock is this run's own ``T_spec`` on the invariant set (equal-gauge duplicates
    kept equal; for all-minus the unrestricted flow is split by round-off and its T_spec depends on d).
    Otherwise the grid is ``k t_unit/per``. The diagnostics use the unrestricted flow; the separation
    rate of the first equal pair is taken on the invariant set.
    """
    model = condition_model(config, control)
    net = model.build()
    deltas, a0, W0 = start_state(config, model, assign, D)
    groups = equal_groups(Network(a0, W0))
    eps = model.eps_align
    if t_unit is None:
        sym = population_flow_on_grid(
            Network(a0, W0), net, eps, span=config.span, per=config.per, groups=groups, rtol=config.rtol
        )
        assert sym.t_spec is not None  # span mode stops at the alignment event or raises
        t_unit, times = float(sym.t_spec), sym.t
    else:
        times = np.arange(round(config.span * config.per) + 1) * (t_unit / config.per)
        sym = population_flow_on_grid(Network(a0, W0), net, eps, times=times, groups=groups, rtol=config.rtol)
    flow = population_flow_on_grid(Network(a0, W0), net, eps, times=times, rtol=config.rtol)

    keep = np.arange(0, times.size, config.store_every)
    instability = None
    if groups:
        instability = lk.duplicate_instability(times[keep], sym.theta[keep], net, groups[0])
    c, _ = function_coordinates(flow.theta[-1])
    alpha, _ = alignment(flow.theta.W[-1], net)
    trajectory = Trajectory(
        times=times,
        t_unit=t_unit,
        a=flow.theta.a,
        W=flow.theta.W,
        dW=-population_gradient(flow.theta, net).W,
        t_spec=flow.t_spec,
        eta=None,
        X=None,
        u0=W0[0] / np.linalg.norm(W0[0]),
    )
    return diagnose(
        config,
        Condition(assign, "flow", D, None, "relu", control),
        trajectory,
        net,
        owner=None if control else unique_owner(deltas, c, alpha, eps),
        deltas=deltas,
        instability=instability,
    )


def sample_run(config: LockinConfig, control: bool, seed: int, t_unit: float) -> LockinRun:
    """Finite-sample GD of ``select`` (or its aligned control) at ``config.sample_strength`` on the
    sample of ``seed``, on the epoch grid of the population flow's clock ``t_unit`` (fixed before
    training, as in practice); step ``η = τ/⌈τ steps_per_unit/t_unit⌉``."""
    from gaugecli.core.samples.sample import empirical_oracle
    from gaugecli.core.samples.sample_draw import draw_sample

    model = condition_model(config, control)
    net = model.build()
    D = config.sample_strength
    deltas, a0, W0 = start_state(config, model, "select", D)
    X, y = draw_sample(net, config.n_samples, seed)
    tau = t_unit / config.per
    steps = max(1, math.ceil(tau / (t_unit / config.steps_per_unit)))
    eta = tau / steps
    times = np.arange(round(config.span * config.per) + 1) * tau
    a, W, dW, t_spec = finite_sample_on_grid(Network(a0, W0), net, empirical_oracle(X, y), times, eta, model.eps_align)
    c, _ = function_coordinates(Network(a[-1], W[-1]))
    alpha, _ = alignment(W[-1], net)
    return diagnose(
        config,
        Condition("select", "sample", D, seed, "relu", control),
        Trajectory(times, t_unit, a, W, dW, t_spec, eta, X, W0[0] / np.linalg.norm(W0[0])),
        net,
        owner=None if control else unique_owner(deltas, c, alpha, model.eps_align),
        deltas=deltas,
    )
