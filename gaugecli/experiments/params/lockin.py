"""The parameters of ``gaugecli lockin`` (:class:`~gaugecli.experiments.lockin.LockinConfig`)."""

from __future__ import annotations

from gaugecli.experiments.declare import Fields, Param
from gaugecli.experiments.params.shared import (
    DEFAULT_N_SAMPLES,
    EXPERIMENT,
    NEURONS,
    OWNER,
    SEEDS,
    STRENGTHS,
    Dynamics,
)

ASSIGNMENTS = ("select", "reversed", "all-plus", "all-minus")
"""Gauge assignments of lockin's m duplicates: ``select`` one +D (the owner) among −D,
``reversed`` one −D among +D, ``all-plus`` / ``all-minus`` every neuron at ±D."""


class Lockin(Fields):
    """:class:`~gaugecli.experiments.lockin.LockinConfig`."""

    strengths = STRENGTHS.but(
        default=(4.0, 16.0),
        help="Gauge strengths D of the flow runs (the first also sets the finite-sample runs and the scans)",
    )
    m = NEURONS.but(default=5, low=2, help="Number of duplicates m")
    owner = OWNER.but(help="The neuron o ∈ [0, m−1] that select gives +D (reversed: −D)")
    assignments = Param(
        "assign",
        "Gauge assignments of the flow runs (select required)",
        EXPERIMENT,
        ASSIGNMENTS,
        str,
        choices=ASSIGNMENTS,
        plural=True,
        metavar="LIST",
    )
    control = Param("control", "Also run the aligned control (select started at θ0 = 0)", EXPERIMENT, True, bool)
    per = Param("per", "Epochs per T_spec (the epoch is T_spec/per)", EXPERIMENT, 200, int, low=2)
    span = Param("span", "Horizon in units of T_spec", EXPERIMENT, 5.0, low=1.0)
    window = Param("window", "Xu's detector: updates per windowed Gram matrix", EXPERIMENT, 20, int, low=3)
    lag = Param("lag", "Xu's detector: epochs of the log-gap slope", EXPERIMENT, 25, int, low=1)
    threshold = Param("threshold", "Xu's detector fires where the log-gap slope exceeds this", EXPERIMENT, 0.04)
    burn_in = Param("burn_in", "Xu's detector: first epoch at which it may fire", EXPERIMENT, 100, int, low=0)
    floor = Param(
        "floor",
        "Round-off floor of the floored detector: λ3 ← max(λ3, floor·λ1)",
        EXPERIMENT,
        1e-10,
        low=0.0,
        high=1.0,
        open_low=True,
        open_high=True,
    )
    ridge = Param(
        "ridge", "Tian's ridge η relative to the features' mean variance", EXPERIMENT, 1e-3, low=0.0, open_low=True
    )
    seeds = SEEDS.but(default=(0, 1, 2), help="Seeds of the finite-sample runs and the perturbation scan")
    n_samples = Dynamics.n_samples.but(
        default=DEFAULT_N_SAMPLES,
        low=2,
        default_text=None,
        panel=EXPERIMENT,
        help="Sample size n of the finite-sample runs",
    )
    steps_per_unit = Param(
        "steps_per_unit", "ReLU finite sample: at least this many GD steps per T_spec", EXPERIMENT, 200, int, low=1
    )
    quadratic = Param(
        "x2",
        "Add the σ = x² finite-sample runs (Xu's contrast; ≈ 20 s; on by default, as in the lockin figure)",
        EXPERIMENT,
        True,
        bool,
    )
    quadratic_step_fraction = Param(
        "x2_step_fraction",
        "σ = x² GD step as a fraction of the stable step",
        EXPERIMENT,
        0.2,
        low=0.0,
        high=1.0,
        open_low=True,
        open_high=True,
    )
    scan_strengths = STRENGTHS.but(
        name="scan_strength",
        deprecated=("scan_strengths",),
        default=(1.0, 2.0, 4.0, 8.0, 16.0, 32.0),
        short=None,
        metavar="LIST|none",
        panel=EXPERIMENT,
        min_items=0,
        repeat=False,
        help="D of the rank-2 collapse scan (none: skip)",
    )
    scan_pers = Param(
        "scan_pers",
        "Epochs per T_spec of the resolution scan (none: skip)",
        EXPERIMENT,
        (50, 100, 200, 400, 800),
        int,
        low=2,
        plural=True,
        min_items=0,
        metavar="LIST|none",
    )
    scan_eps = Param(
        "scan_eps",
        "Sizes ε of the perturbations of the duplicates, one draw per seed (none: skip)",
        EXPERIMENT,
        (1e-16, 1e-13, 1e-10, 1e-7, 1e-4),
        low=0.0,
        high=1.0,
        open_low=True,
        plural=True,
        min_items=0,
        metavar="LIST|none",
    )
    store_every = Param("store_every", "Keep every k-th epoch in the stored series", EXPERIMENT, 4, int, low=1)
