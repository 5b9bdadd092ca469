"""The configuration of ``gaugecli predict`` (:class:`PredictConfig`): the cells of the study — a
number of teacher features k, a width m and a δ spread — and their fixed partition into chunks of
seeds.

**Determinism.** A chunk is :data:`CHUNK_RUNS` consecutive seeds of one cell, integrated as one
ensemble, cached (as a sweep ``point``) and resumed. The partition depends on the configuration
alone, and so does every run's horizon (:meth:`PredictConfig.horizon`, a function of the cell, not of
the draws), so a stored number never depends on the worker count, the finishing order or which
chunks an interrupted call had finished. On the population loss each member takes its own steps; on
``L_n`` the members of an ensemble share one adaptive step sequence, so a run's numbers equal those of
the run alone to the solver's tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from gaugecli.core.types import LATER_FIELD
from gaugecli.experiments.config import DynamicsConfig, ModelConfig, check_paper_model
from gaugecli.experiments.declare import require
from gaugecli.experiments.params import PREDICTORS, Dynamics, Mode, Model, Predict

CHUNK_RUNS = 50
"""Seeds per chunk: one ensemble, one cache entry (a cell of 100 runs is two chunks)."""
HORIZON_UNITS = 200.0
"""The horizon's prefactor, as :func:`~gaugecli.experiments.config.auto_horizon`'s."""


@dataclass(frozen=True)
class Cell:
    """One cell of the study: ``k`` features, ``m`` neurons, δ-spread ratio ``spread`` (``None``: δ as
    drawn), trained on the population loss (``n`` ``None``) or on ``L_n`` of ``n`` samples, by gradient
    flow or (``sgd``) by minibatch SGD."""

    k: int
    m: int
    spread: float | None
    n: int | None = None
    sgd: bool = False


@dataclass(frozen=True)
class PredictConfig:
    """Random Gaussian starts (:mod:`~gaugecli.experiments.predict.starts`) for every ``k`` of ``ks``,
    width ``m = w·k`` for ``w`` in ``widths`` and δ-spread ratio in ``spreads`` (and the natural δ
    where ``natural``), ``runs`` seeds each from ``first_seed``, under the population flow of the
    paper's ReLU model at tolerance ``rtol`` to the horizon ``t_max`` (``None``: :meth:`horizon`).
    ``model`` gives ``d`` and ``eps_align``; its teacher has ``k`` features per cell (``model.k`` is
    not used and must stay 1), and its ``c0`` and ``theta0`` are not used (the start is drawn).
    ``n_samples``: each cell is also trained by gradient flow on ``L_n`` for every ``n`` given (a
    sample of its own per seed; :mod:`~gaugecli.experiments.predict.chunk`), and with ``sgd_batch``
    by minibatch SGD on the same samples, step ``sgd_eta``. ``mixed_signs``: the output weights keep
    their drawn signs (population flow only). ``optimizer``: the population cells are trained by that
    update rule (population GD in the stated basis of ``R^d``, torch.optim's default hyper-parameters,
    learning rate ``optimizer_eta``; :mod:`gaugecli.core.integrate.optimizers`) instead of the flow."""

    model: ModelConfig = field(default_factory=ModelConfig)
    ks: tuple[int, ...] = Predict.ks.default
    widths: tuple[int, ...] = Predict.widths.default
    spreads: tuple[float, ...] = Predict.spreads.default
    natural: bool = Predict.natural.default
    runs: int = Predict.runs.default
    first_seed: int = Predict.first_seed.default
    init_scale_a: float = Predict.init_scale_a.default
    init_scale_w: float = Predict.init_scale_w.default
    rtol: float = Predict.rtol.default
    t_max: float | None = None
    n_samples: tuple[int, ...] = field(default=Predict.n_samples.default, metadata={LATER_FIELD: True})
    sgd_batch: int | None = field(default=Predict.sgd_batch.default, metadata={LATER_FIELD: True})
    sgd_eta: float = field(default=Predict.sgd_eta.default, metadata={LATER_FIELD: True})
    mixed_signs: bool = field(default=Predict.mixed_signs.default, metadata={LATER_FIELD: True})
    optimizer: str | None = field(default=Predict.optimizer.default, metadata={LATER_FIELD: True})
    optimizer_eta: float | None = field(default=Predict.optimizer_eta.default, metadata={LATER_FIELD: True})
    rules: tuple[str, ...] = PREDICTORS
    """The predictors the study reports: part of its identity (and of each chunk's), so that a study
    cached before a rule was added is computed again rather than read without it."""

    def __post_init__(self) -> None:
        Predict.check(self)
        Dynamics.t_max.check(self.t_max)
        check_paper_model(self.model, "predict", "its predictors read the ReLU mobilities and reduced equations")
        require(self.model.k == 1, "k", "has no effect in predict: give the teacher features with `ks`")
        require(
            self.model.c0 == Model.c0.default,
            "c0",
            "has no effect in predict: the start is drawn (`init_scale_a`, `init_scale_w`)",
        )
        require(
            self.model.theta0 == Model.theta0.default,
            "theta0",
            "has no effect in predict: the directions are drawn (w ~ N(0, σ_w² I/d))",
        )
        for name in ("ks", "widths", "spreads", "n_samples"):
            values = getattr(self, name)
            require(len(set(values)) == len(values), name, f"must differ (got {','.join(map(str, values))})")
        require(
            self.model.d >= max(self.ks) + 1,
            "d",
            f"must be ≥ {max(self.ks) + 1} = max(`ks`) + 1, room for the teacher's features (got {self.model.d})",
        )
        require(bool(self.spreads) or self.natural, "spreads", "give at least one, or keep `natural`")
        require(
            not (self.mixed_signs and self.n_samples),
            "mixed_signs",
            "is for the population flow: on L_n a neuron with a < 0 < δ reaching w = 0 stalls the flow at the "
            "ReLU's kink (drop `n_samples`)",
        )
        require(
            self.optimizer_eta is None or self.optimizer is not None,
            "optimizer_eta",
            "is the learning rate of `optimizer`; give one",
        )
        if self.optimizer is not None:  # the stepped population dynamics refuse what they would refuse in simulate
            DynamicsConfig(mode=Mode.gd, optimizer=self.optimizer, eta=self.optimizer_eta)
        require(
            self.sgd_batch is None or bool(self.n_samples),
            "sgd_batch",
            "SGD runs on the finite samples: give them with `n_samples`",
        )

    @property
    def visible_scale(self) -> float:
        """``σ_vis = σ_a σ_w / √d``: the standard deviation of ``c_j α_jk(0)`` over the draw (``c = a‖w‖``,
        ``α = u·v̂_k`` independent of it with ``E α² = 1/d``, ``E a² = σ_a²``, ``E ‖w‖² = σ_w²``)."""
        return self.init_scale_a * self.init_scale_w / math.sqrt(self.model.d)

    @property
    def natural_spread(self) -> float:
        """The ratio ``σ_δ/σ_vis`` of δ as drawn: ``Var(a²) = 2σ_a⁴``, ``Var(‖w‖²) = 2σ_w⁴/d``, so
        ``√(2σ_a⁴ + 2σ_w⁴/d) / σ_vis`` (``√(2d + 2)`` at ``σ_a = σ_w``: 5.8 at ``d = 16``)."""
        sa, sw, d = self.init_scale_a, self.init_scale_w, self.model.d
        return math.sqrt(2 * sa**4 + 2 * sw**4 / d) / self.visible_scale

    def cells(self) -> list[Cell]:
        """Every cell, ``k`` outermost, then the width, then the spreads (the natural δ last), then the
        population flow followed by each sample size of ``n_samples``, by flow and then (with
        ``sgd_batch``) by SGD (the same starts: the draw depends on the seed, ``k`` and ``m`` only)."""
        spreads: list[float | None] = [*self.spreads, *([None] if self.natural else [])]
        runs: list[tuple[int | None, bool]] = [(None, False)]
        for n in self.n_samples:
            runs += [(n, False), *([(n, True)] if self.sgd_batch is not None else [])]
        return [Cell(k, w * k, s, n, sgd) for k in self.ks for w in self.widths for s in spreads for n, sgd in runs]

    def seeds(self) -> list[int]:
        return list(range(self.first_seed, self.first_seed + self.runs))

    def horizon(self, cell: Cell) -> float:
        """The horizon of every run of ``cell``: ``t_max``, else ``200 (1 + 4σ_δ) max(1, 0.1/(σ_a σ_w))``
        — :func:`~gaugecli.experiments.config.auto_horizon` with ``max|δ|`` taken as ``4σ_δ`` and ``c0``
        as ``σ_a σ_w`` (the scale of the drawn ``c``), so that it depends on the cell, never on a draw."""
        if self.t_max is not None:
            return self.t_max
        ratio = self.natural_spread if cell.spread is None else cell.spread
        sigma_delta = ratio * self.visible_scale
        scale = self.init_scale_a * self.init_scale_w
        return HORIZON_UNITS * (1.0 + 4.0 * sigma_delta) * max(1.0, 0.1 / scale)
