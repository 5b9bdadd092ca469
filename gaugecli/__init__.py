"""gaugecli — the hidden gauge of ReLU networks, from the command line.

The public surface is re-exported lazily so that ``import gaugecli`` (and the CLI's
``--help``) does not pay for numpy, scipy or torch until they are used: one function per
subcommand (``gaugecli.simulate(gauge="unfavorable", gauge_strength=16)``, ``select``, ``prune``,
``perturb``, ``reln``, ``lockin``, ``phase``, ``predict``, ``verify``; :mod:`gaugecli.api`), ``load`` of any
artifact, ``Pipeline`` over the run cache, and each kind's config and result types.
"""

from __future__ import annotations

import importlib
import os as _os
from typing import Any

from gaugecli._version import __version__ as __version__
from gaugecli.core.route import use_fused as _use_fused

# the arithmetic route, read from the environment once, here, for every use of the package (the core
# reads no environment): GAUGECLI_FUSED=0 takes numpy everywhere, a check of the compiled loops
_use_fused(_os.environ.get("GAUGECLI_FUSED", "1") != "0")

_EXPORTS = {
    # core
    "Teacher": "gaugecli.core.teacher",
    "standard_teacher": "gaugecli.core.teacher",
    "Model": "gaugecli.core.model",
    "Network": "gaugecli.core.state",
    "standard_model": "gaugecli.core.model",
    "activation": "gaugecli.core.activations",
    "register": "gaugecli.core.activations",
    "Gauge": "gaugecli.core.gauge",
    "duplicate_initial_condition": "gaugecli.core.gauge",
    "function_coordinates": "gaugecli.core.gauge",
    "parameters_from_function": "gaugecli.core.gauge",
    "imbalance": "gaugecli.core.gauge",
    "arccos_kernel": "gaugecli.core.kernels",
    "population_loss": "gaugecli.core.dynamics",
    "population_gradient": "gaugecli.core.dynamics",
    "population_hessian": "gaugecli.core.dynamics",
    "dissipation": "gaugecli.core.dynamics",
    "gradient_flow": "gaugecli.core.flow",
    "gradient_descent": "gaugecli.core.descent",
    "FlowOptions": "gaugecli.core.flow",
    "Objective": "gaugecli.core.objective",
    "population_objective": "gaugecli.core.objective",
    "choose_step": "gaugecli.core.step",
    "empirical_objective": "gaugecli.core.sample",
    "symmetry_report": "gaugecli.core.symmetry",
    "NumericalFault": "gaugecli.core.trajectory",
    "Trajectory": "gaugecli.core.trajectory",
    "observe": "gaugecli.core.observables",
    "RunObservables": "gaugecli.core.observables",
    # experiments
    "ModelConfig": "gaugecli.experiments.config",
    "DynamicsConfig": "gaugecli.experiments.config",
    "Mode": "gaugecli.experiments.params",
    "ConfigError": "gaugecli.experiments.declare",
    "SimulateConfig": "gaugecli.experiments.simulate",
    "SelectConfig": "gaugecli.experiments.select",
    "SelectResult": "gaugecli.experiments.select",
    "OwnerSweepConfig": "gaugecli.experiments.select",
    "OwnerSweepResult": "gaugecli.experiments.select",
    "PruneConfig": "gaugecli.experiments.prune",
    "PruneResult": "gaugecli.experiments.prune",
    "PerturbConfig": "gaugecli.experiments.perturb",
    "PerturbResult": "gaugecli.experiments.perturb",
    "RelnConfig": "gaugecli.experiments.reln",
    "RelnResult": "gaugecli.experiments.reln",
    "LockinConfig": "gaugecli.experiments.lockin",
    "LockinResult": "gaugecli.experiments.lockin",
    "PhaseConfig": "gaugecli.experiments.phase",
    "PhaseResult": "gaugecli.experiments.phase",
    "PredictConfig": "gaugecli.experiments.predict",
    "PredictResult": "gaugecli.experiments.predict",
    "VerifyConfig": "gaugecli.verify",
    "VerifyResult": "gaugecli.verify",
    # the Python API: one function per subcommand, artifacts read back, the run cache
    "simulate": "gaugecli.api",
    "select": "gaugecli.api",
    "prune": "gaugecli.api",
    "perturb": "gaugecli.api",
    "reln": "gaugecli.api",
    "lockin": "gaugecli.api",
    "phase": "gaugecli.api",
    "predict": "gaugecli.api",
    "verify": "gaugecli.api",
    "load": "gaugecli.api",
    "Artifact": "gaugecli.api",
    "Pipeline": "gaugecli.pipeline",
    "ArtifactError": "gaugecli.store.errors",
    "to_xarray": "gaugecli.core.frames",
    "to_dataframe": "gaugecli.core.frames",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'gaugecli' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
