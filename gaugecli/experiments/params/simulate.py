"""The parameters of ``gaugecli simulate`` (:class:`~gaugecli.experiments.simulate.SimulateConfig`)."""

from __future__ import annotations

from gaugecli.experiments.declare import Param
from gaugecli.experiments.params.shared import (
    DELTAS,
    DYNAMICS,
    EXPERIMENT,
    INITS,
    MODEL,
    NEURONS,
    SEEDS,
    STRENGTHS,
    Initial,
)

TEACHERS = ("standard", "random")
"""``standard``: k unit features ``e_1 … e_k`` with ``a* = 1`` (docs/theory.md, the model); ``random``:
Kunin et al.'s (k random unit directions, output weights ±1)."""
INPUTS = ("gaussian", "sphere")
"""The law of a sample's inputs: ``x ~ N(0, I_d)``, or that draw divided by its norm (the unit sphere)."""
MAX_KERNEL_SAMPLES = 4000
"""The largest training set the kernel distance is measured on: it holds about five ``n × n``
float64 arrays at once (the kernel at the start and at a checkpoint, and the three terms of the
closed form), ``40 n²`` bytes, 640 MB at ``n = 4000`` (Kunin et al.'s grid has ``n = 1000``: 40 MB)."""
PAIRED_SCALE_RANGE = (1e-3, 1e2)
"""τ of ``init`` paired. Kunin et al.'s grid spans τ ∈ [0.1, 10^0.3 ≈ 2]. Below 1e-3 each weight is
≲ 1e-3 and their step ``lr = 5e-3/τ²`` (η = 1e4) would need ~τ⁻² times their steps to move; above
1e2 the start's output weights (τ/α up to ~1e2) are far outside the teacher's unit scale."""


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
    init = Initial.init.but(
        help=Initial.init.help
        + "; or paired (Kunin et al.'s start: m/2 pairs ±a sharing w, so f0 ≡ 0, each neuron |a| = τ/α, "
        "‖w‖ = τα with |a|‖w‖ = τ² for τ = `init_scale` and a² − ‖w‖² = δ from `gauge`; random unit directions "
        "and signs seeded by `init_seed`)",
        choices=(*INITS, "paired"),
    )
    init_scale = Param(
        "init_scale",
        "τ of `init` paired: each neuron |a|‖w‖ = τ² (Kunin et al.'s scale)",
        MODEL,
        None,
        low=PAIRED_SCALE_RANGE[0],
        high=PAIRED_SCALE_RANGE[1],
        metavar="τ",
        default_text="1",
        why_low="below it a weight barely moves in their step count",
        why_high="above it the start's weights are far outside the teacher's unit scale",
    )
    eta_per_scale = Param(
        "eta_per_scale",
        "`eta` is the step at τ = 1: each run steps η = `eta`/τ² with τ = `init_scale` (`init` paired; Kunin et "
        "al.'s lr = 5e-3/τ²: the tangent kernel grows as τ², so the step keeps its size in function space)",
        DYNAMICS,
        False,
        bool,
    )
    teacher = Param(
        "teacher",
        "The teacher: standard (k unit features e_1 … e_k, a* = 1) or random (Kunin et al.'s: k uniformly random "
        "unit directions and output weights ±1 with random signs, seeded by `teacher_seed`)",
        MODEL,
        "standard",
        str,
        choices=TEACHERS,
    )
    teacher_seed = Param("teacher_seed", "Seed of `teacher` random", MODEL, None, int, low=0, default_text="0")
    inputs = Param(
        "inputs",
        "The sample's inputs: gaussian (x ~ N(0, I_d)) or sphere (that draw divided by its norm, Kunin et al.'s; "
        "a finite sample only: sample, sample-gd, resampled sgd)",
        DYNAMICS,
        "gaussian",
        str,
        choices=INPUTS,
    )
    test_samples = Param(
        "test_samples",
        "Size of a held-out test sample (same law as the training sample, its own seed stream): the test loss "
        "½·mean (f − y)² at the `checkpoints` (Kunin et al.'s test loss is twice it)",
        EXPERIMENT,
        None,
        int,
        low=1,
        default_text="none",
    )
    checkpoints = Param(
        "checkpoints",
        "Where Kunin et al.'s measurements are taken (kernel distance S of the empirical NTK on the training set, "
        "Hamming distance of the ReLU patterns, parameter distance, test loss): steps of a given `eta` (sample-gd, "
        "sgd; the last is the horizon) or times (sample); the start and the horizon are always measured",
        EXPERIMENT,
        None,
        low=0.0,
        plural=True,
        metavar="K1,K2,…",
        default_text="none",
    )
