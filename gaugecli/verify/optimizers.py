"""Claims of the gauge under the optimizers people train with (issue 49; docs/theory.md §13): under Adam the
±D separation grows like D, not like the flow's D², and Adam does not keep δ; under the heavy-ball flow
(momentum's ODE limit) it grows like D^{3/2}.

The runs are ``simulate`` runs of population GD with ``optimizer`` adam at learning rate
:data:`ADAM_LR` (m = 1 from u0 ⊥ v, α ≥ 0.99 counts as aligned, as the issue's prototype). No figure
draws them yet, so ``verify`` computes them itself."""

from __future__ import annotations

import numpy as np

from gaugecli.pipeline import Inputs, Need
from gaugecli.verify.claim import Check, Claim, rounded

ADAM_LR = 1e-3
"""The learning rate of the claims' Adam runs (torch's default betas and ε)."""
ADAM_STRENGTHS = {True: (16.0, 64.0), False: (16.0, 64.0, 256.0)}
"""D of the quick and the full profile: T(+D) spans 100 … 34 steps at η = 1e-3, well above one step."""
ADAM_SLOPE_TOL = 0.15
"""On the local slope against the sign-like law's 1: finite-η corrections (the slope rises towards 1 as
D grows, 0.71 at D = 1 → 4) — and 0.85 away from the flow's 2, so the two laws cannot be confused."""
DRIFT_FLOOR = 1e-4
"""The least relative drift of δ that counts as "not kept": 10⁴ times the flow's conservation tolerance
(C2's 1e-8), so no round-off can reach it; Adam's smallest is that of the +D neuron, ~1/D (D ≤ 256)."""
GAUGES = ("favorable", "unfavorable")
HEAVY_BALL_FRICTION = 2.0
"""γ of the heavy-ball claim (fig12's): β = 1 − γh at time step h, η = h²."""
HEAVY_BALL_STRENGTHS = {True: (1.0, 4.0, 16.0, 64.0), False: (1.0, 4.0, 16.0, 64.0, 256.0, 1024.0)}
"""D of the heavy-ball pair: quick, fig12's own pair run (a cache hit after ``plot all``, 2 CPU-s cold); full,
to D = 1024 (≈ 40 CPU-s, the overdamped −D solve's horizon grows like γD). Slopes are judged from D = 4 on:
at D = 1 the +D neuron's rate μ is not yet ≫ γ² (slope 1.37 from D = 1 to 4)."""
HEAVY_BALL_FROM = 4.0
HEAVY_BALL_SLOPE_TOL = 0.05
"""On each local slope against 3/2. Basis: the +D neuron's inertia-limited rate √μ − γ/2 + O(γ²/√μ)
(docs/theory.md §13) moves the slope of T(+D) by O(γ/√μ) = O(D^{-1/2}); measured 0.13/√D̄ at the
midpoints D̄ = 32, 128, 512 (deviations 0.025, 0.012, 0.005; 0.033 at D̄ = 8), so 0.05 holds from D = 4
with room while staying 0.45 from Adam's 1 and the flow's 2. The full profile also asks the deviation to
shrink with D, as that correction does."""


def _config(gauge: str, D: float) -> object:
    from gaugecli.experiments.config import DynamicsConfig, ModelConfig
    from gaugecli.experiments.params import Mode
    from gaugecli.experiments.simulate import SimulateConfig

    # T(−D) ≈ 0.8 √D·… at η = 1e-3 (12.2 at D = 256): 2√D + 4 covers it; Adam never meets the gradient
    # tolerance, so every run goes to its horizon
    t_max = 2.0 * float(np.sqrt(D)) + 4.0
    dynamics = DynamicsConfig(mode=Mode.gd, optimizer="adam", eta=ADAM_LR, t_max=t_max, max_steps=10**6)
    return SimulateConfig(model=ModelConfig(eps_align=0.01), dynamics=dynamics, gauge=gauge, strengths=(D,))


def _adam_needs(quick: bool) -> dict[str, Need]:
    return {f"{g}-D{D:g}": Need("simulate", _config(g, D)) for D in ADAM_STRENGTHS[quick] for g in GAUGES}


def _ratio(inputs: Inputs, D: float) -> float:
    plus, minus = (inputs[f"{g}-D{D:g}"].t_spec for g in GAUGES)
    return float(minus / plus) if plus and minus else float("nan")


def _adam_exponent(inputs: Inputs, quick: bool) -> Check:
    strengths = np.array(ADAM_STRENGTHS[quick])
    ratios = np.array([_ratio(inputs, D) for D in strengths])
    slopes = np.diff(np.log(ratios)) / np.diff(np.log(strengths))
    ok = bool(np.all(np.isfinite(slopes)) and np.all(np.abs(slopes - 1.0) <= ADAM_SLOPE_TOL))
    return Check(
        f"local slopes of T_spec(−D)/T_spec(+D) under Adam between D = {', '.join(f'{D:g}' for D in strengths)}",
        {"ratios": rounded(list(ratios)), "slopes": rounded(list(slopes))},
        "1 (sign-like Adam: T(−D) ∝ √D, T(+D) ∝ 1/√D), not the flow's 2",
        f"± {ADAM_SLOPE_TOL:g}",
        ok,
        f"population GD with Adam, η = {ADAM_LR:g}, betas (0.9, 0.999), ε = 1e-8; m = 1 from u0 ⊥ v; α ≥ 0.99",
    )


