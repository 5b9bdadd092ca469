"""``gaugecli lockin``: feature repulsion and spectral lock-in diagnostics (RELATED.md §2).

Does gauge selection leave the signatures that Xu (arXiv 2605.08119) looks for in two-layer
networks, Tian's repulsion ``B_jl < 0`` for similar features and a spectral "lock-in" of the
weight updates? Each run is sampled on a uniform epoch grid ``t_k = k τ``, ``τ = t_unit/per``,
and analysed by :mod:`gaugecli.core.lockin`:

* **assignments** of the m duplicates' gauges: ``select`` (neuron ``owner`` at +D, others −D),
  ``reversed`` (``owner`` at −D, others +D), ``all-plus``, ``all-minus``; and the **aligned
  control**: ``select`` started at θ0 = 0 (already aligned, nothing to lock in);
* **modes**: the population flow (per assignment and D), and finite-sample training of
  ``select`` and its control over seeds (ReLU: GD on L_n; σ = x²: GD on L_n, opt-in);
* **scans**: the rank-2 share over D (its height ∝ 1/D), the detector over the sampling
  resolution ``per`` (the raw detector moves with it), and ``T_spec`` over ``d`` for ``select``
  and ``all-minus`` (d is physically irrelevant; any dependence is round-off).

Clocks (``t_unit``, every time in the result is in these units):
flow runs use the ``T_spec`` of the flow restricted to the invariant set where equal-gauge
duplicates stay equal (for ``all-minus`` the unrestricted flow is split by round-off and its
``T_spec`` depends on d); the aligned control, whose ``T_spec`` is 0, borrows ``select``'s;
finite-sample ReLU runs use the population flow's ``T_spec`` of the same condition (the epoch is
fixed before training, as in practice), σ = x² runs the ``T_spec`` of a pilot ``select`` run
(the x² population flow from u0 ⊥ v never aligns: it starts at an exact saddle). Each run also
records its own ``t_spec``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from gaugecli.core import lockin as lk
from gaugecli.core import quadratic as qd
from gaugecli.core.dynamics import population_gradient
from gaugecli.core.gauge import function_coordinates, owner_imbalances
from gaugecli.core.integrate import GradientOracle, Progress, gradient_descent
from gaugecli.core.metrics import alignment, final_owner
from gaugecli.core.symmetry import ROUNDOFF_EXPONENT, equal_groups
from gaugecli.core.teacher import Teacher
from gaugecli.experiments.common import DynamicsConfig, ModelConfig, duplicates, require, require_finite, run_ensemble

Array = NDArray[np.float64]

ASSIGNMENTS = ("select", "reversed", "all-plus", "all-minus")

OVERSHOOT_HORIZON = 200.0
"""Horizon (in T_spec) of the flow that measures the owner's overshoot past v."""

QUADRATIC_PILOT_HORIZON = 1000.0
"""Give up on the σ = x² pilot run if it has not aligned by then (T_spec ≈ 0.6 at the defaults)."""


def assignment_imbalances(assign: str, m: int, strength: float, owner: int = 0) -> Array:
    """δ per neuron: ``select`` one +D (neuron ``owner``) among −D, ``reversed`` one −D among +D,
    ``all-plus`` / ``all-minus`` every neuron at ±D."""
    if assign == "select":
        return owner_imbalances(m, strength, owner)
    if assign == "reversed":
        return -owner_imbalances(m, strength, owner)
    if assign == "all-plus":
        return np.full(m, float(strength))
    if assign == "all-minus":
        return np.full(m, -float(strength))
    raise ValueError(f"unknown assignment {assign!r}; one of {', '.join(ASSIGNMENTS)}")


