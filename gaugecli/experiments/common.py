"""Configuration shared by every experiment and the one function that runs an ensemble."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from gaugecli.core.gauge import duplicate_initial_condition
from gaugecli.core.integrate import (
    FlowOptions,
    NumericalFault,
    Progress,
    gradient_descent,
    gradient_flow,
    stable_step_bound,
)
from gaugecli.core.observables import RunObservables, observe
from gaugecli.core.teacher import Teacher, standard_teacher

Array = NDArray[np.float64]
P = TypeVar("P")
R = TypeVar("R")

PointRunner = Callable[[Callable[[P], R], Sequence[P], "Progress | None"], list[R]]
"""How a sweep evaluates its independent points: ``runner(fn, points, progress)`` returns
``[fn(p) for p in points]`` in order. :func:`run_serially` is the default; the CLI passes
one that uses a process pool or a Dask cluster and stores each finished point so that an
interrupted sweep resumes (:mod:`gaugecli.run.sweep`). ``fn`` is a module-level function and
each point a frozen dataclass, so both pickle."""


def run_serially(fn: Callable[[Any], Any], points: Sequence[Any], progress: Progress | None = None) -> list[Any]:
    out = []
    for i, point in enumerate(points):
        out.append(fn(point))
        if progress is not None:
            progress((i + 1) / len(points))
    return out


class ConfigError(ValueError):
    """An invalid parameter: ``param`` names it, the message gives the allowed range."""

    def __init__(self, param: str, message: str) -> None:
        super().__init__(f"{param}: {message}")
        self.param = param


def require(condition: bool, param: str, message: str) -> None:
    if not condition:
        raise ConfigError(param, message)


def require_finite(value: float, param: str, *, low: float | None = None, strict: bool = True) -> None:
    """``value`` finite and above ``low`` (strictly unless ``strict=False``)."""
    bound = "" if low is None else (f" > {low:g}" if strict else f" ≥ {low:g}")
    ok = isinstance(value, (int, float)) and math.isfinite(value)
    if ok and low is not None:
        ok = value > low if strict else value >= low
    require(ok, param, f"must be a finite number{bound} (got {value!r})")


class Mode(str, Enum):
    """Dynamics of SPEC §1: population gradient flow, population GD, finite-sample GD."""

    flow = "flow"
    gd = "gd"
    sample = "sample"


@dataclass(frozen=True)
class ModelConfig:
    """Teacher, initial function and the alignment threshold.

    ``c0``: initial coefficient of the complete function ``f0 = c0 relu(u0·x)``;
    ``theta0``: its angle to the teacher, in ``[0, π)``; ``eps_align``: ``α ≥ 1 − ε`` counts as aligned.
    """

    d: int = 16
    k: int = 1
    a_star: float = 1.0
    c0: float = 0.1
    theta0: float = math.pi / 2
    eps_align: float = 0.01

    def __post_init__(self) -> None:
        require(isinstance(self.k, int) and self.k >= 1, "k", f"must be an integer ≥ 1 (got {self.k!r})")
        require(
            isinstance(self.d, int) and self.d >= max(2, self.k + 1),
            "d",
            f"must be an integer ≥ {max(2, self.k + 1)} (the teacher's k + 1) (got {self.d!r})",
        )
        require_finite(self.a_star, "a_star")
        require_finite(self.c0, "c0", low=0.0)
        require_finite(self.theta0, "theta0", low=0.0, strict=False)
        require(self.theta0 < math.pi, "theta0", f"must be in [0, π) (got {self.theta0!r})")
        require_finite(self.eps_align, "eps_align", low=0.0)
        require(self.eps_align < 1.0, "eps_align", f"must be in (0, 1) (got {self.eps_align!r})")

    def teacher(self) -> Teacher:
        return standard_teacher(self.d, self.k, self.a_star)


@dataclass(frozen=True)
class DynamicsConfig:
    """How to move: ``mode``, step ``eta`` (GD and sample; ``None`` = a tenth of the
    stable bound at θ0), sample size, horizon (``None`` = until ‖∇L‖ ≤ 1e-10, capped
    by :func:`auto_horizon`) and the flow solver's relative tolerance."""

    mode: Mode = Mode.flow
    eta: float | None = None
    n_samples: int = 10_000
    t_max: float | None = None
    rtol: float = 1e-10
    grid_points: int = 400

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", Mode(self.mode))
        if self.eta is not None:
            require_finite(self.eta, "eta", low=0.0)
        require(
            isinstance(self.n_samples, int) and self.n_samples >= 1,
            "n_samples",
            f"must be an integer ≥ 1 (got {self.n_samples!r})",
        )
        if self.t_max is not None:
            require_finite(self.t_max, "t_max", low=0.0)
        require_finite(self.rtol, "rtol", low=0.0)
        require(self.rtol < 1e-2, "rtol", f"must be in (0, 1e-2) (got {self.rtol!r})")
        require(self.grid_points >= 3, "grid_points", f"must be ≥ 3 (got {self.grid_points!r})")


