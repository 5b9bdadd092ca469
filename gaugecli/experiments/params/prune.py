"""The parameters of ``gaugecli prune`` (:class:`~gaugecli.experiments.prune.PruneConfig`)."""

from __future__ import annotations

from gaugecli.experiments.declare import Fields, Param
from gaugecli.experiments.params.shared import (
    EXPERIMENT,
    GAUGE_STRENGTH,
    MAX_GAUGE_STRENGTH,
    SEEDS,
    STRENGTHS,
    WIDTHS,
    Dynamics,
)

PRUNE_SWEEP_DELTAS: tuple[float, ...] = (
    -4.0,
    -3.0,
    -2.0,
    -1.0,
    -0.5,
    -0.25,
    -0.1,
    0.0,
    0.1,
    0.25,
    0.5,
    1.0,
    2.0,
    3.0,
    4.0,
)
"""The non-owner's δ in prune's boundary sweep (owner at ``+coalign_strength``, default 4), denser
near 0. Closer to 0 from below the pruning time ≈ 3.3/|δ| exceeds the default horizon 200(1 + 4)."""


class Prune(Fields):
    """:class:`~gaugecli.experiments.prune.PruneConfig`."""

    strengths = STRENGTHS.but(default=(1.0, 4.0, 16.0, 64.0, 256.0))
    ms = WIDTHS
    sample = Param("sample", "Also run the finite-sample rows (gradient flow on L_n)", EXPERIMENT, True, bool)
    n_samples = Dynamics.n_samples.but(help="Sample size n of the finite-sample rows", panel=EXPERIMENT)
    seeds = SEEDS.but(help="Seeds of the finite-sample rows, one run each")
    coalign_strength = GAUGE_STRENGTH.but(
        name="coalign_strength",
        short=None,
        metavar=None,
        panel=EXPERIMENT,
        help="D of the co-alignment contrast (m = 3; non-owners at −D, pruned, or +D/2, co-aligned)",
    )
    sweep_deltas = Param(
        "sweep_deltas",
        "The non-owner's δ in the boundary sweep (m = 2, owner at +`coalign_strength`); each ≤ that δ",
        EXPERIMENT,
        PRUNE_SWEEP_DELTAS,
        low=-MAX_GAUGE_STRENGTH,
        high=MAX_GAUGE_STRENGTH,
        plural=True,
        metavar="δ1,δ2,…",
    )