@dataclass(frozen=True)
class LockinConfig:
    """Every option of ``gaugecli lockin``.

    ``per``: epochs per ``t_unit`` (the epoch is ``τ = t_unit/per``); ``span``: horizon in ``t_unit``.
    Xu's detector: ``window`` updates per Gram matrix, slope over ``lag`` epochs, fires above
    ``threshold`` at epoch ≥ ``burn_in``; ``floor``: round-off floor on λ3 (relative to λ1).
    ``ridge``: Tian's η relative to the features' mean variance (``η = ridge · tr G/m``).
    Finite sample: ``seeds``, ``n_samples``, GD step ``η ≤ t_unit/steps_per_unit`` (and a whole
    number of steps per epoch). ``quadratic`` adds σ = x² finite-sample runs (GD step
    ``quadratic_step_fraction`` × the stability bound at θ0). ``scan_*``: the D, per and d scans
    (empty to skip). ``store_every``: keep every k-th epoch in the stored series.
    """

    model: ModelConfig = field(default_factory=ModelConfig)
    m: int = 5
    owner: int = 0
    strengths: tuple[float, ...] = (4.0, 16.0)
    assignments: tuple[str, ...] = ASSIGNMENTS
    control: bool = True
    per: int = 200
    span: float = 5.0
    window: int = 20
    lag: int = 25
    threshold: float = 0.04
    burn_in: int = 100
    floor: float = lk.DEFAULT_FLOOR
    ridge: float = 1e-3
    rtol: float = 1e-10
    seeds: tuple[int, ...] = (0, 1, 2)
    n_samples: int = 10_000
    steps_per_unit: int = 200
    quadratic: bool = False
    quadratic_step_fraction: float = 0.2
    scan_strengths: tuple[float, ...] = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
    scan_pers: tuple[int, ...] = (50, 100, 200, 400, 800)
    scan_dims: tuple[int, ...] = (2, 4, 8, 16, 32)
    store_every: int = 4

    def __post_init__(self) -> None:
        def integer(value: Any, param: str, low: int) -> None:
            ok = isinstance(value, int) and not isinstance(value, bool) and value >= low
            require(ok, param, f"must be an integer ≥ {low} (got {value!r})")

        integer(self.m, "m", 2)
        require(
            isinstance(self.owner, int) and 0 <= self.owner < self.m,
            "owner",
            f"must be an integer in [0, m-1] = [0, {self.m - 1}] (got {self.owner!r})",
        )
        require(len(self.strengths) >= 1, "gauge_strength", "give at least one D, e.g. -D 4")
        for D in self.strengths:
            require_finite(D, "gauge_strength", low=0.0)
        require(len(self.assignments) >= 1, "assign", f"give at least one of {', '.join(ASSIGNMENTS)}")
        for a in self.assignments:
            require(a in ASSIGNMENTS, "assign", f"must be among {', '.join(ASSIGNMENTS)} (got {a!r})")
        require(
            "select" in self.assignments,
            "assign",
            "include select: it sets the clock of the aligned control, the finite-sample runs and the scans",
        )
        integer(self.window, "window", 3)
        integer(self.lag, "lag", 1)
        integer(self.burn_in, "burn_in", 0)
        integer(self.per, "per", 2)
        require_finite(self.span, "span", low=1.0, strict=False)
        require_finite(self.threshold, "threshold")
        require_finite(self.floor, "floor", low=0.0)
        require(self.floor < 1.0, "floor", f"must be in (0, 1) (got {self.floor!r})")
        require_finite(self.ridge, "ridge", low=0.0)
        require_finite(self.rtol, "rtol", low=0.0)
        require(self.rtol < 1e-2, "rtol", f"must be in (0, 1e-2) (got {self.rtol!r})")
        n_epochs = round(self.span * self.per)
        require(
            n_epochs >= self.window + self.lag,
            "span",
            f"span × per = {n_epochs} epochs is shorter than window + lag = {self.window + self.lag}; raise --span or --per",
        )
        require(len(self.seeds) >= 1, "seeds", "give at least one seed, e.g. --seeds 0,1,2")
        require(
            all(isinstance(s, int) and s >= 0 for s in self.seeds),
            "seeds",
            f"must be integers ≥ 0 (got {self.seeds!r})",
        )
        integer(self.n_samples, "n_samples", 2)
        integer(self.steps_per_unit, "steps_per_unit", 1)
        require_finite(self.quadratic_step_fraction, "quadratic_step_fraction", low=0.0)
        require(
            self.quadratic_step_fraction < 1.0,
            "quadratic_step_fraction",
            f"must be in (0, 1): a fraction of the stability bound (got {self.quadratic_step_fraction!r})",
        )
        for D in self.scan_strengths:
            require_finite(D, "scan_strengths", low=0.0)
        for p in self.scan_pers:
            integer(p, "scan_pers", 2)
            require(
                round(self.span * p) >= self.window + self.lag,
                "scan_pers",
                f"per = {p} gives fewer than window + lag epochs over the span; use per ≥ "
                f"{math.ceil((self.window + self.lag) / self.span)}",
            )
        for d in self.scan_dims:
            integer(d, "scan_dims", self.model.k + 1)
        integer(self.store_every, "store_every", 1)

    @property
    def sample_strength(self) -> float:
        """D of the finite-sample runs: the first of ``strengths``."""
        return float(self.strengths[0])


