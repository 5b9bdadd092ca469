"""(a) Visible perturbations of size ε of the duplicates — random, or adversarial (the favorable
neuron turned away from the teacher and given a smaller coefficient) — over an (ε, D) grid:
the selection probability and the threshold ε*(D)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from gaugecli.core.frames import View
from gaugecli.core.model import gauge
from gaugecli.core.model.gauge import owner_imbalances
from gaugecli.core.model.state import Network
from gaugecli.core.types import PointRunner, Progress
from gaugecli.experiments.common import run_ensemble, run_serially
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.params import Mode
from gaugecli.experiments.perturb.config import PerturbConfig
from gaugecli.experiments.perturb.fits import wilson_interval
from gaugecli.experiments.select import selected


def perturbed_duplicates(
    model: ModelConfig, deltas: np.ndarray, eps: float, *, adversarial: bool, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`gaugecli.core.model.gauge.perturbed_duplicates` for the start of ``model``."""
    return gauge.perturbed_duplicates(
        model.build(), deltas, eps, c0=model.c0, theta0=model.theta0, adversarial=adversarial, seed=seed
    )


@dataclass
class VisiblePoint:
    """One run of the ε grid. ``success``: the ``+D`` neuron is the unique aligned owner (it may
    share the feature); ``favorable_share`` = its final ``c/a*`` (1: it carries the feature alone);
    ``nonowner_norm_end`` = P at the run's end ``t_end`` for its computed owner; ``gauge_drift``
    = :func:`gauge_drift`. Selection is
    *exclusive* where it succeeds and ``P(t_end) ≤`` :data:`EXCLUSIVE_LEVEL`."""

    strength: float
    eps: float
    seed: int
    owner: int
    success: bool
    favorable_share: float | None = None
    nonowner_norm_end: float | None = None
    t_end: float | None = None
    gauge_drift: float | None = None

    @property
    def exclusive(self) -> bool:
        return self.success and self.nonowner_norm_end is not None and self.nonowner_norm_end <= EXCLUSIVE_LEVEL


EXCLUSIVE_LEVEL = 1e-6
"""P at the end of the run below which selection is exclusive (claim C7's pruning level at the
default horizon): above it the other neuron still carries function — a majority, not a selection."""


@dataclass
class VisibleSweep:
    """The (ε, D) grid: ``probability[i][k]`` = share of seeds selecting at ``strengths[i]``,
    ``eps[k]``; ``threshold[i]`` = ε*(D) (``None``: never failed); ``bracket[i]`` = the
    last ``(selects, fails)`` pair of ε around it (adversarial: bisected, see :func:`visible_row`);
    ``wall`` = ``π − θ0``, the largest adversarial ε (the favorable neuron anti-aligned)."""

    VIEW: ClassVar[View] = View(
        dims={
            "eps": ("eps",),
            "strengths": ("strengths",),
            "probability": ("strengths", "eps"),
            "threshold": ("strengths",),
            "bracket": ("strengths", "end"),
        },
        records={"points": "point"},
    )
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

    kind: str
    eps: list[float]
    strengths: list[float]
    probability: list[list[float]]
    threshold: list[float | None]
    points: list[VisiblePoint]
    bracket: list[list[float] | None] = field(default_factory=list)
    wall: float | None = None


def own_coordinates(model: ModelConfig, theta0: Network) -> tuple[ModelConfig, Network]:
    """The members of ``θ0`` (``a (B, m)``, ``W (B, m, d)``) each in the coordinates of its own invariant subspace
    ``span(v_1 … v_k, w_1 … w_m)`` (:func:`~gaugecli.experiments.predict.starts.subspace_coordinates`:
    the same Gram matrix with each other and with the teacher ``e_1 … e_k``), and the model in those
    ``k + m`` dimensions; ``model`` and ``θ0`` themselves where that gains nothing (``k + m ≥ d``) or
    where a member starts with an exact tie (two neurons of equal ``(a_j, w_j)``,
    :func:`~gaugecli.core.analyses.symmetry.equal_groups`).

    Why: random perturbations turn each member's neurons in its own random directions, so together
    the ensemble spans all of ``R^d``, the one subspace :func:`~gaugecli.experiments.common.integrate_ensemble`
    finds for it; in their own ``k + m`` coordinates the members integrate as one ensemble of
    ``m(k + m + 1)`` unknowns each instead of ``m(d + 1)`` (m = 2, d = 16: 8 instead of 34), the flow
    being the same (it depends on inner products only). A tied start keeps its coordinates: its
    winner is decided by round-off (docs/design.md, "Symmetric starts"), and the rotation's round-off
    would make its equal neurons merely close, hiding the tie from the run's symmetry report."""
    from gaugecli.core.analyses.symmetry import equal_groups
    from gaugecli.experiments.predict.starts import subspace_coordinates

    _, m, d = theta0.W.shape
    k = model.k
    if k + m >= d or any(equal_groups(theta0[b]) for b in range(theta0.a.shape[0])):
        return model, theta0
    return replace(model, d=k + m), Network(theta0.a, np.stack([subspace_coordinates(W, k) for W in theta0.W]))


