"""This task's settings on the gauge model: the other half of the cross-check (RELATED.md §2).

The gauge model's lockin runs (``gaugecli lockin``) step full-batch GD on the sample loss and sample
the update ``dW/dt = −∂L/∂W`` every epoch ``τ = T_spec/per`` (several GD steps); the modular-addition
study steps Adam and reads its update ``ΔW`` every step. Here the gauge model's ``select`` start and
its aligned control (θ0 = 0) are trained as the task is: full-batch Adam with the task's learning rate
and (coupled) weight decay, one epoch per step, the detector on ``ΔW`` (raw and floored) — and, beside
it, on the gradient of the same steps (what GD's update reads). Which detector fires where tells
whether the optimizer, the task or the detector decides (docs/related-work.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaugecli.core.analyses import lockin as lk
from gaugecli.core.integrate.optimizers.adam import Adam
from gaugecli.core.model.metrics import alignment
from gaugecli.core.samples.sample_draw import draw_sample
from gaugecli.core.types import Array
from gaugecli.experiments.lockin.config import LockinConfig, condition_model, start_state


@dataclass
class GaugeAdamRun:
    """One gauge-model run trained as the task is: ``control`` (θ0 = 0) or ``select`` at ``D``, ``seed``
    of the sample; ``align_epoch``: first epoch with every owner direction within ε_align of v (None:
    never; 0 for the control); first firing epochs of the detector on the Adam updates (raw, floored)
    and on the gradient (raw, floored)."""

    control: bool
    seed: int
    D: float
    epochs: int
    align_epoch: int | None
    fire_raw: int | None
    fire_floored: int | None
    fire_gradient_raw: int | None
    fire_gradient_floored: int | None


def gauge_adam_run(
    control: bool, seed: int, *, eta: float, weight_decay: float, epochs: int, n_samples: int, window: int,
    lag: int, threshold: float, burn_in: int, floor: float,
) -> GaugeAdamRun:  # fmt: skip
    """The lockin defaults' ``select`` start (m = 5, the first D) or its aligned control, on a sample of
    ``n_samples`` drawn from ``seed``, trained by Adam (``eta``, ``+weight_decay·θ`` in the gradient,
    as ``torch.optim.Adam``) for ``epochs`` steps."""
    # the empirical loss (torch) is imported where a run trains: the lockin config and the figures that
    # read its result do not need it (``plot all``'s main process stays torch-free)
    from gaugecli.core.samples.sample import empirical_oracle

    config = LockinConfig()
    model = condition_model(config, control)
    net = model.build()
    D = config.sample_strength
    _, a0, W0 = start_state(config, model, "select", D)
    X, y = draw_sample(net, n_samples, seed)
    oracle = empirical_oracle(X, y)
    adam = Adam()
    state = adam.start()
    a, W = np.array(a0, float), np.array(W0, float)
    updates, gradients = lk.RollingGram(window), lk.RollingGram(window)
    lam, glam = np.full((epochs, 3), np.nan), np.full((epochs, 3), np.nan)
    align: int | None = None
    for k in range(epochs):
        if align is None and np.max(alignment(W, net)[0]) >= 1 - model.eps_align:
            align = k
        grad_a, grad_W, _ = oracle(a, W)
        grads: list[Array] = [np.asarray(grad_a) + weight_decay * a, np.asarray(grad_W) + weight_decay * W]
        new_a, new_W = adam.step(state, [a, W], grads, eta)
        lam[k] = updates.push(new_W - W)[:3]
        glam[k] = gradients.push(-np.asarray(grad_W))[:3]
        a, W = new_a, new_W
    detect = [lk.xu_lockin(g, lag, threshold, burn_in, fl).fire_epoch for g in (lam, glam) for fl in (None, floor)]
    return GaugeAdamRun(control, seed, D, epochs, align, *detect)
