"""``gaugecli perturb``: robustness of selection (claim C8).

(a) visible perturbations of size ε of the duplicates — random, or adversarial
    (the favorable neuron turned away from the teacher and given a smaller coefficient)
    — over an (ε, D) grid → selection probability and the threshold ε*(D);
(b) gradient descent with step η → ``|T_spec^GD − T_spec^flow|`` against η (slope ≈ 1);
(c) finite samples of size n → ``sup_t ‖f_{θ_n(t)} − f_{θ_∞(t)}‖_{L²}`` against n (slope ≈ −1/2),
    where θ_n is GD on ``L_n`` and θ_∞ GD on the population loss with the same step.

Neuron 0 is the favorable one (``+D``); the other ``m − 1`` are unfavorable (``−D``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gaugecli.core.gauge import function_coordinates, initial_direction, owner_imbalances, parameters_from_function
from gaugecli.core.integrate import NumericalFault, Progress, gradient_descent, stable_step_bound
from gaugecli.core.metrics import alignment, final_owner, function_distance
from gaugecli.experiments.common import (
    DynamicsConfig,
    Mode,
    ModelConfig,
    PointRunner,
    default_step,
    duplicates,
    require,
    require_finite,
    run_ensemble,
    run_serially,
)


@dataclass(frozen=True)
class PerturbConfig:
    model: ModelConfig = field(default_factory=ModelConfig)
    m: int = 2
    # (a) visible perturbations
    eps: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.5, 1.56)
    strengths: tuple[float, ...] = (1.0, 4.0, 16.0, 64.0)
    adversarial: bool = True
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6, 7)
    refine: int = 8
    # (b) step sizes, as fractions of the stable bound 2/λ_max at θ0
    step_strength: float = 4.0
    step_fractions: tuple[float, ...] = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32)
    # (c) sample sizes
    sample_strength: float = 4.0
    ns: tuple[int, ...] = (500, 1000, 2000, 4000, 8000, 16000, 32000)
    sample_seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    rtol: float = 1e-10

    def __post_init__(self) -> None:
        require(isinstance(self.m, int) and self.m >= 2, "m", f"must be an integer ≥ 2 (got {self.m!r})")
        require(len(self.eps) >= 1, "eps", "give at least one ε, e.g. --eps 0,0.1,0.2")
        for e in self.eps:
            require_finite(e, "eps", low=0.0, strict=False)
        if self.adversarial:
            limit = math.pi - self.model.theta0
            require(
                max(self.eps) < limit,
                "eps",
                f"adversarial ε turns the favorable neuron to θ0 + ε, so ε must be in [0, π − θ0) = [0, {limit:.4g})",
            )
        require(len(self.strengths) >= 1, "gauge_strength", "give at least one D")
        for D in (*self.strengths, self.step_strength, self.sample_strength):
            require_finite(D, "gauge_strength", low=0.0)
        require(len(self.seeds) >= 1 and all(s >= 0 for s in self.seeds), "seeds", "must be integers ≥ 0")
        require(len(self.step_fractions) >= 2, "step_fractions", "give at least two step sizes")
        for f in self.step_fractions:
            require_finite(f, "step_fractions", low=0.0)
        require(len(self.ns) >= 2, "ns", "give at least two sample sizes, e.g. --ns 1000,4000")
        require(all(isinstance(n, int) and n >= 1 for n in self.ns), "ns", f"must be integers ≥ 1 (got {self.ns!r})")
        require(len(self.sample_seeds) >= 1, "sample_seeds", "give at least one seed")
        require(isinstance(self.refine, int) and self.refine >= 0, "refine", "must be an integer ≥ 0")


def perturbed_duplicates(
    model: ModelConfig, deltas: np.ndarray, eps: float, *, adversarial: bool, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Duplicates made visibly different by ``ε``.

    Adversarial: the favorable neuron (argmax δ) turns to angle ``θ0 + ε`` from the teacher
    with coefficient ``(c0/m) e^{−ε}``; the others turn to ``θ0 − ε`` with ``(c0/m) e^{ε}``.
    Random: ``u_j ∝ u0 + ε ξ_j`` with ``ξ_j ~ N(0, I_d/d)`` and ``c_j = (c0/m) e^{ε ζ_j}``,
    ``ζ_j ~ N(0, 1)``, from ``default_rng(seed)``.
    """
    teacher = model.teacher()
    m = deltas.shape[-1]
    fav = int(np.argmax(deltas))
    if adversarial:
        sign = np.where(np.arange(m) == fav, 1.0, -1.0)
        U = np.stack([initial_direction(teacher, model.theta0 + s * eps) for s in sign])
        c = model.c0 / m * np.exp(-sign * eps)
    else:
        rng = np.random.default_rng(seed)
        u0 = initial_direction(teacher, model.theta0)
        U = u0 + eps * rng.standard_normal((m, teacher.d)) / math.sqrt(teacher.d)
        c = model.c0 / m * np.exp(eps * rng.standard_normal(m))
    return parameters_from_function(c, U, deltas)


