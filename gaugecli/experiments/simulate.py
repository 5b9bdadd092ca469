"""``gaugecli simulate``: one configuration, or one per gauge strength D, batched."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import cast

import numpy as np

from gaugecli.core.analyses.observables import RunObservables, on_unit_sphere
from gaugecli.core.model.gauge import Gauge, gauge_imbalance, paired_initial_condition
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.model.teacher import random_teacher
from gaugecli.core.types import LATER_FIELD, Progress
from gaugecli.experiments.common import integrate_ensemble, observe_members
from gaugecli.experiments.config import DynamicsConfig, ModelConfig, check_seeds
from gaugecli.experiments.declare import ConfigError, require, require_finite
from gaugecli.experiments.initial import check_initial, check_start_reads, initial_condition, natural_imbalances
from gaugecli.experiments.params import Simulate
from gaugecli.experiments.rich_lazy import START_STREAM, TEACHER_STREAM, check_kunin, measure, stream

NATURAL = "natural"
"""The gauge word of ``init`` gaussian's own δ, ``a_j² − ‖w_j‖²/p`` of the draw."""


def parse_gauge(text: str | float) -> Gauge | float | str:
    """``favorable|unfavorable|balanced``, ``natural`` (the draw's own δ, ``init`` gaussian), or a
    signed number (an explicit δ)."""
    if isinstance(text, (int, float)):
        return float(text)
    if text.strip().lower() == NATURAL:
        return NATURAL
    try:
        return Gauge(text.strip().lower())
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(
            "gauge", f"must be favorable, unfavorable, balanced, natural or a signed number (got {text!r})"
        ) from None
    require_finite(value, "gauge")
    return value


@dataclass(frozen=True)
class SimulateConfig:
    """``m`` duplicates all in one gauge (``gauge`` word scaled by each D in ``strengths``,
    or an explicit δ), or per-neuron ``deltas`` (which fix ``m`` and ignore ``strengths``).
    ``seed``: of the sample / batch stream; stochastic modes only (``None``: not given, 0).
    ``init``: ``duplicates`` (docs/theory.md, the model), ``random`` directions (coefficients ``c0/m`` each), or
    ``gaussian`` (a practitioner's draw with scales ``init_scale_a``, ``init_scale_w``; ``gauge``
    ``natural`` keeps its own δ);
    ``eps``: a visible random perturbation of the duplicates; ``init_seed``: the seed of either
    (:mod:`gaugecli.experiments.initial`); ``mixed_signs``: ``init`` gaussian keeps the drawn signs of
    the output weights. ``times``: declared times at which the states are also
    stored, from the solver's dense output (flow modes; e.g. a figure's snapshot of this run at
    a time another run located).

    Kunin et al.'s setting (docs/howto/kunin.md): ``init`` paired with ``init_scale`` τ,
    ``teacher`` random (``teacher_seed``), ``inputs`` sphere, and their measurements at
    ``checkpoints`` (:mod:`gaugecli.experiments.rich_lazy`) with a held-out sample of
    ``test_samples``. Their loss is ``(1/n) Σ (f − y)² = 2 L_n`` and their step ``θ ← θ − lr ∇(2 L_n)``,
    so their learning rate ``lr`` is our ``eta`` = 2·lr (their ``lr = 5e-3/τ²`` is η = 1e-2/τ²)."""

    model: ModelConfig = field(default_factory=ModelConfig)
    dynamics: DynamicsConfig = field(default_factory=DynamicsConfig)
    gauge: str = Simulate.gauge.default
    strengths: tuple[float, ...] = Simulate.strengths.default
    m: int = Simulate.m.default
    deltas: tuple[float, ...] | None = Simulate.deltas.default
    seed: int | None = Simulate.seed.default
    init: str = Simulate.init.default
    eps: float | None = Simulate.eps.default
    init_seed: int | None = Simulate.init_seed.default
    times: tuple[float, ...] = ()
    init_scale_a: float | None = field(default=Simulate.init_scale_a.default, metadata={LATER_FIELD: True})
    init_scale_w: float | None = field(default=Simulate.init_scale_w.default, metadata={LATER_FIELD: True})
    mixed_signs: bool = field(default=Simulate.mixed_signs.default, metadata={LATER_FIELD: True})
    init_scale: float | None = field(default=Simulate.init_scale.default, metadata={LATER_FIELD: True})
    teacher: str = field(default=Simulate.teacher.default, metadata={LATER_FIELD: True})
    teacher_seed: int | None = field(default=Simulate.teacher_seed.default, metadata={LATER_FIELD: True})
    inputs: str = field(default=Simulate.inputs.default, metadata={LATER_FIELD: True})
    test_samples: int | None = field(default=Simulate.test_samples.default, metadata={LATER_FIELD: True})
    checkpoints: tuple[float, ...] | None = field(default=Simulate.checkpoints.default, metadata={LATER_FIELD: True})
    eta_per_scale: bool = field(default=Simulate.eta_per_scale.default, metadata={LATER_FIELD: True})

    def __post_init__(self) -> None:
        Simulate.check(self)
        explicit = isinstance(parse_gauge(self.gauge), float)
        require(
            not (explicit and len(set(self.strengths)) > 1),
            "gauge_strength",
            f"an explicit `gauge` δ={self.gauge} ignores D, so several D values would repeat one run; give one",
        )
        if explicit:
            Simulate.deltas.but(name="gauge", plural=False).check(float(parse_gauge(self.gauge)))
        if self.deltas is not None:
            object.__setattr__(self, "m", len(self.deltas))
        for t in self.times:
            require(
                isinstance(t, float | int) and math.isfinite(t) and t >= 0,
                "times",
                f"must be finite and ≥ 0 (got {t!r})",
            )
        require(
            not self.times or not self.dynamics.mode.stepped,
            "times",
            "declared times need a flow mode (a stepped run stores its own steps)",
        )
        check_seeds(self.seed, self.dynamics, "seed")
        check_initial(self.init, self.eps, self.init_seed, self.model.theta0, self.init_scales, self.mixed_signs)
        if self.natural:
            require(self.init == "gaussian", "gauge", "natural is the δ of a draw: it needs `init` gaussian")
            require(self.deltas is None, "deltas", "would replace the draw's own δ (`gauge` natural)")
        check_start_reads(self.model, self.init, self.natural, tuple(self.strengths))
        check_kunin(self)

    @property
    def natural(self) -> bool:
        """The gauge is the draw's own δ (``gauge`` natural): no D enters the run."""
        return parse_gauge(self.gauge) == NATURAL

    @property
    def init_scales(self) -> tuple[float | None, float | None]:
        """(σ_a, σ_w) of ``init`` gaussian (``None``: the default 0.3)."""
        return self.init_scale_a, self.init_scale_w

    @property
    def run_seed(self) -> int:
        """The seed of the sample or batch stream (0 when not given)."""
        return 0 if self.seed is None else self.seed

    @property
    def scale(self) -> float:
        """τ of ``init`` paired (1 when not given)."""
        return 1.0 if self.init_scale is None else self.init_scale

    @property
    def run_dynamics(self) -> DynamicsConfig:
        """The dynamics the run steps with: ``eta``/τ² with ``eta_per_scale``, else as given."""
        if not self.eta_per_scale or self.dynamics.eta is None:
            return self.dynamics
        return replace(self.dynamics, eta=self.dynamics.eta / self.scale**2)

    @property
    def measured(self) -> bool:
        """Kunin et al.'s measurements are taken (``checkpoints`` or ``test_samples`` given)."""
        return self.checkpoints is not None or self.test_samples is not None

    def network(self) -> Model:
        """The model this run descends: the config's, with Kunin et al.'s random teacher where asked."""
        net = self.model.build()
        if self.teacher == "random":
            teacher = random_teacher(self.model.d, self.model.k, stream(self.teacher_seed, TEACHER_STREAM))
            net = replace(net, teacher=teacher)
        return net

    def start(self) -> Network:
        """The initial network of every run of this config (members differ in δ only)."""
        if self.init == "paired":
            seed = stream(self.init_seed, START_STREAM)
            return Network(*paired_initial_condition(self.m, self.model.d, self.scale, self.imbalances()[:, 0], seed))
        return Network(
            *initial_condition(
                self.model, self.imbalances(), self.init, self.eps, self.init_seed, self.init_scales, self.mixed_signs
            )
        )

    def imbalances(self) -> np.ndarray:
        """δ per run and neuron, shape ``(len(strengths), m)`` (one row if ``deltas`` given)."""
        if self.deltas is not None:
            return np.asarray([self.deltas], float)
        g = parse_gauge(self.gauge)
        if g == NATURAL:
            return natural_imbalances(self.model, self.m, self.init_seed, self.init_scales)[None, :]
        word = cast(Gauge | float, g)  # not NATURAL: a gauge word or an explicit δ
        return np.array([[gauge_imbalance(word, D)] * self.m for D in self.strengths])

    def runs(self) -> list[SimulateConfig]:
        """One configuration per run (each is what its artifact records)."""
        if self.deltas is not None:
            return [self]
        return [replace(self, strengths=(D,)) for D in self.strengths]