@dataclass
class LockinRun:
    """One run: its condition, scalars and the series a figure needs (every 'store_every'-th epoch).

    Times are in ``t_unit``. ``detector_fire_*``: first firing of Xu's detector (None: never).
    ``frac_neg_given_similar``: ``frac(B_jl < 0 | S_jl > 0)`` pooled over stored epochs and pairs.
    ``Lambda_total``: the separation exponent ``Λ`` of the first equal group at the horizon
    (population flow only). ``owner``: the final owner, None for symmetric starts (tied top δ).
    """

    assign: str
    mode: str
    D: float
    seed: int | None
    activation: str
    control: bool
    theta0: float
    t_unit: float
    t_spec: float | None
    owner: int | None
    epoch: float
    eta: float | None
    rank2_peak: float
    rank2_t_peak: float
    rank_max: int
    gauge_classes: int
    detector_fire_raw: float | None
    detector_fire_floored: float | None
    roundoff_fraction: float
    frac_neg_given_similar: float | None
    sign_identity_residual: float
    direct_sign_match: float
    owner_overshoot_deg: float
    Lambda_total: float | None
    series: dict[str, list[float | None]]


@dataclass
class LockinResult:
    runs: list[LockinRun]
    summary: list[dict[str, Any]]
    rank2_collapse: list[dict[str, float]]
    resolution_scan: list[dict[str, Any]]
    tspec_vs_d: list[dict[str, Any]]
    owner_overshoot: dict[str, float]
    roundoff_exponent: float
    roundoff_level: float
    notes: list[str]


# ----------------------------------------------------------------------------------------
# finite-sample training on the epoch grid


class _CachedOracle:
    """Remembers the last evaluation: ``gradient_descent`` chunks end and start at the same state."""

    def __init__(self, oracle: GradientOracle) -> None:
        self._oracle = oracle
        self._key: tuple[Array, Array] | None = None
        self._value: tuple[Array, Array, Array | None] | None = None

    def __call__(self, a: Array, W: Array) -> tuple[Array, Array, Array | None]:
        if self._key is not None and np.array_equal(a, self._key[0]) and np.array_equal(W, self._key[1]):
            assert self._value is not None
            return self._value
        self._key, self._value = (a.copy(), W.copy()), self._oracle(a, W)
        return self._value


def finite_sample_on_grid(
    a0: Array, W0: Array, teacher: Teacher, oracle: GradientOracle, times: Array, eta: float, eps_align: float
) -> tuple[Array, Array, Array, float | None]:
    """Finite-sample training sampled at the uniform ``times`` (multiples of ``τ``, ``τ/η`` integer):
    ``(a (n, m), W (n, m, d), dW/dt = −∂L_n/∂W (n, m, d), T_spec or None)``.

    Today this is full-batch GD with step ``eta`` (:func:`gaugecli.core.integrate.gradient_descent`,
    one call per epoch); it is the one place to switch to a finite-sample gradient flow.
    """
    cached = _CachedOracle(oracle)
    tau = float(times[1] - times[0])
    steps = max(1, round(tau / eta))
    a, W = np.array(a0, float), np.array(W0, float)
    As, Ws, dWs = [], [], []
    t_spec = None
    for k in range(times.size):
        As.append(a)
        Ws.append(W)
        dWs.append(-cached(a, W)[1])
        if k == times.size - 1:
            break
        # t_max a hair under `steps` steps, so that ceil(t_max/eta) is exactly `steps`
        traj = gradient_descent(
            a, W, teacher, eta, steps * eta * (1 - 1e-12), oracle=cached, eps_align=eps_align, grid_points=3
        )
        if t_spec is None and np.any(np.isfinite(traj.crossing_times)):
            t_spec = float(times[k] + np.nanmin(traj.crossing_times))
        a, W = traj.a[-1], traj.W[-1]
    if np.max(np.max(np.asarray(Ws[0]) @ teacher.unit_directions().T, axis=-1)) >= 1 - eps_align:
        t_spec = 0.0
    return np.array(As), np.array(Ws), np.array(dWs), t_spec


