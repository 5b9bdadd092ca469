"""``gaugecli select``: which of m duplicates learns the teacher feature (claim C6)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from gaugecli.core.analyses.observables import RunObservables
from gaugecli.core.frames import Labelled, View
from gaugecli.core.model.gauge import owner_imbalances
from gaugecli.core.model.state import Network
from gaugecli.core.types import LATER_FIELD, PointRunner, Progress
from gaugecli.experiments.common import check_widths, duplicates, run_ensemble, run_serially
from gaugecli.experiments.config import DynamicsConfig, ModelConfig, check_owner, check_seeds
from gaugecli.experiments.initial import check_initial, check_start_reads, initial_condition
from gaugecli.experiments.params import OwnerSweep, Select


@dataclass(frozen=True)
class SelectConfig:
    """``m`` duplicates; neuron ``owner`` gets ``+D`` and the others ``−D`` — or each its
    own δ from ``deltas`` (then the designated owner is ``argmax_j δ_j``). In a stochastic
    mode one run per seed (each its own sample or batch stream; ``None``: seed 0); the
    population dynamics are deterministic and take no seeds. ``init``, ``eps``, ``init_seed``,
    ``init_scale_a``, ``init_scale_w``, ``mixed_signs``: the initial condition, as for :class:`~gaugecli.experiments.simulate.SimulateConfig`."""

    model: ModelConfig = field(default_factory=ModelConfig)
    dynamics: DynamicsConfig = field(default_factory=DynamicsConfig)
    m: int = Select.m.default
    strength: float = Select.strength.default
    owner: int = Select.owner.default
    deltas: tuple[float, ...] | None = Select.deltas.default
    seeds: tuple[int, ...] | None = Select.seeds.default
    init: str = Select.init.default
    eps: float | None = Select.eps.default
    init_seed: int | None = Select.init_seed.default
    init_scale_a: float | None = field(default=Select.init_scale_a.default, metadata={LATER_FIELD: True})
    init_scale_w: float | None = field(default=Select.init_scale_w.default, metadata={LATER_FIELD: True})
    mixed_signs: bool = field(default=Select.mixed_signs.default, metadata={LATER_FIELD: True})

    def __post_init__(self) -> None:
        Select.check(self)
        check_initial(self.init, self.eps, self.init_seed, self.model.theta0, self.init_scales, self.mixed_signs)
        check_start_reads(self.model, self.init)
        check_seeds(self.seeds, self.dynamics)
        if self.deltas is not None:
            object.__setattr__(self, "m", len(self.deltas))
        else:
            check_owner(self.owner, self.m)

    def imbalances(self) -> np.ndarray:
        if self.deltas is not None:
            return np.asarray(self.deltas, float)
        return owner_imbalances(self.m, self.strength, self.owner)

    @property
    def init_scales(self) -> tuple[float | None, float | None]:
        """(σ_a, σ_w) of ``init`` gaussian (``None``: the default 0.3)."""
        return self.init_scale_a, self.init_scale_w

    @property
    def designated(self) -> int:
        """The neuron the gauge designates: ``owner``, or ``argmax_j δ_j`` for explicit δ."""
        return int(np.argmax(self.imbalances())) if self.deltas is not None else self.owner

    @property
    def run_seeds(self) -> tuple[int, ...]:
        return self.seeds if self.seeds is not None else (0,)


def selected(run: RunObservables, designated: int) -> bool:
    """Selection succeeded: the run has a unique owner, it is ``designated``, and it aligned.
    A tied or round-off-decided owner (``owner is None``) is "no selection", never a success."""
    return run.owner is not None and run.specialized and run.owner == designated


@dataclass
class SelectResult(Labelled):
    """``owner``/``t_spec`` of the first run; ``owner`` is ``None`` when it has no unique owner.
    ``symmetric_start``: some run started symmetric or tied; ``symmetry_note``: the first such
    run's one-line reason (what to do), else ``None``."""

    VIEW: ClassVar[View] = View(dims={"seeds": ("run",), "success": ("run",)}, records={"runs": "run"})
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

    designated: int
    runs: list[RunObservables]
    seeds: list[int]
    success: list[bool]
    owner: int | None
    t_spec: float | None
    symmetric_start: bool = False
    symmetry_note: str | None = None


