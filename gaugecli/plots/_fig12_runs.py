"""Figure 12's runs — the gauge under the optimizers people train with (issue 49; docs/theory.md §13).

Every run is a cached pipeline kind: ``simulate`` runs of population GD under each update rule (as
``torch.optim`` steps it, in the stated basis ``v = e1``, ``u0 = e2``), ``simulate`` flow runs, the
``heavy-ball-pair`` figure run (momentum's ODE limit), and three ``phase`` maps of ``select``: under Adam
over (D, η), under momentum over (D, β) and under Adam over (D, β1).
The learning rates are chosen so that every run stays short (the figure's cold cost is in
tools/figure_costs.json): the separation under Adam at η = :data:`ADAM_LR`, where ``T(+D)`` is still
≥ 8 steps at D = 1024 (at η = 1e-2 it falls to 4 and the local slope flattens at 0.85).
"""

from __future__ import annotations

from typing import Any

import numpy as np

OPTIMIZERS = ("sgd", "momentum", "adam", "adamw")
"""(a)'s update rules: GD, heavy-ball momentum, Adam and AdamW, torch's default betas and ε."""
GAUGES = ("favorable", "unfavorable")
GAUGE_STRENGTH = 4.0
"""(a)'s D: the issue's prototype (Adam moves +4 → ≈ 5 and −4 → ≈ −1.5 by alignment)."""
STEP = 1e-2
"""(a)'s learning rate η of GD, Adam and AdamW; momentum takes η(1 − β) (:data:`MOMENTUM`), the same
effective step η/(1 − β), so that its clock ``t/(1 − β)`` is GD's."""
MOMENTUM = 0.9
"""torch's customary β of heavy-ball momentum (the ``--momentum`` default)."""
ADAMW_DECAY = 0.1
"""(a)'s AdamW decoupled decay λ: ``θ ← (1 − ηλ)θ`` shrinks δ by ``e^{−2λt}`` on top of Adam's drift."""
HORIZON = 60.0
"""(a)'s horizon in GD's clock: past T(−4) = 42 of GD (the slowest run drawn)."""
ADAM_LR = 3e-3
"""(b, c)'s Adam learning rate (local slopes 0.65 … 0.97 from D = 1 to 1024; at 1e-3 the same law at
2.6× the cost, 0.71 … 0.94)."""
STRENGTHS = {False: (1.0, 4.0, 16.0, 64.0, 256.0, 1024.0), True: (1.0, 4.0, 16.0, 64.0)}
"""(b, c)'s D of the flow's and Adam's ±D pairs."""
HEAVY_BALL_STRENGTHS = {False: (1.0, 4.0, 16.0, 64.0), True: (1.0, 4.0, 16.0)}
"""(b, c)'s D of the heavy-ball pair: its −D run is overdamped, T(−D) ≈ 10γD, and the solve's cost grows
with it (≈ 4 CPU-s more for D = 256)."""
FRICTION = 2.0
"""The heavy-ball flow's γ (momentum β = 1 − γh at time step h, η = h²)."""
EPS_ALIGN = 0.01
"""α ≥ 0.99 counts as aligned (the issue's prototype, verify's A-adam claims)."""
SELECT_AXES = {
    False: ("gauge-strength=1:256:5:log", "eta=3e-3:0.1:4:log"),
    True: ("gauge-strength=1:16:3:log", "eta=1e-2:0.1:3:log"),
}
"""(d)'s map: D (owner +D, the others −D) against Adam's learning rate, up to η = 0.1: above it (η ≈ 0.3)
the classes scatter between no owner, shared and a tie among the −D duplicates — outcomes of large,
sign-like steps that a second arithmetic path need not reproduce cell for cell."""
SELECT_HORIZON = 20.0
"""(d)'s horizon t = kη: the −D non-owners are pruned (P ≤ 1e-6) by it at η ≤ 3e-2, D ≥ 4."""
BETA_STEP = 1e-2
"""(e, f)'s learning rate η: momentum's and Adam's, so that β alone moves along the maps' rows (momentum's
effective step η/(1 − β) runs from 1e-2 at β = 0 to 1 at β = 0.99; GD's stable step at D = 64 is 1.2e-2)."""
MOMENTUM_SELECT_AXES = {
    False: ("gauge-strength=0.25:64:5:log", "momentum=0:0.99:4"),
    True: ("gauge-strength=0.25:16:4:log", "momentum=0:0.99:3"),
}
"""(e)'s map: D (owner +D, the others −D) against heavy-ball β at η = :data:`BETA_STEP`, β = 0 being GD."""
MOMENTUM_SELECT_HORIZON = 40.0
"""(e)'s horizon t = kη: GD (β = 0) prunes the −D non-owners by it at D ≥ 1 (D = 0.25 needs longer)."""
ADAM_BETA_SELECT_AXES = {
    False: ("gauge-strength=0.25:64:5:log", "beta1=0:0.99:4"),
    True: ("gauge-strength=0.25:16:4:log", "beta1=0:0.99:3"),
}
"""(f)'s map: D against Adam's β1 (β2 = 0.999) at η = :data:`BETA_STEP`, β1 = 0 being RMSprop with bias
correction."""
ADAM_BETA_SELECT_HORIZON = SELECT_HORIZON
"""(f)'s horizon t = kη, (d)'s."""