# ----------------------------------------------------------------------------------------
# one run's diagnostics


def _gram_series(activation: str, W: Array, X: Array | None) -> Array:
    """Centered feature Gram per stored epoch: population closed form (ReLU flow) or activations."""
    if X is None:
        return lk.centered_feature_gram(W)
    Z = np.einsum("nd,tmd->tnm", X, W)
    F = np.maximum(Z, 0.0) if activation == "relu" else Z * Z
    return lk.sample_feature_gram(F)


def _fire(k: int | None, per: int) -> float | None:
    return None if k is None else k / per


def _list(x: Array) -> list[float | None]:
    return [None if not np.isfinite(v) else float(v) for v in np.asarray(x, float)]


def _owner_overshoot(W: Array, owner: int, teacher: Teacher, u0: Array) -> float:
    """Largest angle (degrees) by which the owner passes v, away from u0, in the plane (v, u0)."""
    v = teacher.unit_directions()[0]
    u = W[:, owner] / np.linalg.norm(W[:, owner], axis=-1, keepdims=True)
    angle = np.degrees(np.arctan2(u @ u0, u @ v))  # 90° at u0, 0 at v, < 0 past v
    return float(max(0.0, -np.min(angle)))


def _diagnose(
    config: LockinConfig,
    *,
    assign: str,
    mode: str,
    D: float,
    seed: int | None,
    activation: str,
    control: bool,
    teacher: Teacher,
    t_unit: float,
    times: Array,
    a: Array,
    W: Array,
    dW: Array,
    t_spec: float | None,
    owner: int | None,
    eta: float | None,
    X: Array | None,
    instability: tuple[Array, Array] | None,
    gauge_classes: int,
    u0: Array,
) -> LockinRun:
    per = config.per
    x = times / t_unit
    sv = lk.update_singular_values(dW)
    share = lk.rank2_share(sv)
    peak = lk.sampled_peak(x, share)
    lam = lk.window_gram_eigenvalues(dW, config.window)
    raw = lk.xu_detector(lk.eigengap(lam), config.lag, config.threshold, config.burn_in)
    floored = lk.xu_detector(lk.eigengap(lam, config.floor), config.lag, config.threshold, config.burn_in)

    keep = np.arange(0, times.size, config.store_every)
    G = _gram_series(activation, W[keep], X)
    eta_ridge = lk.ridge_from_gram(G, config.ridge)
    tb = lk.tian_b(G, eta_ridge)
    S = lk.feature_similarity(G)
    o = config.owner
    others = [j for j in range(config.m) if j != o]
    iu = np.triu_indices(config.m, k=1)
    similar = S[:, iu[0], iu[1]] > 0
    negative = tb.B[:, iu[0], iu[1]] < 0
    frac = float(np.sum(similar & negative) / np.sum(similar)) if np.any(similar) else None

    series: dict[str, list[float | None]] = {
        "t": _list(x[keep]),
        "rank2_share": _list(share[keep]),
        "gap_raw": _list(raw.gap[keep]),
        "gap_floored": _list(floored.gap[keep]),
        "lambda2_over_lambda1": _list(lam[keep, 1] / lam[keep, 0]),
        "lambda3_over_lambda1": _list(lam[keep, 2] / lam[keep, 0]),
        "slope_raw": _list(raw.slope[keep]),
        "slope_floored": _list(floored.slope[keep]),
        "similarity_owner": _list(np.mean(S[:, o, others], axis=-1)),
        "informative_rate": _list(lk.informative_rate(tb.B, S)),
        "direct_sign_match": _list(lk.direct_sign_match(tb)),
    }
    Lambda_total = None
    if instability is not None:
        series["lambda_anti"] = _list(instability[0])
        series["Lambda"] = _list(instability[1])
        Lambda_total = float(instability[1][-1])
    return LockinRun(
        assign=assign,
        mode=mode,
        D=float(D),
        seed=seed,
        activation=activation,
        control=control,
        theta0=0.0 if control else config.model.theta0,
        t_unit=float(t_unit),
        t_spec=None if t_spec is None else float(t_spec) / t_unit,
        owner=owner,
        epoch=float(times[1] - times[0]),
        eta=eta,
        rank2_peak=peak.height,
        rank2_t_peak=peak.t_peak,
        rank_max=int(np.max(lk.structural_rank(sv))),
        gauge_classes=gauge_classes,
        detector_fire_raw=_fire(raw.fire_epoch, per),
        detector_fire_floored=_fire(floored.fire_epoch, per),
        roundoff_fraction=lk.roundoff_fraction(lam),
        frac_neg_given_similar=frac,
        sign_identity_residual=float(np.max(lk.sign_identity_residual(tb))),
        direct_sign_match=float(np.mean(lk.direct_sign_match(tb))),
        owner_overshoot_deg=_owner_overshoot(W, o, teacher, u0),
        Lambda_total=Lambda_total,
        series=series,
    )


