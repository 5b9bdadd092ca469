"""What one cell of ``gaugecli phase`` records, every number read at the cell's own horizon.

A cell is one run of ``simulate`` or ``select`` (with, for the ratio and the gap, the run of the
opposite gauge beside it). Its **horizon** ``t_h`` is the one that command gives the same run
alone: ``t_max`` when given, else :func:`~gaugecli.experiments.config.auto_horizon` of its δ and c0.
The solver's output grid holds ``t_h`` exactly (a declared time), and every metric is read there
or located by root-finding before it — never off a solver step:

* ``t-spec``: ``T_spec`` of the owner at ``t_h`` (its crossing of ``α = 1 − ε_align``, root-found on
  the dense output); NaN if it has not aligned by ``t_h``;
* ``ratio``: ``T_spec(−D) / T_spec(+D)`` of the cell's ``±D`` pair (``simulate`` only);
* ``owner-share``: ``c_o / Σ_j |c_j|`` at ``t_h``, ``o`` the owner at ``t_h`` (1 for one neuron);
* ``p-end``: the non-owners' functional norm ``P(t_h)``;
* ``outcome``: the class of :data:`OUTCOMES` (defined there);
* ``reaction-share``: ``∫₀^{t_h} R dt / ∫₀^{t_h} (R + T) dt`` (docs/theory.md §8; Simpson in ``ln t``);
* ``gap``: the clock-free gap ``Δ = max_ℓ |α₊(ℓ) − α₋(ℓ)|`` between the ``±D`` pair's owners, over
  their common loss range above :data:`GAP_FLOOR` (``simulate`` only; C5 asks Δ ≥ :data:`GAP_LEVEL`);
* ``kernel-change``: ``‖K(t_h) − K(0)‖_F / ‖K(0)‖_F`` of the tangent kernel
  (:mod:`gaugecli.core.analyses.tangent`) on the probes of :mod:`gaugecli.experiments.phase.kernel`:
  its relative change, a growth in size counted as fully as a turn (population flow only: it needs
  the parameters at ``t_h``);
* ``kernel-distance-cos``: Kunin et al.'s ``S = 1 − ⟨K(t_h), K(0)⟩_F / (‖K(t_h)‖_F ‖K(0)‖_F)`` of the
  same kernel on the same probes: how far it turned, whatever its size (0 lazy, towards 1 rich;
  population flow); in a finite-sample run measured at ``checkpoints`` (``simulate --checkpoints``,
  the ``kunin`` preset), their own: the empirical NTK on the run's training set at its horizon;
* ``exponent`` and ``constant``: C4's ``T_spec(−D)/T_spec(+D) ≈ C·D^q`` (``q = 2`` for ReLU,
  ``1 + 1/p`` at degree ``p``), from the cell's ``±D`` pair run at each large strength
  ``D₁ < … < D_K`` of ``limit_strengths`` (:func:`limit_constants`): the exponent is the local slope
  ``ln(r_K/r_{K−1}) / ln(D_K/D_{K−1})`` of the ratio ``r`` between the two largest D, and the
  constant is ``C = lim_{D→∞} r(D)/D^q``, Richardson-extrapolated in ``1/D`` from the two largest D.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaugecli.core.analyses.observables import RunObservables
from gaugecli.core.analyses.separation import local_slopes
from gaugecli.core.analyses.tangent import kernel_measures
from gaugecli.core.model.gauge import function_coordinates
from gaugecli.core.model.metrics import (
    clock_free_gap,
    final_owner,
    log_grid_nodes,
    log_time_integral,
    log_time_integral_rows,
    nonowner_norm,
)
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.reduced.limits import richardson_limit
from gaugecli.core.types import Array
from gaugecli.experiments.phase.kernel import probes
from gaugecli.experiments.phase.lean import Seen
from gaugecli.experiments.prune import PRUNED_LEVEL

OUTCOMES = ("exclusive", "shared", "unpruned", "lost", "no owner", "symmetric start")
"""Outcome classes, by their index in the ``outcome`` map; the first that applies, in this order:

5. ``symmetric start``: the run has no unique owner — its initial condition has a tie or an unstable
   group of equal neurons that round-off splits (:func:`gaugecli.core.analyses.symmetry.symmetry_report`) —
   unless the designated neuron is distinct from every other at ``t = 0`` and another neuron owns:
   then the others lead (round-off only picks which of them) and the class is ``lost``;