@dataclass
class VisiblePoint:
    strength: float
    eps: float
    seed: int
    owner: int
    success: bool


@dataclass
class VisibleSweep:
    kind: str
    eps: list[float]
    strengths: list[float]
    probability: list[list[float]]
    threshold: list[float | None]
    points: list[VisiblePoint]


@dataclass
class StepSweep:
    strength: float
    stable_bound: float
    etas: list[float]
    t_spec_gd: list[float | None]
    t_spec_flow: float | None
    error: list[float | None]
    success: list[bool]
    diverged: list[bool]
    slope: float | None


@dataclass
class SampleSweep:
    strength: float
    eta: float
    ns: list[int]
    seeds: list[int]
    deviation: list[float]
    deviation_per_seed: list[list[float]]
    success: list[list[bool]]
    slope: float | None


@dataclass
class PerturbResult:
    visible: VisibleSweep
    step: StepSweep
    samples: SampleSweep


def _selection_start(model: ModelConfig, m: int, strength: float) -> tuple[np.ndarray, np.ndarray]:
    """The selection problem's duplicates as a one-member ensemble: neuron 0 at +D, the rest at −D."""
    return duplicates(model, owner_imbalances(m, strength, 0)[None])


def _slope(x: list[float], y: list[float | None]) -> float | None:
    pts = [(a, b) for a, b in zip(x, y, strict=True) if b is not None and b > 0 and a > 0]
    if len(pts) < 2:
        return None
    lx, ly = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(lx, ly, 1)[0])


def _selects(
    model: ModelConfig, flow: DynamicsConfig, deltas: np.ndarray, eps: list[float], adversarial: bool, seeds
) -> tuple[list[bool], list[int]]:
    inits = [perturbed_duplicates(model, deltas, e, adversarial=adversarial, seed=s) for e in eps for s in seeds]
    a0 = np.stack([i[0] for i in inits])
    W0 = np.stack([i[1] for i in inits])
    runs = run_ensemble(model, flow, a0, W0)
    fav = int(np.argmax(deltas))
    return [r.specialized and r.owner == fav for r in runs], [r.owner for r in runs]


@dataclass(frozen=True)
class VisibleRowJob:
    """One gauge strength D of the (ε, D) grid: every ε × seed in one ensemble, then
    (adversarial case) bisection of the boundary ε*(D)."""

    model: ModelConfig
    m: int
    strength: float
    eps: tuple[float, ...]
    adversarial: bool
    seeds: tuple[int, ...]
    refine: int
    rtol: float


@dataclass
class VisibleRow:
    probability: list[float]
    threshold: float | None
    points: list[VisiblePoint]


def visible_row(job: VisibleRowJob) -> VisibleRow:
    flow = DynamicsConfig(mode=Mode.flow, rtol=job.rtol)
    deltas = owner_imbalances(job.m, job.strength, 0)
    eps = list(job.eps)
    ok, owners = _selects(job.model, flow, deltas, eps, job.adversarial, job.seeds)
    points = [
        VisiblePoint(job.strength, e, s, owners[i * len(job.seeds) + k], ok[i * len(job.seeds) + k])
        for i, e in enumerate(eps)
        for k, s in enumerate(job.seeds)
    ]
    row = [float(np.mean(ok[i * len(job.seeds) : (i + 1) * len(job.seeds)])) for i in range(len(eps))]
    failing = [k for k, p in enumerate(row) if p < 0.5]
    if not failing:
        return VisibleRow(row, None, points)
    if failing[0] == 0:
        return VisibleRow(row, 0.0, points)
    lo, hi = eps[failing[0] - 1], eps[failing[0]]
    if job.adversarial:  # deterministic in ε: bisect the boundary
        for _ in range(job.refine):
            mid = 0.5 * (lo + hi)
            (good,), _ = _selects(job.model, flow, deltas, [mid], True, (0,))
            lo, hi = (mid, hi) if good else (lo, mid)
    return VisibleRow(row, 0.5 * (lo + hi), points)


def visible_sweep(
    config: PerturbConfig, progress: Progress | None = None, runner: PointRunner = run_serially
) -> VisibleSweep:
    seeds = config.seeds if not config.adversarial else (0,)
    eps = tuple(sorted(config.eps))
    jobs = [
        VisibleRowJob(config.model, config.m, D, eps, config.adversarial, seeds, config.refine, config.rtol)
        for D in config.strengths
    ]
    rows = runner(visible_row, jobs, progress)
    return VisibleSweep(
        "adversarial" if config.adversarial else "random",
        list(eps),
        list(config.strengths),
        [r.probability for r in rows],
        [r.threshold for r in rows],
        [p for r in rows for p in r.points],
    )


@dataclass(frozen=True)
class StepJob:
    """GD with step ``eta`` (``None``: the reference gradient flow) on the selection problem."""

    model: ModelConfig
    m: int
    strength: float
    eta: float | None
    rtol: float