def _unique_owner(deltas: Array, c: Array, alpha: Array, eps_align: float) -> int | None:
    """The final owner, or None for a symmetric start (the largest δ is shared: SPEC §6)."""
    if np.sum(deltas == np.max(deltas)) > 1:
        return None
    owner, specialized = final_owner(c, alpha, eps_align)
    return int(owner) if bool(specialized) else None


def _classes(deltas: Array) -> int:
    return len(set(np.asarray(deltas, float).tolist()))


# ----------------------------------------------------------------------------------------
# the runs


def _start(config: LockinConfig, model: ModelConfig, assign: str, D: float) -> tuple[Array, Array, Array]:
    deltas = assignment_imbalances(assign, config.m, D, config.owner)
    a0, W0 = duplicates(model, deltas[None, :])
    return deltas, a0[0], W0[0]


def _flow_run(config: LockinConfig, assign: str, D: float, control: bool, t_unit: float | None) -> LockinRun:
    model = replace(config.model, theta0=0.0) if control else config.model
    teacher = model.teacher()
    deltas, a0, W0 = _start(config, model, assign, D)
    groups = equal_groups(a0, W0)
    eps = model.eps_align
    if t_unit is None:  # the clock: T_spec on the invariant set (equal-gauge duplicates kept equal)
        sym = lk.population_flow_on_grid(
            a0, W0, teacher, eps, span=config.span, per=config.per, groups=groups, rtol=config.rtol
        )
        t_unit, times = float(sym.t_spec), sym.t
    else:
        times = np.arange(round(config.span * config.per) + 1) * (t_unit / config.per)
        sym = lk.population_flow_on_grid(a0, W0, teacher, eps, times=times, groups=groups, rtol=config.rtol)
    flow = lk.population_flow_on_grid(a0, W0, teacher, eps, times=times, rtol=config.rtol)

    dW = -population_gradient(flow.a, flow.W, teacher).W
    keep = np.arange(0, times.size, config.store_every)
    instability = None
    if groups:
        instability = lk.duplicate_instability(times[keep], sym.a[keep], sym.W[keep], teacher, groups[0])
    c, _ = function_coordinates(flow.a[-1], flow.W[-1])
    alpha, _ = alignment(flow.W[-1], teacher)
    return _diagnose(
        config,
        assign=assign,
        mode="flow",
        D=D,
        seed=None,
        activation="relu",
        control=control,
        teacher=teacher,
        t_unit=t_unit,
        times=times,
        a=flow.a,
        W=flow.W,
        dW=dW,
        t_spec=flow.t_spec,
        owner=_unique_owner(deltas, c, alpha, eps) if not control else None,
        eta=None,
        X=None,
        instability=instability,
        gauge_classes=_classes(deltas),
        u0=W0[0] / np.linalg.norm(W0[0]),
    )


def _sample_run(config: LockinConfig, control: bool, seed: int, t_unit: float) -> LockinRun:
    from gaugecli.core.sample import draw_sample, empirical_oracle

    model = replace(config.model, theta0=0.0) if control else config.model
    teacher = model.teacher()
    D = config.sample_strength
    deltas, a0, W0 = _start(config, model, "select", D)
    X, y = draw_sample(teacher, config.n_samples, seed)
    tau = t_unit / config.per
    steps = max(1, math.ceil(tau / (t_unit / config.steps_per_unit)))
    eta = tau / steps
    times = np.arange(round(config.span * config.per) + 1) * tau
    a, W, dW, t_spec = finite_sample_on_grid(a0, W0, teacher, empirical_oracle(X, y), times, eta, model.eps_align)
    c, _ = function_coordinates(a[-1], W[-1])
    alpha, _ = alignment(W[-1], teacher)
    return _diagnose(
        config,
        assign="select",
        mode="sample",
        D=D,
        seed=seed,
        activation="relu",
        control=control,
        teacher=teacher,
        t_unit=t_unit,
        times=times,
        a=a,
        W=W,
        dW=dW,
        t_spec=t_spec,
        owner=None if control else _unique_owner(deltas, c, alpha, model.eps_align),
        eta=eta,
        X=X,
        instability=None,
        gauge_classes=_classes(deltas),
        u0=W0[0] / np.linalg.norm(W0[0]),
    )


