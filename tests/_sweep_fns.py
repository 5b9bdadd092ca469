"""Picklable module-level task functions for the executor tests (workers import this module)."""

from __future__ import annotations

import numpy as np

from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
from gaugecli.core.model.gauge import duplicate_initial_condition
from gaugecli.core.model.model import standard_model
from gaugecli.core.model.state import Network

# Loose tolerances: these tasks test scheduling, not accuracy, and must run in well under a second.
_FAST = FlowOptions(rtol=1e-7, atol=1e-10, grad_tol=1e-6)


def specialization_time(delta: float, d: int = 8) -> tuple[float, int]:
    """``(T_spec, gradient evaluations)`` of one neuron (m = 1) with imbalance ``delta`` under gradient flow."""
    teacher = standard_model(d)
    a0, W0 = duplicate_initial_condition(teacher, np.array([delta]))
    traj = gradient_flow(Network(a0, W0), teacher, t_max=50.0 * (1.0 + abs(delta)), options=_FAST)
    return float(traj.crossing_times[0]), traj.stats.n_gradient_evals


def fail_if_negative(x: float) -> float:
    """Square ``x``, raising on negative input (to test error propagation)."""
    if x < 0:
        raise ValueError(f"negative input {x}")
    return x * x


def sleep_then_return(value: int, delay_s: float) -> int:
    """Return ``value`` after ``delay_s`` seconds (to force out-of-order completion)."""
    import time

    time.sleep(delay_s)
    return value


def mark_then_sleep(path: str, delay_s: float) -> None:
    """Create the file ``path`` (the task has started), then sleep ``delay_s`` seconds."""
    import time
    from pathlib import Path

    Path(path).touch()
    time.sleep(delay_s)


def thread_env(_: int) -> dict[str, str | None]:
    """The BLAS/OpenMP thread variables this worker process started with."""
    import os

    from gaugecli.run.executors import THREAD_ENV_VARS

    return {name: os.environ.get(name) for name in THREAD_ENV_VARS}


def raise_error(cls: type[Exception], args: tuple[str, ...]) -> None:
    """Raise ``cls(*args)`` (in a worker process: the error must pickle back whole)."""
    raise cls(*args)
