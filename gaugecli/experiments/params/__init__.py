"""Every parameter of every experiment, declared once: range, default, help and ``--help`` panel.

One :class:`~gaugecli.experiments.declare.Fields` class per config dataclass, one attribute per
field, in the module of its experiment (:mod:`.simulate`, :mod:`.lockin`, …); what several
experiments share (the model, the dynamics, the initial condition, the bounds the numerics honour)
is in :mod:`.shared`. The configs take their defaults from here and check their fields with
``X.check(self)``; the command line builds every option (flag, help with its range, default, panel,
the check at parse time) from the same attributes, and docs/cli.md is generated from the command
line. A parameter used by several experiments is declared once and specialised with ``.but(...)``
(another default or a tighter bound). Stdlib only: ``--help`` and a refused value answer before
numpy is imported. This package is their one namespace: ``params.Simulate``, ``params.Mode``.
"""

from __future__ import annotations

from gaugecli.experiments.params.deep import (
    MAX_DEEP_SAMPLES,
    MAX_DEEP_STRENGTH,
    Deep,
)
from gaugecli.experiments.params.laws import (
    LAW_ACTIVATIONS,
    MAX_LAW_LAYERS,
    MAX_LAW_PARAMS,
    MAX_LAW_PATHS,
    Laws,
)
from gaugecli.experiments.params.lockin import (
    ASSIGNMENTS,
    Lockin,
)
from gaugecli.experiments.params.lockin_task import (
    SHARED_WITH_LOCKIN,
    TASK_ACTIVATIONS,
    TASK_OPTIMIZERS,
    TASKS,
    LockinSwitch,
    LockinTask,
)
from gaugecli.experiments.params.optimizer import (
    BASES,
    DEFAULT_ADAM_EPS,
    DEFAULT_BETAS,
    DEFAULT_MOMENTUM,
    DEFAULT_OPTIMIZER,
    MAX_ADAM_LR,
    MAX_RANDOM_BASIS_D,
    Dynamics,
    Stepping,
)
from gaugecli.experiments.params.perturb import (
    MAX_SUCCESS_HORIZON,
    PERTURB_SWEEPS,
    SWEEP_PARAMS,
    Perturb,
)
from gaugecli.experiments.params.phase import (
    MAX_AXIS_POINTS,
    PHASE_KINDS,
    PHASE_METRICS,
    PHASE_PRESETS,
    SIMULATE_ONLY,
    Phase,
)
from gaugecli.experiments.params.predict import (
    MAX_PREDICT_FEATURES,
    MAX_PREDICT_SAMPLES,
    MAX_PREDICT_WIDTH,
    PREDICTORS,
    Predict,
)
from gaugecli.experiments.params.prune import (
    PRUNE_SWEEP_DELTAS,
    Prune,
)
from gaugecli.experiments.params.reln import (
    MIN_PSI_STEP,
    Reln,
)
from gaugecli.experiments.params.select import (
    OwnerSweep,
    Select,
)
from gaugecli.experiments.params.shared import (
    BATCHES,
    C0_RANGE,
    DEFAULT_BATCH_SIZE,
    DEFAULT_DEVICE,
    DEFAULT_MAX_STEPS,
    DEFAULT_N_SAMPLES,
    DEFAULT_NEGATIVE_SLOPE,
    DELTAS,
    DEVICES,
    DYNAMICS,
    EXPERIMENT,
    FLOW_RTOL,
    GAUGE_STRENGTH,
    HORIZON_RANGE,
    INITS,
    MAX_GAUGE_STRENGTH,
    MAX_WEIGHT_DECAY,
    MIN_EPS,
    MIN_RTOL,
    MODEL,
    NEURONS,
    NUMERICS,
    OWNER,
    POPULATION_RTOL,
    RTOL,
    SAMPLE_RTOL,
    SEEDS,
    STRENGTHS,
    WIDTHS,
    Initial,
    Mode,
    Model,
)
from gaugecli.experiments.params.simulate import (
    INPUTS,
    MAX_KERNEL_SAMPLES,
    PAIRED_SCALE_RANGE,
    TEACHERS,
    Simulate,
)

__all__ = [
    "ASSIGNMENTS",
    "BASES",
    "BATCHES",
    "C0_RANGE",
    "DEFAULT_ADAM_EPS",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_BETAS",
    "DEFAULT_DEVICE",
    "DEFAULT_MAX_STEPS",
    "DEFAULT_MOMENTUM",
    "DEFAULT_NEGATIVE_SLOPE",
    "DEFAULT_N_SAMPLES",
    "DEFAULT_OPTIMIZER",
    "DELTAS",
    "DEVICES",
    "DYNAMICS",
    "EXPERIMENT",
    "FLOW_RTOL",
    "GAUGE_STRENGTH",
    "HORIZON_RANGE",
    "INITS",
    "INPUTS",
    "LAW_ACTIVATIONS",
    "MAX_ADAM_LR",
    "MAX_AXIS_POINTS",
    "MAX_DEEP_SAMPLES",
    "MAX_DEEP_STRENGTH",
    "MAX_GAUGE_STRENGTH",
    "MAX_KERNEL_SAMPLES",
    "MAX_LAW_LAYERS",
    "MAX_LAW_PARAMS",
    "MAX_LAW_PATHS",
    "MAX_PREDICT_FEATURES",
    "MAX_PREDICT_SAMPLES",
    "MAX_PREDICT_WIDTH",
    "MAX_RANDOM_BASIS_D",
    "MAX_SUCCESS_HORIZON",
    "MAX_WEIGHT_DECAY",
    "MIN_EPS",
    "MIN_PSI_STEP",
    "MIN_RTOL",
    "MODEL",
    "NEURONS",
    "NUMERICS",
    "OWNER",
    "PAIRED_SCALE_RANGE",
    "PERTURB_SWEEPS",
    "PHASE_KINDS",
    "PHASE_METRICS",
    "PHASE_PRESETS",
    "POPULATION_RTOL",
    "PREDICTORS",
    "PRUNE_SWEEP_DELTAS",
    "RTOL",
    "SAMPLE_RTOL",
    "SEEDS",
    "SHARED_WITH_LOCKIN",
    "SIMULATE_ONLY",
    "STRENGTHS",
    "SWEEP_PARAMS",
    "TASKS",
    "TASK_ACTIVATIONS",
    "TASK_OPTIMIZERS",
    "TEACHERS",
    "WIDTHS",
    "Deep",
    "Dynamics",
    "Initial",
    "Laws",
    "Lockin",
    "LockinSwitch",
    "LockinTask",
    "Mode",
    "Model",
    "OwnerSweep",
    "Perturb",
    "Phase",
    "Predict",
    "Prune",
    "Reln",
    "Select",
    "Simulate",
    "Stepping",
]
