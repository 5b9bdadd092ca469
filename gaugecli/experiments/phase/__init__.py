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
from gaugecli.experiments.common import run_serially
from gaugecli.experiments.phase.axes import Axis, parse_axis
from gaugecli.experiments.phase.chunk import ChunkResult, PhaseChunk, phase_chunk
from gaugecli.experiments.phase.config import PhaseConfig
from gaugecli.experiments.phase.metrics import GAP_FLOOR, GAP_LEVEL, OUTCOMES, CellMetrics
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
    "parse_axis",
    "phase",
    "preset_config",
]

Key = Callable[[Any], str]
"""A configuration's cache hash (the store's ``config_hash``, handed in: experiments import no store)."""

NOTES = {
    "horizon": "each cell's own: t_max if given, else auto_horizon(δ, c0) = 200 (1 + max|δ|) max(1, 0.1/c0), "
    "as its command alone; every metric is read there",
    "outcome": "symmetric start (no unique owner) > no owner (none aligned by the horizon) > lost (the owner is "
    "not the designated neuron) > exclusive (designated owner, P ≤ pruned_level) | shared (P above it, a "
    "non-owner aligned too) | unpruned (P above it, no non-owner aligned)",
    "owner-share": "c_o / Σ_j |c_j| at the horizon, o the owner there",
    "ratio": "T_spec(−D) / T_spec(+D) of the cell's ±D pair",
    "gap": "clock-free gap max_ℓ |α₊(ℓ) − α₋(ℓ)| of the ±D pair over their common loss range above gap_floor",
    "kernel-distance": "‖K(t_h) − K(0)‖_F / ‖K(0)‖_F of the tangent kernel on probe_count Gaussian probes "
    "drawn from probe_seed",
}


def chunk_key(chunk: PhaseChunk) -> dict[str, Any]:
    """The cache key of a chunk as the sweep runner stores it (:func:`gaugecli.run.sweep.point_key`)."""
    return {"job": f"{phase_chunk.__module__}.{phase_chunk.__qualname__}", "point": chunk}


def chunks(config: PhaseConfig) -> tuple[list[PhaseChunk], list[list[tuple[int, int]]]]:
    """The chunks of ``config``'s grid and, for each, the ``(iy, ix)`` of its cells."""
    cells = config.cells()
    parts = config.partition()
    jobs = [PhaseChunk(tuple(cells[iy][ix] for iy, ix in part), config.pair) for part in parts]
    return jobs, parts


_FIELDS = {
    "t-spec": "t_spec",
    "owner-share": "owner_share",
    "p-end": "p_end",
    "outcome": "outcome",
    "reaction-share": "reaction_share",
    "gap": "gap",
    "kernel-distance": "kernel_distance",
}


def _value(metric: str, cell: CellMetrics, favorable: bool) -> float:
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
    jobs, parts = chunks(config)
    results: list[ChunkResult] = runner(phase_chunk, jobs, progress)
    ny, nx = config.shape
    grid: list[list[CellMetrics | None]] = [[None] * nx for _ in range(ny)]
    owner_of = np.zeros((ny, nx), int)
    for k, (part, result) in enumerate(zip(parts, results, strict=True)):
        for (iy, ix), cell in zip(part, result.cells, strict=True):
            grid[iy][ix] = cell
            owner_of[iy, ix] = k
    favorable = getattr(config.run_base, "gauge", "favorable") == "favorable"
    maps = {
        m: np.array([[_value(m, c, favorable) for c in row if c is not None] for row in grid]) for m in config.metrics
    }
    horizon = np.array([[c.horizon for c in row if c is not None] for row in grid])
    cells = config.cells()
    from gaugecli.experiments.phase.kernel import PROBE_SEED, PROBES

    return PhaseResult(
        kind=config.kind,
        x=AxisRecord(config.x.name, list(config.x.values), config.x.scale),
        y=AxisRecord(config.y.name, list(config.y.values), config.y.scale),
        metrics=list(config.metrics),
        maps=maps,
        horizon=horizon,
        outcomes=list(OUTCOMES),
        thresholds={
            "eps_align": config.run_base.model.eps_align,
            "pruned_level": PRUNED_LEVEL,
            "gap_level": GAP_LEVEL,
            "gap_floor": GAP_FLOOR,
            "probe_count": float(PROBES),
            "probe_seed": float(PROBE_SEED),
        },
        notes={k: v for k, v in NOTES.items() if k == "horizon" or k in config.metrics},
        cell_hashes=[[key(c) for c in row] for row in cells] if key else [],
        chunk_hashes=[key(chunk_key(j)) for j in jobs] if key else [],
        chunk_of_cell=owner_of.tolist(),
        chunk_cells=[len(p) for p in parts],
    )


def preset_config(name: str, **given: Any) -> PhaseConfig:
    """The :class:`PhaseConfig` of preset ``name`` (:data:`PRESETS`); ``given`` overrides its ``kind``,
    ``x``, ``y`` (texts), ``metrics`` or ``base``."""
    p = PRESETS[name]
    kind = given.get("kind", p.kind)
    base: Any = given.get("base")
    if base is None:
        from gaugecli.experiments.select import SelectConfig
        from gaugecli.experiments.simulate import SimulateConfig

        base = SimulateConfig() if kind == "simulate" else SelectConfig()
        base = replace(base, **dict(p.options))
    x = given.get("x", p.x)
    y = given.get("y", p.y)
    return PhaseConfig(
        kind=kind,
        x=parse_axis(x, kind, "x") if isinstance(x, str) else x,
        y=parse_axis(y, kind, "y") if isinstance(y, str) else y,
        metrics=tuple(given.get("metrics", p.metrics)),
        base=base,
    )