4. ``no owner``: no neuron has aligned (``α_j < 1 − ε_align`` for all j) by ``t_h``;
3. ``lost``: the owner at ``t_h`` is not the designated neuron (``select``: the neuron ``owner``, the
   one given ``+D`` or ``owner-delta``; ``simulate``: the unique ``argmax_j δ_j``);
0. ``exclusive``: the designated neuron owns and the others are pruned, ``P(t_h) ≤`` :data:`PRUNED_LEVEL`;
1. ``shared``: the designated neuron owns, ``P(t_h) >`` :data:`PRUNED_LEVEL`, and a non-owner is
   aligned too (``α_j ≥ 1 − ε_align``): non-owners with ``δ > 0`` co-align and keep part of the
   coefficient, claim C7's boundary;
2. ``unpruned``: the designated neuron owns, ``P(t_h) >`` :data:`PRUNED_LEVEL`, and no non-owner is
   aligned: the others still carry function they have not shed by the horizon (visibly perturbed
   starts, δ just below 0 where pruning takes ~3.3/|δ|).
"""
EXCLUSIVE, SHARED, UNPRUNED, LOST, NO_OWNER, SYMMETRIC = range(len(OUTCOMES))
GAP_LEVEL = 0.3
"""C5: the clock-free gap of the ``±D`` pair stays ≥ 0.3 for every D ≥ 4 (drawn as a contour)."""
GAP_FLOOR = 1e-14
"""Loss levels at or below this are round-off of the closed-form loss (as in ``gaugecli verify``)."""


def _apart(seen: Observed, neuron: int) -> bool:
    """Whether ``neuron`` starts distinct from every other neuron (no exact tie with it at ``t = 0``);
    false when the start's parameters are not at hand (finite-sample runs)."""
    from gaugecli.core.analyses.symmetry import equal_groups

    if seen.start is None:
        return False
    return not any(neuron in group for group in equal_groups(Network(*seen.start)))


@dataclass
class CellMetrics:
    """Every metric of one cell (``None`` where undefined), read at its horizon ``horizon``.
    ``owner``: the unique owner at the horizon (``None``: no unique owner); ``computed_owner``: the
    computed run's, whatever decided it; ``designated``: the neuron the gauge designates (``None``
    when no single one is); ``partner_t_spec``: ``T_spec`` of the opposite gauge's run (pair only)."""

    horizon: float
    t_spec: float | None
    owner: int | None
    computed_owner: int
    designated: int | None
    specialized: bool
    symmetric_start: bool
    owner_share: float
    p_end: float
    outcome: int
    reaction_share: float | None
    final_loss: float
    kernel_change: float | None = None
    kernel_distance_cos: float | None = None
    partner_t_spec: float | None = None
    gap: float | None = None
    limit_t_spec: list[list[float | None]] | None = None
    exponent: float | None = None
    constant: float | None = None


@dataclass
class Observed:
    """One run of a chunk as its metrics need it: its observables, the index ``at`` of its horizon
    on their time grid, the declared times of the chunk's grid off its log grid (``inserted``: crossings
    and the runs' horizons, left out of the Simpson nodes — but its own horizon's, which is always kept;
    one array for every run of a chunk), and — population flow — its parameters
    at ``t = 0`` and at the horizon (``(a (m,), W (m, d))``, input weights in ``R^d``)."""

    run: RunObservables | Seen
    at: int
    inserted: Array
    start: tuple[Array, Array] | None = None
    end: tuple[Array, Array] | None = None


def _nodes(seen: Observed) -> Array:
    """The samples the run's integrals take: the log grid's up to its horizon, and the horizon's."""
    run, i = seen.run, seen.at
    keep = np.asarray(log_grid_nodes(run.t, seen.inserted), bool) & (run.t <= run.t[i])
    keep[i] = True
    return keep


def simpson_nodes(t: Array, inserted: Array, ats: Array) -> Array:
    """``(B, n_t)``: :func:`_nodes` of runs on one grid ``t`` with one array of ``inserted`` times, their horizons
    at the indices ``ats (B,)``."""
    base = np.asarray(log_grid_nodes(t, inserted), bool)
    keep = base[None, :] & (t[None, :] <= t[ats][:, None])
    keep[np.arange(ats.size), ats] = True
    return keep


