"""Time integration, re-exported from the modules of one concept each (existing imports keep working).

* :mod:`gaugecli.core.trajectory` — :class:`Trajectory`, :class:`SolverStats`, :class:`NumericalFault`;
* :mod:`gaugecli.core.objective` — :class:`Objective` (what is descended), :func:`population_objective`;
* :mod:`gaugecli.core.flow` — :func:`gradient_flow` (LSODA + closed-form Jacobian), :class:`FlowOptions`;
* :mod:`gaugecli.core.descent` — :func:`gradient_descent`, :func:`stable_step_bound`;
* :mod:`gaugecli.core.step` — :func:`choose_step`, :func:`step_error` (a GD step with a stated error);
* :mod:`gaugecli.core.subspace` — the invariant subspace in which the population dynamics run.

Every integrator takes initial parameters ``(a0, W0)`` of shapes ``(..., m)`` and
``(..., m, d)`` (leading axes are an ensemble integrated together) and returns a
:class:`Trajectory` sampled on a log-spaced grid that also contains every
specialization event.
"""

from __future__ import annotations

from gaugecli.core.descent import gradient_descent, stable_step_bound
from gaugecli.core.flow import ENSEMBLE_CHUNK_STATES, FlowOptions, gradient_flow
from gaugecli.core.objective import GradientOracle, Hessian, Objective, population_objective, population_oracle
from gaugecli.core.step import (
    MIN_STEPS_TO_CROSSING,
    PILOT_START_FRACTION,
    STEP_ERROR_TARGET,
    StepChoice,
    choose_step,
    step_error,
)
from gaugecli.core.trajectory import NumericalFault, SolverStats, Trajectory, log_time_grid
from gaugecli.core.types import Progress

__all__ = [
    "ENSEMBLE_CHUNK_STATES",
    "MIN_STEPS_TO_CROSSING",
    "PILOT_START_FRACTION",
    "STEP_ERROR_TARGET",
    "FlowOptions",
    "GradientOracle",
    "Hessian",
    "NumericalFault",
    "Objective",
    "Progress",
    "SolverStats",
    "StepChoice",
    "Trajectory",
    "choose_step",
    "gradient_descent",
    "gradient_flow",
    "log_time_grid",
    "population_objective",
    "population_oracle",
    "stable_step_bound",
    "step_error",
]
