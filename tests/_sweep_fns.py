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
    """Write this worker's process id to ``path`` (the task has started), then sleep ``delay_s`` seconds."""
    import os
    import time
    from pathlib import Path

    partial = Path(path).with_name(f".{Path(path).name}")  # renamed whole: a reader never sees it empty
    partial.write_text(str(os.getpid()), encoding="utf-8")
    os.replace(partial, path)
    time.sleep(delay_s)


def blas_threads(_: int) -> list[int]:
    """The thread counts threadpoolctl reads from the BLAS libraries numpy loads in this worker."""
    import numpy  # noqa: F401  (loads the BLAS whose pool is read)
    from threadpoolctl import threadpool_info

    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def thread_env(_: int) -> dict[str, str | None]:
    """The BLAS/OpenMP thread variables this worker process started with."""
    import os

    from gaugecli.run.executors import THREAD_ENV_VARS

    return {name: os.environ.get(name) for name in THREAD_ENV_VARS}


def raise_error(cls: type[Exception], args: tuple[str, ...]) -> None:
    """Raise ``cls(*args)`` (in a worker process: the error must pickle back whole)."""
    raise cls(*args)


def preloaded(name: str) -> tuple[bool, list[int], dict[str, str | None]]:
    """Whether module ``name`` was loaded before this task ran, the BLAS thread counts of this worker,
    and its thread variables."""
    import sys

    loaded = name in sys.modules
    return loaded, blas_threads(0), thread_env(0)
