"""The configuration of ``gaugecli perturb`` (:class:`PerturbConfig`) and the start every sweep
shares: the selection problem's duplicates, neuron 0 at ``+D``, the other ``m − 1`` at ``−D``."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gaugecli.core.model.gauge import owner_imbalances
from gaugecli.experiments.common import duplicates
from gaugecli.experiments.config import DynamicsConfig, ModelConfig, PopulationTolerance, check_flow_dynamics
from gaugecli.experiments.declare import require
from gaugecli.experiments.params import Perturb


@dataclass(frozen=True)
class PerturbConfig(PopulationTolerance):
    """The four sweeps of C8 (fields: :class:`~gaugecli.experiments.params.Perturb`); see the
    package docstring. Step sweep: ``step_fractions`` are η/T_spec^flow, ``stability_fractions``
    η/(2/λ_max(θ0)). Sample sweep: ``window`` is the horizon in units of T_spec^flow. Selection
    sweep: ``success_horizon`` likewise."""

    model: ModelConfig = field(default_factory=ModelConfig)
    dynamics: DynamicsConfig = field(default_factory=DynamicsConfig)
    m: int = Perturb.m.default
    # (a) visible perturbations
    eps: tuple[float, ...] = Perturb.eps.default
    strengths: tuple[float, ...] = Perturb.strengths.default
    adversarial: bool = Perturb.kind.default == "adversarial"  # the flag --kind adversarial|random
    seeds: tuple[int, ...] = Perturb.seeds.default
    refine: int = Perturb.refine.default
    # (b) step sizes
    step_strength: float = Perturb.step_strength.default
    step_fractions: tuple[float, ...] = Perturb.step_fractions.default
    stability_fractions: tuple[float, ...] = Perturb.stability_fractions.default
    # (c) sample sizes
    sample_strength: float = Perturb.sample_strength.default
    ns: tuple[int, ...] = Perturb.ns.default
    sample_seeds: tuple[int, ...] = Perturb.sample_seeds.default
    window: float = Perturb.window.default
    sample_gd: bool = Perturb.sample_gd.default
    # (d) selection against n
    success_ns: tuple[int, ...] = Perturb.success_ns.default
    success_seeds: tuple[int, ...] = Perturb.success_seeds.default
    success_horizon: float = Perturb.success_horizon.default
    # which of (a)–(d) run; the result holds None for the others
    sweeps: tuple[str, ...] = Perturb.sweeps.default

    def __post_init__(self) -> None:
        Perturb.check(self)
        check_flow_dynamics(self.dynamics, "perturb")
        if self.adversarial:
            limit = math.pi - self.model.theta0
            require(
                max(self.eps) < limit,
                "eps",
                f"adversarial ε turns the favorable neuron to θ0 + ε, so ε must be in [0, π − θ0) = [0, {limit:.4g})",
            )

    def runs(self, sweep: str) -> bool:
        """Whether ``sweep`` (one of :data:`~gaugecli.experiments.params.PERTURB_SWEEPS`) is run."""
        return sweep in self.sweeps


def selection_start(model: ModelConfig, m: int, strength: float) -> tuple[np.ndarray, np.ndarray]:
    """The selection problem's duplicates as a one-member ensemble: neuron 0 at +D, the rest at −D."""
    return duplicates(model, owner_imbalances(m, strength, 0)[None])
