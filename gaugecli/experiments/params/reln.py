"""The parameters of ``gaugecli reln`` (:class:`~gaugecli.experiments.reln.RelnConfig`)."""

from __future__ import annotations

from gaugecli.experiments.declare import Fields, Param
from gaugecli.experiments.params.shared import (
    EXPERIMENT,
    GAUGE_STRENGTH,
    NEURONS,
    OWNER,
    STRENGTHS,
)

MIN_PSI_STEP = 0.1
"""Finest step of reln's gate-angle grid, in degrees (901 angles; 1e-7° asked for 10⁹)."""


class Reln(Fields):
    """:class:`~gaugecli.experiments.reln.RelnConfig` (population flow only)."""

    strengths = STRENGTHS.but(
        default=(1.0, 4.0, 16.0, 64.0), help="Gauge strengths D of the m = 1 comparisons (each run at +D and −D)"
    )
    m = NEURONS.but(default=5, low=2, help="Neurons m of the select comparison")
    owner = OWNER.but(help="Designated owner o ∈ [0, m−1] of the select comparison: +D, others −D")
    select_strength = GAUGE_STRENGTH.but(
        name="select_strength",
        short=None,
        metavar=None,
        panel=EXPERIMENT,
        help="Gauge strength D of the select comparison",
    )
    restart = Param(
        "restart",
        "Restart times t0 in units of the ReLU run's T_spec",
        EXPERIMENT,
        (0.5, 1.0, 2.0, 5.0),
        low=0.0,
        high=100.0,
        open_low=True,
        plural=True,
        metavar="LIST",
    )
    levels = Param(
        "levels",
        "Loss-reduction factors a restarted ReLN must reach: L(t0)/factor",
        EXPERIMENT,
        (10.0, 100.0),
        low=1.0,
        high=1e8,
        open_low=True,
        plural=True,
        metavar="LIST",
    )
    envelope_levels = Param(
        "envelope_levels",
        "Loss levels ℓ of the fixed-gate envelope",
        EXPERIMENT,
        (0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002),
        low=0.0,
        open_low=True,
        plural=True,
        metavar="LIST",
    )
    psi_step = Param(
        "psi_step",
        "Step of the envelope's gate angles ψ ∈ [0°, 90°], in degrees",
        EXPERIMENT,
        2.0,
        low=MIN_PSI_STEP,
        high=45.0,
    )
