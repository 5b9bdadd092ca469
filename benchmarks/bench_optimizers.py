"""(m) What an optimizer costs: 2000 population-GD steps of one neuron (D = 4, d = 16, the stated basis)
under each registered update rule, side by side with plain GD in the same run (m1); and the compiled
momentum loop of tools/momentum_exponent.py against the package's momentum GD on the same run to its
crossing (m2).

Every rule calls the closed-form gradient once per step; what differs is the update itself (a few
elementwise passes over the m(d + 1) parameters: momentum's buffer, Adam's two averages and a square
root), so each should cost about one GD step.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from _common import Row, best_of, fmt_ratio, fmt_seconds

from gaugecli.core.integrate.descent import gradient_descent
from gaugecli.core.integrate.optimizers import REGISTRY, optimizer
from gaugecli.core.model.gauge import duplicate_initial_condition
from gaugecli.core.model.model import standard_model
from gaugecli.core.model.state import Network

STEPS = 2000
ETA = 1e-3
GOAL_RATIO = 2.0
"""Each rule within ×2 of GD's wall time: the gradient, the same for all, dominates a step."""


def _run(name: str, steps: int) -> Any:
    model = standard_model(16)
    a0, W0 = duplicate_initial_condition(model, np.array([4.0]), 0.1, np.pi / 2)
    rule = None if name == "sgd" else optimizer(name)
    return gradient_descent(Network(a0, W0), model, ETA, steps * ETA, optimizer=rule, grid_points=3, grad_tol=0.0)


def optimizers(quick: bool) -> list[Row]:
    steps, k = (STEPS // 4, 1) if quick else (STEPS, 3)
    seconds = {name: best_of(lambda name=name: _run(name, steps), k)[0] for name in REGISTRY}
    gd = seconds["sgd"]
    worst = max(s / gd for s in seconds.values())
    return [
        Row(
            "m1",
            f"{steps} population-GD steps (D=4, m=1, d=16) per optimizer: wall time vs plain GD",
            ", ".join(f"{n} {fmt_ratio(s / gd)}" for n, s in seconds.items()),
            f"each ≤ ×{GOAL_RATIO:g}",
            worst <= GOAL_RATIO,
            f"best of {k}; GD: {fmt_seconds(gd)} ({fmt_seconds(gd / steps)} per step)",
            {"seconds": seconds, "steps": steps},
        ),
        *momentum_loop(quick),
    ]


LOOP_H = 0.04
"""m2's step: η = h², β = 1 − 2h, the −4 neuron crosses after ~2150 steps."""
LOOP_GOAL = 10.0
"""The compiled loop at least ×10 faster per step than gradient_descent (the point of writing it)."""


def momentum_loop(quick: bool) -> list[Row]:
    from gaugecli.core.integrate.momentum_loop import momentum_crossing_steps
    from gaugecli.core.integrate.optimizers.sgd import Momentum

    k = 1 if quick else 3
    a0, W0 = duplicate_initial_condition(standard_model(2), np.array([-4.0]), 0.1, np.pi / 2)
    beta, eta = 1.0 - 2.0 * LOOP_H, LOOP_H**2
    momentum_crossing_steps(a0, W0, np.array([1.0, 0.0]), 1.0, beta, eta, 0.01, 10)  # compile (or load) first
    loop_s, steps = best_of(
        lambda: momentum_crossing_steps(a0, W0, np.array([1.0, 0.0]), 1.0, beta, eta, 0.01, 10**6), k
    )
    model = standard_model(16)
    a16, W16 = duplicate_initial_condition(model, np.array([-4.0]), 0.1, np.pi / 2)
    gd_s, traj = best_of(
        lambda: gradient_descent(
            Network(a16, W16),
            model,
            eta,
            1.2 * steps * eta,
            optimizer=Momentum(momentum=beta),
            grid_points=3,
            grad_tol=0.0,
            stop_at_crossing=True,
            eps_align=0.01,
        ),
        k,
    )
    agree = abs(float(traj.crossing_times[0]) / eta - steps)
    ratio = gd_s / loop_s
    return [
        Row(
            "m2",
            f"momentum to the −4 neuron's crossing (h = {LOOP_H:g}, {steps:.0f} steps): compiled loop vs gradient_descent",
            f"×{ratio:.0f} faster ({loop_s / steps * 1e9:.0f} ns vs {fmt_seconds(gd_s / steps)} per step)",
            f"≥ ×{LOOP_GOAL:g}",
            ratio >= LOOP_GOAL,
            f"best of {k}; crossings agree to {agree:.1e} steps (d = 2 plane vs d = 16)",
            {"loop_seconds": loop_s, "gd_seconds": gd_s, "steps": steps, "crossing_difference_steps": agree},
        )
    ]
