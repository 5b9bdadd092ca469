"""The parameters of ``gaugecli phase`` (:class:`~gaugecli.experiments.phase.PhaseConfig`)."""

from __future__ import annotations

from gaugecli.experiments.declare import Fields, Param
from gaugecli.experiments.params.select import Select
from gaugecli.experiments.params.shared import (
    EXPERIMENT,
    GAUGE_STRENGTH,
    NEURONS,
    SEEDS,
    STRENGTHS,
    Dynamics,
    Initial,
)
from gaugecli.experiments.params.simulate import Simulate

PHASE_KINDS = ("simulate", "select")
PHASE_METRICS = (
    "t-spec",
    "ratio",
    "owner-share",
    "p-end",
    "outcome",
    "reaction-share",
    "gap",
    "kernel-change",
    "kernel-distance-cos",
    "exponent",
    "constant",
    "owner-probability",
)
"""The metrics of ``gaugecli phase`` (:mod:`gaugecli.experiments.phase.metrics` defines each)."""
PHASE_PRESETS = ("outcomes", "robustness", "sensitivity", "rich-lazy", "kunin", "kunin-quick")
SIMULATE_ONLY = ("init_scale", "eta_per_scale", "teacher", "teacher_seed", "inputs", "checkpoints")
"""The base run's parameters that only ``simulate`` cells read (Kunin et al.'s setting)."""
MAX_AXIS_POINTS = 129
"""The most values one axis of ``gaugecli phase`` takes (a 129 × 129 map is 16 641 runs)."""


class Phase(Fields):
    """:class:`~gaugecli.experiments.phase.PhaseConfig` (its two axes are parsed by
    :func:`~gaugecli.experiments.phase.axes.parse_axis`), and the parameters of its base run that
    ``gaugecli phase`` takes (``gauge``, ``strength``, ``m``, ``owner``, the start): the fields of
    the :class:`~.simulate.Simulate` or :class:`~.select.Select` config each cell runs."""

    x = Param(
        "x",
        "Horizontal axis NAME=START:STOP:NUM[:log], NAME a numeric option of the command without its dashes",
        EXPERIMENT,
        "gauge-strength=1:64:7:log",
        str,
        metavar="NAME=START:STOP:NUM[:log]",
    )
    y = x.but(name="y", help="Vertical axis NAME=START:STOP:NUM[:log], as `x`", default="c0=0.01:0.5:5:log")
    metrics = Param(
        "metric",
        "What each cell records",
        EXPERIMENT,
        ("t-spec",),
        str,
        choices=PHASE_METRICS,
        plural=True,
        metavar="NAME",
        repeat=True,
        former_choices=(("kernel-distance", "kernel-change"),),  # renamed: it is not Kunin et al.'s distance
    )
    kind = Param(
        "kind",
        "The command each cell runs: simulate (the ±D pair) or select (m neurons)",
        EXPERIMENT,
        "simulate",
        str,
        choices=PHASE_KINDS,
    )
    preset = Param(
        "preset",
        "A map referees asked for: its kind, axes, metrics and width (options given override it)",
        EXPERIMENT,
        None,
        str,
        choices=PHASE_PRESETS,
    )
    gauge = Simulate.gauge.but(repeat=False)  # one map: one gauge
    strength = GAUGE_STRENGTH
    m = NEURONS.but(default=None, default_text="1 (simulate), 5 (select)", help="Number of student neurons m")
    owner = Select.owner
    init = Simulate.init
    eps = Initial.eps
    init_seed = Initial.init_seed
    init_scale = Simulate.init_scale
    eta_per_scale = Simulate.eta_per_scale
    teacher = Simulate.teacher
    teacher_seed = Simulate.teacher_seed
    inputs = Simulate.inputs
    checkpoints = Simulate.checkpoints
    limit_strengths = STRENGTHS.but(
        name="limit_strengths",
        flag="--limit-d",
        short=None,
        min_items=2,
        repeat=False,
        default=(16.0, 64.0),
        panel=EXPERIMENT,
        metavar="D1,D2,…",
        help="Large gauge strengths D (increasing, at least two) at which the metrics exponent and constant "
        "run each cell's ±D pair",
    )
    seeds = SEEDS.but(
        panel=EXPERIMENT,
        help="Seeds of the cells' random draws (the `eps` or random start, the sample or batch stream): "
        "every cell runs once per seed and each metric is the mean over them",
    )
    device = Dynamics.device.but(
        help="Where the torch work runs: a population flow's one-neuron cells on a torch device (cpu, cuda, or "
        "auto: CUDA if torch sees it, else the compiled CPU solver), each cell on its own DOP853 steps, the stiff "
        "ones handed to the CPU BDF (not given: the compiled CPU solver); a finite-sample base's torch work as its "
        "command's --device. "
        "The map is the same within the solver's tolerance: not part of the cache key",
        default_text="the compiled CPU solver (flow), auto (finite-sample)",
    )