def _quadratic_crossing(t: Array, W: Array, teacher: Teacher, eps_align: float) -> float | None:
    """First time ``max_j |u_j·v| = 1 − ε``, linearly interpolated between recorded iterates."""
    alpha = np.max(qd.quadratic_alignment(W, teacher), axis=-1)
    hit = np.flatnonzero(alpha >= 1 - eps_align)
    if hit.size == 0:
        return None
    i = int(hit[0])
    if i == 0:
        return 0.0
    frac = (1 - eps_align - alpha[i - 1]) / (alpha[i] - alpha[i - 1])
    return float(t[i - 1] + frac * (t[i] - t[i - 1]))


def _quadratic_runs(config: LockinConfig, progress: Progress | None) -> list[LockinRun]:
    """σ = x² select runs and aligned controls, finite-sample GD over seeds, on the clock of a pilot run."""
    from gaugecli.core.sample import draw_sample

    D = config.sample_strength
    teacher = config.model.teacher()
    eps = config.model.eps_align
    deltas = assignment_imbalances("select", config.m, D, config.owner)

    def start(control: bool) -> tuple[Array, Array]:
        theta0 = 0.0 if control else config.model.theta0
        return qd.quadratic_duplicates(teacher, deltas, config.model.c0, theta0)

    def oracle(seed: int) -> tuple[Array, qd.QuadraticOracle]:
        X, _ = draw_sample(teacher, config.n_samples, seed)
        return X, qd.quadratic_empirical_oracle(X, qd.quadratic_labels(X, teacher))

    a_sel, W_sel = start(False)
    eta_max = config.quadratic_step_fraction * min(
        qd.quadratic_stable_step(a_sel, W_sel, teacher), qd.quadratic_stable_step(*start(True), teacher)
    )
    # pilot: the clock is the T_spec of select, first seed (the x² population flow never aligns);
    # run in chunks of one time unit until it aligns
    _, pilot_oracle = oracle(config.seeds[0])
    chunk = max(1, round(1.0 / eta_max))
    a, W, t0 = a_sel, W_sel, 0.0
    t_pilot = None
    while t_pilot is None:
        if t0 >= QUADRATIC_PILOT_HORIZON:
            from gaugecli.core.integrate import NumericalFault

            raise NumericalFault(f"σ=x² select run did not align by t = {QUADRATIC_PILOT_HORIZON:g}; raise --n-samples")
        part = qd.quadratic_gradient_descent(a, W, pilot_oracle, eta_max, chunk, 1)
        t_pilot = _quadratic_crossing(t0 + part.t, part.W, teacher, eps)
        a, W, t0 = part.a[-1], part.W[-1], t0 + float(part.t[-1])
    tau = t_pilot / config.per
    steps = max(1, math.ceil(tau / eta_max))
    eta = tau / steps
    n_epochs = round(config.span * config.per)
    times = np.arange(n_epochs + 1) * tau
    runs = []
    cases = [(False, s) for s in config.seeds] + ([(True, s) for s in config.seeds] if config.control else [])
    for i, (control, seed) in enumerate(cases):
        a0, W0 = start(control)
        X, orc = oracle(seed)
        run = qd.quadratic_gradient_descent(a0, W0, orc, eta, n_epochs * steps, steps)
        dW = np.array([-orc(a, W)[1] for a, W in zip(run.a, run.W, strict=True)])
        c, _ = qd.quadratic_function_coordinates(run.a[-1], run.W[-1])
        alpha = qd.quadratic_alignment(run.W[-1], teacher)
        t_spec = _quadratic_crossing(times, run.W, teacher, eps)
        runs.append(
            _diagnose(
                config,
                assign="select",
                mode="sample",
                D=D,
                seed=seed,
                activation="x2",
                control=control,
                teacher=teacher,
                t_unit=t_pilot,
                times=times,
                a=run.a,
                W=run.W,
                dW=dW,
                t_spec=t_spec,
                owner=None if control else _unique_owner(deltas, c, alpha, eps),
                eta=eta,
                X=X,
                instability=None,
                gauge_classes=_classes(deltas),
                u0=W0[0] / np.linalg.norm(W0[0]),
            )
        )
        if progress is not None:
            progress((i + 1) / len(cases))
    return runs