def simulate_batch(configs: Sequence[SimulateConfig], progress: Progress | None = None) -> list[RunObservables]:
    """Results of several configurations' runs, in order (each config's runs concatenated).

    Each run is integrated by itself, never in an ensemble with another configuration's runs:
    an ensemble shares one step sequence (and its horizon is set by its largest |δ|), so a run
    batched with others would store other numbers — equal only to the solver's tolerance —
    than the same run alone, and a figure drawn inside ``plot all`` would differ from the same
    figure drawn alone. Measured on fig3's 22 runs: 4.0 s alone against 2.4 s as one ensemble."""
    out: list[RunObservables] = []
    for i, config in enumerate(configs):
        sub = None if progress is None else (lambda f, i=i: progress((i + f) / len(configs)))
        out.extend(simulate(config, sub))
    return out


def simulate(config: SimulateConfig, progress: Progress | None = None) -> list[RunObservables]:
    """Integrate every run of ``config``, one by one (see :func:`simulate_batch`: a run's stored
    numbers depend on its own configuration only); results in the order of ``config.runs()``."""
    runs = config.runs()
    out: list[RunObservables] = []
    for i, run in enumerate(runs):
        sub = None if progress is None else (lambda f, i=i: progress((i + f) / len(runs)))
        stepped = run.dynamics.mode.stepped
        marks = () if run.checkpoints is None else tuple(run.checkpoints)
        traj, net = integrate_ensemble(
            run.model,
            run.run_dynamics,
            run.start(),
            seed=run.run_seed,
            times=tuple(run.times) + (() if stepped else marks),
            progress=sub,
            network=run.network(),
            sphere=run.inputs == "sphere",
            steps=int(max(marks)) if stepped and marks else None,
            record_steps=tuple(int(k) for k in marks) if stepped else (),
        )
        observed = observe_members(traj, net)
        if run.inputs == "sphere":
            observed = [on_unit_sphere(obs, net) for obs in observed]
        if run.measured:
            observed = [replace(obs, **measure(run, traj, net, b, marks).fields()) for b, obs in enumerate(observed)]
        out.extend(observed)
    return out