def auto_horizon(deltas: Array, c0: float) -> float:
    """A cap on time generous enough for convergence: ``T_spec(−D) ≈ 10 D`` and the
    flow settles by ~50 D at the defaults, so ``200 (1 + max|δ|) max(1, 0.1/c0)``."""
    return float(200.0 * (1.0 + np.max(np.abs(deltas))) * max(1.0, 0.1 / c0))


DEFAULT_STEP_FRACTION = 0.1


def default_step(a0: Array, W0: Array, teacher: Teacher) -> float:
    """A tenth of the GD stability bound ``2/λ_max(∇²L(θ0))``, over the whole ensemble."""
    return DEFAULT_STEP_FRACTION * stable_step_bound(a0, W0, teacher)


def duplicates(model: ModelConfig, deltas: Array) -> tuple[Array, Array]:
    """The complete initial function for imbalances ``deltas`` of shape ``(..., m)``."""
    return duplicate_initial_condition(model.teacher(), np.asarray(deltas, float), model.c0, model.theta0)


def run_ensemble(
    model: ModelConfig,
    dynamics: DynamicsConfig,
    a0: Array,
    W0: Array,
    *,
    seed: int | np.random.SeedSequence = 0,
    progress: Progress | None = None,
) -> list[RunObservables]:
    """Integrate the ensemble ``(a0 (B, m), W0 (B, m, d))`` and observe every member."""
    teacher = model.teacher()
    a0, W0 = np.atleast_2d(a0), np.asarray(W0, float).reshape((-1,) + np.shape(W0)[-2:])
    deltas = a0**2 - np.sum(W0**2, axis=-1)
    t_max = dynamics.t_max or auto_horizon(deltas, model.c0)
    if dynamics.mode is Mode.flow:
        traj = gradient_flow(
            a0,
            W0,
            teacher,
            t_max,
            eps_align=model.eps_align,
            options=FlowOptions(rtol=dynamics.rtol, atol=dynamics.rtol * 1e-3, grid_points=dynamics.grid_points),
            progress=progress,
        )
    else:
        bound = stable_step_bound(a0, W0, teacher)
        eta = dynamics.eta if dynamics.eta is not None else DEFAULT_STEP_FRACTION * bound
        if eta >= bound:
            raise NumericalFault(
                f"eta={eta:g} is beyond the gradient-descent stability bound 2/λ_max = {bound:.4g} "
                f"at the initial point; use --eta below {bound:.4g}"
            )
        oracle = None
        if dynamics.mode is Mode.sample:
            from gaugecli.core.sample import draw_sample, empirical_oracle  # torch: imported only when needed

            X, y = draw_sample(teacher, dynamics.n_samples, seed)
            oracle = empirical_oracle(X, y)
        traj = gradient_descent(
            a0,
            W0,
            teacher,
            eta,
            t_max,
            oracle=oracle,
            eps_align=model.eps_align,
            grid_points=dynamics.grid_points,
            progress=progress,
        )
    return [observe(traj, teacher, (b,)) for b in range(a0.shape[0])]
