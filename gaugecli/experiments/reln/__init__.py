"""``gaugecli reln``: the gated-linear (ReLN) view of gauge selection, where it holds and where it fails.

A ReLN with fixed gates is a linear network per pathway (:mod:`gaugecli.core.reduced.reln`). Against the
ReLU population flow from the same complete initial function, for every D in ``strengths`` and
both gauges ±D (m = 1):

* the final-gate ReLN (gate = the teacher's half-space v), the initial-gate ReLN (gate = u0) and the
  aligned race (``ċ = −√(δ² + 4c²)(c − a*)/2``, a closed form): T_spec of each (``ratios``);
* restarts: ReLNs started from the ReLU state at ``t0 = k·T_spec`` with gates frozen at the current
  directions; the time to cut the loss by each factor in ``levels`` against the ReLU's (``restart``);
* the fixed-gate envelope: for each loss level ℓ, the ReLU's time over the fastest ReLN over a grid of
  gate angles ψ ∈ [0°, 90°] in the plane of v and u0 (``envelope``);

and for ``select`` (m neurons, ``owner`` at +D, the rest −D) the ReLN with the final activation pattern
(owner gated by v, non-owners by their final ReLU directions) against the ReLU run.

Layout: :mod:`.config` (:class:`RelnConfig`, solver settings), :mod:`.result` (the result dataclasses),
:mod:`.pathways` (m = 1: ratios, curves, fits), :mod:`.frozen` (restarts, fixed-gate envelope),
:mod:`.select` (the m-neuron comparison), :mod:`.series` (times to a level, curves on a grid);
:func:`run_reln` runs them all.
"""

from __future__ import annotations

import numpy as np

from gaugecli.core.integrate.flow import gradient_flow
from gaugecli.core.kernels.arccos import arccos_kernel
from gaugecli.core.model.gauge import initial_direction
from gaugecli.core.model.state import Network
from gaugecli.core.reduced.reln import gate_identity_error, reln_flow
from gaugecli.core.types import Progress
from gaugecli.experiments.budget import check_flow, check_run
from gaugecli.experiments.common import duplicates
from gaugecli.experiments.reln.config import RelnConfig, flow_options, horizon
from gaugecli.experiments.reln.frozen import compare_restarts, fixed_gate_envelope
from gaugecli.experiments.reln.pathways import compare_pathways, fit_ratios
from gaugecli.experiments.reln.result import (
    RESOLVED_LOSS,
    RelnCurves,
    RelnEnvelope,
    RelnFits,
    RelnRatio,
    RelnRestart,
    RelnResult,
    RelnSelect,
)
from gaugecli.experiments.reln.select import compare_select

__all__ = [
    "RESOLVED_LOSS",
    "RelnConfig",
    "RelnCurves",
    "RelnEnvelope",
    "RelnFits",
    "RelnRatio",
    "RelnRestart",
    "RelnResult",
    "RelnSelect",
    "run_reln",
]


def run_reln(config: RelnConfig, progress: Progress | None = None) -> RelnResult:
    """Every comparison of ``config``; see the module docstring."""
    model, net = config.model, config.model.build()
    opts = flow_options(config)
    # the widest flow (compare_select's m neurons) checked before any flow runs: a refusal of --m
    # came after the pathways' flows had run (3 s)
    check_run("flow", members=1, m=config.m, r=model.d, d=model.d, grid_points=opts.grid_points)
    deltas = np.array(config.deltas())
    a0, W0 = duplicates(model, deltas[:, None])
    t_max = horizon(config, deltas)
    u0 = initial_direction(net, model.theta0)
    v = net.unit_directions()[0]
    steps = 6
    tick = (lambda i: progress(i / steps)) if progress is not None else (lambda i: None)

    check_flow(np.shape(W0), opts.grid_points)  # every flow below starts from (a0, W0)
    relu = gradient_flow(Network(a0, W0), net, t_max, eps_align=model.eps_align, options=opts)
    tick(1)
    final = reln_flow(Network(a0, W0), v[None], net, t_max, eps_align=model.eps_align, options=opts)
    initial = reln_flow(Network(a0, W0), u0[None], net, t_max, eps_align=model.eps_align, options=opts)
    tick(2)
    ratios, curves = compare_pathways(config, relu, final, initial, deltas)
    select, states = compare_select(config)
    tick(3)
    restart = compare_restarts(config, relu, deltas)
    tick(4)
    envelope = fixed_gate_envelope(config, relu, deltas)
    tick(5)
    # the identity ReLN(gates = current directions) = ReLU, at states along every ReLU run here
    states += [
        (relu.a[b, i], relu.W[b, i]) for b in range(deltas.size) for i in np.linspace(0, relu.t.size - 1, 9).astype(int)
    ]
    # absolute errors in units of the loss scale ½E[y²] (the loss of f = 0)
    scale = 0.5 * float(net.coefficients @ arccos_kernel(net.directions, net.directions) @ net.coefficients)
    identity = max(max(gate_identity_error(Network(a, W), net)) for a, W in states) / scale
    tick(6)
    return RelnResult(
        ratios=ratios,
        curves=curves,
        select=select,
        restart=restart,
        envelope=envelope,
        identity_error=float(identity),
        identity_states=len(states),
        fits=fit_ratios(config, ratios),
        psi_deg=[float(x) for x in config.psi_grid_deg()],
    )
