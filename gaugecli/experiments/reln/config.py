"""What ``gaugecli reln`` computes: :class:`RelnConfig`, and the solver settings every ReLN/ReLU
flow of one configuration shares (tolerances, horizon)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gaugecli.core.integrate import FlowOptions
from gaugecli.core.types import Array
from gaugecli.experiments.common import (
    DynamicsConfig,
    Mode,
    ModelConfig,
    auto_horizon,
    require,
    require_finite,
    require_imbalance,
)

MIN_PSI_STEP = 0.1
"""Finest step of the envelope's gate-angle grid, in degrees (901 angles; 1e-7° asked for 10⁹)."""


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
    strengths: tuple[float, ...] = (1.0, 4.0, 16.0, 64.0)
    m: int = 5
    select_strength: float = 4.0
    owner: int = 0
    restart: tuple[float, ...] = (0.5, 1.0, 2.0, 5.0)
    levels: tuple[float, ...] = (10.0, 100.0)
    envelope_levels: tuple[float, ...] = (0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002)
    psi_step: float = 2.0

    def __post_init__(self) -> None:
        require(
            self.dynamics.mode is Mode.flow,
            "mode",
            f"reln compares population gradient flows only; use --mode flow (got {self.dynamics.mode.value})",
        )
        require(self.model.k == 1, "k", f"reln needs a one-feature teacher, k = 1 (got {self.model.k})")
        require(self.model.a_star > 0, "a_star", f"reln needs a teacher weight a* > 0 (got {self.model.a_star!r})")
        require(len(self.strengths) >= 1, "gauge_strength", "give at least one D, e.g. -D 4")
        for D in self.strengths:
            require_imbalance(D, "gauge_strength", positive=True)
        require(len(set(self.strengths)) == len(self.strengths), "gauge_strength", "give each D once (got duplicates)")
        require(
            isinstance(self.m, int) and not isinstance(self.m, bool) and self.m >= 2,
            "m",
            f"select needs m ≥ 2 neurons (got {self.m!r})",
        )
        require_imbalance(self.select_strength, "select_strength", positive=True)
        require(
            isinstance(self.owner, int) and not isinstance(self.owner, bool) and 0 <= self.owner < self.m,
            "owner",
            f"must be an integer in [0, m-1] = [0, {self.m - 1}] (got {self.owner!r})",
        )
        require(len(self.restart) >= 1, "restart", "give at least one t0/T_spec, e.g. --restart 0.5,1,2,5")
        for k in self.restart:
            require_finite(k, "restart", low=0.0)
            require(k <= 100.0, "restart", f"t0/T_spec must be in (0, 100] (got {k!r})")
        require(len(self.levels) >= 1, "levels", "give at least one loss-reduction factor, e.g. --levels 10,100")
        for f in self.levels:
            require_finite(f, "levels", low=1.0)
            require(f <= 1e8, "levels", f"loss-reduction factors must be in (1, 1e8] (got {f!r})")
        require(len(self.envelope_levels) >= 1, "envelope_levels", "give at least one loss level ℓ")
        for ell in self.envelope_levels:
            require_finite(ell, "envelope_levels", low=0.0)
        require_finite(self.psi_step, "psi_step", low=0.0)
        require(
            MIN_PSI_STEP <= self.psi_step <= 45.0,
            "psi_step",
            f"must be in [{MIN_PSI_STEP:g}, 45] degrees (got {self.psi_step:g})",
        )

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
    """The stiff solver's settings: ``rtol`` from the config, ``atol = 1e-3 rtol``."""
    return FlowOptions(
        rtol=config.dynamics.solver_rtol,
        atol=config.dynamics.solver_rtol * 1e-3,
        grid_points=config.dynamics.grid_points,
    )


def horizon(config: RelnConfig, deltas: Array) -> float:
    """Twice the ReLU horizon of :func:`auto_horizon`: the final-gate ReLN at −D needs ``≈ 2D ln(D²/c0)``
    more before it converges, which the doubled cap covers (the flows stop at ‖∇L‖ ≤ 1e-10 anyway)."""
    return config.dynamics.t_max or 2.0 * auto_horizon(deltas, config.model.c0)


def perpendicular(model: ModelConfig) -> bool:
    """The final-gate asymptotes are derived for a start ⊥ v (θ0 = π/2, the default)."""
    return abs(model.theta0 - math.pi / 2) < 1e-12
