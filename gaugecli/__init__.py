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
from typing import TYPE_CHECKING, Any

from gaugecli._version import __version__ as __version__
from gaugecli.core.population.route import use_fused as _use_fused
from gaugecli.experiments.spec import experiments as _experiments

# the arithmetic route, read from the environment once, here, for every use of the package (the core
# reads no environment): GAUGECLI_FUSED=0 takes numpy everywhere, a check of the compiled loops
_use_fused(_os.environ.get("GAUGECLI_FUSED", "1") != "0")

_EXPORTS = {
    # core
    "Teacher": "gaugecli.core.model.teacher",
    "standard_teacher": "gaugecli.core.model.teacher",
    "Model": "gaugecli.core.model.model",
    "Network": "gaugecli.core.model.state",
    "standard_model": "gaugecli.core.model.model",
    "activation": "gaugecli.core.activations",
    "register": "gaugecli.core.activations",
    "Gauge": "gaugecli.core.model.gauge",
    "duplicate_initial_condition": "gaugecli.core.model.gauge",
    "function_coordinates": "gaugecli.core.model.gauge",
    "parameters_from_function": "gaugecli.core.model.gauge",
    "imbalance": "gaugecli.core.model.gauge",
    "arccos_kernel": "gaugecli.core.kernels.arccos",
    "population_loss": "gaugecli.core.population.dynamics",
    "population_gradient": "gaugecli.core.population.dynamics",
    "population_hessian": "gaugecli.core.population.dynamics",
    "dissipation": "gaugecli.core.population.dynamics",
    "gradient_flow": "gaugecli.core.integrate.flow",
    "gradient_descent": "gaugecli.core.integrate.descent",
    "FlowOptions": "gaugecli.core.integrate.flow",
    "Objective": "gaugecli.core.population.objective",
    "population_objective": "gaugecli.core.population.objective",
    "choose_step": "gaugecli.core.integrate.step",
    "empirical_objective": "gaugecli.core.samples.sample",
    "symmetry_report": "gaugecli.core.analyses.symmetry",
    "NumericalFault": "gaugecli.core.integrate.trajectory",
    "Trajectory": "gaugecli.core.integrate.trajectory",
    "observe": "gaugecli.core.analyses.observables",
    "RunObservables": "gaugecli.core.analyses.observables",
    # experiments
    "ModelConfig": "gaugecli.experiments.config",
    "DynamicsConfig": "gaugecli.experiments.config",
    "Mode": "gaugecli.experiments.params",
    "ConfigError": "gaugecli.experiments.declare",
    "VerifyConfig": "gaugecli.verify",
    "VerifyResult": "gaugecli.verify",
    # the Python API: verify, artifacts read back, the run cache (the run function of each
    # experiment, and its config and result types, are added from its spec below)
    "verify": "gaugecli.api",
    "load": "gaugecli.api",
    "Artifact": "gaugecli.api",
    "Pipeline": "gaugecli.pipeline",
    "ArtifactError": "gaugecli.store.errors",
    "to_xarray": "gaugecli.core.frames",
    "to_dataframe": "gaugecli.core.frames",
}


def _exports() -> dict[str, str]:
    """Public name → its module: :data:`_EXPORTS` and, from each experiment's spec, its config and
    result types and its run function (read anew: a spec registered later is exported too)."""
    out = dict(_EXPORTS)
    for spec in _experiments():
        out.update(spec.types)
        if spec.api_name is not None:
            out[spec.api_name] = "gaugecli.api"
    return out


__all__ = sorted(_exports())

if TYPE_CHECKING:  # what type checkers see of the lazy exports: a stub generated from the same specs
    from gaugecli._exports import *  # noqa: F403

if not TYPE_CHECKING:  # hidden from type checkers: a misspelt name (gaugecli.simulat) is an error, not Any

    def __getattr__(name: str) -> Any:
        exports = _exports()
        if name in exports:
            return getattr(importlib.import_module(exports[name]), name)
        raise AttributeError(f"module 'gaugecli' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