def spent_all(seen: list[Observed]) -> list[tuple[float, float]]:
    """``(∫₀^{t_h} R dt, ∫₀^{t_h} T dt)`` of each run, as :func:`measure` reads them (Simpson in ``ln t`` on
    :func:`_nodes`); where the runs share one time grid and one array of inserted times (a chunk's
    ensemble) all at once, by :func:`~gaugecli.core.model.metrics.log_time_integral_rows` (the same rule,
    summed in another order: equal to a few ε of each integral)."""
    if not seen:
        return []
    t, inserted = seen[0].run.t, seen[0].inserted
    if any(s.run.t is not t or s.inserted is not inserted for s in seen):
        return [_spent_alone(s) for s in seen]
    keep = simpson_nodes(t, inserted, np.array([s.at for s in seen]))
    series = np.stack([np.stack([s.run.reaction for s in seen]), np.stack([s.run.transport for s in seen])])
    r, q = log_time_integral_rows(t, series, keep)
    return list(zip(r.tolist(), q.tolist(), strict=True))


def _spent_alone(seen: Observed) -> tuple[float, float]:
    run, keep = seen.run, _nodes(seen)
    return float(log_time_integral(run.t[keep], run.reaction[keep])), float(
        log_time_integral(run.t[keep], run.transport[keep])
    )


def owners_all(seen: list[Observed], eps_align: float) -> list[tuple[int, bool] | None]:
    """``(owner, specialized)`` of each run at its horizon, as :func:`measure` finds them (:func:`final_owner` of
    its coefficients and alignments there), for a chunk's runs at once (the same comparisons and argmax row by
    row: the same integers); ``None`` for each where their widths differ (each then finds its own)."""
    if len({s.run.coefficient.shape[-1] for s in seen}) != 1:
        return [None] * len(seen)
    c = np.stack([s.run.coefficient[s.at] for s in seen])
    alpha = np.stack([s.run.alignment[s.at] for s in seen])
    owners, specialized = final_owner(c, alpha, eps_align)
    return list(zip(owners.tolist(), specialized.tolist(), strict=True))


def measure(
    seen: Observed,
    model: Model,
    eps_align: float,
    designated: int | None,
    *,
    kernels: bool = True,
    spent: tuple[float, float] | None = None,
    owned: tuple[int, bool] | None = None,
) -> CellMetrics:
    """The metrics of one run at its horizon (the pair's are added by :func:`with_partner`);
    ``kernels``: the tangent kernel's change and distance too (else ``None``: no map asked for them);
    ``spent``: its integrals ``∫R dt`` and ``∫T dt`` where :func:`spent_all` has them already; ``owned``: its
    ``(owner, specialized)`` where :func:`owners_all` has them."""
    run, i = seen.run, seen.at
    t_h = float(run.t[i])
    c, alpha = run.coefficient[i], run.alignment[i]
    if owned is None:
        owner_arr, spec_arr = final_owner(c, alpha, eps_align)
        owned = int(owner_arr), bool(spec_arr)
    owner, specialized = owned
    if owner == run.computed_owner:
        p_end = float(run.nonowner_norm[i])
    else:  # the owner at t_h is not the run's final one: P for it, from the parameters at t_h
        if seen.end is None:
            raise ValueError("a run read before its end needs its parameters there")
        a, W = seen.end
        act = model.activation
        p_end = float(
            nonowner_norm(*function_coordinates(Network(a, W), model.degree), owner, act)
            if act.homogeneous
            else nonowner_norm(a, W, owner, act)
        )
    crossing = float(run.crossing_times[owner])
    t_spec = None if run.t_spec is None or not np.isfinite(crossing) or crossing > t_h else crossing
    symmetric = bool(run.symmetric_start or run.owner is None)
    if symmetric and specialized and designated is not None and owner != designated and _apart(seen, designated):
        # the tie is among the others (they lead, and round-off picks which of them owns): the
        # designated neuron, distinct from every other at t = 0, lost — whichever of them won
        symmetric = False
    if symmetric:
        outcome = SYMMETRIC
    elif not specialized:
        outcome = NO_OWNER
    elif owner != designated:
        outcome = LOST
    elif p_end <= PRUNED_LEVEL:
        outcome = EXCLUSIVE
    else:
        coaligned = np.delete(alpha, owner) >= 1.0 - eps_align
        outcome = SHARED if bool(np.any(coaligned)) else UNPRUNED
    spent_r, spent_t = _spent_alone(seen) if spent is None else spent
    total = spent_r + spent_t
    change = turn = None
    if not kernels:
        pass
    elif seen.start is not None and seen.end is not None:
        start, end, X = Network(*seen.start), Network(*seen.end), probes(seen.start[1].shape[-1])
        change, turn = kernel_measures(start, end, X, model.activation)
    elif run.kernel_distance is not None:  # a finite-sample run measured at checkpoints: S on its training set
        turn = float(run.kernel_distance[-1])
    return CellMetrics(
        horizon=t_h,
        t_spec=t_spec,
        owner=None if symmetric else owner,
        computed_owner=owner,
        designated=designated,
        specialized=specialized,
        symmetric_start=symmetric,
        owner_share=float(c[owner] / np.sum(np.abs(c))),
        p_end=p_end,
        outcome=outcome,
        reaction_share=spent_r / total if total > 0 else None,
        final_loss=float(run.loss[i]),
        kernel_change=change,
        kernel_distance_cos=turn,
    )