def _selects(
    model: ModelConfig, flow: DynamicsConfig, deltas: np.ndarray, eps: list[float], adversarial: bool, seeds
) -> tuple[list[bool], list[int], list[tuple[float, float, float, float]]]:
    inits = [perturbed_duplicates(model, deltas, e, adversarial=adversarial, seed=s) for e in eps for s in seeds]
    theta0 = Network(np.stack([i[0] for i in inits]), np.stack([i[1] for i in inits]))
    if not adversarial:  # adversarial starts all lie in span(v, u0): one subspace of 2 dimensions already
        model, theta0 = own_coordinates(model, theta0)
    runs = run_ensemble(model, flow, theta0)
    fav = int(np.argmax(deltas))
    ends = [
        (float(r.coefficient[-1, fav]) / model.a_star, float(r.nonowner_norm[-1]), float(r.t[-1]), gauge_drift(r))
        for r in runs
    ]
    return [selected(r, fav) for r in runs], [r.computed_owner for r in runs], ends


def gauge_drift(run: Any) -> float:
    """``max_{t, j} |δ_j(t) − δ_j(0)| / max_j |δ_j(0)|``: how well the run held its gauge (conserved
    by the flow, C2). Random perturbations give coefficients up to ``(c0/m) e^{ε|ζ|}``, and δ = ±D is
    a difference of squares of that size: at ``c ≈ 10¹³`` (ε = 16) it drifts by 0.5–2.4 % of D, by round-off
    (the share moves with the CPU's arithmetic path)."""
    delta = np.asarray(run.imbalance, dtype=float)
    return float(np.max(np.abs(delta - delta[0])) / np.max(np.abs(delta[0])))


@dataclass(frozen=True)
class VisibleRowJob:
    """One gauge strength D of the (ε, D) grid: the ε × seed runs (adversarial: every ε in one
    ensemble, then bisection of the boundary ε*(D); random: one ensemble of the seeds per ε)."""

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
    bracket: tuple[float, float] | None = None


WALL_SEARCH = 10
"""Adversarial rows that select on the whole ε grid look beyond it, towards the wall ``π − θ0``:
the gap ``π − θ0 − ε`` shrinks by 4× per try, at most this many times (to 4⁻¹⁰ ≈ 1e-6 of the
last grid gap). At the wall itself the favorable neuron is anti-aligned with the teacher (and, at
θ0 = π/2, with the other neurons, which are aligned): every angular gradient on it vanishes at
φ = π, its direction never moves, and selection fails."""


SECTION_BITS = 4
"""The bracket of ε*(D) is refined ``SECTION_BITS`` halvings (of its log gap) at a time: one ensemble
of ``2^SECTION_BITS − 1`` evenly spaced points per round instead of that many bisection steps one
after the other. With one change of outcome in the bracket this ends in the very cell bisection
finds — the same lattice of ``2^refine`` cells — and the batched runs share steps (``refine`` = 8:
two ensembles of 15 instead of 8 single runs, the gradient calls vectorised over members)."""


