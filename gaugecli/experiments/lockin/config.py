"""The configuration of ``gaugecli lockin``: gauge assignments and :class:`LockinConfig`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from gaugecli.core import lockin as lk
from gaugecli.core.gauge import owner_imbalances
from gaugecli.core.types import Array
from gaugecli.experiments.common import ModelConfig, duplicates, listed, require, require_finite, require_imbalance
from gaugecli.experiments.config import check_rtol

ASSIGNMENTS = ("select", "reversed", "all-plus", "all-minus")
"""Gauge assignments of the m duplicates (see :func:`assignment_imbalances`)."""


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
class LockinConfig:
    """Every option of ``gaugecli lockin``.

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
    m: int = 5
    owner: int = 0
    strengths: tuple[float, ...] = (4.0, 16.0)
    assignments: tuple[str, ...] = ASSIGNMENTS
    control: bool = True
    per: int = 200
    span: float = 5.0
    window: int = 20
    lag: int = 25
    threshold: float = 0.04
    burn_in: int = 100
    floor: float = lk.DEFAULT_FLOOR
    ridge: float = 1e-3
    rtol: float = 1e-10
    seeds: tuple[int, ...] = (0, 1, 2)
    n_samples: int = 10_000
    steps_per_unit: int = 200
    quadratic: bool = False
    quadratic_step_fraction: float = 0.2
    scan_strengths: tuple[float, ...] = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
    scan_pers: tuple[int, ...] = (50, 100, 200, 400, 800)
    scan_eps: tuple[float, ...] = (1e-16, 1e-13, 1e-10, 1e-7, 1e-4)
    store_every: int = 4

    def __post_init__(self) -> None:
        def integer(value: Any, param: str, low: int) -> None:
            ok = isinstance(value, int) and not isinstance(value, bool) and value >= low
            require(ok, param, f"must be an integer ≥ {low} (got {value!r})")

        integer(self.m, "m", 2)
        require(
            isinstance(self.owner, int) and 0 <= self.owner < self.m,
            "owner",
            f"must be an integer in [0, m-1] = [0, {self.m - 1}] (got {self.owner!r})",
        )
        require(len(self.strengths) >= 1, "gauge_strength", "give at least one D, e.g. -D 4")
        for D in self.strengths:
            require_imbalance(D, "gauge_strength", positive=True)
        require(len(self.assignments) >= 1, "assign", f"give at least one of {', '.join(ASSIGNMENTS)}")
        for a in self.assignments:
            require(a in ASSIGNMENTS, "assign", f"must be among {', '.join(ASSIGNMENTS)} (got {a!r})")
        require(
            "select" in self.assignments,
            "assign",
            "include select: it sets the clock of the aligned control, the finite-sample runs and the scans",
        )
        integer(self.window, "window", 3)
        integer(self.lag, "lag", 1)
        integer(self.burn_in, "burn_in", 0)
        integer(self.per, "per", 2)
        require_finite(self.span, "span", low=1.0, strict=False)
        require_finite(self.threshold, "threshold")
        require_finite(self.floor, "floor", low=0.0)
        require(self.floor < 1.0, "floor", f"must be in (0, 1) (got {self.floor!r})")
        require_finite(self.ridge, "ridge", low=0.0)
        check_rtol(self.rtol)
        require(
            self.span * self.per <= MAX_EPOCHS,
            "span",
            f"span × per = {self.span * self.per:.3g} epochs; must be ≤ {MAX_EPOCHS:.0e} (lower --span or --per)",
        )
        n_epochs = round(self.span * self.per)
        require(
            n_epochs >= self.window + self.lag,
            "span",
            f"span × per = {n_epochs} epochs is shorter than window + lag = {self.window + self.lag}; raise --span or --per",
        )
        require(len(self.seeds) >= 1, "seeds", "give at least one seed, e.g. --seeds 0,1,2")
        require(
            all(isinstance(s, int) and s >= 0 for s in self.seeds),
            "seeds",
            f"must be integers ≥ 0 (got {listed(self.seeds)})",
        )
        integer(self.n_samples, "n_samples", 2)
        integer(self.steps_per_unit, "steps_per_unit", 1)
        require_finite(self.quadratic_step_fraction, "x2_step_fraction", low=0.0)
        require(
            self.quadratic_step_fraction < 1.0,
            "x2_step_fraction",
            f"must be in (0, 1): a fraction of the stability bound (got {self.quadratic_step_fraction!r})",
        )
        for D in self.scan_strengths:
            require_imbalance(D, "scan_strengths", positive=True)
        for p in self.scan_pers:
            integer(p, "scan_pers", 2)
            require(
                round(self.span * p) >= self.window + self.lag,
                "scan_pers",
                f"per = {p} gives fewer than window + lag epochs over the span; use per ≥ "
                f"{math.ceil((self.window + self.lag) / self.span)}",
            )
        for eps in self.scan_eps:
            require_finite(eps, "scan_eps", low=0.0)
            require(eps <= 1.0, "scan_eps", f"must be in (0, 1] (a perturbation size; got {eps!r})")
        integer(self.store_every, "store_every", 1)

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
