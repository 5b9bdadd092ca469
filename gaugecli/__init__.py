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
from gaugecli.core.route import use_fused as _use_fused
from gaugecli.experiments.spec import experiments as _experiments

# the arithmetic route, read from the environment once, here, for every use of the package (the core
# reads no environment): GAUGECLI_FUSED=0 takes numpy everywhere, a check of the compiled loops
_use_fused(_os.environ.get("GAUGECLI_FUSED", "1") != "0")

_EXPORTS = {
    # core
    "Teacher": "gaugecli.core.teacher",
    "standard_teacher": "gaugecli.core.teacher",
    "Model": "gaugecli.core.model",
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

if TYPE_CHECKING:  # what mypy and IDEs see of the lazy exports (tests/test_api_types.py: the same names)
    from gaugecli.api import (
        Artifact as Artifact,
    )
    from gaugecli.api import (
        load as load,
    )
    from gaugecli.api import (
        lockin as lockin,
    )
    from gaugecli.api import (
        perturb as perturb,
    )
    from gaugecli.api import (
        phase as phase,
    )
    from gaugecli.api import (
        predict as predict,
    )
    from gaugecli.api import (
        prune as prune,
    )
    from gaugecli.api import (
        reln as reln,
    )
    from gaugecli.api import (
        select as select,
    )
    from gaugecli.api import (
        simulate as simulate,
    )
    from gaugecli.api import (
        verify as verify,
    )
    from gaugecli.core.activations import activation as activation
    from gaugecli.core.activations import register as register
    from gaugecli.core.descent import gradient_descent as gradient_descent
    from gaugecli.core.dynamics import (
        dissipation as dissipation,
    )
    from gaugecli.core.dynamics import (
        population_gradient as population_gradient,
    )
    from gaugecli.core.dynamics import (
        population_hessian as population_hessian,
    )
    from gaugecli.core.dynamics import (
        population_loss as population_loss,
    )
    from gaugecli.core.flow import FlowOptions as FlowOptions
    from gaugecli.core.flow import gradient_flow as gradient_flow
    from gaugecli.core.frames import to_dataframe as to_dataframe
    from gaugecli.core.frames import to_xarray as to_xarray
    from gaugecli.core.gauge import (
        Gauge as Gauge,
    )
    from gaugecli.core.gauge import (
        duplicate_initial_condition as duplicate_initial_condition,
    )
    from gaugecli.core.gauge import (
        function_coordinates as function_coordinates,
    )
    from gaugecli.core.gauge import (
        imbalance as imbalance,
    )
    from gaugecli.core.gauge import (
        parameters_from_function as parameters_from_function,
    )
    from gaugecli.core.kernels import arccos_kernel as arccos_kernel
    from gaugecli.core.model import Model as Model
    from gaugecli.core.model import standard_model as standard_model
    from gaugecli.core.objective import Objective as Objective
    from gaugecli.core.objective import population_objective as population_objective
    from gaugecli.core.observables import RunObservables as RunObservables
    from gaugecli.core.observables import observe as observe
    from gaugecli.core.sample import empirical_objective as empirical_objective
    from gaugecli.core.step import choose_step as choose_step
    from gaugecli.core.symmetry import symmetry_report as symmetry_report
    from gaugecli.core.teacher import Teacher as Teacher
    from gaugecli.core.teacher import standard_teacher as standard_teacher
    from gaugecli.core.trajectory import NumericalFault as NumericalFault
    from gaugecli.core.trajectory import Trajectory as Trajectory
    from gaugecli.experiments.config import DynamicsConfig as DynamicsConfig
    from gaugecli.experiments.config import ModelConfig as ModelConfig
    from gaugecli.experiments.declare import ConfigError as ConfigError
    from gaugecli.experiments.limit_dissipation import (
        LimitDissipation as LimitDissipation,
    )
    from gaugecli.experiments.limit_dissipation import (
        LimitDissipationConfig as LimitDissipationConfig,
    )
    from gaugecli.experiments.limits import (
        LimitConstants as LimitConstants,
    )
    from gaugecli.experiments.limits import (
        LimitConstantsConfig as LimitConstantsConfig,
    )
    from gaugecli.experiments.limits import (
        LimitPaths as LimitPaths,
    )
    from gaugecli.experiments.limits import (
        LimitPathsConfig as LimitPathsConfig,
    )
    from gaugecli.experiments.lockin import LockinConfig as LockinConfig
    from gaugecli.experiments.lockin import LockinResult as LockinResult
    from gaugecli.experiments.params import Mode as Mode
    from gaugecli.experiments.perturb import PerturbConfig as PerturbConfig
    from gaugecli.experiments.perturb import PerturbResult as PerturbResult
    from gaugecli.experiments.phase import PhaseConfig as PhaseConfig
    from gaugecli.experiments.phase import PhaseResult as PhaseResult
    from gaugecli.experiments.predict import PredictConfig as PredictConfig
    from gaugecli.experiments.predict import PredictResult as PredictResult
    from gaugecli.experiments.prune import PruneConfig as PruneConfig
    from gaugecli.experiments.prune import PruneResult as PruneResult
    from gaugecli.experiments.ratio_slope import RatioSlope as RatioSlope
    from gaugecli.experiments.ratio_slope import RatioSlopeConfig as RatioSlopeConfig
    from gaugecli.experiments.reduced_window import (
        ReducedWindow as ReducedWindow,
    )
    from gaugecli.experiments.reduced_window import (
        ReducedWindowConfig as ReducedWindowConfig,
    )
    from gaugecli.experiments.reln import RelnConfig as RelnConfig
    from gaugecli.experiments.reln import RelnResult as RelnResult
    from gaugecli.experiments.select import (
        OwnerSweepConfig as OwnerSweepConfig,
    )
    from gaugecli.experiments.select import (
        OwnerSweepResult as OwnerSweepResult,
    )
    from gaugecli.experiments.select import (
        SelectConfig as SelectConfig,
    )
    from gaugecli.experiments.select import (
        SelectResult as SelectResult,
    )
    from gaugecli.experiments.simulate import SimulateConfig as SimulateConfig
    from gaugecli.experiments.speed_ratio import SpeedRatio as SpeedRatio
    from gaugecli.experiments.speed_ratio import SpeedRatioConfig as SpeedRatioConfig
    from gaugecli.pipeline import Pipeline as Pipeline
    from gaugecli.store.errors import ArtifactError as ArtifactError
    from gaugecli.verify import VerifyConfig as VerifyConfig
    from gaugecli.verify import VerifyResult as VerifyResult


if not TYPE_CHECKING:  # hidden from type checkers: a misspelt name (gaugecli.simulat) is an error, not Any

    def __getattr__(name: str) -> Any:
        exports = _exports()
        if name in exports:
            return getattr(importlib.import_module(exports[name]), name)
        raise AttributeError(f"module 'gaugecli' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
