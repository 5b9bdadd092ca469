"""``gaugecli phase``: a map of ``simulate`` or ``select`` over any two of their parameters, where
every claim meets its boundary.

Each cell is one run of the base command with the two axes' parameters set
(:mod:`~gaugecli.experiments.phase.axes`); the grid is integrated chunk by chunk in a partition
fixed by its configuration (:mod:`~gaugecli.experiments.phase.config`: why stored numbers do not
depend on workers, finishing order or interruptions), each chunk a sweep point that the run cache
keeps and a rerun reuses (:mod:`~gaugecli.experiments.phase.chunk`), and every metric is read at each
cell's own horizon (:mod:`~gaugecli.experiments.phase.metrics`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from gaugecli.core.types import PointRunner, Progress
from gaugecli.experiments import params as P
from gaugecli.experiments.common import run_serially
from gaugecli.experiments.perturb.fits import wilson_interval
from gaugecli.experiments.phase.axes import Axis, parse_axis
from gaugecli.experiments.phase.chunk import ChunkResult, PhaseChunk, phase_chunk
from gaugecli.experiments.phase.config import PhaseConfig
from gaugecli.experiments.phase.metrics import (
    EXCLUSIVE,
    GAP_FLOOR,
    GAP_LEVEL,
    OUTCOMES,
    SHARED,
    UNPRUNED,
    CellMetrics,
)
from gaugecli.experiments.phase.presets import PRESETS, Preset
from gaugecli.experiments.phase.result import AxisRecord, PhaseResult
from gaugecli.experiments.prune import PRUNED_LEVEL

__all__ = [
    "PRESETS",
    "Axis",
    "PhaseChunk",
    "PhaseConfig",
    "PhaseResult",
    "Preset",
    "chunk_key",
    "chunks",
    "eps_of_axes",
    "parse_axis",
    "phase",
    "preset_config",
    "preset_configs",
]

Key = Callable[[Any], str]
"""A configuration's cache hash (the store's ``config_hash``, handed in: experiments import no store)."""

NOTES = {
    "horizon": "each cell's own: t_max if given, else auto_horizon(δ, c0) = 200 (1 + max|δ|) max(1, 0.1/c0), "
    "as its command alone; every metric is read there",
    "outcome": "symmetric start (no unique owner, unless the designated neuron starts apart from the others and "
    "one of them owns: lost) > no owner (none aligned by the horizon) > lost (the owner is "
    "not the designated neuron) > exclusive (designated owner, P ≤ pruned_level) | shared (P above it, a "
    "non-owner aligned too) | unpruned (P above it, no non-owner aligned)",
    "owner-share": "c_o / Σ_j |c_j| at the horizon, o the owner there",
    "ratio": "T_spec(−D) / T_spec(+D) of the cell's ±D pair",
    "gap": "clock-free gap max_ℓ |α₊(ℓ) − α₋(ℓ)| of the ±D pair over their common loss range above gap_floor",
    "kernel-change": "‖K(t_h) − K(0)‖_F / ‖K(0)‖_F of the tangent kernel on probe_count Gaussian probes "
    "drawn from probe_seed: its relative change, a growth in size counted as fully as a turn (not a rich/lazy "
    "measure)",
    "kernel-distance-cos": "Kunin et al.'s kernel distance S = 1 − ⟨K(t_h), K(0)⟩_F / (‖K(t_h)‖_F ‖K(0)‖_F) of "
    "the same kernel on the same probes (population flow), or of the empirical NTK on the run's training set "
    "(a finite-sample simulate with checkpoints, their setting): how far it turned, whatever its size (0: lazy; "
    "towards 1: rich)",
    "exponent": "C4's exponent: the local slope ln(r_K/r_{K−1}) / ln(D_K/D_{K−1}) of r = T_spec(−D)/T_spec(+D) "
    "between the two largest limit_strengths",
    "constant": "C4's constant C = lim_{D→∞} r(D)/D^q (q = 1 + 1/p, 2 for ReLU), Richardson-extrapolated in 1/D "
    "(order 2 for ReLU, else 1) from r at the two largest limit_strengths; for ReLU the D → ∞ limit of the "
    "reduced equations, unfavorable_limit(θ0)/favorable_limit(c0, θ0)",
    "owner-probability": "share of the cell's runs (one per seed) whose designated neuron owns the feature "
    "(outcome exclusive, shared or unpruned); owner-probability-low/-high: its Wilson score interval at "
    "thresholds.confidence",
    "seeds": "each metric is the mean over the cell's runs (one per seed) where it is defined (NaN where none "
    "is); outcome is the most frequent class (ties: the lower index)",
}
CONFIDENCE = 0.95
"""The confidence of the owner probability's Wilson interval."""


