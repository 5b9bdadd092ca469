"""(k) What an activation costs: the population flow of one neuron (±D, D = 4, d = 16, to the default
horizon) under every registered activation, side by side with ReLU in the same run.

The flows differ in their kernels (ReLU's arc-cosine geometry, erf's arcsine, the polynomial
σ = z²) and in their dynamics (a degree-2 network turns at other rates), so both the wall time and
the gradient evaluations are reported, each as a ratio to ReLU's. σ = z² starts at θ0 = 1.2: from
u0 ⊥ v it sits on an exact saddle and its T_spec is null.
"""

from __future__ import annotations

import math
from typing import Any

from _common import Row, best_of, fmt_ratio, fmt_seconds

from gaugecli.core.activations import REGISTRY
from gaugecli.experiments.config import ModelConfig
from gaugecli.experiments.simulate import SimulateConfig, simulate

GOAL_RATIO = 3.0
"""Each activation's flow within ×3 of ReLU's wall time: the kernels are closed forms of the same cost."""


def _flows(name: str) -> Any:
    theta0 = 1.2 if name == "square" else math.pi / 2
    model = ModelConfig(activation=name, theta0=theta0)
    return [simulate(SimulateConfig(model=model, gauge=g))[0] for g in ("favorable", "unfavorable")]


def measure(k: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in REGISTRY:
        seconds, runs = best_of(lambda name=name: _flows(name), k)
        out[name] = {
            "seconds": seconds,
            "gradient_evals": sum(r.stats.n_gradient_evals for r in runs),
            "t_spec": [r.t_spec for r in runs],
        }
    return out


def activations(quick: bool) -> list[Row]:
    data = measure(1 if quick else 3)
    relu = data["relu"]
    cells, worst = [], 0.0
    for name, d in data.items():
        ratio = d["seconds"] / relu["seconds"]
        evals = d["gradient_evals"] / relu["gradient_evals"]
        worst = max(worst, ratio)
        cells.append(f"{name} {fmt_ratio(ratio)} ({fmt_ratio(evals)} evals)")
    note = (
        f"best of {1 if quick else 3}; ReLU ±D: {fmt_seconds(relu['seconds'])}, {relu['gradient_evals']} gradient evals; "
        + "; ".join(f"{n}: T_spec ±D = {d['t_spec'][0]:.4g}, {d['t_spec'][1]:.4g}" for n, d in data.items())
    )
    return [
        Row(
            "k1",
            "population flow ±D (D=4, m=1, d=16, default horizon) per activation: wall time vs relu (gradient evals)",
            ", ".join(cells),
            f"each ≤ ×{GOAL_RATIO:g}",
            worst <= GOAL_RATIO,
            note,
            data,
        )
    ]
