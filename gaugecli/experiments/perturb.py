"""``gaugecli perturb``: robustness of selection (claim C8), each cause isolated.

(a) visible perturbations of size ε of the duplicates — random, or adversarial
    (the favorable neuron turned away from the teacher and given a smaller coefficient)
    — over an (ε, D) grid → selection probability and the threshold ε*(D);
(b) the step alone: population GD against the population flow, ``T_spec^GD − T_spec^flow``
    against η on steps that resolve ``T_spec`` (η = f·T_spec^flow): the log–log slope with its
    standard error, the error per step, and the η → 0 intercept; plus selection and divergence
    for steps up to and beyond the stability bound;
(c) the sample alone: the finite-sample *flow* (gradient flow on ``L_n``, adaptive solver)
    against the population flow, ``sup_{t ≤ window} ‖f_{θ_n(t)} − f_{θ_∞(t)}‖_{L²}`` and
    ``|T_spec^n − T_spec^∞|/T_spec^∞`` against n over ≥ 10 seeds: means, standard errors and a
    weighted power-law fit with its uncertainty (slope ≈ −1/2); optionally the same with GD on
    ``L_n`` against GD on ``L`` at the automatic step η and at η/2 (the slope must not move);
(d) selection from a finite sample: the owner-success rate against n with 95 % Wilson
    intervals, and the smallest n from which every run selects.

Neuron 0 is the favorable one (``+D``); the other ``m − 1`` are unfavorable (``−D``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
from scipy import stats

from gaugecli.core.gauge import initial_direction, owner_imbalances, parameters_from_function
from gaugecli.core.integrate import (
    FlowOptions,
    NumericalFault,
    Progress,
    choose_step,
    gradient_descent,
    gradient_flow,
    stable_step_bound,
)
from gaugecli.core.metrics import function_distance
from gaugecli.core.observables import observe
from gaugecli.core.teacher import Teacher
from gaugecli.experiments.common import (
    SAMPLE_RTOL,
    DynamicsConfig,
    Mode,
    ModelConfig,
    PointRunner,
    auto_horizon,
    duplicates,
    require,
    require_finite,
    run_ensemble,
    run_serially,
)
from gaugecli.experiments.select import selected


@dataclass(frozen=True)
class PerturbConfig:
    """The four sweeps of C8; see the module docstring. Step sweep: ``step_fractions`` are
    η/T_spec^flow, ``stability_fractions`` η/(2/λ_max(θ0)). Sample sweep: ``window`` is the
    horizon in units of T_spec^flow. Selection sweep: ``success_horizon`` likewise."""

    model: ModelConfig = field(default_factory=ModelConfig)
    m: int = 2
    # (a) visible perturbations
    eps: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.5, 1.56)
    strengths: tuple[float, ...] = (1.0, 4.0, 16.0, 64.0)
    adversarial: bool = True
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6, 7)
    refine: int = 8
    # (b) step sizes
    step_strength: float = 4.0
    step_fractions: tuple[float, ...] = (0.00125, 0.0025, 0.005, 0.01, 0.02, 0.04)
    stability_fractions: tuple[float, ...] = (0.1, 0.3, 0.9, 1.5)
    # (c) sample sizes
    sample_strength: float = 4.0
    ns: tuple[int, ...] = (500, 1000, 2000, 4000, 8000, 16000, 32000)
    sample_seeds: tuple[int, ...] = tuple(range(10))
    window: float = 3.0
    sample_gd: bool = False
    # (d) selection against n
    success_ns: tuple[int, ...] = (16, 24, 32, 48, 64, 96, 128)
    success_seeds: tuple[int, ...] = tuple(range(20))
    success_horizon: float = 25.0
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
        require(len(self.step_fractions) >= 3, "step_fractions", "give at least three step sizes (a fit)")
        for f in (*self.step_fractions, *self.stability_fractions):
            require_finite(f, "step_fractions", low=0.0)
        require(
            max(self.step_fractions) <= 0.1,
            "step_fractions",
            f"must be ≤ 0.1 (η/T_spec^flow: ≥ 10 steps before T_spec, where the error is first order); "
            f"got {max(self.step_fractions):g}",
        )
        require(len(self.ns) >= 2, "ns", "give at least two sample sizes, e.g. --ns 1000,4000")
        require(all(isinstance(n, int) and n >= 1 for n in self.ns), "ns", f"must be integers ≥ 1 (got {self.ns!r})")
        require(
            len(self.sample_seeds) >= 2 and all(s >= 0 for s in self.sample_seeds),
            "sample_seeds",
            "give at least two seeds ≥ 0 (error bars need them; ≥ 10 recommended)",
        )
        require_finite(self.window, "window", low=0.0)
        require(
            all(isinstance(n, int) and n >= 1 for n in self.success_ns),
            "success_ns",
            f"must be integers ≥ 1 (got {self.success_ns!r})",
        )
        require(all(s >= 0 for s in self.success_seeds), "success_seeds", "must be integers ≥ 0")
        require_finite(self.success_horizon, "success_horizon", low=0.0)
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


def _selection_start(model: ModelConfig, m: int, strength: float) -> tuple[np.ndarray, np.ndarray]:
    """The selection problem's duplicates as a one-member ensemble: neuron 0 at +D, the rest at −D."""
    return duplicates(model, owner_imbalances(m, strength, 0)[None])