# ----------------------------------------------------------------------------------------
# scans and summary


def _rank2_collapse(config: LockinConfig) -> list[dict[str, float]]:
    teacher = config.model.teacher()
    out = []
    for D in config.scan_strengths:
        _deltas, a0, W0 = _start(config, config.model, "select", D)
        flow = lk.population_flow_on_grid(
            a0,
            W0,
            teacher,
            config.model.eps_align,
            span=2.0,
            per=config.per,
            groups=equal_groups(a0, W0),
            rtol=config.rtol,
        )

        share = lk.rank2_share(lk.update_singular_values(-population_gradient(flow.a, flow.W, teacher).W))
        peak = lk.sampled_peak(flow.t / flow.t_spec, share)
        out.append(
            {
                "D": float(D),
                "t_spec": float(flow.t_spec),
                "peak": peak.height,
                "t_peak": peak.t_peak,
                "D_times_peak": D * peak.height,
            }
        )
    return out


def _resolution_scan(config: LockinConfig, t_unit: float) -> list[dict[str, Any]]:

    D = config.sample_strength
    out = []
    for control in (False, True) if config.control else (False,):
        model = replace(config.model, theta0=0.0) if control else config.model
        teacher = model.teacher()
        _, a0, W0 = _start(config, model, "select", D)
        for per in config.scan_pers:
            times = np.arange(round(config.span * per) + 1) * (t_unit / per)
            flow = lk.population_flow_on_grid(a0, W0, teacher, model.eps_align, times=times, rtol=config.rtol)
            lam = lk.window_gram_eigenvalues(-population_gradient(flow.a, flow.W, teacher).W, config.window)
            raw = lk.xu_detector(lk.eigengap(lam), config.lag, config.threshold, config.burn_in)
            fl = lk.xu_detector(lk.eigengap(lam, config.floor), config.lag, config.threshold, config.burn_in)
            out.append(
                {
                    "control": control,
                    "per": per,
                    "D": D,
                    "detector_fire_raw": _fire(raw.fire_epoch, per),
                    "detector_fire_floored": _fire(fl.fire_epoch, per),
                    "roundoff_fraction": lk.roundoff_fraction(lam),
                    "lambda3_over_lambda1_median": float(np.nanmedian(np.abs(lam[:, 2]) / lam[:, 0])),
                }
            )
    return out


def _tspec_vs_d(config: LockinConfig) -> list[dict[str, Any]]:
    """``T_spec`` of select and all-minus over d, as ``simulate``/``select`` compute it (the package's flow)."""
    D = config.sample_strength
    out = []
    for d in config.scan_dims:
        model = replace(config.model, d=d)
        row: dict[str, Any] = {"d": d, "D": D}
        for assign in ("select", "all-minus"):
            deltas = assignment_imbalances(assign, config.m, D, config.owner)
            a0, W0 = duplicates(model, deltas[None, :])
            obs = run_ensemble(model, DynamicsConfig(rtol=config.rtol), a0, W0)[0]
            row[assign] = obs.t_spec
            row[f"{assign}_owner"] = obs.owner
        out.append(row)
    return out


