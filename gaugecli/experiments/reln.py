"""``gaugecli reln``: the gated-linear (ReLN) view of gauge selection, where it holds and where it fails.

A ReLN with fixed gates is a linear network per pathway (:mod:`gaugecli.core.reln`). Against the
ReLU population flow from the same complete initial function, for every D in ``strengths`` and
both gauges ±D (m = 1):

* the final-gate ReLN (gate = the teacher's half-space v), the initial-gate ReLN (gate = u0) and the
  aligned race (``ċ = −√(δ² + 4c²)(c − a*)/2``, a closed form): T_spec of each (``ratios``);
* restarts: ReLNs started from the ReLU state at ``t0 = k·T_spec`` with gates frozen at the current
  directions; the time to cut the loss by each factor in ``levels`` against the ReLU's (``restart``);
* the fixed-gate envelope: for each loss level ℓ, the ReLU's time over the fastest ReLN over a grid of
  gate angles ψ ∈ [0°, 90°] in the plane of v and u0 (``envelope``);

and for ``select`` (m neurons, ``owner`` at +D, the rest −D) the ReLN with the final activation pattern
(owner gated by v, non-owners by their final ReLU directions) against the ReLU run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from gaugecli.core.dynamics import population_loss
from gaugecli.core.gauge import function_coordinates, initial_direction, owner_imbalances
from gaugecli.core.integrate import FlowOptions, Progress, Trajectory, gradient_flow
from gaugecli.core.kernels import arccos_kernel
from gaugecli.core.metrics import alignment, final_owner, first_time_below, nonowner_norm
from gaugecli.core.reln import (
    final_gate_tspec_asymptote,
    gate_floor,
    gate_identity_error,
    pathway_norm,
    race_coefficient,
    race_loss,
    race_time,
    reln_floor,
    reln_flow,
    reln_geometry,
    trajectory_loss,
)
from gaugecli.experiments.common import (
    DynamicsConfig,
    Mode,
    ModelConfig,
    auto_horizon,
    duplicates,
    require,
    require_finite,
)

Array = NDArray[np.float64]

CURVE_POINTS = 160
"""Samples per stored loss curve (log-spaced in t, for the figure)."""

RESOLVED_LOSS = 1e-12
"""Loss levels below this are not resolved: the closed-form loss is a difference of O(1) kernel
terms, accurate to ~1e-16 absolutely, and level-crossing times need a few digits of it."""


@dataclass(frozen=True)
class RelnConfig:
    """What ``gaugecli reln`` computes (population flow only).

    ``strengths``: gauge strengths D of the m = 1 comparisons (each run at +D and −D);
    ``m``, ``select_strength``, ``owner``: the ``select`` comparison (owner +D, others −D);
    ``restart``: restart times ``t0`` in units of the ReLU run's T_spec;
    ``levels``: loss-reduction factors the restarted runs must reach (``L(t0)/level``);
    ``envelope_levels``: absolute loss levels ℓ (units of a*²‖v‖²) of the fixed-gate envelope;
    ``psi_step``: step of the envelope's gate-angle grid ψ ∈ [0°, 90°], in degrees.
    """

    model: ModelConfig = field(default_factory=ModelConfig)
    dynamics: DynamicsConfig = field(default_factory=DynamicsConfig)
    strengths: tuple[float, ...] = (1.0, 4.0, 16.0, 64.0)
    m: int = 5
    select_strength: float = 4.0
    owner: int = 0
    restart: tuple[float, ...] = (0.5, 1.0, 2.0, 5.0)
    levels: tuple[float, ...] = (10.0, 100.0)
    envelope_levels: tuple[float, ...] = (0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002)
    psi_step: float = 2.0

    def __post_init__(self) -> None:
        require(
            self.dynamics.mode is Mode.flow,
            "mode",
            f"reln compares population gradient flows only; use --mode flow (got {self.dynamics.mode.value})",
        )
        require(self.model.k == 1, "k", f"reln needs a one-feature teacher, k = 1 (got {self.model.k})")
        require(self.model.a_star > 0, "a_star", f"reln needs a teacher weight a* > 0 (got {self.model.a_star!r})")
        require(len(self.strengths) >= 1, "gauge_strength", "give at least one D, e.g. -D 4")
        for D in self.strengths:
            require_finite(D, "gauge_strength", low=0.0)
        require(len(set(self.strengths)) == len(self.strengths), "gauge_strength", "give each D once (got duplicates)")
        require(
            isinstance(self.m, int) and not isinstance(self.m, bool) and self.m >= 2,
            "m",
            f"select needs m ≥ 2 neurons (got {self.m!r})",
        )
        require_finite(self.select_strength, "select_strength", low=0.0)
        require(
            isinstance(self.owner, int) and not isinstance(self.owner, bool) and 0 <= self.owner < self.m,
            "owner",
            f"must be an integer in [0, m-1] = [0, {self.m - 1}] (got {self.owner!r})",
        )
        require(len(self.restart) >= 1, "restart", "give at least one t0/T_spec, e.g. --restart 0.5,1,2,5")
        for k in self.restart:
            require_finite(k, "restart", low=0.0)
            require(k <= 100.0, "restart", f"t0/T_spec must be in (0, 100] (got {k!r})")
        require(len(self.levels) >= 1, "levels", "give at least one loss-reduction factor, e.g. --levels 10,100")
        for f in self.levels:
            require_finite(f, "levels", low=1.0)
            require(f <= 1e8, "levels", f"loss-reduction factors must be in (1, 1e8] (got {f!r})")
        require(len(self.envelope_levels) >= 1, "envelope_levels", "give at least one loss level ℓ")
        for ell in self.envelope_levels:
            require_finite(ell, "envelope_levels", low=0.0)
        require_finite(self.psi_step, "psi_step", low=0.0)
        require(self.psi_step <= 45.0, "psi_step", f"must be in (0, 45] degrees (got {self.psi_step!r})")

    def deltas(self) -> list[float]:
        """δ of the m = 1 runs: +D, −D for each D, in that order."""
        return [s * float(D) for D in self.strengths for s in (1.0, -1.0)]

    def psi_grid_deg(self) -> Array:
        """Gate angles ψ in degrees, from 0 to 90 in steps of ``psi_step`` (90 always included)."""
        n = math.ceil(90.0 / self.psi_step - 1e-9)
        return np.append(self.psi_step * np.arange(n), 90.0)

    def psi_grid(self) -> Array:
        """:meth:`psi_grid_deg` in radians."""
        return np.deg2rad(self.psi_grid_deg())


@dataclass
class RelnRatio:
    """One m = 1 run: T_spec of the ReLU, the final-gate ReLN (and its large-D asymptote, for θ0 = π/2),
    the aligned race (c from c0 to within ε a* of a*); the initial-gate ReLN's T_spec (``None``: it never
    aligns) and end loss against its closed-form floor L_floor(θ0)."""

    D: float
    delta: float
    t_spec_relu: float | None
    t_spec_reln: float | None
    t_spec_race: float
    t_spec_reln_asymptote: float | None
    t_spec_reln_initial: float | None
    loss_end_reln_initial: float
    floor_reln_initial: float


@dataclass
class RelnCurves:
    """Loss curves of one m = 1 run on a shared log-time grid (t = 0 first) and the alignments."""

    D: float
    delta: float
    t: Array
    loss_relu: Array
    loss_reln: Array
    loss_reln_initial: Array
    loss_race: Array
    alignment_relu: Array
    alignment_reln: Array


@dataclass
class RelnSelect:
    """``select``: ReLU run vs the ReLN with the final activation pattern (the ReLU's final owner
    gated by v, non-owners by their final ReLU directions): owners, T_spec, the largest loss gap
    ``max_t |L_ReLN − L_ReLU|/L(0)``, the end non-owner norm P. ``*_shared``: the ReLN whose pathways
    all share the gate v (the gates designate no owner). ``c``/``alpha``: per neuron, ``(len(t), m)``."""

    m: int
    D: float
    designated: int
    owner_relu: int
    owner_reln: int
    t_spec_relu: float | None
    t_spec_reln: float | None
    max_abs_dloss_over_l0: float
    nonowner_norm_end: float
    nonowner_norm_end_relu: float
    owner_reln_shared: int
    t_spec_reln_shared: float | None
    nonowner_norm_end_shared: float
    t: Array
    loss_relu: Array
    loss_reln: Array
    c_relu: Array
    c_reln: Array
    alpha_relu: Array
    alpha_reln: Array


@dataclass
class RelnRestart:
    """A ReLN restarted from the ReLU state at ``t0`` with gates frozen at the current directions:
    elapsed time after t0 to reach ``L(t0)/level`` (ReLU, ReLN; ``None`` if never), relative error of
    the ReLN's, and the lowest loss the frozen gates allow. ``resolved`` is false where ``L(t0)/level``
    is below :data:`RESOLVED_LOSS` (the ReLU has converged to round-off by t0): no times then."""

    D: float
    delta: float
    t0_over_t_spec: float
    t0: float
    loss_t0: float
    gate_floor: float
    level: float
    time_relu: float | None
    time_reln: float | None
    rel_error: float | None
    resolved: bool


@dataclass
class RelnEnvelope:
    """For each level ℓ: the ReLU's time to reach ℓ, the fastest fixed-gate ReLN's time and its ψ
    (degrees), and ``ratio = t_relu/t_best`` (``None`` where either never reaches ℓ)."""

    D: float
    delta: float
    levels: list[float]
    t_relu: list[float | None]
    t_best: list[float | None]
    psi_best_deg: list[float | None]
    ratio: list[float | None]


@dataclass
class RelnFits:
    """Summary numbers: ``favorable_ratio`` = T_spec(ReLN)/T_spec(ReLU) at +D per D;
    ``unfavorable_log_fit`` = (slope, intercept) of T_ReLN(−D)/D against ln D over D ≥ 4
    (``None`` with fewer than two such D); its asymptote ``(4/a*², 2 ln(1/(c0 a* tan θ_ε))/a*²)`` (for
    θ0 = π/2, else ``None``);
    ``unfavorable_intercepts`` = T_ReLN(−D)/D − (4/a*²) ln D per D (→ the asymptote's intercept);
    the largest |T_race(−D)/T_race(+D) − 1|."""

    favorable_ratio: list[float | None]
    unfavorable_log_fit: list[float] | None
    unfavorable_log_asymptote: list[float] | None
    unfavorable_intercepts: list[float | None]
    race_symmetry_error: float


@dataclass
class RelnResult:
    ratios: list[RelnRatio]
    curves: list[RelnCurves]
    select: RelnSelect
    restart: list[RelnRestart]
    envelope: list[RelnEnvelope]
    identity_error: float
    identity_states: int
    fits: RelnFits
    psi_deg: list[float]


# ----------------------------------------------------------------------------------------


def _finite_or_none(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def _options(config: RelnConfig) -> FlowOptions:
    return FlowOptions(
        rtol=config.dynamics.rtol, atol=config.dynamics.rtol * 1e-3, grid_points=config.dynamics.grid_points
    )


def _horizon(config: RelnConfig, deltas: Array) -> float:
    """The ReLU horizon of :func:`auto_horizon`; the final-gate ReLN at −D needs ``≈ 2D ln(D²/c0)``
    more before it converges, which the same cap covers (it stops at ‖∇L‖ ≤ 1e-10 anyway)."""
    return config.dynamics.t_max or 2.0 * auto_horizon(deltas, config.model.c0)


def _time_to(t: Array, loss: Array, level: float) -> float | None:
    return _finite_or_none(first_time_below(t, loss, level))


def _resample(t_from: Array, values: Array, t_to: Array) -> Array:
    """Log-linear interpolation of a positive series (loss) onto ``t_to``; held beyond its end."""
    return np.exp(np.interp(t_to, t_from, np.log(np.maximum(values, 1e-300))))


def _curve_grid(t_first: float, t_last: float) -> Array:
    return np.concatenate([[0.0], np.geomspace(t_first, t_last, CURVE_POINTS - 1)])


def _relu_state_at(tr: Trajectory, b: int, t0: float, config: RelnConfig) -> tuple[Array, Array]:
    """The ReLU state of member ``b`` at exactly ``t0``: from the last saved time before it, flowed
    the rest of the way (a saved grid point is not a restart time)."""
    teacher = config.model.teacher()
    i = int(np.searchsorted(tr.t, t0, side="right") - 1)
    a, W = tr.a[b, i], tr.W[b, i]
    if tr.t[i] == t0 or i == tr.t.size - 1:
        return a, W
    short = gradient_flow(
        a[None], W[None], teacher, t0 - tr.t[i], eps_align=config.model.eps_align, options=_options(config)
    )
    return short.a[0, -1], short.W[0, -1]


def _perpendicular(model: ModelConfig) -> bool:
    """The final-gate asymptotes are derived for a start ⊥ v (θ0 = π/2, the default)."""
    return abs(model.theta0 - math.pi / 2) < 1e-12


def _race_tspec(c0: float, delta: float, a_star: float, eps_align: float) -> float:
    """The race's analogue of T_spec: the time for ``c`` to come within ``ε a*`` of ``a*`` (0 if it
    starts there)."""
    if abs(c0 - a_star) <= eps_align * a_star:
        return 0.0
    c_end = a_star * (1.0 - eps_align if c0 < a_star else 1.0 + eps_align)
    return race_time(c0, c_end, delta, a_star)


def _ratios_and_curves(
    config: RelnConfig, relu: Trajectory, final: Trajectory, initial: Trajectory, deltas: Array
) -> tuple[list[RelnRatio], list[RelnCurves]]:
    model, teacher = config.model, config.model.teacher()
    v = teacher.unit_directions()[0]
    u0 = initial_direction(teacher, model.theta0)
    a_star = float(teacher.coefficients[0] * np.linalg.norm(teacher.directions[0]))
    geo_final, geo_initial = reln_geometry(v[None], teacher), reln_geometry(u0[None], teacher)
    loss_relu = population_loss(relu.a, relu.W, teacher)
    loss_final, loss_initial = trajectory_loss(final, geo_final), trajectory_loss(initial, geo_initial)
    align_relu = alignment(relu.W, teacher)[0][..., 0]  # (runs, n_t): m = 1
    align_final = alignment(final.W, teacher)[0][..., 0]
    ratios, curves = [], []
    for b, delta in enumerate(deltas):
        t_relu = _finite_or_none(relu.crossing_times[b, 0])
        t_reln = _finite_or_none(final.crossing_times[b, 0])
        t_race = _race_tspec(model.c0, float(delta), a_star, model.eps_align)
        ratios.append(
            RelnRatio(
                D=abs(float(delta)),
                delta=float(delta),
                t_spec_relu=t_relu,
                t_spec_reln=t_reln,
                t_spec_race=t_race,
                t_spec_reln_asymptote=final_gate_tspec_asymptote(float(delta), model.c0, model.eps_align, a_star)
                if _perpendicular(model)
                else None,
                t_spec_reln_initial=_finite_or_none(initial.crossing_times[b, 0]),
                loss_end_reln_initial=float(loss_initial[b, -1]),
                floor_reln_initial=float(gate_floor(model.theta0, a_star)),
            )
        )
        known = [x for x in (t_relu, t_reln, t_race) if x]  # positive times (t_race is 0 if c0 ≈ a*)
        grid = _curve_grid(1e-3 * min(known, default=1.0), 20.0 * max(known, default=1.0))
        curves.append(
            RelnCurves(
                D=abs(float(delta)),
                delta=float(delta),
                t=grid,
                loss_relu=_resample(relu.t, loss_relu[b], grid),
                loss_reln=_resample(final.t, loss_final[b], grid),
                loss_reln_initial=_resample(initial.t, loss_initial[b], grid),
                loss_race=race_loss(race_coefficient(grid, model.c0, float(delta), a_star), a_star),
                alignment_relu=np.interp(grid, relu.t, align_relu[b]),
                alignment_reln=np.interp(grid, final.t, align_final[b]),
            )
        )
    return ratios, curves


def _restarts(config: RelnConfig, relu: Trajectory, deltas: Array) -> list[RelnRestart]:
    teacher = config.model.teacher()
    loss_relu = population_loss(relu.a, relu.W, teacher)
    out: list[RelnRestart] = []
    for b, delta in enumerate(deltas):
        t_spec = relu.crossing_times[b, 0]
        if not np.isfinite(t_spec):
            continue
        t0s = [k * float(t_spec) for k in config.restart]
        states = [_relu_state_at(relu, b, t0, config) for t0 in t0s]
        a0 = np.stack([s[0] for s in states])
        W0 = np.stack([s[1] for s in states])
        gates = W0  # frozen at the current directions: the ReLN equals the ReLU at t0
        geo = reln_geometry(gates, teacher)
        run = reln_flow(
            a0,
            W0,
            gates,
            teacher,
            _horizon(config, np.array([delta])),
            eps_align=config.model.eps_align,
            options=_options(config),
        )
        loss_reln = trajectory_loss(run, geo)
        floors = reln_floor(geo)
        for r, (k, t0) in enumerate(zip(config.restart, t0s, strict=True)):
            L0 = float(population_loss(a0[r], W0[r], teacher))
            after = relu.t >= t0
            for level in config.levels:
                target = L0 / level
                resolved = target >= RESOLVED_LOSS
                el_relu = el_reln = err = None
                if resolved:
                    t_relu = _time_to(
                        np.concatenate([[t0], relu.t[after]]), np.concatenate([[L0], loss_relu[b, after]]), target
                    )
                    el_relu = None if t_relu is None else t_relu - t0
                    el_reln = _time_to(run.t, loss_reln[r], target)
                    if el_relu is not None and el_reln is not None and el_relu > 0:
                        err = (el_reln - el_relu) / el_relu
                out.append(
                    RelnRestart(
                        D=abs(float(delta)),
                        delta=float(delta),
                        t0_over_t_spec=float(k),
                        t0=float(t0),
                        loss_t0=L0,
                        gate_floor=float(floors[r]),
                        level=float(level),
                        time_relu=el_relu,
                        time_reln=el_reln,
                        rel_error=err,
                        resolved=resolved,
                    )
                )
    return out


def _envelope(config: RelnConfig, relu: Trajectory, deltas: Array) -> list[RelnEnvelope]:
    teacher = config.model.teacher()
    v = teacher.unit_directions()[0]
    u0 = initial_direction(teacher, config.model.theta0)
    # the gate rotates from v towards the student's start u0, in their plane (for θ0 = 0 any ⊥ axis)
    perp = u0 - (u0 @ v) * v
    perp = perp / np.linalg.norm(perp) if np.linalg.norm(perp) > 1e-12 else initial_direction(teacher, math.pi / 2)
    psi, psi_deg = config.psi_grid(), config.psi_grid_deg()
    gates = (np.cos(psi)[:, None] * v + np.sin(psi)[:, None] * perp)[:, None, :]  # (n_ψ, 1, d)
    geo = reln_geometry(gates, teacher)
    loss_relu = population_loss(relu.a, relu.W, teacher)
    out = []
    for b, delta in enumerate(deltas):
        a0, W0 = duplicates(config.model, np.full((psi.size, 1), float(delta)))
        run = reln_flow(
            a0,
            W0,
            gates,
            teacher,
            _horizon(config, np.array([delta])),
            eps_align=config.model.eps_align,
            options=_options(config),
        )
        loss = trajectory_loss(run, geo)
        t_relu, t_best, psi_best, ratio = [], [], [], []
        for ell in config.envelope_levels:
            tr = _time_to(relu.t, loss_relu[b], ell)
            times = np.array([first_time_below(run.t, loss[i], ell) for i in range(psi.size)])
            ok = np.isfinite(times)
            best = int(np.argmin(np.where(ok, times, np.inf))) if np.any(ok) else None
            tb = None if best is None else float(times[best])
            t_relu.append(tr)
            t_best.append(tb)
            psi_best.append(None if best is None else float(psi_deg[best]))
            ratio.append(None if tr is None or tb is None or tb == 0 else tr / tb)
        out.append(
            RelnEnvelope(abs(float(delta)), float(delta), list(config.envelope_levels), t_relu, t_best, psi_best, ratio)
        )
    return out


def _select(config: RelnConfig) -> tuple[RelnSelect, list[tuple[Array, Array]]]:
    model, teacher = config.model, config.model.teacher()
    deltas = owner_imbalances(config.m, config.select_strength, config.owner)
    a0, W0 = duplicates(model, deltas[None, :])
    t_max = _horizon(config, deltas)
    relu = gradient_flow(a0, W0, teacher, t_max, eps_align=model.eps_align, options=_options(config))
    c_relu, U_relu = function_coordinates(relu.a[0], relu.W[0])
    alpha_relu, _ = alignment(relu.W[0], teacher)
    owner_relu, _ = final_owner(c_relu[-1], alpha_relu[-1], model.eps_align)
    # the final activation pattern: the owner's half-space is the teacher's, the others keep theirs
    v = teacher.unit_directions()[0]
    gates = U_relu[-1].copy()
    gates[int(owner_relu)] = v
    geo = reln_geometry(gates, teacher)
    run = reln_flow(a0, W0, gates, teacher, t_max, eps_align=model.eps_align, options=_options(config))
    c_reln, _ = function_coordinates(run.a[0], run.W[0])
    alpha_reln, _ = alignment(run.W[0], teacher)
    owner_reln, _ = final_owner(c_reln[-1], alpha_reln[-1], model.eps_align)
    loss_relu = population_loss(relu.a[0], relu.W[0], teacher)
    loss_reln = trajectory_loss(run, geo)[0]
    t_end = max(relu.t[-1], run.t[-1])
    grid = _curve_grid(min(relu.t[1], run.t[1]), t_end)
    L_relu_g = _resample(relu.t, loss_relu, grid)
    L_reln_g = _resample(run.t, loss_reln, grid)
    dense = np.unique(np.concatenate([relu.t, run.t]))
    dloss = np.max(np.abs(_resample(relu.t, loss_relu, dense) - _resample(run.t, loss_reln, dense))) / loss_relu[0]
    keep = np.arange(config.m) != int(owner_reln)
    # one gate v shared by every pathway: the gates designate no owner, only the gauges can
    shared_gates = np.tile(v, (config.m, 1))
    shared = reln_flow(a0, W0, shared_gates, teacher, t_max, eps_align=model.eps_align, options=_options(config))
    c_sh, _ = function_coordinates(shared.a[0, -1], shared.W[0, -1])
    owner_sh, _ = final_owner(c_sh, alignment(shared.W[0, -1], teacher)[0], model.eps_align)
    keep_sh = np.arange(config.m) != int(owner_sh)

    def on_grid(t: Array, series: Array) -> Array:
        return np.stack([np.interp(grid, t, series[:, j]) for j in range(series.shape[1])], axis=1)

    sel = RelnSelect(
        m=config.m,
        D=float(config.select_strength),
        designated=config.owner,
        owner_relu=int(owner_relu),
        owner_reln=int(owner_reln),
        t_spec_relu=_finite_or_none(relu.crossing_times[0, owner_relu]),
        t_spec_reln=_finite_or_none(run.crossing_times[0, owner_reln]),
        max_abs_dloss_over_l0=float(dloss),
        nonowner_norm_end=float(pathway_norm(run.a[0, -1], run.W[0, -1], geo, keep)),
        nonowner_norm_end_relu=float(nonowner_norm(c_relu[-1], U_relu[-1], int(owner_relu))),
        owner_reln_shared=int(owner_sh),
        t_spec_reln_shared=_finite_or_none(shared.crossing_times[0, owner_sh]),
        nonowner_norm_end_shared=float(
            pathway_norm(shared.a[0, -1], shared.W[0, -1], reln_geometry(shared_gates, teacher), keep_sh)
        ),
        t=grid,
        loss_relu=L_relu_g,
        loss_reln=L_reln_g,
        c_relu=on_grid(relu.t, c_relu),
        c_reln=on_grid(run.t, c_reln),
        alpha_relu=on_grid(relu.t, alpha_relu),
        alpha_reln=on_grid(run.t, alpha_reln),
    )
    states = [(relu.a[0, i], relu.W[0, i]) for i in np.linspace(0, relu.t.size - 1, 9).astype(int)]
    return sel, states


def _fits(config: RelnConfig, ratios: list[RelnRatio]) -> RelnFits:
    model = config.model
    by = {r.delta: r for r in ratios}
    fav = []
    for D in config.strengths:
        r = by[float(D)]
        fav.append(r.t_spec_reln / r.t_spec_relu if r.t_spec_relu and r.t_spec_reln is not None else None)
    big = [D for D in config.strengths if D >= 4.0 and by[-float(D)].t_spec_reln is not None]
    fit = None
    if len(big) >= 2:
        y = [by[-float(D)].t_spec_reln / D for D in big]  # type: ignore[operator]
        slope, intercept = np.polyfit(np.log(big), y, 1)
        fit = [float(slope), float(intercept)]
    a_star = model.a_star
    tan_eps = math.sqrt(1.0 - (1.0 - model.eps_align) ** 2) / (1.0 - model.eps_align)
    slope = 4.0 / a_star**2
    asym = [slope, 2.0 * math.log(1.0 / (model.c0 * a_star * tan_eps)) / a_star**2] if _perpendicular(model) else None
    sym = max(
        abs(by[-float(D)].t_spec_race / by[float(D)].t_spec_race - 1.0) if by[float(D)].t_spec_race else 0.0
        for D in config.strengths
    )
    intercepts = [
        None if by[-float(D)].t_spec_reln is None else by[-float(D)].t_spec_reln / D - slope * math.log(D)  # type: ignore[operator]
        for D in config.strengths
    ]
    return RelnFits(fav, fit, asym, intercepts, float(sym))


def run_reln(config: RelnConfig, progress: Progress | None = None) -> RelnResult:
    """Every comparison of ``config``; see the module docstring."""
    model, teacher = config.model, config.model.teacher()
    deltas = np.array(config.deltas())
    a0, W0 = duplicates(model, deltas[:, None])
    t_max = _horizon(config, deltas)
    u0 = initial_direction(teacher, model.theta0)
    v = teacher.unit_directions()[0]
    opts = _options(config)
    steps = 6
    tick = (lambda i: progress(i / steps)) if progress is not None else (lambda i: None)

    relu = gradient_flow(a0, W0, teacher, t_max, eps_align=model.eps_align, options=opts)
    tick(1)
    final = reln_flow(a0, W0, v[None], teacher, t_max, eps_align=model.eps_align, options=opts)
    initial = reln_flow(a0, W0, u0[None], teacher, t_max, eps_align=model.eps_align, options=opts)
    tick(2)
    ratios, curves = _ratios_and_curves(config, relu, final, initial, deltas)
    select, states = _select(config)
    tick(3)
    restart = _restarts(config, relu, deltas)
    tick(4)
    envelope = _envelope(config, relu, deltas)
    tick(5)
    # the identity ReLN(gates = current directions) = ReLU, at states along every ReLU run here
    states += [
        (relu.a[b, i], relu.W[b, i]) for b in range(deltas.size) for i in np.linspace(0, relu.t.size - 1, 9).astype(int)
    ]
    # absolute errors in units of the loss scale ½E[y²] (the loss of f = 0)
    scale = 0.5 * float(
        teacher.coefficients @ arccos_kernel(teacher.directions, teacher.directions) @ teacher.coefficients
    )
    identity = max(max(gate_identity_error(a, W, teacher)) for a, W in states) / scale
    tick(6)
    return RelnResult(
        ratios=ratios,
        curves=curves,
        select=select,
        restart=restart,
        envelope=envelope,
        identity_error=float(identity),
        identity_states=len(states),
        fits=_fits(config, ratios),
        psi_deg=[float(x) for x in config.psi_grid_deg()],
    )