def chunk_key(chunk: PhaseChunk) -> dict[str, Any]:
    """The cache key of a chunk as the sweep runner stores it (:func:`gaugecli.run.sweep.point_key`)."""
    return {"job": f"{phase_chunk.__module__}.{phase_chunk.__qualname__}", "point": chunk}


def chunks(
    config: PhaseConfig, cells: list[list[Any]] | None = None
) -> tuple[list[PhaseChunk], list[list[tuple[int, int]]]]:
    """The chunks of ``config``'s grid and, for each, the ``(iy, ix)`` of its cells (a chunk holds
    every run of each of its cells, one per seed, in that order); ``cells``: ``config.cells()``,
    where the caller has them already (the config keeps them, built and checked once)."""
    cells = config.cells() if cells is None else cells
    parts = config.partition()
    jobs = [
        PhaseChunk(
            tuple(run for iy, ix in part for run in config.runs(cells[iy][ix])),
            config.pair,
            config.limits,
            config.kernels,
            config.flow_device,
        )
        for part in parts
    ]
    return jobs, parts


_FIELDS = {
    "t-spec": "t_spec",
    "owner-share": "owner_share",
    "p-end": "p_end",
    "outcome": "outcome",
    "reaction-share": "reaction_share",
    "gap": "gap",
    "kernel-change": "kernel_change",
    "kernel-distance-cos": "kernel_distance_cos",
    "exponent": "exponent",
    "constant": "constant",
}
OWNING = (EXCLUSIVE, SHARED, UNPRUNED)
"""The outcome classes in which the designated neuron owns the feature."""


def _value(metric: str, cell: CellMetrics, favorable: bool) -> float:
    if metric == "owner-probability":
        return float(cell.outcome in OWNING)
    if metric == "ratio":
        plus, minus = (cell.t_spec, cell.partner_t_spec) if favorable else (cell.partner_t_spec, cell.t_spec)
        return float("nan") if plus is None or minus is None else minus / plus
    value = getattr(cell, _FIELDS[metric])
    return float("nan") if value is None else float(value)


def phase(
    config: PhaseConfig, progress: Progress | None = None, runner: PointRunner = run_serially, key: Key | None = None
) -> PhaseResult:
    """The maps of ``config``: its chunks run through ``runner`` (each cached as it finishes, when the
    runner caches), assembled into one :class:`PhaseResult`; ``key`` hashes configurations (the
    cells' and the chunks' hashes are empty without it)."""
    cells = config.cells()
    jobs, parts = chunks(config, cells)
    results: list[ChunkResult] = runner(phase_chunk, jobs, progress)
    ny, nx = config.shape
    n = config.replicates
    grid: list[list[list[CellMetrics]]] = [[[] for _ in range(nx)] for _ in range(ny)]
    owner_of = np.zeros((ny, nx), int)
    for k, (part, result) in enumerate(zip(parts, results, strict=True)):
        for j, (iy, ix) in enumerate(part):
            grid[iy][ix] = result.cells[j * n : (j + 1) * n]
            owner_of[iy, ix] = k
    favorable = getattr(config.run_base, "gauge", "favorable") == "favorable"
    maps = {m: np.array([[_mean(m, runs, favorable) for runs in row] for row in grid]) for m in config.metrics}
    if "owner-probability" in config.metrics:
        owning = [[sum(r.outcome in OWNING for r in runs) for runs in row] for row in grid]
        bounds = np.array([[wilson_interval(k, n, CONFIDENCE) for k in row] for row in owning])
        maps["owner-probability-low"], maps["owner-probability-high"] = bounds[..., 0], bounds[..., 1]
    horizon = np.array([[runs[0].horizon for runs in row] for row in grid])
    from gaugecli.experiments.phase.kernel import PROBE_SEED, PROBES

    thresholds = {
        "eps_align": config.run_base.model.eps_align,
        "pruned_level": PRUNED_LEVEL,
        "gap_level": GAP_LEVEL,
        "gap_floor": GAP_FLOOR,
        "probe_count": float(PROBES),
        "probe_seed": float(PROBE_SEED),
    }
    if "owner-probability" in config.metrics:
        thresholds["confidence"] = CONFIDENCE
    shown = {k: v for k, v in NOTES.items() if k == "horizon" or k in config.metrics}
    if config.seeds is not None:
        shown["seeds"] = NOTES["seeds"]

    return PhaseResult(
        kind=config.kind,
        x=AxisRecord(config.x.name, list(config.x.values), config.x.scale),
        y=AxisRecord(config.y.name, list(config.y.values), config.y.scale),
        metrics=list(config.metrics),
        maps=maps,
        horizon=horizon,
        outcomes=list(OUTCOMES),
        thresholds=thresholds,
        notes=shown,
        cell_hashes=[[key(config.runs(c)[0]) for c in row] for row in cells] if key else [],
        chunk_hashes=[key(chunk_key(j)) for j in jobs] if key else [],
        chunk_of_cell=owner_of.tolist(),
        chunk_cells=[len(p) for p in parts],
        seeds=None if config.seeds is None else list(config.seeds),
        run_hashes=[[[key(r) for r in config.runs(c)] for c in row] for row in cells]
        if key and config.seeds is not None
        else [],
        limit_strengths=list(config.limits),
    )