@dataclass
class StepOutcome:
    t_spec: float | None
    success: bool
    diverged: bool


def step_job(job: StepJob) -> StepOutcome:
    a0, W0 = _selection_start(job.model, job.m, job.strength)
    dyn = (
        DynamicsConfig(mode=Mode.flow, rtol=job.rtol) if job.eta is None else DynamicsConfig(mode=Mode.gd, eta=job.eta)
    )
    try:
        run = run_ensemble(job.model, dyn, a0, W0)[0]
    except NumericalFault:
        return StepOutcome(None, False, True)
    return StepOutcome(run.t_spec, run.specialized and run.owner == 0, False)


def step_sweep(
    config: PerturbConfig, progress: Progress | None = None, runner: PointRunner = run_serially
) -> StepSweep:
    model = config.model
    a0, W0 = _selection_start(model, config.m, config.step_strength)
    bound = stable_step_bound(a0, W0, model.teacher())
    etas = [f * bound for f in sorted(config.step_fractions)]
    jobs = [StepJob(model, config.m, config.step_strength, eta, config.rtol) for eta in [None, *etas]]
    flow, *gd = runner(step_job, jobs, progress)
    t_flow = flow.t_spec
    error = [None if (o.t_spec is None or t_flow is None) else abs(o.t_spec - t_flow) for o in gd]
    return StepSweep(
        config.step_strength,
        bound,
        etas,
        [o.t_spec for o in gd],
        t_flow,
        error,
        [o.success for o in gd],
        [o.diverged for o in gd],
        _slope(etas, error),
    )


@dataclass(frozen=True)
class SampleJob:
    """Finite-sample GD with ``n`` samples, one run per seed, against population GD with
    the same step ``eta`` on the same time grid (horizon ``t_max``)."""

    model: ModelConfig
    m: int
    strength: float
    eta: float
    t_max: float
    n: int
    seeds: tuple[int, ...]


@dataclass
class SampleOutcome:
    deviation: list[float]
    success: list[bool]


def sample_job(job: SampleJob) -> SampleOutcome:
    """``sup_t ‖f_{θ_n(t)} − f_{θ_∞(t)}‖_{L²}`` per seed: GD on ``L_n`` against GD on the
    population loss from the same start with the same step, compared iterate by iterate."""
    from gaugecli.core.sample import draw_sample, empirical_oracle  # torch: only when needed

    teacher = job.model.teacher()
    a0, W0 = _selection_start(job.model, job.m, job.strength)
    common = {"eps_align": job.model.eps_align, "grad_tol": 0.0}
    pop = gradient_descent(a0, W0, teacher, job.eta, job.t_max, **common)
    devs, oks = [], []
    for seed in job.seeds:
        # the sample of (seed, n) is its own stream: no two sizes share draws
        X, y = draw_sample(teacher, job.n, np.random.SeedSequence([seed, job.n]))
        fin = gradient_descent(a0, W0, teacher, job.eta, job.t_max, oracle=empirical_oracle(X, y), **common)
        devs.append(float(np.max(function_distance(fin.a, fin.W, pop.a, pop.W))))
        # only the final owner is needed, not every observable of the run
        c_end, _ = function_coordinates(fin.a[0, -1], fin.W[0, -1])
        owner, specialized = final_owner(c_end, alignment(fin.W[0, -1], teacher)[0], job.model.eps_align)
        oks.append(bool(specialized) and int(owner) == 0)
    return SampleOutcome(devs, oks)


def sample_sweep(
    config: PerturbConfig, progress: Progress | None = None, runner: PointRunner = run_serially
) -> SampleSweep:
    model = config.model
    a0, W0 = _selection_start(model, config.m, config.sample_strength)
    eta = default_step(a0, W0, model.teacher())
    # the horizon: until population GD converges
    horizon = float(run_ensemble(model, DynamicsConfig(mode=Mode.gd, eta=eta), a0, W0)[0].t[-1])
    jobs = [
        SampleJob(model, config.m, config.sample_strength, eta, horizon, n, tuple(config.sample_seeds))
        for n in config.ns
    ]
    outcomes = runner(sample_job, jobs, progress)
    mean = [float(np.mean(o.deviation)) for o in outcomes]
    return SampleSweep(
        config.sample_strength,
        eta,
        list(config.ns),
        list(config.sample_seeds),
        mean,
        [o.deviation for o in outcomes],
        [o.success for o in outcomes],
        _slope([float(n) for n in config.ns], mean),
    )


def perturb(
    config: PerturbConfig, progress: Progress | None = None, runner: PointRunner = run_serially
) -> PerturbResult:
    def part(k: int) -> Progress | None:
        return None if progress is None else (lambda f: progress((k + f) / 3))

    return PerturbResult(
        visible_sweep(config, part(0), runner),
        step_sweep(config, part(1), runner),
        sample_sweep(config, part(2), runner),
    )
