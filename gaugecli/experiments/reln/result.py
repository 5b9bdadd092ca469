"""What ``gaugecli reln`` returns: :class:`RelnResult` and its parts (one dataclass per comparison),
as stored in the ``gaugecli.reln/1`` artifact."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from gaugecli.core.frames import Labelled, View
from gaugecli.core.types import Array

RESOLVED_LOSS = 1e-12
"""Loss levels below this are not resolved: the closed-form loss is a difference of O(1) kernel
terms, accurate to ~1e-16 absolutely, and level-crossing times need a few digits of it."""


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

    VIEW: ClassVar[View] = View(
        dims=dict.fromkeys(
            ("t", "loss_relu", "loss_reln", "loss_reln_initial", "loss_race", "alignment_relu", "alignment_reln"),
            ("t",),
        )
    )
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

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

    VIEW: ClassVar[View] = View(
        dims={
            **dict.fromkeys(("t", "loss_relu", "loss_reln"), ("t",)),
            **dict.fromkeys(("c_relu", "c_reln", "alpha_relu", "alpha_reln"), ("t", "neuron")),
        }
    )
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

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

    VIEW: ClassVar[View] = View(
        dims=dict.fromkeys(("levels", "t_relu", "t_best", "psi_best_deg", "ratio"), ("levels",))
    )
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

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
    the largest |T_race(−D)/T_race(+D) − 1|;
    ``relu_limits`` = the ReLU's D → ∞ limits ``(lim D·T_ReLU(+D), lim T_ReLU(−D)/D)`` of
    :mod:`gaugecli.core.reduced.planar` (``None`` for θ0 ≤ θ_ε); ``favorable_ratio_limit`` = lim
    T_spec(ReLN)/T_spec(ReLU) at +D = ``2 ln(1 + c0/(a* tan θ_ε))`` over the first (θ0 = π/2, else ``None``)."""

    favorable_ratio: list[float | None]
    unfavorable_log_fit: list[float] | None
    unfavorable_log_asymptote: list[float] | None
    unfavorable_intercepts: list[float | None]
    race_symmetry_error: float
    relu_limits: list[float] | None = None
    favorable_ratio_limit: float | None = None


@dataclass
class RelnResult(Labelled):
    """Everything ``gaugecli reln`` measured: the m = 1 comparisons (``ratios``, ``curves``, ``fits``),
    ``select``, the restarts, the fixed-gate envelope (over the gate angles ``psi_deg``) and the largest
    |ReLN − ReLU| loss/gradient error with gates at the current directions over ``identity_states``
    states (units of ½E[y²])."""

    VIEW: ClassVar[View] = View(
        dims={"psi_deg": ("psi_deg",)},
        records={"ratios": "strength", "curves": "strength", "restart": "restart", "envelope": "strength"},
    )
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

    ratios: list[RelnRatio]
    curves: list[RelnCurves]
    select: RelnSelect
    restart: list[RelnRestart]
    envelope: list[RelnEnvelope]
    identity_error: float
    identity_states: int
    fits: RelnFits
    psi_deg: list[float]
