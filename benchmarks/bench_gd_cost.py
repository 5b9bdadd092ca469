"""(n) What the command line's GD costs beyond its training: ``simulate --mode sample-gd --eta η`` on
one cell of Kunin et al.'s grid (m = 50 neurons, n = 1000 samples, d = 100, their lr = 5e-3 at τ = 1,
so η = 2·lr for our loss (1/2n)Σ(f − y)² against their (1/n)Σ(f − y)²), against the engine alone —
:func:`gaugecli.core.integrate.descent.gradient_descent` from the same start on the same sample —
side by side in the same run.

What the command adds: drawing the start and the sample, the stability check ``η < 2/λ_max`` (Lanczos
on Hessian–vector products of ``L_n``, ``P = m(d + 1) = 5050`` parameters; a dense eigensolve took
11.5 s), the step-error pilot (skipped when the run crosses nowhere: nothing to estimate) and the
observables of the result.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from _common import Row, best_of, fmt_ratio, fmt_seconds

from gaugecli.core.integrate.descent import gradient_descent, stable_step_bound
from gaugecli.core.model.state import Network
from gaugecli.core.samples.empirical import EmpiricalSample
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.initial import initial_condition
from gaugecli.experiments.simulate import SimulateConfig, simulate

GOAL_RATIO = 1.3
"""The command within ×1.3 of its training (issue 54)."""
M, N, D = 50, 1000, 100
ETA = 2 * 5e-3  # their lr = 5e-3/τ² at τ = 1, doubled for our loss's 1/2


def _config(steps: int) -> SimulateConfig:
    dynamics = DynamicsConfig(mode="sample-gd", eta=ETA, n_samples=N, t_max=steps * ETA)
    return SimulateConfig(
        model=ModelConfig(d=D), dynamics=dynamics, m=M, init="gaussian", gauge="natural", init_seed=0, seed=0
    )


def measure(steps: int, k: int) -> dict[str, Any]:
    config = _config(steps)
    net = config.model.build()
    a0, W0 = initial_condition(config.model, config.imbalances(), config.init, config.eps, config.init_seed)
    a0, W0 = np.asarray(a0).reshape(M), np.asarray(W0).reshape(M, D)
    objective = EmpiricalSample.draw(net, N, config.run_seed).objective()

    def engine() -> Any:
        return gradient_descent(Network(a0, W0), net, ETA, steps * ETA, oracle=objective, grid_points=400)

    engine_s, traj = best_of(engine, k)
    cli_s, _ = best_of(lambda: simulate(config), k)
    check_s, bound = best_of(lambda: stable_step_bound(Network(a0, W0), net, objective), k)
    return {
        "steps": int(traj.stats.n_steps),
        "engine_s": engine_s,
        "cli_s": cli_s,
        "ratio": cli_s / engine_s,
        "stability_check_s": check_s,
        "bound": bound,
    }


def gd_cost(quick: bool) -> list[Row]:
    steps, k = (500, 1) if quick else (10_000, 2)
    res = measure(steps, k)
    return [
        Row(
            "n1",
            f"simulate --mode sample-gd --eta (m={M}, n={N}, d={D}, {res['steps']} steps) vs its training alone",
            f"{fmt_seconds(res['cli_s'])} vs {fmt_seconds(res['engine_s'])} ({fmt_ratio(res['ratio'])})",
            f"≤ {fmt_ratio(GOAL_RATIO)}",
            res["ratio"] <= GOAL_RATIO,
            f"best of {k}; the stability check (Lanczos, P = {M * (D + 1)}) alone {fmt_seconds(res['stability_check_s'])}",
            res,
        )
    ]
