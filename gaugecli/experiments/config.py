"""The model and the dynamics every experiment shares: :class:`ModelConfig`, :class:`DynamicsConfig`.

Their fields, defaults and ranges are declared in :mod:`gaugecli.experiments.params`; here are the
rules between fields (an option without effect in the chosen mode is refused, never ignored).
Numpy and the numerics load only when a config builds something (its model, its horizon), so
that the command line can check a configuration before it imports them."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gaugecli.core.integrate.tolerance import Tolerance
from gaugecli.core.types import LATER_FIELD
from gaugecli.experiments.budget import check_input_dimension
from gaugecli.experiments.declare import ConfigError, require
from gaugecli.experiments.params import (
    DEFAULT_ADAM_EPS,
    DEFAULT_BATCH_SIZE,
    DEFAULT_BETAS,
    DEFAULT_DEVICE,
    DEFAULT_MAX_STEPS,
    DEFAULT_MOMENTUM,
    DEFAULT_N_SAMPLES,
    DEFAULT_NEGATIVE_SLOPE,
    DEFAULT_OPTIMIZER,
    MAX_ADAM_LR,
    POPULATION_RTOL,
    SAMPLE_RTOL,
    Dynamics,
    Mode,
    Model,
)

if TYPE_CHECKING:
    from gaugecli.core.activations.base import Activation
    from gaugecli.core.integrate.optimizers.base import Optimizer
    from gaugecli.core.model.model import Model as Network
    from gaugecli.core.types import Array

SAMPLE_LSODA_BUDGET = 20_000
"""Gradient evaluations the finite-sample flow gives LSODA before it falls back to RK45. At
small n the flow on ``L_n`` slides along kinks (a sample point held on a neuron's hyperplane),
where implicit steps stall (n = 8 … 32: LSODA out of 20 000 evaluations in 13 of 30 runs);
at n ≥ 1000 LSODA needs 900 … 5 000 (to convergence) and converges where RK45 cannot (an
explicit method chatters at the stiff minimum and never reaches ‖∇L‖ ≤ 1e-10)."""
PAPER_ACTIVATION = "relu"
"""The paper's σ (student and teacher): its reduced equations, limits and the analyses that rest on them
(:func:`check_paper_model`) are ReLU's; a fact of the paper, not of the activation registry."""
BATCH_STREAM = 1
"""SGD's batch stream is the child ``BATCH_STREAM`` of the run's seed sequence (its spawn key
extended by it), so it never shares draws with the sample drawn from the same seed."""


def _takes_slope(name: str | None) -> bool:
    """The activation registered as ``name`` takes leaky-relu's β (``negative_slope``): the registry's
    :data:`~gaugecli.core.activations.PARAMETERS`, not a name spelled here."""
    from gaugecli.core.activations import PARAMETERS

    return name is not None and "negative_slope" in PARAMETERS.get(name, ())


@dataclass(frozen=True)
class ModelConfig:
    """Teacher, activation, weight decay, initial function and the alignment threshold (fields:
    :class:`~gaugecli.experiments.params.Model`).

    ``activation``: σ of student and teacher (a name of the registry); ``teacher_activation``: the
    teacher's τ where it differs (a pair with a closed-form cross kernel); ``negative_slope``: leaky-relu's β
    (``None``: :data:`~gaugecli.experiments.params.DEFAULT_NEGATIVE_SLOPE`; refused for another σ);
    ``weight_decay``: λ of the objective ``L + (λ/2)‖θ‖²``;
    ``c0``: initial coefficient of the complete function ``f0 = c0 σ(u0·x)``;
    ``theta0``: its angle to the teacher, in ``[0, π)``; ``eps_align``: ``α ≥ 1 − ε`` counts as aligned;
    ``a_star``: the teacher's weight (1: losses in units of a*²‖v‖²; not an option).
    """

    d: int = Model.d.default
    k: int = Model.k.default
    activation: str = Model.activation.default
    teacher_activation: str | None = Model.teacher_activation.default
    negative_slope: float | None = Model.negative_slope.default
    weight_decay: float = Model.weight_decay.default
    a_star: float = 1.0
    c0: float = Model.c0.default
    theta0: float = Model.theta0.default
    eps_align: float = Model.eps_align.default

    def __post_init__(self) -> None:
        Model.check(self)
        require(
            self.d >= self.k + 1,
            "d",
            f"must be ≥ {self.k + 1} = `k` + 1, room for the teacher's features (got {self.d})",
        )
        require(
            self.negative_slope is None or any(map(_takes_slope, (self.activation, self.teacher_activation))),
            "negative_slope",
            f"is leaky-relu's slope: it has no effect with `activation` {self.activation}"
            + ("" if self.teacher_activation is None else f" and `teacher_activation` {self.teacher_activation}"),
        )
        if self.teacher_activation == self.activation:  # the default, spelled out: one config, one cache key
            object.__setattr__(self, "teacher_activation", None)
        if self.teacher_activation is not None:
            from gaugecli.core.activations.cross import cross_kernel

            try:  # the pair needs a closed-form cross kernel: refused here, before anything is built
                cross_kernel(self.sigma(), self._activation(self.teacher_activation))
            except ValueError as err:
                raise ConfigError("teacher_activation", str(err)) from None
        require(
            isinstance(self.a_star, (int, float)) and math.isfinite(self.a_star),
            "a_star",
            f"must be a finite number (got {self.a_star!r})",
        )

    @property
    def slope(self) -> float:
        """leaky-relu's β as used (the default where not given)."""
        return DEFAULT_NEGATIVE_SLOPE if self.negative_slope is None else self.negative_slope

    @property
    def is_paper_model(self) -> bool:
        """ReLU student and teacher without weight decay: the model of the paper's reduced equations and limits."""
        return (
            self.activation == PAPER_ACTIVATION
            and self.teacher_activation in (None, PAPER_ACTIVATION)
            and self.weight_decay == 0.0
        )

    def _activation(self, name: str) -> Activation:
        from gaugecli.core.activations import activation

        return activation(name, **({"negative_slope": self.slope} if _takes_slope(name) else {}))

    def sigma(self) -> Activation:
        """The student's :class:`~gaugecli.core.activations.base.Activation` object."""
        return self._activation(self.activation)

    def teacher_sigma(self) -> Activation | None:
        """The teacher's activation where it is not the student's (else ``None``)."""
        return None if self.teacher_activation is None else self._activation(self.teacher_activation)

    def build(self) -> Network:
        """The :class:`~gaugecli.core.model.model.Model`: the standard teacher under this activation and decay."""
        from gaugecli.core.model.model import standard_model

        # the teacher is the first thing of size d a run builds: refuse a d that cannot fit before it
        # (its k features and, the least a run has, one neuron: budget.VECTORS_PER_DIRECTION each)
        check_input_dimension(self.d, self.k + 1)
        return standard_model(self.d, self.k, self.a_star, self.sigma(), self.weight_decay, self.teacher_sigma())


def check_paper_model(model: ModelConfig, command: str, why: str) -> None:
    """Refuse another activation or a weight decay for an analysis that holds for ReLU without decay
    (``why``: what in it is ReLU's), naming the parameter."""
    need = f"{command} needs {PAPER_ACTIVATION}: {why}"
    require(model.activation == PAPER_ACTIVATION, "activation", f"{need} (got {model.activation})")
    require(
        model.teacher_activation in (None, PAPER_ACTIVATION),
        "teacher_activation",
        f"{need} (got {model.teacher_activation})",
    )
    require(model.weight_decay == 0.0, "weight_decay", f"{command} needs 0: {why} (got {model.weight_decay:g})")


def _modes(*modes: Mode) -> str:
    return ", ".join(m.value for m in modes)


_APPLIES = {
    "eta": ((Mode.gd, Mode.sample_gd, Mode.sgd), "a flow has no step"),
    "n_samples": ((Mode.sample, Mode.sample_gd, Mode.sgd), "population dynamics"),
    "batch_size": ((Mode.sgd,), "minibatches are SGD's"),
    "batches": ((Mode.sgd,), "minibatches are SGD's"),
    "rtol": ((Mode.flow, Mode.sample), "a fixed step, no tolerance"),
    "max_steps": ((Mode.gd, Mode.sample_gd, Mode.sgd), "a flow takes no fixed steps"),
    "step_error": ((Mode.gd, Mode.sample_gd, Mode.sgd), "a flow has no step"),
    "imbalance_every_step": ((Mode.gd, Mode.sample_gd, Mode.sgd), "a flow has no step"),
    "device": ((Mode.sample, Mode.sample_gd, Mode.sgd), "population dynamics run in numpy"),
    **{
        name: ((Mode.gd, Mode.sample_gd, Mode.sgd), "a flow has no update rule")
        for name in ("optimizer", "momentum", "nesterov", "betas", "adam_eps", "basis", "basis_seed")
    },
}
"""The modes in which each optional dynamics field has an effect, and why not elsewhere."""


@dataclass(frozen=True)
class DynamicsConfig:
    """How to move (fields: :class:`~gaugecli.experiments.params.Dynamics`). ``None`` means "not
    given" (then the mode's default applies), so that an option without effect in the chosen mode
    is an error, never silently ignored.

    ``eta``: GD/SGD step (``None``: :func:`gaugecli.core.integrate.step.choose_step`, a step whose
    discretisation error of T_spec is ≤ 1 %); ``step_error``: with a given ``eta``, estimate that
    error too (one more run at η/2 to its first crossing; off: ``step_error`` of the run is ``None``);
    ``n_samples``: sample size for ``sample``,
    ``sample-gd`` and resampled ``sgd`` (default :data:`DEFAULT_N_SAMPLES`); ``batch_size`` and
    ``batches`` (``fresh`` | ``resampled``; default ``resampled`` if ``n_samples`` is given,
    else ``fresh``): ``sgd`` only; ``t_max``: horizon (``None`` = until ‖∇L‖ ≤ 1e-10, capped by
    :func:`auto_horizon`); ``max_steps``: the step budget of GD/SGD (stepped modes only; default
    :data:`~gaugecli.experiments.params.DEFAULT_MAX_STEPS`: a longer run is refused before it starts);
    ``rtol``: the flow solver's relative tolerance (flow modes only;
    default :data:`POPULATION_RTOL` for ``flow``, :data:`SAMPLE_RTOL` for ``sample``);
    ``grid_points``: the declared times of a flow's stored series (not an option).

    ``optimizer`` (stepped modes; default ``sgd``, plain GD): the update rule, as ``torch.optim``
    steps it (:mod:`gaugecli.core.integrate.optimizers`), with ``eta`` its learning rate; ``momentum`` and
    ``nesterov`` are the heavy ball's, ``betas`` and ``adam_eps`` Adam's and AdamW's. The model's
    ``weight_decay`` λ is the objective's ``+λθ`` in the gradient for sgd, momentum and adam (torch's
    coupled ``weight_decay``), and AdamW's decoupled decay ``θ ← (1 − ηλ)θ`` for adamw (whose gradient
    is then the loss's alone). ``basis`` random: the optimizer steps in the coordinates of a seeded
    orthogonal ``Q`` (``basis_seed``); only Adam's per-coordinate rule sees it. ``imbalance_every_step``
    (stepped modes): keep δ of every neuron at every step (``RunObservables.imbalance_per_step``), within
    :data:`~gaugecli.core.integrate.descent.IMBALANCE_PER_STEP_BUDGET` numbers.
    """

    mode: Mode = Dynamics.mode.default
    eta: float | None = Dynamics.eta.default
    n_samples: int | None = Dynamics.n_samples.default
    batch_size: int | None = Dynamics.batch_size.default
    batches: str | None = Dynamics.batches.default
    t_max: float | None = Dynamics.t_max.default
    rtol: float | None = Dynamics.rtol.default
    grid_points: int = 400
    max_steps: int | None = Dynamics.max_steps.default
    device: str | None = Dynamics.device.default
    optimizer: str | None = field(default=Dynamics.optimizer.default, metadata={LATER_FIELD: True})
    momentum: float | None = field(default=Dynamics.momentum.default, metadata={LATER_FIELD: True})
    nesterov: bool | None = field(default=Dynamics.nesterov.default, metadata={LATER_FIELD: True})
    betas: tuple[float, ...] | None = field(default=Dynamics.betas.default, metadata={LATER_FIELD: True})
    adam_eps: float | None = field(default=Dynamics.adam_eps.default, metadata={LATER_FIELD: True})
    basis: str | None = field(default=Dynamics.basis.default, metadata={LATER_FIELD: True})
    basis_seed: int | None = field(default=Dynamics.basis_seed.default, metadata={LATER_FIELD: True})
    step_error: bool | None = field(default=Dynamics.step_error.default, metadata={LATER_FIELD: True})
    imbalance_every_step: bool | None = field(
        default=Dynamics.imbalance_every_step.default, metadata={LATER_FIELD: True}
    )

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "mode", Mode(self.mode))
        except ValueError:
            raise ConfigError("mode", f"must be one of {_modes(*Mode)} (got {self.mode!r})") from None
        Dynamics.check(self)
        mode = self.mode
        for name, (modes, why) in _APPLIES.items():
            require(
                getattr(self, name) is None or mode in modes,
                name,
                f"has no effect in `mode` {mode.value} ({why}); it applies to {_modes(*modes)}",
            )
        require(
            not (self.step_error and self.eta is None),
            "step_error",
            "needs a given `eta`: the automatic step is chosen by its estimated error, which it always reports",
        )
        require(
            not (self.batches == "fresh" and self.n_samples is not None),
            "n_samples",
            "has no effect with `batches` fresh (every batch is new); use `batches` resampled",
        )
        self._check_optimizer()
        if self.device == "cuda":
            from gaugecli.core.samples.sample_draw import resolve_device  # torch: only when a GPU is asked for

            try:
                resolve_device("cuda")
            except ValueError as err:
                raise ConfigError("device", str(err).removeprefix("cuda: ")) from None
        require(
            isinstance(self.grid_points, int) and self.grid_points >= 3,
            "grid_points",
            f"must be ≥ 3 (got {self.grid_points!r})",
        )

    def _check_optimizer(self) -> None:
        from gaugecli.core.integrate.optimizers import PARAMETERS

        if self.betas is not None:
            object.__setattr__(self, "betas", tuple(self.betas))
        name = self.update_rule_name
        takes = PARAMETERS[name]
        for param, owner in (("momentum", "momentum"), ("nesterov", "momentum"), ("betas", "adam, adamw")):
            require(
                getattr(self, param) is None or param in takes,
                param,
                f"has no effect with `optimizer` {name}; it applies to `optimizer` {owner}",
            )
        require(
            self.adam_eps is None or "adam_eps" in takes,
            "adam_eps",
            f"has no effect with `optimizer` {name}; it applies to `optimizer` adam, adamw",
        )
        require(
            self.betas is None or len(self.betas) == 2,
            "betas",
            f"give two values β1,β2 (got {len(self.betas or ())})",
        )
        require(
            not (self.nesterov and self.momentum == 0.0),
            "nesterov",
            "needs a momentum `momentum` > 0 (torch refuses it too: at β = 0 it is plain GD)",
        )
        require(
            self.basis_seed is None or self.basis == "random",
            "basis_seed",
            "seeds `basis` random; it has no effect in the standard basis",
        )
        require(
            name == "sgd" or self.eta is not None,
            "eta",
            f"must be given with `optimizer` {name}: the automatic step controls gradient descent's error only",
        )
        require(
            name not in ("adam", "adamw") or self.eta is None or self.eta <= MAX_ADAM_LR,
            "eta",
            f"must be in (0, {MAX_ADAM_LR:g}] with `optimizer` {name} (got {self.eta!r}): an Adam step moves "
            "every coordinate by up to η, and the teacher's scale is 1",
        )

    @property
    def update_rule_name(self) -> str:
        """The optimizer's name (default :data:`~gaugecli.experiments.params.DEFAULT_OPTIMIZER`)."""
        return self.optimizer if self.optimizer is not None else DEFAULT_OPTIMIZER

    def update_rule(self, weight_decay: float) -> Optimizer:
        """The :class:`~gaugecli.core.integrate.optimizers.base.Optimizer` of this run; ``weight_decay``: the model's
        λ, AdamW's decoupled decay (the others carry it in the objective's gradient)."""
        from gaugecli.core.integrate.optimizers import optimizer

        name = self.update_rule_name
        if name == "momentum":
            beta = DEFAULT_MOMENTUM if self.momentum is None else self.momentum
            return optimizer(name, momentum=beta, nesterov=bool(self.nesterov))
        if name in ("adam", "adamw"):
            betas = DEFAULT_BETAS if self.betas is None else self.betas
            eps = DEFAULT_ADAM_EPS if self.adam_eps is None else self.adam_eps
            decay = weight_decay if name == "adamw" else 0.0
            return optimizer(name, betas=(float(betas[0]), float(betas[1])), adam_eps=eps, decay=decay)
        return optimizer(name)

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
    def tolerance(self) -> Tolerance:
        """The flow solver's tolerance policy at :attr:`solver_rtol` (its ``atol`` by the one rule)."""
        return Tolerance(self.solver_rtol)

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
    import numpy as np

    return float(200.0 * (1.0 + np.max(np.abs(deltas))) * max(1.0, 0.1 / c0))


