"""What ``gaugecli reln`` computes: :class:`RelnConfig`, and the solver settings every ReLN/ReLU
flow of one configuration shares (tolerances, horizon)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gaugecli.core.integrate.flow import FlowOptions
from gaugecli.core.types import Array
from gaugecli.experiments.config import DynamicsConfig, ModelConfig, auto_horizon, check_owner, check_paper_model
from gaugecli.experiments.declare import require
from gaugecli.experiments.params import Mode, Reln


@dataclass(frozen=True)
class RelnConfig:
    """What ``gaugecli reln`` computes (population flow only).

    ``strengths``: gauge strengths D of the m = 1 comparisons (each run at +D and −D);
    ``m``, ``select_strength``, ``owner``: the ``select`` comparison (owner +D, others −D);
    ``restart``: restart times ``t0`` in units of the ReLU run's T_spec;
    ``levels``: loss-reduction factors the restarted runs must reach (``L(t0)/level``);
    ``envelope_levels``: absolute loss levels ℓ (units of a*²‖v‖²) of the fixed-gate envelope;
    ``psi_step``: step of the envelope's gate-angle grid ψ ∈ [0°, 90°], in degrees.
    """

    model: ModelConfig = field(default_factory=ModelConfig)
    dynamics: DynamicsConfig = field(default_factory=DynamicsConfig)
    strengths: tuple[float, ...] = Reln.strengths.default
    m: int = Reln.m.default
    select_strength: float = Reln.select_strength.default
    owner: int = Reln.owner.default
    restart: tuple[float, ...] = Reln.restart.default
    levels: tuple[float, ...] = Reln.levels.default
    envelope_levels: tuple[float, ...] = Reln.envelope_levels.default
    psi_step: float = Reln.psi_step.default

    def __post_init__(self) -> None:
        Reln.check(self)
        require(
            self.dynamics.mode is Mode.flow,
            "mode",
            f"reln compares population gradient flows only; use `mode` flow (got {self.dynamics.mode.value})",
        )
        check_paper_model(self.model, "reln", "a ReLN gate is a ReLU neuron's frozen activation pattern")
        require(self.model.k == 1, "k", f"reln needs a one-feature teacher, k = 1 (got {self.model.k})")
        require(self.model.a_star > 0, "a_star", f"reln needs a teacher weight a* > 0 (got {self.model.a_star!r})")
        require(len(set(self.strengths)) == len(self.strengths), "gauge_strength", "give each D once (got duplicates)")
        check_owner(self.owner, self.m)

    def deltas(self) -> list[float]:
        """δ of the m = 1 runs: +D, −D for each D, in that order."""
        return [s * float(D) for D in self.strengths for s in (1.0, -1.0)]

    def psi_grid_deg(self) -> Array:
        """Gate angles ψ in degrees, from 0 to 90 in steps of ``psi_step`` (90 always included)."""
        n = math.ceil(90.0 / self.psi_step - 1e-9)
        return np.append(self.psi_step * np.arange(n), 90.0)

    def psi_grid(self) -> Array:
        """:meth:`psi_grid_deg` in radians."""
        return np.deg2rad(self.psi_grid_deg())


def flow_options(config: RelnConfig) -> FlowOptions:
    """The stiff solver's settings: the config's tolerance (:class:`~gaugecli.core.integrate.tolerance.Tolerance`)."""
    return FlowOptions.at(config.dynamics.tolerance, grid_points=config.dynamics.grid_points)


def horizon(config: RelnConfig, deltas: Array) -> float:
    """Twice the ReLU horizon of :func:`auto_horizon`: the final-gate ReLN at −D needs ``≈ 2D ln(D²/c0)``
    more before it converges, which the doubled cap covers (the flows stop at ‖∇L‖ ≤ 1e-10 anyway)."""
    return config.dynamics.t_max or 2.0 * auto_horizon(deltas, config.model.c0)


def perpendicular(model: ModelConfig) -> bool:
    """The final-gate asymptotes are derived for a start ⊥ v (θ0 = π/2, the default)."""
    return abs(model.theta0 - math.pi / 2) < 1e-12
