"""What ``gaugecli phase`` returns (:class:`PhaseResult`, the ``gaugecli.phase/1`` artifact's
``result``): the axes, each metric asked for as a 2-D map, the thresholds the metrics use, and the
hashes that tie every cell to its run and every chunk to its cached point."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from gaugecli.core.frames import Labelled, View


@dataclass
class AxisRecord:
    """An axis as the maps use it: ``name`` (the option without dashes), its ``values``, its ``scale``."""

    name: str
    values: list[float]
    scale: str


@dataclass
class PhaseResult(Labelled):
    """``maps[metric]`` is ``(ny, nx)``: row ``iy`` at ``y.values[iy]``, column ``ix`` at
    ``x.values[ix]`` (NaN where the metric is undefined: no ``T_spec`` by the horizon, say).
    ``outcome`` maps hold the index of a class of ``outcomes``. ``horizon`` is every cell's horizon
    (the metrics are read there). ``thresholds``: the numbers the metrics and their contours use.
    ``cell_hashes[iy][ix]``: the config hash of the cell's own run (the key under which its
    command caches it); ``chunk_hashes``: the cache keys of the chunks (``<cache>/point/<hash>.json``)
    and ``chunk_of_cell[iy][ix]`` the chunk each cell was integrated in; ``chunk_cells``: the
    cells per chunk (``1``: integrated alone). ``seeds``: the seeds every cell ran with (``None``: one
    run per cell), ``run_hashes[iy][ix][k]`` the config hash of the cell's run at ``seeds[k]``
    (``cell_hashes`` holds the first); ``limit_strengths``: the large D of ``exponent`` and
    ``constant`` (empty when not asked for). With ``owner-probability``, ``maps`` also holds its
    Wilson interval's bounds ``owner-probability-low`` and ``owner-probability-high``."""

    HEADLINE: ClassVar[tuple[str, ...]] = ("kind", "metrics", "maps")

    VIEW: ClassVar[View] = View(
        dims={"maps": ("y", "x"), "horizon": ("y", "x"), "chunk_of_cell": ("y", "x"), "chunk_cells": ("chunk",)},
        absorb=("x", "y"),
        coords={"x": "x.values", "y": "y.values"},
    )
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

    kind: str
    x: AxisRecord
    y: AxisRecord
    metrics: list[str]
    maps: dict[str, np.ndarray]
    horizon: np.ndarray
    outcomes: list[str]
    thresholds: dict[str, float]
    notes: dict[str, str]
    cell_hashes: list[list[str]]
    chunk_hashes: list[str]
    chunk_of_cell: list[list[int]]
    chunk_cells: list[int]
    seeds: list[int] | None = None
    run_hashes: list[list[list[str]]] = field(default_factory=list)
    limit_strengths: list[float] = field(default_factory=list)

    @property
    def cells(self) -> int:
        return len(self.x.values) * len(self.y.values)

    def map(self, metric: str) -> np.ndarray:
        return np.asarray(self.maps[metric], float)
