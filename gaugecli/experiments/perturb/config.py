"""The configuration of ``gaugecli perturb`` (:class:`PerturbConfig`) and the start every sweep
shares: the selection problem's duplicates, neuron 0 at ``+D``, the other ``m − 1`` at ``−D``."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gaugecli.core.gauge import owner_imbalances
from gaugecli.experiments.common import ModelConfig, duplicates, listed, require, require_finite, require_imbalance
from gaugecli.experiments.config import check_rtol

MAX_SUCCESS_HORIZON = 1000.0
"""Longest horizon of the selection-vs-n runs, in units of T_spec^flow (the default is 25)."""


@dataclass(frozen=True)
class PerturbConfig:
    """The four sweeps of C8; see the module docstring. Step sweep: ``step_fractions`` are
    η/T_spec^flow, ``stability_fractions`` η/(2/λ_max(θ0)). Sample sweep: ``window`` is the
    horizon in units of T_spec^flow. Selection sweep: ``success_horizon`` likewise."""

    model: ModelConfig = field(default_factory=ModelConfig)
    m: int = 2
    # (a) visible perturbations
    eps: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.5, 1.56)
    strengths: tuple[float, ...] = (1.0, 4.0, 16.0, 64.0, 256.0, 1024.0)
    adversarial: bool = True
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6, 7)
    refine: int = 8
    # (b) step sizes
    step_strength: float = 4.0
    step_fractions: tuple[float, ...] = (0.00125, 0.0025, 0.005, 0.01, 0.02, 0.04)
    stability_fractions: tuple[float, ...] = (0.1, 0.3, 0.6, 0.9, 1.2, 1.5)
    # (c) sample sizes
    sample_strength: float = 4.0
    ns: tuple[int, ...] = (500, 1000, 2000, 4000, 8000, 16000, 32000)
    sample_seeds: tuple[int, ...] = tuple(range(10))
    window: float = 3.0
    sample_gd: bool = False
    # (d) selection against n
    success_ns: tuple[int, ...] = (16, 24, 32, 48, 64, 96, 128)
    success_seeds: tuple[int, ...] = tuple(range(20))
    success_horizon: float = 25.0
    rtol: float = 1e-10

    def __post_init__(self) -> None:
        require(isinstance(self.m, int) and self.m >= 2, "m", f"must be an integer ≥ 2 (got {self.m!r})")
        require(len(self.eps) >= 1, "eps", "give at least one ε, e.g. --eps 0,0.1,0.2")
        for e in self.eps:
            require_finite(e, "eps", low=0.0, strict=False)
        if self.adversarial:
            limit = math.pi - self.model.theta0
            require(
                max(self.eps) < limit,
                "eps",
                f"adversarial ε turns the favorable neuron to θ0 + ε, so ε must be in [0, π − θ0) = [0, {limit:.4g})",
            )
        require(len(self.strengths) >= 1, "gauge_strength", "give at least one D")
        for D in self.strengths:
            require_imbalance(D, "gauge_strength", positive=True)
        require_imbalance(self.step_strength, "step_strength", positive=True)
        check_rtol(self.rtol)
        require_imbalance(self.sample_strength, "sample_strength", positive=True)
        require(len(self.seeds) >= 1 and all(s >= 0 for s in self.seeds), "seeds", "must be integers ≥ 0")
        require(len(self.step_fractions) >= 3, "step_fractions", "give at least three step sizes (a fit)")
        for f in self.step_fractions:
            require_finite(f, "step_fractions", low=0.0)
        for f in self.stability_fractions:
            require_finite(f, "stability_fractions", low=0.0)
        require(
            max(self.step_fractions) <= 0.1,
            "step_fractions",
            f"must be ≤ 0.1 (η/T_spec^flow: ≥ 10 steps before T_spec, where the error is first order); "
            f"got {max(self.step_fractions):g}",
        )
        require(len(self.ns) >= 2, "ns", "give at least two sample sizes, e.g. --ns 1000,4000")
        require(
            all(isinstance(n, int) and n >= 1 for n in self.ns), "ns", f"must be integers ≥ 1 (got {listed(self.ns)})"
        )
        require(
            len(self.sample_seeds) >= 2 and all(s >= 0 for s in self.sample_seeds),
            "sample_seeds",
            "give at least two seeds ≥ 0 (error bars need them; ≥ 10 recommended)",
        )
        require_finite(self.window, "window", low=0.0)
        require(
            all(isinstance(n, int) and n >= 1 for n in self.success_ns),
            "success_ns",
            f"must be integers ≥ 1 (got {listed(self.success_ns)})",
        )
        require(all(s >= 0 for s in self.success_seeds), "success_seeds", "must be integers ≥ 0")
        require_finite(self.success_horizon, "success_horizon", low=0.0)
        require(
            self.success_horizon <= MAX_SUCCESS_HORIZON,
            "success_horizon",
            f"must be in (0, {MAX_SUCCESS_HORIZON:g}] T_spec (got {self.success_horizon:g}): selection is decided "
            "within a few T_spec, and each unit costs solver steps at every n and seed",
        )
        require(isinstance(self.refine, int) and self.refine >= 0, "refine", "must be an integer ≥ 0")


def selection_start(model: ModelConfig, m: int, strength: float) -> tuple[np.ndarray, np.ndarray]:
    """The selection problem's duplicates as a one-member ensemble: neuron 0 at +D, the rest at −D."""
    return duplicates(model, owner_imbalances(m, strength, 0)[None])
