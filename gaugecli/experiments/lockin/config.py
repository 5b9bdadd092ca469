"""The configuration of ``gaugecli lockin``: gauge assignments and :class:`LockinConfig`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from gaugecli.core.model.gauge import owner_imbalances
from gaugecli.core.types import Array
from gaugecli.experiments.common import duplicates
from gaugecli.experiments.config import (
    DynamicsConfig,
    ModelConfig,
    PopulationTolerance,
    check_flow_dynamics,
    check_owner,
    check_paper_model,
)
from gaugecli.experiments.declare import require
from gaugecli.experiments.params import ASSIGNMENTS, Lockin


def assignment_imbalances(assign: str, m: int, strength: float, owner: int = 0) -> Array:
    """δ per neuron: ``select`` one +D (neuron ``owner``) among −D, ``reversed`` one −D among +D,
    ``all-plus`` / ``all-minus`` every neuron at ±D."""
    if assign == "select":
        return owner_imbalances(m, strength, owner)
    if assign == "reversed":
        return -owner_imbalances(m, strength, owner)
    if assign == "all-plus":
        return np.full(m, float(strength))
    if assign == "all-minus":
        return np.full(m, -float(strength))
    raise ValueError(f"unknown assignment {assign!r}; one of {', '.join(ASSIGNMENTS)}")


MAX_EPOCHS = 1e9
"""Most epochs a run's grid may have (far beyond any memory: the budget check names the limit)."""


@dataclass(frozen=True)
class LockinConfig(PopulationTolerance):
    """Every option of ``gaugecli lockin`` (fields: :class:`~gaugecli.experiments.params.Lockin`).

    ``per``: epochs per ``t_unit`` (the epoch is ``τ = t_unit/per``); ``span``: horizon in ``t_unit``.
    Xu's detector: ``window`` updates per Gram matrix, slope over ``lag`` epochs, fires above
    ``threshold`` at epoch ≥ ``burn_in``; ``floor``: round-off floor on λ3 (relative to λ1).
    ``ridge``: Tian's η relative to the features' mean variance (``η = ridge · tr G/m``).
    Finite sample: ``seeds``, ``n_samples``, GD step ``η ≤ t_unit/steps_per_unit`` (and a whole
    number of steps per epoch). ``quadratic`` adds σ = x² finite-sample runs (GD step
    ``quadratic_step_fraction`` × the stability bound at θ0). ``scan_*``: the D, per and ε scans
    (empty to skip). ``store_every``: keep every k-th epoch in the stored series.
    """

    model: ModelConfig = field(default_factory=ModelConfig)
    dynamics: DynamicsConfig = field(default_factory=DynamicsConfig)
    m: int = Lockin.m.default
    owner: int = Lockin.owner.default
    strengths: tuple[float, ...] = Lockin.strengths.default
    assignments: tuple[str, ...] = Lockin.assignments.default
    control: bool = Lockin.control.default
    per: int = Lockin.per.default
    span: float = Lockin.span.default
    window: int = Lockin.window.default
    lag: int = Lockin.lag.default
    threshold: float = Lockin.threshold.default
    burn_in: int = Lockin.burn_in.default
    floor: float = Lockin.floor.default
    ridge: float = Lockin.ridge.default
    seeds: tuple[int, ...] = Lockin.seeds.default
    n_samples: int = Lockin.n_samples.default
    steps_per_unit: int = Lockin.steps_per_unit.default
    quadratic: bool = Lockin.quadratic.default
    quadratic_step_fraction: float = Lockin.quadratic_step_fraction.default
    scan_strengths: tuple[float, ...] = Lockin.scan_strengths.default
    scan_pers: tuple[int, ...] = Lockin.scan_pers.default
    scan_eps: tuple[float, ...] = Lockin.scan_eps.default
    store_every: int = Lockin.store_every.default

    def __post_init__(self) -> None:
        Lockin.check(self)
        check_flow_dynamics(self.dynamics, "lockin")
        check_paper_model(self.model, "lockin", "its Gram matrices and detectors are the ReLU network's")
        check_owner(self.owner, self.m)
        require(
            "select" in self.assignments,
            "assign",
            "include select: it sets the clock of the aligned control, the finite-sample runs and the scans",
        )
        require(
            self.span * self.per <= MAX_EPOCHS,
            "span",
            f"span × per = {self.span * self.per:.3g} epochs; must be ≤ {MAX_EPOCHS:.0e} (lower `span` or `per`)",
        )
        n_epochs = round(self.span * self.per)
        require(
            n_epochs >= self.window + self.lag,
            "span",
            f"span × per = {n_epochs} epochs is shorter than window + lag = {self.window + self.lag}; "
            "raise `span` or `per`",
        )
        for p in self.scan_pers:
            require(
                round(self.span * p) >= self.window + self.lag,
                "scan_pers",
                f"per = {p} gives fewer than window + lag epochs over the span; use per ≥ "
                f"{math.ceil((self.window + self.lag) / self.span)}",
            )

    @property
    def sample_strength(self) -> float:
        """D of the finite-sample runs: the first of ``strengths``."""
        return float(self.strengths[0])


def condition_model(config: LockinConfig, control: bool) -> ModelConfig:
    """The model of a run: the aligned control starts at θ0 = 0 (already aligned, nothing to lock in)."""
    return replace(config.model, theta0=0.0) if control else config.model


def start_state(config: LockinConfig, model: ModelConfig, assign: str, D: float) -> tuple[Array, Array, Array]:
    """``(δ (m,), a0 (m,), W0 (m, d))``: the duplicates' complete initial function for ``assign`` at strength D."""
    deltas = assignment_imbalances(assign, config.m, D, config.owner)
    a0, W0 = duplicates(model, deltas[None, :])
    return deltas, a0[0], W0[0]
