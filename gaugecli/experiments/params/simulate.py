"""The parameters of ``gaugecli simulate`` (:class:`~gaugecli.experiments.simulate.SimulateConfig`)."""

from __future__ import annotations

from gaugecli.experiments.declare import Param
from gaugecli.experiments.params.shared import (
    DELTAS,
    MODEL,
    NEURONS,
    SEEDS,
    STRENGTHS,
    Initial,
)


class Simulate(Initial):
    """:class:`~gaugecli.experiments.simulate.SimulateConfig`."""

    gauge = Param(
        "gauge",
        "favorable | unfavorable | balanced, natural (the draw's own δ, with `init` gaussian), or a signed number "
        "(an explicit δ)",
        MODEL,
        "favorable",
        str,
        metavar="GAUGE",
        repeat=True,  # one run per gauge
    )
    strengths = STRENGTHS.but(default=(4.0,))
    m = NEURONS.but(help="Number of student neurons m (all in the same gauge)")
    deltas = DELTAS
    seed = SEEDS.but(
        name="seed",
        plural=False,
        help="Seed of the sample or batch stream (sample, sample-gd, sgd)",
        metavar=None,
        flag="--seeds",  # the command takes --seeds, one run each (--seed, its former flag, until the next release)
    )
