"""The parameters of ``gaugecli lockin --task modular-addition``
(:class:`~gaugecli.experiments.lockin_task.TaskLockinConfig`).

Defaults: the published study's M = 71 and K = 2048; the rest from Tian's released code
(``ssl/real-dataset/cogo/config/dyn_madd.yaml``: Adam, lr 1e-3, weight decay 1e-4, test_size 0.7,
i.e. 30 % of the pairs for training) where the study is silent; the detector's window, lag,
threshold and burn-in are lockin's own (Xu's released defaults), shared with the gauge model.
"""

from __future__ import annotations

from gaugecli.experiments.declare import Fields, Param
from gaugecli.experiments.params.lockin import Lockin
from gaugecli.experiments.params.shared import EXPERIMENT, SEEDS, Dynamics

TASKS = ("gauge", "modular-addition")
"""What ``gaugecli lockin --task`` studies: the gauge model (its default) or Tian's modular addition."""
TASK_ACTIVATIONS = ("x2", "relu")
"""σ of the modular-addition network: ``x2`` (Tian's ``sqr``) or ``relu``."""
TASK_OPTIMIZERS = ("adam", "adamw", "sgd")
"""Tian's optimizers: Adam, AdamW, SGD with momentum 0.9."""
MAX_MODULUS = 1000
"""Largest M: the M² pairs and the K × 2M first layer stay within memory (M = 1000: 10⁶ pairs)."""
MAX_HIDDEN_UNITS = 65536
"""Largest K: the K × K feature Gram of the sign rule is 32 GB in float64 at K = 65536."""


class LockinSwitch(Fields):
    """What ``gaugecli lockin`` runs on, and the size of the modular-addition study (the command's own)."""

    task = Param(
        "task",
        "What the diagnostics run on: gauge (the gauge model's duplicates) or modular-addition (Tian's task, "
        "grokking runs against controls)",
        EXPERIMENT,
        "gauge",
        str,
        choices=TASKS,
    )
    small = Param(
        "quick_study",
        "With --task modular-addition: a study in seconds (--modulus 23 --hidden-units 256 --epochs 150 "
        "--task-seeds 0 --sign-every 75 --gauge-seeds 0 --gauge-epochs 300 where not given)",
        EXPERIMENT,
        False,
        bool,
        flag="--quick",
    )


class LockinTask(Fields):
    """:class:`~gaugecli.experiments.lockin_task.TaskLockinConfig`."""

    modulus = Param(
        "modulus", "Modular addition: the modulus M (M² pairs, M classes)", EXPERIMENT, 71, int, low=3, high=MAX_MODULUS
    )
    hidden_units = Param(
        "hidden_units", "Modular addition: hidden units K", EXPERIMENT, 2048, int, low=4, high=MAX_HIDDEN_UNITS
    )
    activations = Param(
        "task_activation",
        "Modular addition: σ of the hidden layer, each run for every one",
        EXPERIMENT,
        TASK_ACTIVATIONS,
        str,
        choices=TASK_ACTIVATIONS,
        plural=True,
        distinct=True,
        metavar="LIST",
    )
    train_fraction = Param(
        "train_fraction",
        "Modular addition: share of the M² pairs used for training",
        EXPERIMENT,
        0.3,
        low=0.0,
        high=1.0,
        open_low=True,
        open_high=True,
    )
    control_fraction = Param(
        "control_fraction",
        "Modular addition: training share of the non-grokking controls (0: no controls)",
        EXPERIMENT,
        0.1,
        low=0.0,
        high=1.0,
        open_high=True,
    )
    optimizer = Param("task_optimizer", "Modular addition: optimizer", EXPERIMENT, "adam", str, choices=TASK_OPTIMIZERS)
    eta = Param("task_eta", "Modular addition: learning rate", EXPERIMENT, 1e-3, low=0.0, high=10.0, open_low=True)
    weight_decay = Param("weight_decay", "Modular addition: weight decay", EXPERIMENT, 1e-4, low=0.0, high=1.0)
    epochs = Param(
        "epochs", "Modular addition: full-batch epochs (one step each)", EXPERIMENT, 600, int, low=1, high=10**6
    )
    seeds = SEEDS.but(
        name="task_seeds",
        default=(0, 1, 2),
        panel=EXPERIMENT,
        help="Modular addition: seeds (each draws the split and the initial weights), one run per activation each",
    )
    refit = Param(
        "readout_refit",
        "Modular addition: ridge of Tian's refit of the read-out each epoch (0: off, trained by the optimizer)",
        EXPERIMENT,
        0.0,
        low=0.0,
    )
    test_pairs = Param(
        "test_pairs",
        "Modular addition: held-out pairs evaluated each epoch (a uniform subsample; more than there are: all)",
        EXPERIMENT,
        500,
        int,
        low=1,
    )
    grok_threshold = Param(
        "grok_threshold",
        "Modular addition: a run groks where its test accuracy first reaches this",
        EXPERIMENT,
        0.9,
        low=0.0,
        high=1.0,
        open_low=True,
    )
    sign_every = Param(
        "sign_every", "Modular addition: epochs between evaluations of Tian's sign rule", EXPERIMENT, 300, int, low=1
    )
    sign_pairs = Param(
        "sign_pairs", "Modular addition: most similar feature pairs of the sign rule", EXPERIMENT, 200, int, low=1
    )
    late_fraction = Param(
        "late_fraction",
        "Modular addition: the late stage, as the last share of the epochs (magnitude separation, late rank)",
        EXPERIMENT,
        0.1,
        low=0.0,
        high=1.0,
        open_low=True,
    )
    gauge_seeds = SEEDS.but(
        name="gauge_seeds",
        default=(0, 1, 2),
        panel=EXPERIMENT,
        min_items=0,
        metavar="S1,S2,…|none",
        help="Modular addition's cross-check: seeds of the gauge model's select start and aligned control trained "
        "as the task is (Adam, one step an epoch; none: skip)",
    )
    gauge_epochs = Param(
        "gauge_epochs",
        "Modular addition's cross-check: Adam steps of each gauge-model run",
        EXPERIMENT,
        3000,
        int,
        low=1,
        high=10**6,
    )
    device = Dynamics.device.but(
        default="cpu",
        default_text=None,
        panel=EXPERIMENT,
        help="Modular addition: where the network trains (float32): cpu, cuda (refused where torch sees no GPU), "
        "or auto",
    )
    window = Lockin.window
    lag = Lockin.lag
    threshold = Lockin.threshold
    burn_in = Lockin.burn_in
    floor = Lockin.floor
    ridge = Lockin.ridge
    store_every = Lockin.store_every


SHARED_WITH_LOCKIN = ("window", "lag", "threshold", "burn_in", "floor", "ridge", "store_every")
"""The detector's and the sign rule's settings and the series' stride, one option each for both tasks."""