def with_partner(cell: CellMetrics, seen: Observed, partner: Observed, partner_metrics: CellMetrics) -> CellMetrics:
    """``cell`` with its opposite-gauge run's ``T_spec`` and the clock-free gap between the two."""
    p, q = seen.run, partner.run
    i, j = seen.at + 1, partner.at + 1
    gap = clock_free_gap(
        p.loss[:i],
        p.alignment[:i, cell.computed_owner],
        q.loss[:j],
        q.alignment[:j, partner_metrics.computed_owner],
        floor=GAP_FLOOR,
    )
    cell.partner_t_spec = partner_metrics.t_spec
    cell.gap = None if np.isnan(gap) else float(gap)
    return cell


CORRECTION_ORDER = {"relu": 2.0}
"""The order ``k`` of the corrections ``r(D)/D^q = C + O(D^{−k})``, by activation: 2 for ReLU — fig3
measures 1.994 (``ratio-correction-order`` of its sidecar) and ``gaugecli.core.reduced.planar`` has
``O(1/D²)`` corrections; any other activation 1, the conservative order of fig8's constants."""


def limit_constants(strengths: Array, plus: Array, minus: Array, model: Model) -> tuple[float, float]:
    """C4's ``(exponent, constant)`` from ``T_spec(±D)`` at increasing ``strengths`` (NaN where a run did
    not align): ``exponent`` the local slope :func:`~gaugecli.core.analyses.separation.local_slopes` of
    ``r = T_spec(−D)/T_spec(+D)`` between the two largest D; ``constant`` ``C = lim r(D)/D^q``,
    ``q = 1 + 1/p`` (2 for ReLU), by :func:`~gaugecli.core.reduced.limits.richardson_limit` of ``r/D^q`` over
    the two largest D at the order :data:`CORRECTION_ORDER`. For ReLU ``C`` is the ratio of the
    reduced equations' limits ``unfavorable_limit(θ0) / favorable_limit(c0, θ0)``
    (:mod:`gaugecli.core.reduced.limits`); from D = 16 and 64 the extrapolation meets it to ~1e-6."""
    D = np.asarray(strengths, float)
    r = np.asarray(minus, float) / np.asarray(plus, float)
    if not bool(np.all(np.isfinite(r))) or D.size < 2:
        return float("nan"), float("nan")
    _, slopes = local_slopes(D, r)
    p = model.degree or 1
    order = CORRECTION_ORDER.get(model.activation.name, 1.0)
    constant, _ = richardson_limit(D, r / D ** (1.0 + 1.0 / p), order=order)
    return float(slopes[-1]), float(constant)


def with_limits(
    cell: CellMetrics, strengths: tuple[float, ...], plus: list[float | None], minus: list[float | None], model: Model
) -> CellMetrics:
    """``cell`` with ``T_spec(±D)`` at the large ``strengths`` and C4's exponent and constant."""
    nan = float("nan")
    exponent, constant = limit_constants(
        np.array(strengths), np.array([nan if t is None else t for t in plus]),
        np.array([nan if t is None else t for t in minus]), model,
    )  # fmt: skip
    cell.limit_t_spec = [list(plus), list(minus)]
    cell.exponent = None if np.isnan(exponent) else exponent
    cell.constant = None if np.isnan(constant) else constant
    return cell