def _long_overshoot(config: LockinConfig, t_unit: float) -> dict[str, float]:
    """How far the select owner passes v (away from the non-owners at u0), over the whole run to
    ``OVERSHOOT_HORIZON`` t_unit on a log grid: the maximum comes at ≈ 8 T_spec, beyond the span."""
    teacher = config.model.teacher()
    D = config.sample_strength
    _, a0, W0 = _start(config, config.model, "select", D)
    times = np.concatenate([[0.0], np.geomspace(1e-2, OVERSHOOT_HORIZON, 600) * t_unit])
    flow = lk.population_flow_on_grid(a0, W0, teacher, config.model.eps_align, times=times, rtol=config.rtol)
    v = teacher.unit_directions()[0]
    u0 = W0[0] / np.linalg.norm(W0[0])
    u = flow.W[:, config.owner] / np.linalg.norm(flow.W[:, config.owner], axis=-1, keepdims=True)
    angle = np.degrees(np.arctan2(u @ u0, u @ v))
    i = int(np.argmin(angle))
    return {"D": D, "max_deg": float(max(0.0, -angle[i])), "t_at_max": float(times[i] / t_unit)}


def _median(values: list[float | None]) -> float | None:
    xs = [v for v in values if v is not None]
    return float(np.median(xs)) if xs else None


def summarize(runs: list[LockinRun]) -> list[dict[str, Any]]:
    """Select vs aligned control, per (mode, activation, D): how often and when each detector fires,
    the rank-2 share's peak (× D), the B-sign rate."""
    rows = []
    keys = sorted({(r.mode, r.activation, r.D) for r in runs if r.assign == "select"})
    for mode, activation, D in keys:
        for control in (False, True):
            group = [
                r
                for r in runs
                if (r.mode, r.activation, r.D, r.control) == (mode, activation, D, control) and r.assign == "select"
            ]
            if not group:
                continue
            rows.append(
                {
                    "condition": "control" if control else "select",
                    "mode": mode,
                    "activation": activation,
                    "D": D,
                    "runs": len(group),
                    "fires_raw": sum(r.detector_fire_raw is not None for r in group),
                    "fires_floored": sum(r.detector_fire_floored is not None for r in group),
                    "fire_raw_median": _median([r.detector_fire_raw for r in group]),
                    "fire_floored_median": _median([r.detector_fire_floored for r in group]),
                    "t_spec_median": _median([r.t_spec for r in group]),
                    "rank2_peak_times_D_median": _median([r.rank2_peak * r.D for r in group]),
                    "rank2_t_peak_median": _median([r.rank2_t_peak for r in group]),
                    "roundoff_fraction_median": _median([r.roundoff_fraction for r in group]),
                    "frac_neg_given_similar_median": _median([r.frac_neg_given_similar for r in group]),
                }
            )
    return rows


def lockin(config: LockinConfig, progress: Progress | None = None) -> LockinResult:
    """Every run, scan and the summary of ``gaugecli lockin``."""
    notes: list[str] = []
    runs: list[LockinRun] = []
    work = len(config.strengths) * (len(config.assignments) + config.control) + 2 * len(config.seeds) + 3
    done = [0]

    def tick() -> None:
        done[0] += 1
        if progress is not None:
            progress(min(done[0] / work, 1.0))

    clocks: dict[tuple[str, float], float] = {}
    for D in config.strengths:
        for assign in config.assignments:
            run = _flow_run(config, assign, float(D), False, None)
            clocks[(assign, float(D))] = run.t_unit
            runs.append(run)
            tick()
        if config.control:
            runs.append(_flow_run(config, "select", float(D), True, clocks[("select", float(D))]))
            tick()
    D = config.sample_strength
    t_select = clocks[("select", D)]
    for seed in config.seeds:
        runs.append(_sample_run(config, False, seed, t_select))
        tick()
        if config.control:
            runs.append(_sample_run(config, True, seed, t_select))
            tick()
    if config.quadratic:
        teacher = config.model.teacher()
        _, W0 = qd.quadratic_duplicates(
            teacher, assignment_imbalances("select", config.m, D), config.model.c0, config.model.theta0
        )
        if qd.exact_saddle(W0, teacher):
            notes.append(qd.SADDLE_NOTE)
        runs.extend(_quadratic_runs(config, None))
    collapse = _rank2_collapse(config)
    tick()
    scan = _resolution_scan(config, t_select)
    tick()
    tspec_d = _tspec_vs_d(config)
    tick()
    return LockinResult(
        runs=runs,
        summary=summarize(runs),
        rank2_collapse=collapse,
        resolution_scan=scan,
        tspec_vs_d=tspec_d,
        owner_overshoot=_long_overshoot(config, t_select),
        roundoff_exponent=ROUNDOFF_EXPONENT,
        roundoff_level=lk.ROUNDOFF_LEVEL,
        notes=notes,
    )
