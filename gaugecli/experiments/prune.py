"""``gaugecli prune``: the non-owners' function vanishes (claim C7), and when it does not.

``P(t) = ‖Σ_{j≠o} a_j relu(w_j·x)‖_{L²}`` over a grid of gauge strengths D and widths m,
for the population flow and for the finite-sample flow (on ``L_n``); and the exception: non-owners with
``δ > 0`` co-align with the owner and keep part of the coefficient.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gaugecli.core.gauge import owner_imbalances
from gaugecli.core.integrate import Progress
from gaugecli.core.metrics import first_time_below
from gaugecli.core.observables import RunObservables
from gaugecli.experiments.common import (
    DynamicsConfig,
    Mode,
    ModelConfig,
    PointRunner,
    check_seeds,
    duplicates,
    require,
    require_finite,
    require_imbalance,
    run_ensemble,
    run_serially,
)

PRUNED_LEVEL = 1e-6
"""P below this counts as pruned (SPEC C7)."""


@dataclass(frozen=True)
class PruneConfig:
    """Grid ``strengths × ms``; owner 0 gets +D, the rest −D. ``sample`` adds finite-sample
    flow runs (gradient flow on ``L_n``; ``n_samples``, one per seed — both only with
    ``sample``, ``None`` = not given: 10 000 and seed 0). The co-alignment contrast uses
    ``m = 3``, ``D = coalign_strength``: non-owners at ``−D`` (pruned) vs at ``+D/2`` (co-aligned)."""

    model: ModelConfig = field(default_factory=ModelConfig)
    strengths: tuple[float, ...] = (4.0, 16.0, 64.0)
    ms: tuple[int, ...] = (2, 5)
    sample: bool = True
    n_samples: int | None = None
    seeds: tuple[int, ...] | None = None
    coalign_strength: float = 4.0
    rtol: float = 1e-10

    def __post_init__(self) -> None:
        require(len(self.strengths) >= 1, "gauge_strength", "give at least one D")
        for D in self.strengths:
            require_imbalance(D, "gauge_strength", positive=True)
        require(len(self.ms) >= 1, "ms", "give at least one m, e.g. --ms 2,5")
        require(all(isinstance(m, int) and m >= 2 for m in self.ms), "ms", f"must be integers ≥ 2 (got {self.ms!r})")
        for name in ("n_samples", "seeds"):
            require(
                self.sample or getattr(self, name) is None,
                name,
                "has no effect without the finite-sample runs (--no-sample); drop it or use --sample",
            )
        # validated (range, and that they apply) by the sample dynamics they build
        check_seeds(self.seeds, self.sample_dynamics)
        require_finite(self.coalign_strength, "coalign_strength", low=0.0)

    @property
    def sample_dynamics(self) -> DynamicsConfig:
        return DynamicsConfig(mode=Mode.sample, n_samples=self.n_samples if self.sample else None)

    @property
    def run_seeds(self) -> tuple[int, ...]:
        return self.seeds if self.seeds is not None else (0,)


@dataclass
class PrunePoint:
    strength: float
    m: int
    mode: str
    seed: int
    owner: int | None
    t: np.ndarray
    nonowner_norm: np.ndarray
    time_below: float | None
    final: float


@dataclass
class Coalignment:
    deltas_pruned: list[float]
    deltas_coaligned: list[float]
    pruned: RunObservables
    coaligned: RunObservables


@dataclass
class PruneResult:
    level: float
    points: list[PrunePoint]
    coalignment: Coalignment


def _point(D: float, m: int, mode: str, seed: int, run: RunObservables) -> PrunePoint:
    below = first_time_below(run.t, run.nonowner_norm, PRUNED_LEVEL)
    return PrunePoint(
        D,
        m,
        mode,
        seed,
        run.owner,
        run.t,
        run.nonowner_norm,
        None if np.isnan(below) else below,
        float(run.nonowner_norm[-1]),
    )


@dataclass(frozen=True)
class PruneJob:
    """One point of the grid: width ``m``, the gauge strengths run as one ensemble, a seed."""

    model: ModelConfig
    dynamics: DynamicsConfig
    m: int
    strengths: tuple[float, ...]
    seed: int


@dataclass
class PruneJobResult:
    points: list[PrunePoint]


def prune_job(job: PruneJob) -> PruneJobResult:
    deltas = np.stack([owner_imbalances(job.m, D, 0) for D in job.strengths])
    a0, W0 = duplicates(job.model, deltas)
    runs = run_ensemble(job.model, job.dynamics, a0, W0, seed=job.seed)
    return PruneJobResult(
        [_point(D, job.m, job.dynamics.mode.value, job.seed, r) for D, r in zip(job.strengths, runs, strict=True)]
    )


@dataclass(frozen=True)
class CoalignJob:
    model: ModelConfig
    strength: float
    rtol: float


def coalign_job(job: CoalignJob) -> Coalignment:
    """m = 3, owner at +D: non-owners at −D (pruned) against non-owners at +D/2 (co-aligned)."""
    D = job.strength
    pruned = np.array([D, -D, -D])
    coaligned = np.array([D, D / 2, D / 2])
    a0, W0 = duplicates(job.model, np.stack([pruned, coaligned]))
    run_p, run_c = run_ensemble(job.model, DynamicsConfig(mode=Mode.flow, rtol=job.rtol), a0, W0)
    return Coalignment(pruned.tolist(), coaligned.tolist(), run_p, run_c)


def prune(config: PruneConfig, progress: Progress | None = None, runner: PointRunner = run_serially) -> PruneResult:
    flow = DynamicsConfig(mode=Mode.flow, rtol=config.rtol)
    sample = config.sample_dynamics
    # Flow: every D for one m is one ensemble. Sample flow: one run per (m, D, seed), so
    # that each D takes its own step sizes instead of sharing the stiffest member's.
    jobs = [PruneJob(config.model, flow, m, config.strengths, 0) for m in config.ms]
    if config.sample:
        jobs += [
            PruneJob(config.model, sample, m, (D,), s)
            for m in config.ms
            for D in config.strengths
            for s in config.run_seeds
        ]
    n = len(jobs) + 1
    scaled = None if progress is None else (lambda f: progress(f * len(jobs) / n))
    points = [p for res in runner(prune_job, jobs, scaled) for p in res.points]
    points.sort(key=lambda p: (p.mode != "flow", p.m, p.strength, p.seed))
    (coalignment,) = runner(coalign_job, [CoalignJob(config.model, config.coalign_strength, config.rtol)], None)
    if progress is not None:
        progress(1.0)
    return PruneResult(PRUNED_LEVEL, points, coalignment)