def _selects(
    model: ModelConfig, flow: DynamicsConfig, deltas: np.ndarray, eps: list[float], adversarial: bool, seeds
) -> tuple[list[bool], list[int]]:
    inits = [perturbed_duplicates(model, deltas, e, adversarial=adversarial, seed=s) for e in eps for s in seeds]
    a0 = np.stack([i[0] for i in inits])
    W0 = np.stack([i[1] for i in inits])
    runs = run_ensemble(model, flow, a0, W0)
    fav = int(np.argmax(deltas))
    return [selected(r, fav) for r in runs], [r.computed_owner for r in runs]


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


# ------------------------------------------------------------------------------------
# fits with uncertainties


@dataclass
class PowerLawFit:
    """``y ≈ prefactor · x^slope`` by weighted least squares on log–log axes.

    ``slope_err``: one standard error, from the weighted fit's covariance scaled by
    ``max(1, χ²/dof)`` (so scatter beyond the error bars widens it, never narrows it).
    """

    slope: float
    slope_err: float
    prefactor: float
    chi2_dof: float


def fit_power_law(x: list[float], per_seed: list[list[float]]) -> PowerLawFit | None:
    """Fit the seed means of ``per_seed[k]`` (values at ``x[k]``) against ``x``; the weight of
    each mean is its relative standard error (delta method: ``σ_log = SE/mean``)."""
    rows = [(xi, np.asarray(v, float)) for xi, v in zip(x, per_seed, strict=True)]
    rows = [(xi, v[np.isfinite(v)]) for xi, v in rows]
    rows = [(xi, v) for xi, v in rows if v.size >= 2 and np.mean(v) > 0 and xi > 0]
    if len(rows) < 3:
        return None
    lx = np.log([r[0] for r in rows])
    mean = np.array([np.mean(r[1]) for r in rows])
    sem = np.array([np.std(r[1], ddof=1) / np.sqrt(r[1].size) for r in rows])
    sigma = np.maximum(sem / mean, 1e-12)
    (slope, icept), cov = np.polyfit(lx, np.log(mean), 1, w=1.0 / sigma, cov="unscaled")
    resid = (np.log(mean) - (slope * lx + icept)) / sigma
    dof = len(rows) - 2
    chi2_dof = float(np.sum(resid**2) / dof) if dof > 0 else float("nan")
    scale = max(1.0, chi2_dof) if dof > 0 else 1.0
    return PowerLawFit(float(slope), float(np.sqrt(cov[0, 0] * scale)), float(np.exp(icept)), chi2_dof)


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a binomial rate (scipy); ``(0, 1)`` without trials."""
    if trials == 0:
        return 0.0, 1.0
    ci = stats.binomtest(successes, trials).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


# ------------------------------------------------------------------------------------
# (b) the step alone


@dataclass
class StepSweep:
    """Population GD against the population flow on the selection problem.

    ``etas = f·T_spec^flow`` for ``f`` in ``step_fractions``; ``error = T_spec^GD − T_spec^flow``
    (GD is late: positive); ``error_per_step = error/η`` (constant ⇔ first order); ``slope`` ±
    ``slope_err``: the log–log fit of ``|error|`` against η (≈ 1); ``intercept`` ± ``intercept_err``:
    ``T_spec^GD(η → 0)`` from a quadratic fit in η, to compare with ``t_spec_flow``.
    ``stability_etas = f·(2/λ_max)`` for ``f`` in ``stability_fractions``, with whether the
    designated neuron was selected (full run) and whether GD diverged there.
    """

    strength: float
    stable_bound: float
    t_spec_flow: float | None
    etas: list[float]
    t_spec_gd: list[float | None]
    error: list[float | None]
    error_per_step: list[float | None]
    slope: float | None
    slope_err: float | None
    intercept: float | None
    intercept_err: float | None
    stability_etas: list[float]
    success: list[bool]
    diverged: list[bool]


@dataclass(frozen=True)
class StepJob:
    """GD with step ``eta`` on the selection problem: ``full`` runs to the end (owner, divergence),
    otherwise stops at the designated neuron's crossing (``T_spec`` only). ``eta=None``: the flow."""

    model: ModelConfig
    m: int
    strength: float
    eta: float | None
    rtol: float
    full: bool = False