def _adam_drift(inputs: Inputs, quick: bool) -> Check:
    drifts = [float(inputs[f"{g}-D{D:g}"].imbalance_drift) for D in ADAM_STRENGTHS[quick] for g in GAUGES]
    worst = min(drifts)
    return Check(
        "smallest relative drift of δ = a² − ‖w‖² under Adam (±D)",
        rounded(worst, 3),
        f"≥ {DRIFT_FLOOR:g}: Adam keeps no conservation law (the flow's drift is ≤ 1e-8, C2)",
        "",
        worst >= DRIFT_FLOOR,
        f"the runs of A-adam-exponent (η = {ADAM_LR:g})",
    )


DRIFT_ETAS = (1e-3, 5e-4)
"""The two learning rates of the momentum-drift claim (β = 0.9, t = kη = 2, the −4 neuron)."""
DRIFT_RATIO_TOL = 0.15
"""On the ratio of the two drifts against 2: the drift is Cη + O(η²), and the next order is O(η/(1 − β)) =
1e-2 relative at these η (measured 1.96)."""


def _drift_config(eta: float) -> object:
    from gaugecli.experiments.config import DynamicsConfig, ModelConfig
    from gaugecli.experiments.params import Mode
    from gaugecli.experiments.simulate import SimulateConfig

    dynamics = DynamicsConfig(
        mode=Mode.gd, optimizer="momentum", momentum=0.9, eta=eta, t_max=2.0, imbalance_every_step=True
    )
    return SimulateConfig(model=ModelConfig(eps_align=0.01), dynamics=dynamics, gauge="unfavorable", strengths=(4.0,))


def _drift_needs(quick: bool) -> dict[str, Need]:
    return {f"eta{eta:g}": Need("simulate", _drift_config(eta)) for eta in DRIFT_ETAS}


def _momentum_drift(inputs: Inputs, quick: bool) -> Check:
    drifts = []
    for eta in DRIFT_ETAS:
        delta = np.asarray(inputs[f"eta{eta:g}"].imbalance_per_step, float)[:, 0]
        drifts.append(float(np.max(np.abs(delta - delta[0]))))
    ratio = drifts[0] / drifts[1]
    return Check(
        "max_k |δ_k − δ_0| over t = kη = 2 at η = 1e-3 over that at η = 5e-4 (δ at every step)",
        {"drifts": rounded(drifts), "ratio": rounded(ratio)},
        "2 (momentum at fixed β drifts O(η): gradient flow sped up by 1/(1 − β), plus O(η))",
        f"± {DRIFT_RATIO_TOL:g}",
        bool(np.isfinite(ratio) and abs(ratio - 2.0) <= DRIFT_RATIO_TOL),
        "population GD with torch's momentum, β = 0.9; m = 1 from u0 ⊥ v at δ(0) = −4; --imbalance-every-step",
    )


def _heavy_ball_needs(quick: bool) -> dict[str, Need]:
    from gaugecli.experiments.heavy_ball_pair import HeavyBallPairConfig

    config = HeavyBallPairConfig(gamma=HEAVY_BALL_FRICTION, strengths=HEAVY_BALL_STRENGTHS[quick], eps_align=0.01)
    return {"heavy-ball": Need("heavy-ball-pair", config)}


def _heavy_ball_exponent(inputs: Inputs, quick: bool) -> Check:
    pair = inputs["heavy-ball"]
    strengths = np.asarray(pair.strengths, float)
    keep = strengths >= HEAVY_BALL_FROM
    Ds = strengths[keep]
    ratios = np.asarray(pair.t_minus, float)[keep] / np.asarray(pair.t_plus, float)[keep]
    slopes = np.diff(np.log(ratios)) / np.diff(np.log(Ds))
    deviation = np.abs(slopes - 1.5)
    ok = bool(np.all(np.isfinite(slopes)) and np.all(deviation <= HEAVY_BALL_SLOPE_TOL))
    if not quick:  # the O(D^{-1/2}) correction: the deviation falls as D grows
        ok = ok and bool(np.all(np.diff(deviation) < 0))
    return Check(
        f"local slopes of T_spec(−D)/T_spec(+D) under the heavy-ball flow between D = {', '.join(f'{D:g}' for D in Ds)}",
        {"ratios": rounded(list(ratios)), "slopes": rounded(list(slopes))},
        "3/2 (+D inertia-limited, T ∝ D^{-1/2}; −D overdamped, T ∝ γD)"
        + ("" if quick else ", the distance from 3/2 shrinking with D"),
        f"± {HEAVY_BALL_SLOPE_TOL:g}",
        ok,
        f"θ̈ + γθ̇ = −∇L from rest, γ = {HEAVY_BALL_FRICTION:g}; m = 1 from u0 ⊥ v; α ≥ 0.99; DOP853 at rtol 1e-8",
    )


CLAIMS = [
    Claim(
        "A-adam-exponent",
        "Under Adam the ±D separation T_spec(−D)/T_spec(+D) grows like D, not like the flow's D²",
        _adam_needs,
        _adam_exponent,
    ),
    Claim(
        "A-adam-drift",
        "Adam does not keep the gauge δ = a² − ‖w‖²",
        _adam_needs,
        _adam_drift,
    ),
    Claim(
        "A-heavy-ball-exponent",
        "Under the heavy-ball flow (momentum's ODE limit) the ±D separation grows like D^{3/2}",
        _heavy_ball_needs,
        _heavy_ball_exponent,
        figure="fig12",
    ),
    Claim(
        "A-momentum-drift",
        "Heavy-ball momentum at a fixed β moves δ by O(η): halving η halves its drift over a fixed time",
        _drift_needs,
        _momentum_drift,
    ),
]