def visible_row(job: VisibleRowJob) -> VisibleRow:
    """The ε grid at one D, then the threshold ε*(D).

    Random perturbations: ε* is the midpoint of the first grid cell where the selection share
    drops below ½. Adversarial ones are deterministic in ε, and ε* approaches the wall
    ``π − θ0`` as D grows, so the boundary is located in the *gap* ``g = π − θ0 − ε``: the
    bracketing cell (found beyond the grid if needed, see :data:`WALL_SEARCH`) is cut ``refine``
    times in half, geometrically in its gaps (:data:`SECTION_BITS` halvings per ensemble), and
    ε* = ``π − θ0 − √(g_lo g_hi)`` (relative resolution of the gap: ``(g_lo/g_hi)^{2^{-refine-1}}``);
    the first cut point that fails (from the selecting end) closes the bracket.
    """
    flow = DynamicsConfig(mode=Mode.flow, rtol=job.rtol)
    deltas = owner_imbalances(job.m, job.strength, 0)
    eps = list(job.eps)
    if job.adversarial:  # one run per ε: the whole grid in one ensemble shares its steps
        ok, owners, ends = _selects(job.model, flow, deltas, eps, True, job.seeds)
    else:
        # one ensemble per ε: the seeds of one ε turn on one time scale, while an ensemble of every
        # ε steps at the pace of its stiffest member (20 seeds at D = 64 on one core: 43 s for
        # ε ≤ 16 together, 35 s one ε at a time, of which 32 s at ε = 16; ε = 24 together ran
        # out of the solver's step budget). Either way every member meets the same rtol, so a
        # member's numbers move only within it (an outcome decided closer than that is flagged
        # by a tie, as everywhere).
        ok, owners, ends = [], [], []
        for e in eps:
            o, w, x = _selects(job.model, flow, deltas, [e], False, job.seeds)
            ok, owners, ends = ok + o, owners + w, ends + x
    n = len(job.seeds)
    points = [
        VisiblePoint(job.strength, e, s, owners[i * n + k], ok[i * n + k], *ends[i * n + k])
        for i, e in enumerate(eps)
        for k, s in enumerate(job.seeds)
    ]
    row = [float(np.mean(ok[i * len(job.seeds) : (i + 1) * len(job.seeds)])) for i in range(len(eps))]
    failing = [k for k, p in enumerate(row) if p < 0.5]
    if failing and failing[0] == 0:
        return VisibleRow(row, 0.0, points, (0.0, eps[0]))
    if not job.adversarial:
        if not failing:
            return VisibleRow(row, None, points)
        lo, hi = eps[failing[0] - 1], eps[failing[0]]
        return VisibleRow(row, 0.5 * (lo + hi), points, (lo, hi))

    def selects(es: list[float]) -> list[bool]:  # one ensemble: every ε of a search round at once
        return _selects(job.model, flow, deltas, es, True, (0,))[0]

    def first_failing(verdicts: list[bool]) -> int:
        return next((i for i, good in enumerate(verdicts) if not good), len(verdicts))

    wall = math.pi - job.model.theta0
    if failing:
        lo, hi = eps[failing[0] - 1], eps[failing[0]]
    else:  # selection held on the whole grid: look towards the wall
        # one try at a time: the search usually ends at the first or second, and the tries
        # nearer the wall are the costly ones (one ensemble of all ten took 2.7 s at D = 1024, two
        # single tries 0.5 s)
        lo, failed = eps[-1], None
        for _ in range(WALL_SEARCH):
            e = wall - (wall - lo) / 4.0
            if selects([e]) == [False]:
                failed = e
                break
            lo = e
        if failed is None:
            return VisibleRow(row, None, points, None)
        hi = failed
    left = job.refine
    while left > 0:  # SECTION_BITS halvings of the log gap per round, as 2^bits − 1 points
        bits = min(left, SECTION_BITS)
        left -= bits
        cuts = 2**bits
        g_lo, g_hi = wall - lo, wall - hi
        inner = [wall - g_lo * (g_hi / g_lo) ** (i / cuts) for i in range(1, cuts)]
        i = first_failing(selects(inner))
        lo, hi = ([lo] + inner)[i], (inner + [hi])[i]
    return VisibleRow(row, wall - math.sqrt((wall - lo) * (wall - hi)), points, (lo, hi))


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
        [None if r.bracket is None else list(r.bracket) for r in rows],
        math.pi - config.model.theta0 if config.adversarial else None,
    )


