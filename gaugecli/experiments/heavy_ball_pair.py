"""The ±D pair under the heavy-ball flow ``θ̈ + γθ̇ = −∇L`` (momentum's ODE limit, docs/theory.md §13):
``T_spec(±D)`` of one neuron from ``u0 ⊥ v`` at each gauge strength, their ratio and its local slopes —
fig12 (b)'s middle law, ``Θ(γ D^{3/2})``: the +D neuron's fast mode (rate ``μ ~ D ≫ γ²``) grows at
``≈ √μ`` (inertia-limited, ``T(+D) ∝ 1/√D``), the −D neuron's slow one (``μ ~ 1/D ≪ γ²``) at ``≈ μ/γ``
(overdamped, ``T(−D) ∝ γD``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaugecli.core.defaults import C0, EPS_ALIGN, THETA0
from gaugecli.core.integrate.tolerance import Tolerance
from gaugecli.core.types import Progress
from gaugecli.experiments.declare import require, require_finite

HEAVY_BALL_RTOL = 1e-8
"""The solves' tolerance: the local slopes move by < 1e-8 from rtol 1e-8 to 1e-10 (measured at
D = 4, 16, 64, γ = 2), far inside their ~0.1 distance from 3/2 at these D."""
HORIZON_DOUBLINGS = 8
"""A pair member that has not aligned by its first horizon is run again to twice it, at most this often."""


@dataclass(frozen=True)
class HeavyBallPairConfig:
    """The friction ``gamma``, the gauge ``strengths`` (ascending), the model's ``d``, ``c0`` and
    ``θ0`` (the standard teacher ``v = e1``), the threshold ``eps_align`` and the solves' ``rtol``."""

    gamma: float = 2.0
    strengths: tuple[float, ...] = (1.0, 4.0, 16.0, 64.0)
    d: int = 16
    c0: float = C0
    theta0: float = THETA0
    eps_align: float = EPS_ALIGN
    rtol: float = HEAVY_BALL_RTOL

    def __post_init__(self) -> None:
        require_finite(self.gamma, "gamma", low=0.0)
        require_finite(self.c0, "c0", low=0.0)
        require_finite(self.rtol, "rtol", low=0.0)
        require(self.d >= 2, "d", f"must be ≥ 2 (got {self.d!r})")
        require(0.0 < self.theta0 < np.pi, "theta0", f"must be in (0, π) (got {self.theta0!r})")
        require(0.0 < self.eps_align < 1.0, "eps_align", f"must be in (0, 1) (got {self.eps_align!r})")
        s = list(self.strengths)
        require(
            len(s) >= 2 and s[0] > 0 and s == sorted(set(s)),
            "strengths",
            f"must be at least two ascending positive numbers (got {self.strengths!r})",
        )


@dataclass(frozen=True)
class HeavyBallPair:
    """At each of ``strengths``: ``t_plus`` = T_spec(+D), ``t_minus`` = T_spec(−D) (first crossing of
    ``α = 1 − ε_align``), ``ratios`` their quotient, ``horizons`` the −D run's horizon, and
    ``local_slopes`` ``Δ ln ratio / Δ ln D`` between consecutive strengths."""

    strengths: list[float]
    t_plus: list[float]
    t_minus: list[float]
    ratios: list[float]
    local_slopes: list[float]
    horizons: list[float]


def heavy_ball_pair(config: HeavyBallPairConfig, progress: Progress | None = None) -> HeavyBallPair:
    """Two heavy-ball solves per strength (about 1.5 CPU-s for D = 1 … 64 at γ = 2, 4 more for 256: the overdamped
    −D run's horizon grows like γD)."""
    from gaugecli.core.integrate.heavy_ball import heavy_ball_flow
    from gaugecli.core.model.gauge import duplicate_initial_condition
    from gaugecli.core.model.model import standard_model
    from gaugecli.core.model.state import Network

    model = standard_model(config.d)
    tolerance = Tolerance(config.rtol)

    def spec_time(delta: float, t_max: float) -> tuple[float, float]:
        for _ in range(HORIZON_DOUBLINGS + 1):
            a0, W0 = duplicate_initial_condition(model, np.array([delta]), config.c0, config.theta0)
            flow = heavy_ball_flow(
                Network(a0, W0),
                model,
                config.gamma,
                t_max,
                eps_align=config.eps_align,
                rtol=tolerance.rtol,
                atol=tolerance.atol,
            )
            t = float(flow.crossing_times[0])
            if np.isfinite(t):
                return t, t_max
            t_max *= 2.0
        return float("nan"), t_max

    plus, minus, horizons = [], [], []
    for i, D in enumerate(config.strengths):
        # T(+D) ≤ 4.5 (D ≥ 1, γ = 2: inertia-limited); T(−D) ≈ 10γD measured (overdamped): 12γ(1 + D) + 20
        # covers both with little spare, and a missed crossing doubles the horizon
        plus.append(spec_time(D, 20.0 + 10.0 / config.gamma)[0])
        t, horizon = spec_time(-D, 12.0 * config.gamma * (1.0 + D) + 20.0)
        minus.append(t)
        horizons.append(horizon)
        if progress is not None:
            progress((i + 1) / len(config.strengths))
    ratios = np.array(minus) / np.array(plus)
    slopes = np.diff(np.log(ratios)) / np.diff(np.log(config.strengths))
    return HeavyBallPair(
        list(config.strengths), plus, minus, [float(r) for r in ratios], [float(s) for s in slopes], horizons
    )