@dataclass
class StepOutcome:
    t_spec: float | None
    success: bool
    diverged: bool


def step_job(job: StepJob) -> StepOutcome:
    a0, W0 = _selection_start(job.model, job.m, job.strength)
    teacher = job.model.teacher()
    if job.eta is None:
        run = run_ensemble(job.model, DynamicsConfig(mode=Mode.flow, rtol=job.rtol), a0, W0)[0]
        return StepOutcome(run.t_spec, selected(run, 0), False)
    if not job.full:
        horizon = auto_horizon(owner_imbalances(job.m, job.strength, 0), job.model.c0)
        tr = gradient_descent(
            a0, W0, teacher, job.eta, horizon, eps_align=job.model.eps_align, grid_points=3, stop_at_crossing=True
        )
        t = float(tr.crossing_times[0, 0])
        return StepOutcome(None if np.isnan(t) else t, bool(np.isfinite(t)), False)
    try:
        run = run_ensemble(job.model, DynamicsConfig(mode=Mode.gd, eta=job.eta), a0, W0)[0]
    except NumericalFault:
        return StepOutcome(None, False, True)
    return StepOutcome(run.t_spec, selected(run, 0), False)


def step_sweep(
    config: PerturbConfig, progress: Progress | None = None, runner: PointRunner = run_serially
) -> StepSweep:
    model = config.model
    a0, W0 = _selection_start(model, config.m, config.step_strength)
    bound = stable_step_bound(a0, W0, model.teacher())
    (flow,) = runner(step_job, [StepJob(model, config.m, config.step_strength, None, config.rtol)], None)
    t_flow = flow.t_spec
    if t_flow is None:  # pragma: no cover - the selection problem always specialises
        raise NumericalFault("the population flow did not specialise; raise --t-max")
    etas = [f * t_flow for f in sorted(config.step_fractions)]
    stab = [f * bound for f in sorted(config.stability_fractions)]
    jobs = [StepJob(model, config.m, config.step_strength, eta, config.rtol) for eta in etas]
    jobs += [StepJob(model, config.m, config.step_strength, eta, config.rtol, full=True) for eta in stab]
    outcomes = runner(step_job, jobs, progress)
    gd, full = outcomes[: len(etas)], outcomes[len(etas) :]
    error = [None if o.t_spec is None else o.t_spec - t_flow for o in gd]
    ok = [(eta, e, o.t_spec) for eta, e, o in zip(etas, error, gd, strict=True) if e is not None and e != 0]
    slope = slope_err = intercept = intercept_err = None
    if len(ok) >= 3:
        eta_ok = np.array([p[0] for p in ok])
        fit = stats.linregress(np.log(eta_ok), np.log(np.abs([p[1] for p in ok])))
        slope, slope_err = float(fit.slope), float(fit.stderr)
        coef, cov = np.polyfit(eta_ok, [p[2] for p in ok], 2, cov=True) if len(ok) >= 4 else (None, None)
        if coef is not None:
            intercept, intercept_err = float(coef[-1]), float(np.sqrt(cov[-1, -1]))
    return StepSweep(
        strength=config.step_strength,
        stable_bound=bound,
        t_spec_flow=t_flow,
        etas=etas,
        t_spec_gd=[o.t_spec for o in gd],
        error=error,
        error_per_step=[None if e is None else e / eta for e, eta in zip(error, etas, strict=True)],
        slope=slope,
        slope_err=slope_err,
        intercept=intercept,
        intercept_err=intercept_err,
        stability_etas=stab,
        success=[o.success for o in full],
        diverged=[o.diverged for o in full],
    )