def exclusive_boundary(visible: VisibleSweep) -> dict[str, Any]:
    """Per D, the grid cell where selection stops being exclusive (the last ε where the +D neuron
    carries the feature alone, ``P(t_end) ≤ EXCLUSIVE_LEVEL``, and the next ε), beside the one where
    it stops being a majority (the +D neuron no longer the owner), with each run's horizon."""
    rows: dict[str, Any] = {}
    for D in visible.strengths:
        pts = sorted((p for p in visible.points if p.strength == D and p.seed == 0), key=lambda p: p.eps)
        if any(p.nonowner_norm_end is None for p in pts):
            continue
        first_shared = next((p for p in pts if not p.exclusive), None)
        first_lost = next((p for p in pts if not p.success), None)

        def before(stop: VisiblePoint | None, pts: list[VisiblePoint] = pts) -> float | None:
            i = pts.index(stop) if stop is not None else len(pts)
            return pts[i - 1].eps if i > 0 else None

        rows[f"{D:g}"] = {
            "last_exclusive_eps": before(first_shared),
            "first_not_exclusive_eps": None if first_shared is None else first_shared.eps,
            "last_majority_eps": before(first_lost),
            "first_lost_eps": None if first_lost is None else first_lost.eps,
            "shared": [
                {"eps": p.eps, "favorable_share": p.favorable_share, "nonowner_norm_end": p.nonowner_norm_end}
                for p in pts
                if p.success and not p.exclusive
            ],
            "t_end": pts[0].t_end,
        }
    return {"level": EXCLUSIVE_LEVEL, "by_D": rows}


def random_outcomes(visible: VisibleSweep) -> dict[str, Any]:
    """Per D and ε: the seeds that select (the +D neuron the owner) and those where the selection
    is exclusive (``P(t_end) ≤`` :data:`EXCLUSIVE_LEVEL`), with 95 % Wilson intervals, and the
    ε up to which every seed does. The failing runs by cause: ``lost`` — another neuron owns the
    feature; ``unsettled`` — the +D neuron is the computed owner but not aligned at the horizon:
    a start with ``c ≫ a*`` unwinds into a cancelling pair (``c_+/a*`` at the horizon: its
    ``unsettled_share``), which the default horizon does not see settle. Each cause's count of
    distinct ``(ε, seed)`` starts, and of those failing at every D."""
    by_D: dict[str, Any] = {}
    causes: dict[str, dict[tuple[float, int], list[float]]] = {"lost": {}, "unsettled": {}}
    for D in visible.strengths:
        rows: dict[str, Any] = {k: [] for k in ("selects", "exclusive", "trials")}
        for e in visible.eps:
            pts = [p for p in visible.points if p.strength == D and p.eps == e]
            rows["selects"].append(sum(p.success for p in pts))
            rows["exclusive"].append(sum(p.exclusive for p in pts))
            rows["trials"].append(len(pts))
            for p in pts:
                if not p.success:  # neuron 0 is the +D one (visible_row's owner_imbalances(m, D, 0))
                    cause = "unsettled" if p.owner == 0 else "lost"
                    causes[cause].setdefault((p.eps, p.seed), []).append(D)
        for k in ("selects", "exclusive"):
            rows[f"{k}_wilson"] = [list(wilson_interval(s, n)) for s, n in zip(rows[k], rows["trials"], strict=True)]
        for k, key in (("selects", "all_select_to"), ("exclusive", "all_exclusive_to")):
            rows[key] = _prefix_end(visible.eps, [s == n for s, n in zip(rows[k], rows["trials"], strict=True)])
        by_D[f"{D:g}"] = rows
    unsettled = [
        p.favorable_share for p in visible.points if not p.success and p.owner == 0 and p.favorable_share is not None
    ]
    return {
        "eps": list(visible.eps),
        "strengths": list(visible.strengths),
        "seeds": len({p.seed for p in visible.points}),
        "level": EXCLUSIVE_LEVEL,
        "by_D": by_D,
        "failures": {
            cause: {
                "starts": len(starts),
                "at_every_D": sum(len(Ds) == len(visible.strengths) for Ds in starts.values()),
                "runs": [{"eps": e, "seed": s, "D": Ds} for (e, s), Ds in sorted(starts.items())],
            }
            for cause, starts in causes.items()
        },
        "unsettled_share": [min(unsettled), max(unsettled)] if unsettled else None,
        "max_gauge_drift": max((p.gauge_drift for p in visible.points if p.gauge_drift is not None), default=None),
    }


def _prefix_end(grid: list[float], good: list[bool]) -> float | None:
    """The largest ε of the grid up to which every ε is ``good`` (``None``: not even the first)."""
    last = None
    for e, ok in zip(grid, good, strict=True):
        if not ok:
            break
        last = e
    return last