def _mean(metric: str, runs: list[CellMetrics], favorable: bool) -> float:
    """The metric of a cell over its runs (one per seed): their mean where defined; for the outcome,
    the most frequent class (ties: the lower index)."""
    if len(runs) == 1:
        return _value(metric, runs[0], favorable)
    values = np.array([_value(metric, r, favorable) for r in runs])
    if metric == "outcome":
        classes, counts = np.unique(values, return_counts=True)
        return float(classes[int(np.argmax(counts))])
    finite = values[np.isfinite(values)]
    return float(np.mean(finite)) if finite.size else float("nan")


def eps_of_axes(kind: str, x: str | Axis, y: str | Axis) -> float | None:
    """The first ``eps`` of an ``eps`` axis (``None`` without one): the base run's ε where its start
    needs one before the axis sets each cell's (``init`` adversarial)."""
    for text, name in ((x, "x"), (y, "y")):
        axis = parse_axis(text, kind, name) if isinstance(text, str) else text
        if axis.name == "eps":
            return axis.start
    return None


def preset_configs(name: str, **given: Any) -> list[tuple[str, PhaseConfig]]:
    """Every map of preset ``name``, labelled: one per variant (``robustness``: ``random`` and
    ``adversarial``), else one (label ``name``). ``given`` as :func:`preset_config`; ``seeds`` go to
    the variants whose cells draw at random only (the adversarial start is deterministic)."""
    p = PRESETS[name]
    if not p.variants:
        return [(name, preset_config(name, **given))]
    out = []
    for label, _ in p.variants:
        config = preset_config(name, variant=label, **{k: v for k, v in given.items() if k != "seeds"})
        if given.get("seeds") is not None and config.run_base.init != "adversarial":
            config = replace(config, seeds=tuple(given["seeds"]))
        out.append((label, config))
    return out


def preset_config(name: str, variant: str | None = None, **given: Any) -> PhaseConfig:
    """The :class:`PhaseConfig` of preset ``name`` (:data:`PRESETS`), of its ``variant`` (default: the
    first); ``given`` overrides its ``kind``, ``x``, ``y`` (texts), ``metrics``, ``base``,
    ``limit_strengths`` or ``seeds``."""
    p = PRESETS[name]
    kind = given.get("kind", p.kind)
    base: Any = given.get("base")
    if base is None:
        from gaugecli.experiments.select import SelectConfig
        from gaugecli.experiments.simulate import SimulateConfig

        base = SimulateConfig() if kind == "simulate" else SelectConfig()
        options = dict(p.options)
        if p.variants:
            options.update(dict(p.variants[0][1] if variant is None else dict(p.variants)[variant]))
        if options.get("init") == "adversarial":
            options.setdefault("eps", eps_of_axes(kind, given.get("x", p.x), given.get("y", p.y)))
        if p.model:
            options["model"] = replace(base.model, **dict(p.model))
        if p.dynamics:
            options["dynamics"] = replace(base.dynamics, **dict(p.dynamics))
        base = replace(base, **options)
    x = given.get("x", p.x)
    y = given.get("y", p.y)
    return PhaseConfig(
        kind=kind,
        x=parse_axis(x, kind, "x") if isinstance(x, str) else x,
        y=parse_axis(y, kind, "y") if isinstance(y, str) else y,
        metrics=tuple(given.get("metrics", p.metrics)),
        base=base,
        limit_strengths=tuple(given.get("limit_strengths", P.Phase.limit_strengths.default)),
        seeds=given.get("seeds", p.seeds),
    )
