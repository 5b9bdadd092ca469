"""gaugecli — the hidden gauge of ReLU networks, from the command line.

The public surface is re-exported lazily so that ``import gaugecli`` (and the CLI's
``--help``) does not pay for numpy, scipy or torch until they are used.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    # core
    "Teacher": "gaugecli.teacher",
    "standard_teacher": "gaugecli.teacher",
    "Gauge": "gaugecli.gauge",
    "duplicate_initial_condition": "gaugecli.gauge",
    "function_coordinates": "gaugecli.gauge",
    "parameters_from_function": "gaugecli.gauge",
    "imbalance": "gaugecli.gauge",
    "arccos_kernel": "gaugecli.kernels",
    "population_loss": "gaugecli.dynamics",
    "population_gradient": "gaugecli.dynamics",
    "population_hessian": "gaugecli.dynamics",
    "dissipation": "gaugecli.dynamics",
    "gradient_flow": "gaugecli.integrate",
    "gradient_descent": "gaugecli.integrate",
    "FlowOptions": "gaugecli.integrate",
    "NumericalFault": "gaugecli.integrate",
    "Trajectory": "gaugecli.integrate",
    "observe": "gaugecli.observables",
    "RunObservables": "gaugecli.observables",
    # experiments
    "ModelConfig": "gaugecli.experiments.common",
    "DynamicsConfig": "gaugecli.experiments.common",
    "ConfigError": "gaugecli.experiments.common",
    "SimulateConfig": "gaugecli.experiments.simulate",
    "simulate": "gaugecli.experiments.simulate",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'gaugecli' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