# ------------------------------------------------------------------------------------
# (c) the sample alone


@dataclass
class SampleGDCheck:
    """GD on ``L_n`` against GD on ``L`` with the same step, at the automatic step ``eta``
    (≤ 1 % error on T_spec) and at ``eta/2``: the deviation's n-dependence must not move."""

    eta: float
    deviation: list[float]
    deviation_half: list[float]
    fit: PowerLawFit | None
    fit_half: PowerLawFit | None


LINEAR_T_SPEC_DEVIATION = 0.1
"""``t_spec_fit`` uses only the n whose mean relative ``T_spec`` deviation is ≤ 10 %: below that
the response of ``T_spec`` to the sampling noise is linear and the n^{-1/2} law applies; at
smaller n it is not (measured, m = 2, D = 4, d = 16: 121 %, 52 %, 19 % at n = 500, 1000, 2000)."""


@dataclass
class SampleSweep:
    """The finite-sample flow against the population flow on ``t ∈ [0, window]``.

    ``deviation[k]`` ± ``deviation_err[k]``: mean ± standard error over seeds of
    ``sup_t ‖f_{θ_n(t)} − f_{θ_∞(t)}‖_{L²}`` at ``ns[k]`` (closed form via κ on 201 equally
    spaced times); ``t_spec_deviation``: the same for ``|T_spec^n − T_spec^∞|/T_spec^∞``;
    ``fit``/``t_spec_fit``: power laws in n with slope uncertainties (``t_spec_fit`` over the n
    where the mean relative deviation is ≤ :data:`LINEAR_T_SPEC_DEVIATION`); ``slope`` is
    ``fit.slope`` (kept for readers of the old artifact). ``rtol``: the flow solver's.
    """

    strength: float
    ns: list[int]
    seeds: list[int]
    window: float
    rtol: float
    t_spec_flow: float
    deviation: list[float]
    deviation_err: list[float]
    deviation_per_seed: list[list[float]]
    fit: PowerLawFit | None
    slope: float | None
    t_spec_per_seed: list[list[float | None]]
    t_spec_deviation: list[float]
    t_spec_deviation_err: list[float]
    t_spec_fit: PowerLawFit | None
    gd: SampleGDCheck | None


@dataclass(frozen=True)
class SampleJob:
    """Finite-sample runs with ``n`` samples, one per seed, against the population run from
    the same start: flows on ``grid`` (``eta=None``), or GD with step ``eta`` iterate by iterate."""

    model: ModelConfig
    m: int
    strength: float
    n: int
    seeds: tuple[int, ...]
    window: float
    rtol: float
    eta: float | None = None


@dataclass
class SampleOutcome:
    deviation: list[float]
    t_spec: list[float | None]