class PopulationTolerance:
    """Mixin of the configs whose sweeps set their own modes (prune, perturb, lockin): their ``rtol``
    is their dynamics' tolerance, read as the population flow's (``--rtol``, ``params.FLOW_RTOL``)."""

    dynamics: DynamicsConfig

    @property
    def rtol(self) -> float:
        """The population flow's relative tolerance (``dynamics.rtol``, default :data:`POPULATION_RTOL`)."""
        return self.dynamics.solver_rtol


def check_flow_dynamics(dynamics: DynamicsConfig, experiment: str) -> None:
    """An experiment that sets its own modes and horizons (prune, perturb, lockin: each sweep its
    own) takes from the shared dynamics only the population flow's tolerance."""
    require(
        dynamics.mode is Mode.flow,
        "mode",
        f"{experiment} runs its own finite-sample rows; its dynamics are the population flow (got {dynamics.mode.value})",
    )
    require(dynamics.t_max is None, "t_max", f"has no effect: {experiment} sets the horizon of each of its runs")


def check_owner(owner: int, m: int) -> None:
    """A designated owner is one of the ``m`` neurons."""
    require(0 <= owner < m, "owner", f"must be in [0, `m` − 1] = [0, {m - 1}] (got {owner!r})")


def check_seeds(seeds: object, dynamics: DynamicsConfig, param: str = "seeds") -> None:
    """Seeds are given only where they matter: a stochastic mode (their range is declared)."""
    require(
        seeds is None or dynamics.mode.stochastic,
        param,
        f"has no effect in `mode` {dynamics.mode.value} (deterministic population dynamics); "
        f"it applies to {_modes(Mode.sample, Mode.sample_gd, Mode.sgd)}",
    )
