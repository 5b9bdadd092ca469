"""The parameters of ``gaugecli select`` (:mod:`gaugecli.experiments.select`)."""

from __future__ import annotations

from gaugecli.experiments.declare import Fields
from gaugecli.experiments.params.shared import (
    DELTAS,
    GAUGE_STRENGTH,
    NEURONS,
    OWNER,
    SEEDS,
    WIDTHS,
    Initial,
)


class Select(Initial):
    """:class:`~gaugecli.experiments.select.SelectConfig`."""

    strength = GAUGE_STRENGTH
    m = NEURONS.but(default=5, help="Number of duplicates m")
    owner = OWNER
    deltas = DELTAS
    seeds = SEEDS


class OwnerSweep(Fields):
    """:class:`~gaugecli.experiments.select.OwnerSweepConfig` (``select --sweep``)."""

    ms = WIDTHS.but(default=(2, 3, 4, 5, 6, 7, 8), help="Widths m of `sweep`")
    strength = GAUGE_STRENGTH
    seeds = SEEDS