def _sample_of(teacher: Teacher, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from gaugecli.core.sample import draw_sample  # torch: only when needed

    # the sample of (seed, n) is its own stream: no two sizes share draws
    return draw_sample(teacher, n, np.random.SeedSequence([seed, n]))


def sample_job(job: SampleJob) -> SampleOutcome:
    """Per seed: ``sup_t ‖f_{θ_n(t)} − f_{θ_∞(t)}‖_{L²}`` over ``[0, window]`` and neuron 0's ``T_spec``."""
    from gaugecli.core.sample import empirical_objective  # torch: only when needed

    teacher = job.model.teacher()
    a0, W0 = _selection_start(job.model, job.m, job.strength)
    devs: list[float] = []
    t_specs: list[float | None] = []
    if job.eta is None:
        grid = np.linspace(0.0, job.window, 201)
        options = FlowOptions(rtol=job.rtol, atol=job.rtol * 1e-3)
        pop = gradient_flow(a0, W0, teacher, job.window, eps_align=job.model.eps_align, t_grid=grid)
        runs = (
            gradient_flow(
                a0,
                W0,
                teacher,
                job.window,
                eps_align=job.model.eps_align,
                options=options,
                objective=empirical_objective(*_sample_of(teacher, job.n, seed)),
                t_grid=grid,
            )
            for seed in job.seeds
        )
    else:
        common = {"eps_align": job.model.eps_align, "grad_tol": 0.0}
        pop = gradient_descent(a0, W0, teacher, job.eta, job.window, **common)
        runs = (
            gradient_descent(
                a0,
                W0,
                teacher,
                job.eta,
                job.window,
                oracle=empirical_objective(*_sample_of(teacher, job.n, seed)),
                **common,
            )
            for seed in job.seeds
        )
    for tr in runs:
        devs.append(float(np.max(function_distance(tr.a, tr.W, pop.a, pop.W))))
        t = float(tr.crossing_times[0, 0])
        t_specs.append(None if np.isnan(t) else t)
    return SampleOutcome(devs, t_specs)


def _mean_sem(rows: list[list[float]]) -> tuple[list[float], list[float]]:
    means, sems = [], []
    for row in rows:
        v = np.asarray(row, float)
        v = v[np.isfinite(v)]
        means.append(float(np.mean(v)) if v.size else float("nan"))
        sems.append(float(np.std(v, ddof=1) / np.sqrt(v.size)) if v.size >= 2 else float("nan"))
    return means, sems


def sample_sweep(
    config: PerturbConfig, progress: Progress | None = None, runner: PointRunner = run_serially
) -> SampleSweep:
    model = config.model
    a0, W0 = _selection_start(model, config.m, config.sample_strength)
    (flow,) = runner(step_job, [StepJob(model, config.m, config.sample_strength, None, config.rtol)], None)
    t_flow = flow.t_spec
    if t_flow is None:  # pragma: no cover - the selection problem always specialises
        raise NumericalFault("the population flow did not specialise; raise --t-max")
    window = config.window * t_flow
    seeds = tuple(config.sample_seeds)
    jobs = [SampleJob(model, config.m, config.sample_strength, n, seeds, window, SAMPLE_RTOL) for n in config.ns]
    eta = None
    if config.sample_gd:
        eta = choose_step(a0, W0, model.teacher(), window, eps_align=model.eps_align).eta
        jobs += [replace(j, eta=eta) for j in jobs[: len(config.ns)]]
        jobs += [replace(j, eta=eta / 2) for j in jobs[: len(config.ns)]]
    outcomes = runner(sample_job, jobs, progress)
    k = len(config.ns)
    flows = outcomes[:k]
    dev_rows = [o.deviation for o in flows]
    mean, sem = _mean_sem(dev_rows)
    t_rows = [[float("nan") if t is None else abs(t - t_flow) / t_flow for t in o.t_spec] for o in flows]
    t_mean, t_sem = _mean_sem(t_rows)
    ns = [float(n) for n in config.ns]
    fit = fit_power_law(ns, dev_rows)
    gd = None
    if eta is not None:
        at, half = outcomes[k : 2 * k], outcomes[2 * k :]
        gd = SampleGDCheck(
            eta=eta,
            deviation=_mean_sem([o.deviation for o in at])[0],
            deviation_half=_mean_sem([o.deviation for o in half])[0],
            fit=fit_power_law(ns, [o.deviation for o in at]),
            fit_half=fit_power_law(ns, [o.deviation for o in half]),
        )
    return SampleSweep(
        strength=config.sample_strength,
        ns=list(config.ns),
        seeds=list(seeds),
        window=window,
        rtol=SAMPLE_RTOL,
        t_spec_flow=t_flow,
        deviation=mean,
        deviation_err=sem,
        deviation_per_seed=dev_rows,
        fit=fit,
        slope=None if fit is None else fit.slope,
        t_spec_per_seed=[o.t_spec for o in flows],
        t_spec_deviation=t_mean,
        t_spec_deviation_err=t_sem,
        t_spec_fit=fit_power_law(
            [n for n, m in zip(ns, t_mean, strict=True) if m <= LINEAR_T_SPEC_DEVIATION],
            [r for r, m in zip(t_rows, t_mean, strict=True) if m <= LINEAR_T_SPEC_DEVIATION],
        ),
        gd=gd,
    )


# ------------------------------------------------------------------------------------
# (d) selection from a finite sample


SELECTION_METHOD = "RK45"
"""Solver of the selection-against-n runs. At n ≲ 64 the flow on ``L_n`` slides along kinks
(a sample point held on a neuron's hyperplane), where LSODA's implicit steps stall: measured at
m = 2, D = 4, d = 16, horizon 25 T_spec, 10 seeds, rtol 1e-4, n = 8/16/32: LSODA ran out of a
20 000-evaluation budget in 3/6/4 runs (0.5–1 s each), RK45 finished all in 800–3000
evaluations (0.05–0.17 s) with the same owners where both finished."""


@dataclass
class SelectionSweep:
    """Owner success against n: the finite-sample flow (``method``, rtol :data:`SAMPLE_RTOL`)
    up to ``horizon`` (``success_horizon · T_spec^flow``); success = neuron 0 is the unique
    owner there. ``undecided``: runs the solver could not finish (excluded from the trials).
    ``ci_low``/``ci_high``: 95 % Wilson intervals; ``n_hold``: the smallest n of the grid from
    which every run at every larger n selected (``None`` if even the largest failed)."""

    strength: float
    m: int
    ns: list[int]
    seeds: list[int]
    horizon: float
    method: str
    successes: list[int]
    trials: list[int]
    undecided: list[int]
    rate: list[float | None]
    ci_low: list[float]
    ci_high: list[float]
    n_hold: int | None


@dataclass(frozen=True)
class SelectionJob:
    model: ModelConfig
    m: int
    strength: float
    n: int
    seeds: tuple[int, ...]
    horizon: float


@dataclass
class SelectionOutcome:
    success: list[bool | None]


def selection_job(job: SelectionJob) -> SelectionOutcome:
    from gaugecli.core.sample import empirical_objective  # torch: only when needed

    teacher = job.model.teacher()
    a0, W0 = _selection_start(job.model, job.m, job.strength)
    options = FlowOptions(
        rtol=SAMPLE_RTOL, atol=SAMPLE_RTOL * 1e-3, method=SELECTION_METHOD, max_gradient_evals=50_000, grid_points=3
    )
    out: list[bool | None] = []
    for seed in job.seeds:
        objective = empirical_objective(*_sample_of(teacher, job.n, seed))
        try:
            tr = gradient_flow(
                a0, W0, teacher, job.horizon, eps_align=job.model.eps_align, options=options, objective=objective
            )
        except NumericalFault:
            out.append(None)
            continue
        run = observe(tr, teacher, (0,))
        out.append(selected(run, 0))
    return SelectionOutcome(out)


def selection_sweep(
    config: PerturbConfig, progress: Progress | None = None, runner: PointRunner = run_serially
) -> SelectionSweep:
    model = config.model
    (flow,) = runner(step_job, [StepJob(model, config.m, config.sample_strength, None, config.rtol)], None)
    horizon = config.success_horizon * float(flow.t_spec or 1.0)
    ns = sorted(config.success_ns)
    seeds = tuple(config.success_seeds)
    jobs = [SelectionJob(model, config.m, config.sample_strength, n, seeds, horizon) for n in ns]
    outcomes = runner(selection_job, jobs, progress)
    successes = [sum(1 for s in o.success if s) for o in outcomes]
    trials = [sum(1 for s in o.success if s is not None) for o in outcomes]
    undecided = [sum(1 for s in o.success if s is None) for o in outcomes]
    intervals = [wilson_interval(k, n) for k, n in zip(successes, trials, strict=True)]
    n_hold = None
    for i in range(len(ns) - 1, -1, -1):
        if trials[i] == 0 or successes[i] < trials[i] or undecided[i]:
            break
        n_hold = ns[i]
    return SelectionSweep(
        strength=config.sample_strength,
        m=config.m,
        ns=ns,
        seeds=list(seeds),
        horizon=horizon,
        method=SELECTION_METHOD,
        successes=successes,
        trials=trials,
        undecided=undecided,
        rate=[k / n if n else None for k, n in zip(successes, trials, strict=True)],
        ci_low=[lo for lo, _ in intervals],
        ci_high=[hi for _, hi in intervals],
        n_hold=n_hold,
    )


@dataclass
class PerturbResult:
    visible: VisibleSweep
    step: StepSweep
    samples: SampleSweep
    selection: SelectionSweep | None


def perturb(
    config: PerturbConfig, progress: Progress | None = None, runner: PointRunner = run_serially
) -> PerturbResult:
    parts = 4 if config.success_ns else 3

    def part(k: int) -> Progress | None:
        return None if progress is None else (lambda f: progress((k + f) / parts))

    return PerturbResult(
        visible_sweep(config, part(0), runner),
        step_sweep(config, part(1), runner),
        sample_sweep(config, part(2), runner),
        selection_sweep(config, part(3), runner) if config.success_ns else None,
    )