def _model() -> Any:
    from gaugecli.experiments.config import ModelConfig

    return ModelConfig(eps_align=EPS_ALIGN)


def gauge_config(optimizer: str, gauge: str) -> Any:
    """(a): one neuron at ``±GAUGE_STRENGTH`` under ``optimizer`` to :data:`HORIZON` (GD's clock)."""
    from dataclasses import replace

    from gaugecli.experiments.config import DynamicsConfig
    from gaugecli.experiments.simulate import SimulateConfig

    eta = STEP * (1.0 - MOMENTUM) if optimizer == "momentum" else STEP
    t_max = HORIZON * (1.0 - MOMENTUM) if optimizer == "momentum" else HORIZON
    model = replace(_model(), weight_decay=ADAMW_DECAY) if optimizer == "adamw" else _model()
    dynamics = DynamicsConfig(mode="gd", optimizer=optimizer, eta=eta, t_max=t_max, max_steps=10**6)  # type: ignore[arg-type]
    return SimulateConfig(model=model, dynamics=dynamics, gauge=gauge, strengths=(GAUGE_STRENGTH,))


def clock(optimizer: str) -> float:
    """The factor from a run's ``t = kη`` to (a)'s clock, GD's: ``1/(1 − β)`` for momentum."""
    return 1.0 / (1.0 - MOMENTUM) if optimizer == "momentum" else 1.0


def adam_config(gauge: str, D: float) -> Any:
    """(b, c): one neuron at ``±D`` under Adam at :data:`ADAM_LR`. Adam never meets the gradient
    tolerance, so a run goes to its horizon: T(+D) ≤ 0.33 (D ≥ 1) and T(−D) ≤ 0.75√D + 0.2 (measured at
    η = 3e-3, D = 1 … 1024), so 1 and 0.9√D + 1 cover them."""
    from gaugecli.experiments.config import DynamicsConfig
    from gaugecli.experiments.simulate import SimulateConfig

    t_max = 1.0 if gauge == "favorable" else 0.9 * float(np.sqrt(D)) + 1.0
    dynamics = DynamicsConfig(mode="gd", optimizer="adam", eta=ADAM_LR, t_max=t_max, max_steps=10**6)  # type: ignore[arg-type]
    return SimulateConfig(model=_model(), dynamics=dynamics, gauge=gauge, strengths=(D,))


def flow_config(gauge: str, D: float) -> Any:
    """(b, c): the population flow's ±D pair, at the same ε_align as the other rules."""
    from gaugecli.experiments.simulate import SimulateConfig

    return SimulateConfig(model=_model(), gauge=gauge, strengths=(D,))


def heavy_ball_config(quick: bool) -> Any:
    from gaugecli.experiments.heavy_ball_pair import HeavyBallPairConfig

    return HeavyBallPairConfig(gamma=FRICTION, strengths=HEAVY_BALL_STRENGTHS[quick], eps_align=EPS_ALIGN)


def select_config(quick: bool) -> Any:
    """(d): ``phase --kind select --mode gd --optimizer adam --t-max 20`` over (D, η), outcome and P."""
    return _select_map("adam", STEP, SELECT_HORIZON, SELECT_AXES[quick])


def momentum_select_config(quick: bool) -> Any:
    """(e): ``phase --kind select --mode gd --optimizer momentum --eta 1e-2 --t-max 40`` over (D, β)."""
    return _select_map("momentum", BETA_STEP, MOMENTUM_SELECT_HORIZON, MOMENTUM_SELECT_AXES[quick])


def adam_beta_select_config(quick: bool) -> Any:
    """(f): ``phase --kind select --mode gd --optimizer adam --eta 1e-2 --t-max 20`` over (D, β1)."""
    return _select_map("adam", BETA_STEP, ADAM_BETA_SELECT_HORIZON, ADAM_BETA_SELECT_AXES[quick])


def _select_map(optimizer: str, eta: float, horizon: float, axes: tuple[str, str]) -> Any:
    """A ``phase`` map of ``select`` (m = 5, owner +D, the others −D) under ``optimizer`` at learning rate
    ``eta`` to ``horizon``, over ``axes``; outcome and P."""
    from gaugecli.experiments.config import DynamicsConfig
    from gaugecli.experiments.phase.axes import parse_axis
    from gaugecli.experiments.phase.config import PhaseConfig
    from gaugecli.experiments.select import SelectConfig

    x, y = axes
    dynamics = DynamicsConfig(mode="gd", optimizer=optimizer, eta=eta, t_max=horizon)  # type: ignore[arg-type]
    return PhaseConfig(
        kind="select",
        x=parse_axis(x, "select", "x"),
        y=parse_axis(y, "select", "y"),
        metrics=("outcome", "p-end"),
        base=SelectConfig(dynamics=dynamics),
    )
