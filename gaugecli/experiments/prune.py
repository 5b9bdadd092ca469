"""``gaugecli prune``: the non-owners' function vanishes (claim C7), and when it does not.

``P(t) = ‖Σ_{j≠o} a_j σ(w_j·x)‖_{L²}`` over a grid of gauge strengths D and widths m,
for the population flow and for the finite-sample flow (on ``L_n``), with the time at which
``P ≤ 10⁻⁶`` and the exponential rate of the decay against its linearisation
(:func:`gaugecli.core.analyses.pruning.pruning_rate`); and the boundary: a sweep of the non-owner's δ
(m = 2, owner at ``+coalign_strength``) — non-owners with ``δ < 0`` are pruned, with ``δ ≥ 0``
they co-align with the owner and keep part of the coefficient — and the m = 3 contrast.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from gaugecli.core.analyses.observables import RunObservables
from gaugecli.core.analyses.pruning import pruning_rate
from gaugecli.core.frames import Labelled, View
from gaugecli.core.model.gauge import owner_imbalances
from gaugecli.core.model.metrics import first_time_below
from gaugecli.core.model.state import Network
from gaugecli.core.types import PointRunner, Progress
from gaugecli.experiments.common import duplicates, run_ensemble, run_serially
from gaugecli.experiments.config import DynamicsConfig, ModelConfig, PopulationTolerance, check_flow_dynamics
from gaugecli.experiments.declare import require
from gaugecli.experiments.params import POPULATION_RTOL, SAMPLE_RTOL, Mode, Prune

PRUNED_LEVEL = 1e-6
"""P below this counts as pruned (claim C7)."""
RESOLUTION = {"flow": 1e-11, "sample": 1e-6}
"""Smallest P each dynamics resolves; below it P(t) is the solver's round-off, not data.
Population flow: absolute tolerance 1e-13 per parameter (rtol 1e-10), and a pruned non-owner's
``|c| = |a|‖w‖`` with ``‖w‖ = √D ≤ 16``: P departs from its exponential at ~1e-12 (D = 256).
Finite-sample flow (rtol 1e-4, so absolute 1e-7 per parameter): P leaves the population curve
at 2e-8 … 1.7e-6 (D = 4 … 256, n = 10⁴; measured against atol 1e-10), so it is resolved to the
pruning level itself, and its crossing time to ≤ 2.5 %. Both at the default tolerances; another
tolerance scales them (:func:`resolution`)."""
DECAY_WINDOW = 1e-4
"""The decay rate is fitted to ln P(t) over ``10 · resolution ≤ P ≤ DECAY_WINDOW`` (past the
owner's transient, above round-off); at least :data:`DECAY_MIN_SAMPLES` samples."""
DECAY_MIN_SAMPLES = 3


@dataclass(frozen=True)
class PruneConfig(PopulationTolerance):
    """Grid ``strengths × ms``; owner 0 gets +D, the rest −D. ``sample`` adds finite-sample
    flow runs (gradient flow on ``L_n``; ``n_samples``, one per seed — both only with
    ``sample``, ``None`` = not given: 10 000 and seed 0). The co-alignment contrast uses
    ``m = 3``, ``D = coalign_strength``: non-owners at ``−D`` (pruned) vs at ``+D/2`` (co-aligned).
    The boundary sweep: ``m = 2``, owner at ``δ = +coalign_strength``, the non-owner at each of
    ``sweep_deltas`` (all ≤ the owner's δ, so that neuron 0 stays the designated owner)."""

    model: ModelConfig = field(default_factory=ModelConfig)
    dynamics: DynamicsConfig = field(default_factory=DynamicsConfig)
    strengths: tuple[float, ...] = Prune.strengths.default
    ms: tuple[int, ...] = Prune.ms.default
    sample: bool = Prune.sample.default
    n_samples: int | None = Prune.n_samples.default
    seeds: tuple[int, ...] | None = Prune.seeds.default
    coalign_strength: float = Prune.coalign_strength.default
    sweep_deltas: tuple[float, ...] = Prune.sweep_deltas.default

    def __post_init__(self) -> None:
        Prune.check(self)
        check_flow_dynamics(self.dynamics, "prune")
        for name in ("n_samples", "seeds"):
            require(
                self.sample or getattr(self, name) is None,
                name,
                "has no effect without the finite-sample runs (`sample` off); drop it or turn `sample` on",
            )
        for x in self.sweep_deltas:
            require(
                x <= self.coalign_strength,
                "sweep_deltas",
                f"must be ≤ the owner's δ = `coalign_strength` {self.coalign_strength:g} (got {x:g})",
            )

    @property
    def sample_dynamics(self) -> DynamicsConfig:
        return DynamicsConfig(mode=Mode.sample, n_samples=self.n_samples if self.sample else None)

    @property
    def run_seeds(self) -> tuple[int, ...]:
        return self.seeds if self.seeds is not None else (0,)


@dataclass
class PrunePoint:
    """One run of the grid: owner 0 at ``+strength``, ``m − 1`` non-owners at ``−strength``.
    ``time_below``: first time ``P ≤ level``; ``resolution``: the smallest P its dynamics resolves
    (:data:`RESOLUTION`); ``decay_rate``: fitted ``−d ln P/dt`` (:data:`DECAY_WINDOW`), against
    ``predicted_rate`` of the population flow linearised at the pruned minimum (non-owners at
    their final ``alignment``)."""

    VIEW: ClassVar[View] = View(dims={"t": ("t",), "nonowner_norm": ("t",)})
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

    strength: float
    m: int
    mode: str
    seed: int
    owner: int | None
    t: np.ndarray
    nonowner_norm: np.ndarray
    time_below: float | None
    final: float
    t_spec: float | None
    alignment: float
    resolution: float
    decay_rate: float | None
    predicted_rate: float | None


@dataclass
class SweepPoint:
    """The boundary sweep (m = 2): owner 0 at ``+coalign_strength``, the non-owner at ``delta``.
    ``share`` = the non-owner's part of the final coefficient, ``c_1 / (c_0 + c_1)``;
    ``alignment`` its final ``α``. At ``delta`` = the owner's δ (a tie) there is no unique owner."""

    VIEW: ClassVar[View] = View(dims={"t": ("t",), "nonowner_norm": ("t",)})
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

    delta: float
    owner: int | None
    t: np.ndarray
    nonowner_norm: np.ndarray
    time_below: float | None
    final: float
    share: float
    alignment: float
    t_spec: float | None
    decay_rate: float | None
    predicted_rate: float | None


@dataclass
class Coalignment:
    VIEW: ClassVar[View] = View(dims={"deltas_pruned": ("neuron",), "deltas_coaligned": ("neuron",)})
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""
    deltas_pruned: list[float]
    deltas_coaligned: list[float]
    pruned: RunObservables
    coaligned: RunObservables


@dataclass
class PruneResult(Labelled):
    VIEW: ClassVar[View] = View(records={"points": "point", "sweep": "point"})
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""
    level: float
    points: list[PrunePoint]
    coalignment: Coalignment
    sweep_strength: float
    sweep: list[SweepPoint]


def resolution(dynamics: DynamicsConfig) -> float:
    """:data:`RESOLUTION` of the dynamics' mode, scaled with its solver tolerance (the absolute
    tolerance is ``rtol · 1e-3``) from the default one it was measured at."""
    if dynamics.mode is Mode.sample:
        return RESOLUTION["sample"] * dynamics.solver_rtol / SAMPLE_RTOL
    return RESOLUTION["flow"] * dynamics.solver_rtol / POPULATION_RTOL


def decay_rate(t: np.ndarray, P: np.ndarray, resolution: float) -> float | None:
    """``−d ln P/dt`` by least squares over the samples with ``10·resolution ≤ P ≤ DECAY_WINDOW``
    (``None`` with fewer than :data:`DECAY_MIN_SAMPLES`, e.g. when P never gets there)."""
    keep = (P >= 10.0 * resolution) & (P <= DECAY_WINDOW)
    if np.count_nonzero(keep) < DECAY_MIN_SAMPLES:
        return None
    slope = np.polyfit(t[keep], np.log(P[keep]), 1)[0]
    return float(-slope)


def _time_below(run: RunObservables) -> float | None:
    below = first_time_below(run.t, run.nonowner_norm, PRUNED_LEVEL)
    return None if np.isnan(below) else below


def _nonowner_alignment(run: RunObservables, owner: int = 0) -> float:
    """The non-owners' final alignment (their mean; they share one direction in the grid)."""
    return float(np.mean(np.delete(run.alignment[-1], owner)))


def _point(
    D: float, m: int, dynamics: DynamicsConfig, seed: int, run: RunObservables, model: ModelConfig
) -> PrunePoint:
    alignment = _nonowner_alignment(run)
    floor = resolution(dynamics)
    return PrunePoint(
        D,
        m,
        dynamics.mode.value,
        seed,
        run.owner,
        run.t,
        run.nonowner_norm,
        _time_below(run),
        float(run.nonowner_norm[-1]),
        run.t_spec,
        alignment,
        floor,
        decay_rate(run.t, run.nonowner_norm, floor),
        # the linearisation is the ReLU model's (its kernel, its mobilities): none for another model
        pruning_rate(D, -D, m - 1, alignment, model.a_star) if D > 0 and model.is_paper_model else None,
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
    runs = run_ensemble(job.model, job.dynamics, Network(a0, W0), seed=job.seed)
    return PruneJobResult(
        [_point(D, job.m, job.dynamics, job.seed, r, job.model) for D, r in zip(job.strengths, runs, strict=True)]
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
    run_p, run_c = run_ensemble(job.model, DynamicsConfig(mode=Mode.flow, rtol=job.rtol), Network(a0, W0))
    return Coalignment(pruned.tolist(), coaligned.tolist(), run_p, run_c)


@dataclass(frozen=True)
class SweepJob:
    model: ModelConfig
    strength: float
    deltas: tuple[float, ...]
    rtol: float


def sweep_job(job: SweepJob) -> list[SweepPoint]:
    """m = 2, owner at ``+strength``, the non-owner at each of ``deltas``: one ensemble."""
    deltas = np.array([[job.strength, d] for d in job.deltas])
    a0, W0 = duplicates(job.model, deltas)
    dynamics = DynamicsConfig(mode=Mode.flow, rtol=job.rtol)
    runs = run_ensemble(job.model, dynamics, Network(a0, W0))
    out = []
    for d, run in zip(job.deltas, runs, strict=True):
        c, alignment = run.coefficient[-1], float(run.alignment[-1, 1])
        rate = pruning_rate(job.strength, d, 1, alignment, job.model.a_star)
        out.append(
            SweepPoint(
                float(d),
                run.owner,
                run.t,
                run.nonowner_norm,
                _time_below(run),
                float(run.nonowner_norm[-1]),
                float(c[1] / (c[0] + c[1])),
                alignment,
                run.t_spec,
                decay_rate(run.t, run.nonowner_norm, resolution(dynamics)),
                None if np.isnan(rate) else rate,
            )
        )
    return out


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
    n = len(jobs) + 2  # and the co-alignment contrast and the sweep
    scaled = None if progress is None else (lambda f: progress(f * len(jobs) / n))
    points = [p for res in runner(prune_job, jobs, scaled) for p in res.points]
    points.sort(key=lambda p: (p.mode != "flow", p.m, p.strength, p.seed))
    (coalignment,) = runner(coalign_job, [CoalignJob(config.model, config.coalign_strength, config.rtol)], None)
    sweep_spec = SweepJob(config.model, config.coalign_strength, config.sweep_deltas, config.rtol)
    (sweep,) = runner(sweep_job, [sweep_spec], None)
    if progress is not None:
        progress(1.0)
    return PruneResult(PRUNED_LEVEL, points, coalignment, config.coalign_strength, sweep)
