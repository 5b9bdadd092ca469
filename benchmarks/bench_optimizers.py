"""(m) What an optimizer costs: 2000 population-GD steps of one neuron (D = 4, d = 16, the stated basis)
under each registered update rule, side by side with plain GD in the same run.

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

STEPS = 2000
ETA = 1e-3
GOAL_RATIO = 2.0
"""Each rule within ×2 of GD's wall time: the gradient, the same for all, dominates a step."""


def _run(name: str, steps: int) -> Any:
    model = standard_model(16)
    a0, W0 = duplicate_initial_condition(model, np.array([4.0]), 0.1, np.pi / 2)
    rule = None if name == "sgd" else optimizer(name)
    return gradient_descent(a0, W0, model, ETA, steps * ETA, optimizer=rule, grid_points=3, grad_tol=0.0)


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
        )
    ]
