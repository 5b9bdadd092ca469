"""The configuration of every experiment: model, dynamics, and their validation (``ConfigError``).

Re-exported by :mod:`gaugecli.experiments.common`, which runs what is configured here."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

from gaugecli.core.budget import DEFAULT_MAX_STEPS, check_input_dimension
from gaugecli.core.teacher import Teacher, standard_teacher
from gaugecli.core.types import Array


class ConfigError(ValueError):
    """An invalid parameter: ``param`` names it, the message gives the allowed range."""

    def __init__(self, param: str, message: str) -> None:
        super().__init__(f"{param}: {message}")
        self.param = param
        self.message = message

    def __reduce__(self) -> tuple[type[ConfigError], tuple[str, str]]:
        # raised in worker processes too: pickle by the constructor's arguments, not by ``args``
        return type(self), (self.param, self.message)


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
    """Dynamics of SPEC §1 and §6.

    ``flow``: population gradient flow (the reference); ``gd``: GD on the population loss;
    ``sample``: gradient flow on the empirical loss ``L_n`` (same adaptive solver and
    event-located ``T_spec`` as ``flow``, so its deviation from ``flow`` is sampling alone);
    ``sample-gd``: full-batch GD on ``L_n``; ``sgd``: minibatch SGD (fresh batches from the
    population, or batches resampled from a fixed sample of ``n``)."""

    flow = "flow"
    gd = "gd"
    sample = "sample"
    sample_gd = "sample-gd"
    sgd = "sgd"

    @property
    def stochastic(self) -> bool:
        """Depends on a seed (a sample or a batch stream)."""
        return self in (Mode.sample, Mode.sample_gd, Mode.sgd)

    @property
    def stepped(self) -> bool:
        """A step η (GD or SGD) rather than an adaptive flow solver."""
        return self in (Mode.gd, Mode.sample_gd, Mode.sgd)


C0_RANGE = (1e-6, 1e6)
"""The initial coefficients the numerics honour (d = 16, ±D, D = 4). Above: δ = a² − ‖w‖² is a
difference of two numbers of size ~c0, so its drift grows like ε_machine·c0 — measured 3e-9 at
c0 = 1e6, 3e-8 at 1e8, 3e-4 at 1e12 and O(1) at 1e15 (C2 asks ≤ 1e-8). Below: the favorable
neuron's ‖w‖ ≈ c0/√D nears the absolute tolerance 1e-13, and T_spec (∝ c0) loses digits — off by
1e-3 at c0 = 1e-10 and 1 % at 1e-12; at 1e-6 it scales exactly (≤ 4e-6)."""

MAX_GAUGE_STRENGTH = 1e6
"""The largest |δ| (gauge strength D or explicit δ) the numerics honour (d = 16, c0 = 0.1): the
unfavorable run's final loss is 1e-14 at D = 1e6 but 1e-12 at 1e8 and 1e-5 at 1e15 (its gradient
∝ 1/D meets the stopping tolerance first), and T_spec(+D) ∝ 1/D is off by 2 % at D = 1e15."""


def listed(values: Sequence[Any]) -> str:
    """A list as the user typed it (``2,3,5``), for messages — not a Python tuple."""
    return ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)


def require_imbalance(value: float, param: str, *, positive: bool) -> None:
    """A gauge strength D (``positive``: in (0, MAX]) or a signed δ (``|δ| ≤ MAX``)."""
    require_finite(value, param, low=0.0 if positive else None)
    bound = MAX_GAUGE_STRENGTH
    span = f"(0, {bound:g}]" if positive else f"[{-bound:g}, {bound:g}]"
    require(
        abs(value) <= bound,
        param,
        f"must be in {span} (got {value:g}): beyond it the flow stops on its gradient tolerance "
        "before the loss is resolved",
    )


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
        low, high = C0_RANGE
        require(
            low <= self.c0 <= high,
            "c0",
            f"must be in [{low:g}, {high:g}] (got {self.c0!r}): "
            + (
                "above it δ = a² − ‖w‖² is a difference of numbers ~c0, lost to round-off"
                if self.c0 > high
                else "below it the neurons' weights approach the solver's absolute tolerance"
            ),
        )
        require(
            isinstance(self.theta0, (int, float)) and 0.0 <= self.theta0 < math.pi,  # NaN fails both
            "theta0",
            f"must be in [0, π) (got {self.theta0!r})",
        )
        require_finite(self.eps_align, "eps_align", low=0.0)
        require(self.eps_align < 1.0, "eps_align", f"must be in (0, 1) (got {self.eps_align!r})")

    def teacher(self) -> Teacher:
        # the teacher is the first thing of size d a run builds: refuse a d that cannot fit before it
        # (its k features and, the least a run has, one neuron: budget.VECTORS_PER_DIRECTION each)
        check_input_dimension(self.d, self.k + 1)
        return standard_teacher(self.d, self.k, self.a_star)


HORIZON_RANGE = (1e-9, 1e14)
"""The horizons ``t_max`` a run honours. Below: the fastest rate in the model is the favorable
neuron's ``~2D ≤ 2e6`` (D ≤ :data:`MAX_GAUGE_STRENGTH`), so in 1e-9 no state moves by more than
~1e-3 of itself (and at 1e-300 the declared grid reaches subnormal times: the flow stalled for 14 s,
then failed). Above: the automatic horizon (:func:`auto_horizon`) is at most 2e13 (D = 1e6,
c0 = 1e-6); at 1e300 the solver used its whole gradient budget (28 s) and failed."""
DEFAULT_N_SAMPLES = 10_000
DEFAULT_BATCH_SIZE = 100
POPULATION_RTOL = 1e-10
MIN_RTOL = 1e-13
"""The tightest flow tolerance: scipy's solvers raise anything below 100 ε_machine ≈ 2.2e-14 to that
floor (with a warning), so a smaller request would silently not be met; 1e-13 is the tightest
decade above it (measured at d = 16, ±D: T_spec agrees with rtol 1e-12 to 1e-12, δ drift ≤ 4e-13)."""
SAMPLE_RTOL = 1e-4
"""The finite-sample flow's default tolerance. ``L_n`` is piecewise smooth (its gradient jumps
by O(1/n) each time a sample point crosses a neuron's hyperplane, ~n/2 times while a neuron
turns by π/2), so tighter tolerances cost steeply: LSODA, n = 10⁴, m = 1, D = 4: 1593 gradient
evaluations at 1e-4, 11 597 at 1e-5, 48 371 at 1e-6; at 1e-8 and n = 10⁵ it ran out of budget.
At 1e-4 the solver's error, sup_t ‖f − f_ref‖ against an RK45 run at 1e-7, was 2e-5 … 6e-5 for
n = 10³ … 10⁵ — under 1 % of the sampling deviation from the population flow (0.048 … 0.006)."""
SAMPLE_LSODA_BUDGET = 20_000
"""Gradient evaluations the finite-sample flow gives LSODA before it falls back to RK45. At
small n the flow on ``L_n`` slides along kinks (a sample point held on a neuron's hyperplane),
where implicit steps stall (n = 8 … 32: LSODA out of 20 000 evaluations in 13 of 30 runs);
at n ≥ 1000 LSODA needs 900 … 5 000 (to convergence) and converges where RK45 cannot (an
explicit method chatters at the stiff minimum and never reaches ‖∇L‖ ≤ 1e-10)."""
DEVICES = ("cpu", "cuda", "auto")
DEFAULT_DEVICE = "auto"
"""Where the finite-sample modes run their torch work when ``--device`` is not given: a CUDA
GPU if torch sees one, else the CPU (results agree to round-off)."""
BATCH_STREAM = 1
"""SGD's batch stream is the child ``BATCH_STREAM`` of the run's seed sequence (its spawn key
extended by it), so it never shares draws with the sample drawn from the same seed."""


def check_rtol(value: float, param: str = "rtol") -> None:
    """A flow solver's relative tolerance, in ``[MIN_RTOL, 1e-2)`` — the one rule of every
    experiment that integrates a flow (DynamicsConfig, prune, perturb, lockin)."""
    require_finite(value, param, low=0.0)
    require(
        MIN_RTOL <= value < 1e-2,
        param,
        f"must be in [{MIN_RTOL:g}, 1e-2): below {MIN_RTOL:g} the solver cannot meet it in float64 (got {value!r})",
    )


def _modes(*modes: Mode) -> str:
    return ", ".join(m.value for m in modes)


@dataclass(frozen=True)
class DynamicsConfig:
    """How to move. ``None`` means "not given" (then the mode's default applies), so that an
    option without effect in the chosen mode is an error, never silently ignored.

    ``eta``: GD/SGD step (``None``: :func:`gaugecli.core.integrate.choose_step`, a step whose
    discretisation error of T_spec is ≤ 1 %); ``n_samples``: sample size for ``sample``,
    ``sample-gd`` and resampled ``sgd`` (default :data:`DEFAULT_N_SAMPLES`); ``batch_size`` and
    ``batches`` (``fresh`` | ``resampled``; default ``resampled`` if ``n_samples`` is given,
    else ``fresh``): ``sgd`` only; ``t_max``: horizon (``None`` = until ‖∇L‖ ≤ 1e-10, capped by
    :func:`auto_horizon`); ``max_steps``: the step budget of GD/SGD (stepped modes only; default
    :data:`~gaugecli.core.budget.DEFAULT_MAX_STEPS`: a longer run is refused before it starts);
    ``rtol``: the flow solver's relative tolerance (flow modes only;
    default :data:`POPULATION_RTOL` for ``flow``, :data:`SAMPLE_RTOL` for ``sample``).
    """

    mode: Mode = Mode.flow
    eta: float | None = None
    n_samples: int | None = None
    batch_size: int | None = None
    batches: str | None = None
    t_max: float | None = None
    rtol: float | None = None
    grid_points: int = 400
    max_steps: int | None = None
    device: str | None = None

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "mode", Mode(self.mode))
        except ValueError:
            raise ConfigError("mode", f"must be one of {_modes(*Mode)} (got {self.mode!r})") from None
        mode = self.mode
        if self.eta is not None:
            require(
                mode.stepped,
                "eta",
                f"has no effect in --mode {mode.value} (a flow has no step); it applies to "
                f"{_modes(Mode.gd, Mode.sample_gd, Mode.sgd)}",
            )
            require_finite(self.eta, "eta", low=0.0)
        if self.n_samples is not None:
            require(
                mode in (Mode.sample, Mode.sample_gd, Mode.sgd),
                "n_samples",
                f"has no effect in --mode {mode.value} (population dynamics); it applies to "
                f"{_modes(Mode.sample, Mode.sample_gd, Mode.sgd)}",
            )
            require(
                isinstance(self.n_samples, int) and self.n_samples >= 1,
                "n_samples",
                f"must be an integer ≥ 1 (got {self.n_samples!r})",
            )
        for name in ("batch_size", "batches"):
            if getattr(self, name) is not None:
                require(mode is Mode.sgd, name, f"has no effect in --mode {mode.value}; it applies to --mode sgd")
        if self.batch_size is not None:
            require(
                isinstance(self.batch_size, int) and self.batch_size >= 1,
                "batch_size",
                f"must be an integer ≥ 1 (got {self.batch_size!r})",
            )
        if self.batches is not None:
            require(
                self.batches in ("fresh", "resampled"),
                "batches",
                f"must be fresh or resampled (got {self.batches!r})",
            )
            require(
                not (self.batches == "fresh" and self.n_samples is not None),
                "n_samples",
                "has no effect with --batches fresh (every batch is new); use --batches resampled",
            )
        if self.t_max is not None:
            require_finite(self.t_max, "t_max", low=0.0)
            low, high = HORIZON_RANGE
            require(
                low <= self.t_max <= high,
                "t_max",
                f"must be in [{low:g}, {high:g}] (got {self.t_max!r}): shorter, nothing moves; "
                "longer than any run needs to converge",
            )
        if self.rtol is not None:
            require(
                not mode.stepped,
                "rtol",
                f"has no effect in --mode {mode.value} (a fixed step, no tolerance); it applies to flow and sample",
            )
            check_rtol(self.rtol)
        if self.max_steps is not None:
            require(
                mode.stepped,
                "max_steps",
                f"has no effect in --mode {mode.value} (a flow takes no fixed steps); it applies to "
                f"{_modes(Mode.gd, Mode.sample_gd, Mode.sgd)}",
            )
            require(
                isinstance(self.max_steps, int) and self.max_steps >= 1,
                "max_steps",
                f"must be an integer ≥ 1 (got {self.max_steps!r})",
            )
        if self.device is not None:
            require(
                mode.stochastic,
                "device",
                f"has no effect in --mode {mode.value} (population dynamics run in numpy); it applies to "
                f"{_modes(Mode.sample, Mode.sample_gd, Mode.sgd)}",
            )
            require(self.device in DEVICES, "device", f"must be cpu, cuda or auto (got {self.device!r})")
            if self.device == "cuda":
                from gaugecli.core.sample import resolve_device  # torch: only when a GPU is asked for

                try:
                    resolve_device("cuda")
                except ValueError as err:
                    raise ConfigError("device", str(err).removeprefix("cuda: ")) from None
        require(
            isinstance(self.grid_points, int) and self.grid_points >= 3,
            "grid_points",
            f"must be ≥ 3 (got {self.grid_points!r})",
        )

    @property
    def torch_device(self) -> str:
        """``cpu`` | ``cuda`` | ``auto`` for the finite-sample torch work (default :data:`DEFAULT_DEVICE`)."""
        return self.device if self.device is not None else DEFAULT_DEVICE

    @property
    def sample_size(self) -> int | None:
        """``n`` of the fixed sample, or ``None`` when the mode uses none (flow, gd, fresh sgd)."""
        if self.mode in (Mode.sample, Mode.sample_gd) or self.batch_source == "resampled":
            return self.n_samples if self.n_samples is not None else DEFAULT_N_SAMPLES
        return None

    @property
    def batch_source(self) -> str | None:
        """``fresh`` or ``resampled`` for sgd, else ``None``."""
        if self.mode is not Mode.sgd:
            return None
        return self.batches or ("resampled" if self.n_samples is not None else "fresh")

    @property
    def solver_rtol(self) -> float:
        if self.rtol is not None:
            return self.rtol
        return SAMPLE_RTOL if self.mode is Mode.sample else POPULATION_RTOL

    @property
    def step_budget(self) -> int:
        """Most GD/SGD steps a run may take (``max_steps``, default :data:`DEFAULT_MAX_STEPS`)."""
        return self.max_steps if self.max_steps is not None else DEFAULT_MAX_STEPS

    @property
    def minibatch(self) -> int:
        return self.batch_size if self.batch_size is not None else DEFAULT_BATCH_SIZE


def auto_horizon(deltas: Array, c0: float) -> float:
    """A cap on time generous enough for convergence: ``T_spec(−D) ≈ 10 D`` and the
    flow settles by ~50 D at the defaults, so ``200 (1 + max|δ|) max(1, 0.1/c0)``."""
    return float(200.0 * (1.0 + np.max(np.abs(deltas))) * max(1.0, 0.1 / c0))


def check_seeds(seeds: object, dynamics: DynamicsConfig, param: str = "seeds") -> None:
    """Seeds are integers ≥ 0, and given only where they matter (a stochastic mode)."""
    if seeds is None:
        return
    values = seeds if isinstance(seeds, tuple) else (seeds,)
    require(len(values) >= 1, param, "give at least one seed, e.g. --seeds 0,1,2")
    require(
        all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in values),
        param,
        f"must be integers ≥ 0 (got {seeds!r})",
    )
    require(
        dynamics.mode.stochastic,
        param,
        f"has no effect in --mode {dynamics.mode.value} (deterministic population dynamics); "
        f"it applies to {_modes(Mode.sample, Mode.sample_gd, Mode.sgd)}",
    )