def select(config: SelectConfig, progress: Progress | None = None) -> SelectResult:
    deltas = config.imbalances()
    a0, W0 = initial_condition(
        config.model, deltas[None, :], config.init, config.eps, config.init_seed, config.init_scales, config.mixed_signs
    )
    runs: list[RunObservables] = []
    seeds = list(config.run_seeds)
    for i, seed in enumerate(seeds):
        sub = None if progress is None else (lambda f, i=i: progress((i + f) / len(seeds)))
        runs.extend(run_ensemble(config.model, config.dynamics, Network(a0, W0), seed=seed, progress=sub))
    flagged = [r for r in runs if r.symmetric_start]
    return SelectResult(
        designated=config.designated,
        runs=runs,
        seeds=seeds,
        success=[selected(r, config.designated) for r in runs],
        owner=runs[0].owner,
        t_spec=runs[0].t_spec,
        symmetric_start=bool(flagged),
        symmetry_note=flagged[0].symmetry_note if flagged else None,
    )


@dataclass(frozen=True)
class OwnerSweepConfig:
    """Owner success over ``m ∈ ms`` and every designated ``o < m`` (× seeds in a stochastic mode)."""

    model: ModelConfig = field(default_factory=ModelConfig)
    dynamics: DynamicsConfig = field(default_factory=DynamicsConfig)
    ms: tuple[int, ...] = OwnerSweep.ms.default
    strength: float = OwnerSweep.strength.default
    seeds: tuple[int, ...] | None = OwnerSweep.seeds.default

    def __post_init__(self) -> None:
        OwnerSweep.check(self)
        check_seeds(self.seeds, self.dynamics)

    @property
    def run_seeds(self) -> tuple[int, ...]:
        return self.seeds if self.seeds is not None else (0,)


@dataclass
class OwnerSweepPoint:
    m: int
    designated: int
    seed: int
    owner: int | None
    success: bool
    t_spec: float | None
    symmetric_start: bool = False


@dataclass
class OwnerSweepResult(Labelled):
    HEADLINE: ClassVar[tuple[str, ...]] = ("ms", "success_matrix")
    VIEW: ClassVar[View] = View(
        dims={"ms": ("ms",), "success_matrix": ("ms", "designated")}, records={"points": "point"}
    )
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""
    ms: list[int]
    strength: float
    points: list[OwnerSweepPoint]
    success_matrix: list[list[float]]


@dataclass(frozen=True)
class OwnerJob:
    """One point of the owner sweep: width ``m`` and one seed; its m designations run as one ensemble."""

    model: ModelConfig
    dynamics: DynamicsConfig
    m: int
    strength: float
    seed: int


@dataclass
class OwnerJobResult:
    points: list[OwnerSweepPoint]


def owner_job(job: OwnerJob) -> OwnerJobResult:
    deltas = np.stack([owner_imbalances(job.m, job.strength, o) for o in range(job.m)])
    a0, W0 = duplicates(job.model, deltas)
    runs = run_ensemble(job.model, job.dynamics, Network(a0, W0), seed=job.seed)
    return OwnerJobResult(
        [
            OwnerSweepPoint(job.m, o, job.seed, r.owner, selected(r, o), r.t_spec, r.symmetric_start)
            for o, r in enumerate(runs)
        ]
    )


def owner_sweep(
    config: OwnerSweepConfig, progress: Progress | None = None, runner: PointRunner = run_serially
) -> OwnerSweepResult:
    """Owner success for every ``m`` and designated ``o`` (every seed in a stochastic mode)."""
    seeds = config.run_seeds
    for m in config.ms:  # each job builds m designations × m neurons: refuse before any is built
        _, W0 = duplicates(config.model, owner_imbalances(m, config.strength, 0)[None])
        check_widths(config.model, config.dynamics, W0[0])
    jobs = [OwnerJob(config.model, config.dynamics, m, config.strength, s) for m in config.ms for s in seeds]
    points = [p for res in runner(owner_job, jobs, progress) for p in res.points]
    matrix = [
        [float(np.mean([p.success for p in points if p.m == m and p.designated == o])) for o in range(m)]
        for m in config.ms
    ]
    return OwnerSweepResult(list(config.ms), config.strength, points, matrix)
