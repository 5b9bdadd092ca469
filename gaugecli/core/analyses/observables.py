"""Every observable (docs/theory.md, the model) for one trajectory of an ensemble."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from gaugecli.core.analyses.ownership import feature_alignment, feature_nonowner_norm, feature_owners, ownership_matrix
from gaugecli.core.analyses.symmetry import SADDLE_NOTE, exact_saddle, symmetry_report
from gaugecli.core.frames import Labelled, View
from gaugecli.core.integrate.trajectory import SolverStats, Trajectory
from gaugecli.core.model.gauge import function_coordinates, imbalance
from gaugecli.core.model.metrics import (
    alignment,
    final_owner,
    instantaneous_owner,
    kernel_group_norm,
    log_grid_nodes,
    log_time_integral,
    specialization_time,
)
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population.dynamics import Dissipation, dissipation, population_loss
from gaugecli.core.types import LATER_FIELD, Array


@dataclass
class RunObservables(Labelled):
    """Observables on the time grid ``t`` (length n); per-neuron series are ``(n, m)``.

    ``owner`` is the final owner (docs/theory.md, the model), or ``None`` when no unique owner exists (the
    owner of the computed run is tied: it started identical to other neurons — docs/theory.md §9);
    ``computed_owner`` is the final owner of this computed run whatever decided it (equal to
    ``owner`` when that is unique; for a tie, argmax's choice). ``t_spec`` is its first time
    at ``α = 1 − ε_align`` (``None`` if never); ``nonowner_norm`` is P(t) for it.
    ``imbalance_law`` states the law of δ the drift is measured against (conserved; ``δ(0) e^{−2λt}``
    under weight decay; none for an activation without a degree). ``imbalance_drift`` is ``max_{t,j} |δ_j(t) − δ_j(0) e^{−2λt}| / max(1, |δ_j(0)|)``: the deviation
    of δ (at the activation's degree) from its law under weight decay λ (conservation at λ = 0).
    ``dissipated_reaction`` = ``∫₀^{t_end} R dt`` and ``dissipated_transport`` = ``∫₀^{t_end} T dt``
    (docs/theory.md §8; :func:`dissipated`): under gradient flow their sum is
    ``L(0) − L(t_end)`` (``−dL/dt = R + T`` integrated).
    ``symmetric_start``: the outcome is not set by the initial condition alone or has no
    unique owner (:func:`gaugecli.core.analyses.symmetry.symmetry_report`); ``symmetry_note`` says why
    and what to do, in one line; ``separation_exponent`` is the largest ``Λ`` of the groups of
    initially equal neurons (``None`` if there are none). ``eta`` and ``step_error``: the
    GD/SGD step and the estimated relative discretisation error of ``T_spec`` (``None`` for flows).
    ``imbalance_by_steps`` (GD and SGD at a degree p): δ propagated from δ(0) by GD's per-step
    identity ``δ_{k+1} = (1 − 2ηλ)δ_k + η²(g_a² − ‖g_w‖²/p)``, which is what breaks the flow's law
    under a finite step; ``imbalance_per_step`` (stepped runs with ``imbalance_every_step``): δ ``(K + 1, m)``
    of every iterate ``k = 0 … K`` at ``t = kη``, not only at the saved times; ``imbalance_step_residual`` = ``max_{t,j} |δ_j(t) − δ̂_j(t)| / max(1, |δ_j(0)|)``,
    round-off for a gradient of the model's objective (``None`` for flows).

    With ``k > 1`` teacher features (:mod:`gaugecli.core.analyses.ownership` defines each): ``ownership``
    is the ``(n, m, k)`` matrix ``c_j α_jk`` over time; ``owners[k]`` the final owner of feature
    ``k`` — the neuron aligned with ``v_k`` carrying the largest ``c`` — or ``None`` (none aligned,
    or the owner tied); ``computed_owners``, ``feature_specialized`` and ``coaligned[j][k]`` as
    for ``k = 1``; ``pruned[j]``: neuron ``j`` ends aligned with no feature and carries no function;
    ``feature_nonowner_norm`` the ``(n, k)`` series ``P_k(t)``. They are ``None`` for ``k = 1``,
    where ``owner``, ``computed_owner``, ``specialized`` and ``nonowner_norm`` say the same.

    ``unaligned_norm`` (any k): ``‖Σ_{j ∈ U} c_j σ(u_j·x)‖`` over time for the neurons ``U`` that end
    aligned with no feature (``α_j(t_end) < 1 − ε_align``; ``None`` when every neuron is aligned):
    the function they carry together. It tells pruning (each ``c_j → 0``) from cancellation (a
    pair of one direction and opposite ``c``, each ``|c|`` finite, whose sum carries nothing).

    Kunin et al.'s measurements (``simulate --checkpoints``, :mod:`gaugecli.core.analyses.rich_lazy`;
    ``None`` unless asked for), at the times ``checkpoint_t`` (the start, each checkpoint, the
    horizon): ``kernel_distance`` S of the empirical NTK on the training set, ``hamming_distance`` of
    the ReLU patterns, ``parameter_distance`` ‖θ_t − θ_0‖, and ``test_loss`` ½·mean (f − y)² on a
    held-out sample (their test loss is twice it).
    """

    HEADLINE: ClassVar[tuple[str, ...]] = ("owner", "specialized", "t_spec", "converged")
    VIEW: ClassVar[View] = View(
        dims={
            **dict.fromkeys(
                ("t", "loss", "reaction", "transport", "grad_norm_sq", "identity_residual", "empirical_loss"), ("t",)
            ),
            **dict.fromkeys(("instantaneous_owner", "nonowner_norm", "unaligned_norm"), ("t",)),
            **dict.fromkeys(
                ("alignment", "feature", "coefficient", "imbalance", "norm_a", "norm_w", "imbalance_by_steps"),
                ("t", "neuron"),
            ),
            "crossing_times": ("neuron",),
            "imbalance_per_step": ("step", "neuron"),
            "ownership": ("t", "neuron", "feature"),
            "feature_nonowner_norm": ("t", "feature"),
            **dict.fromkeys(("owners", "computed_owners", "feature_specialized"), ("feature",)),
            "coaligned": ("neuron", "feature"),
            "pruned": ("neuron",),
            **dict.fromkeys(
                ("checkpoint_t", "kernel_distance", "hamming_distance", "parameter_distance", "test_loss"),
                ("checkpoint",),
            ),
        },
        absorb=("stats",),
        # the series of each neuron's nearest feature is not the `feature` dimension (k > 1)
        names={"feature": "nearest_feature"},
    )
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

    t: Array
    loss: Array
    alignment: Array
    feature: Array
    coefficient: Array
    imbalance: Array
    norm_a: Array
    norm_w: Array
    reaction: Array
    transport: Array
    grad_norm_sq: Array
    identity_residual: Array
    dissipated_reaction: float
    dissipated_transport: float
    instantaneous_owner: Array
    nonowner_norm: Array
    crossing_times: Array
    owner: int | None
    computed_owner: int
    specialized: bool
    t_spec: float | None
    imbalance_drift: float
    converged: bool
    stats: SolverStats
    symmetric_start: bool = False
    symmetry_note: str | None = None
    separation_exponent: float | None = None
    eta: float | None = None
    step_error: float | None = None
    empirical_loss: Array | None = None
    imbalance_law: str = "conserved: δ(t) = δ(0), δ = a² − ‖w‖²"
    imbalance_by_steps: Array | None = None
    imbalance_step_residual: float | None = None
    ownership: Array | None = None
    owners: list[int | None] | None = None
    computed_owners: list[int] | None = None
    feature_specialized: list[bool] | None = None
    coaligned: list[list[bool]] | None = None
    pruned: list[bool] | None = None
    feature_nonowner_norm: Array | None = None
    unaligned_norm: Array | None = field(default=None, metadata={LATER_FIELD: True})
    imbalance_per_step: Array | None = field(default=None, metadata={LATER_FIELD: True})
    checkpoint_t: Array | None = field(default=None, metadata={LATER_FIELD: True})
    kernel_distance: Array | None = field(default=None, metadata={LATER_FIELD: True})
    hamming_distance: Array | None = field(default=None, metadata={LATER_FIELD: True})
    parameter_distance: Array | None = field(default=None, metadata={LATER_FIELD: True})
    test_loss: Array | None = field(default=None, metadata={LATER_FIELD: True})

    @property
    def final_loss(self) -> float:
        return float(self.loss[-1])


def on_unit_sphere(obs: RunObservables, model: Model) -> RunObservables:
    """The population observables of ``obs`` for inputs uniform on the unit sphere, from the Gaussian
    ones (``simulate --inputs sphere``).

    For σ and τ positively homogeneous of degree ``p``, ``(f − y)²`` is of degree ``2p`` in ``x``, and
    ``x = ‖g‖ u`` with ``g ~ N(0, I_d)`` has ``‖g‖`` independent of ``u`` uniform on the sphere, so
    ``E_g[(f − y)²] = E‖g‖^{2p} · E_u[(f − y)²]`` with ``E‖g‖^{2p} = d (d + 2) ⋯ (d + 2p − 2)``. Hence, at
    every state, the sphere's loss is the Gaussian one times ``c = 1/E‖g‖^{2p}``, its gradient too, and
    ``‖∇L‖²``, ``R``, ``T`` (quadratic in the gradient) ``c²`` times; the function norms (P, P_U) ``√c`` times."""
    d, p = model.d, model.degree
    c = 1.0 / math.prod(d + 2 * i for i in range(p))
    root = math.sqrt(c)

    def scaled(x: Array | None, factor: float) -> Array | None:
        return None if x is None else np.asarray(x) * factor

    return replace(
        obs,
        loss=obs.loss * c,
        reaction=obs.reaction * c**2,
        transport=obs.transport * c**2,
        grad_norm_sq=obs.grad_norm_sq * c**2,
        dissipated_reaction=obs.dissipated_reaction * c**2,
        dissipated_transport=obs.dissipated_transport * c**2,
        nonowner_norm=obs.nonowner_norm * root,
        unaligned_norm=scaled(obs.unaligned_norm, root),
        feature_nonowner_norm=scaled(obs.feature_nonowner_norm, root),
    )


RESOLVED_GRADIENT = 1e-5
"""Below ``‖∇L‖ ≈ 1e-5`` the two routes to the dissipation (parameters vs function
coordinates) differ by round-off: each gradient entry is a difference of O(1) kernel
terms, accurate to ~1e-16 absolutely, so the *relative* residual of ``‖∇L‖² = R + T``
grows like 1e-16/‖∇L‖ once the flow has converged."""


def resolved_residual(obs: RunObservables) -> float:
    """Largest relative residual of ``‖∇L‖² = R + T`` over the times where ``‖∇L‖``
    is resolvable (``≥ RESOLVED_GRADIENT``); NaN if there are none."""
    mask = obs.grad_norm_sq >= RESOLVED_GRADIENT**2
    return float(np.max(obs.identity_residual[mask])) if np.any(mask) else float("nan")


DISSIPATION_IDENTITY_RTOL = 1e-8
"""``|∫R dt + ∫T dt − (L(0) − L(t_end))| ≤ 1e-8 (L(0) − L(t_end))`` for a population-flow run
(measured ≤ 1e-10 for m = 1, D = 1 … 64, ±D at the default rtol = 1e-10)."""


def dissipated(t: Array, reaction: Array, transport: Array, inserted: Array | None = None) -> tuple[float, float]:
    """``(∫₀^{t_end} R dt, ∫₀^{t_end} T dt)`` by :func:`gaugecli.core.model.metrics.log_time_integral`
    over the log-spaced samples (``inserted`` times, such as the ensemble's crossing times that
    the flow adds to its grid, are left out: see :func:`gaugecli.core.model.metrics.log_grid_nodes`)."""
    keep = log_grid_nodes(t, inserted)
    return (
        float(log_time_integral(t[keep], reaction[keep])),
        float(log_time_integral(t[keep], transport[keep])),
    )


PAIRWISE_CHUNK_BYTES = 8 * 2**20
"""The observables built from pair kernels (loss, R, T, ‖∇L‖², P) hold several ``(n_t, m, m, d)``
arrays at once — 256 MB each at m = 200, d = 2 on 400 saved times — so they are evaluated on chunks of
saved times whose pair arrays stay within this many bytes (peak memory no longer grows with n_t)."""


def _pairwise_series(
    a: Array, W: Array, c: Array, U: Array, model: Model, owner: int, unaligned: Array
) -> tuple[Dissipation, Array, Array, Array | None]:
    """``(dissipation, loss, P, P_U)`` along ``a (n_t, m)``, ``W (n_t, m, d)`` in chunks of saved
    times; ``P_U`` is the function of the neurons where ``unaligned`` is true (``None`` if none is)."""
    n_t, m, d = W.shape
    act = model.activation
    step = max(1, PAIRWISE_CHUNK_BYTES // (8 * (m + model.k) * m * d))
    others = np.arange(m) != owner
    parts = []
    for s in range(0, n_t, step):
        w = slice(s, s + step)
        # in function coordinates where they exist (the paper's P), else in parameters; one pair
        # kernel for both groups
        coef, dirs = (c[w], U[w]) if act.homogeneous else (a[w], W[w])
        K = act.kernel(dirs, dirs)
        parts.append(
            (
                dissipation(Network(a[w], W[w]), model),
                population_loss(Network(a[w], W[w]), model),
                kernel_group_norm(coef, K, others),
                kernel_group_norm(coef, K, unaligned) if np.any(unaligned) else None,
            )
        )
    diss = Dissipation(*(np.concatenate([p[0][k] for p in parts]) for k in range(len(Dissipation._fields))))
    P_U = np.concatenate([p[3] for p in parts]) if np.any(unaligned) else None
    return diss, np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts]), P_U


def observe(trajectory: Trajectory, model: Model, member: tuple[int, ...] = ()) -> RunObservables:
    """Observables of ensemble member ``member`` (an index into the leading axes).

    Every observable is an inner product, so a trajectory in the coordinates of an invariant
    subspace (``trajectory.basis``) is observed there, with the teacher in the same basis."""
    model = trajectory.model_in(model)
    theta = trajectory.theta[member]
    a, W = theta.a, theta.W
    c, U = function_coordinates(theta, model.degree)
    align, feature = alignment(W, model)
    delta = imbalance(theta, model.degree)
    owner, specialized = final_owner(c[-1], align[-1], trajectory.eps_align)
    unaligned = align[-1] < 1.0 - trajectory.eps_align  # aligned with no feature at the end
    diss, loss, P, unaligned_norm = _pairwise_series(a, W, c, U, model, int(owner), unaligned)
    crossing = trajectory.crossing_times[member]
    t_spec = float(specialization_time(crossing, owner))
    # δ's law: conserved by the flow on L, decaying as δ(0) e^{−2λt} under weight decay λ
    law = delta[0] * np.exp(-2.0 * model.weight_decay * trajectory.t)[:, None]
    drift = np.max(np.abs(delta - law) / np.maximum(1.0, np.abs(delta[0])))
    emp = None if trajectory.empirical_loss is None else trajectory.empirical_loss[member]
    by_steps = None if trajectory.imbalance_by_steps is None else trajectory.imbalance_by_steps[member]
    step_residual = (
        None if by_steps is None else float(np.max(np.abs(delta - by_steps) / np.maximum(1.0, np.abs(delta[0]))))
    )
    # every member's crossing times: the flow inserts all of them into the shared grid
    spent_reaction, spent_transport = dissipated(trajectory.t, diss.reaction, diss.transport, trajectory.crossing_times)
    symmetry = symmetry_report(trajectory.t, theta, model, int(owner))
    # a saddle of the population loss holds the population dynamics only: a sample's gradient (or a
    # fresh minibatch's) has a teacher component and breaks it (lockin's x² runs rely on that)
    if trajectory.stats.population and exact_saddle(theta[0], model):
        # the exact dynamics never align: a crossing is round-off's, not the model's
        t_spec = float("nan")
        symmetry = replace(
            symmetry,
            symmetric_start=True,
            unique_owner=False,
            note=SADDLE_NOTE.format(sigma=model.activation.describe()),
        )
    per_feature = _per_feature(c, U, model, trajectory.eps_align, symmetry.groups) if model.k > 1 else {}
    return RunObservables(
        t=trajectory.t,
        loss=loss,
        alignment=align,
        feature=feature,
        coefficient=c,
        imbalance=delta,
        norm_a=np.abs(a),
        norm_w=np.linalg.norm(W, axis=-1),
        reaction=diss.reaction,
        transport=diss.transport,
        grad_norm_sq=diss.grad_norm_sq,
        identity_residual=diss.residual,
        dissipated_reaction=spent_reaction,
        dissipated_transport=spent_transport,
        instantaneous_owner=instantaneous_owner(c, align),
        nonowner_norm=P,  # for the computed owner
        crossing_times=crossing,
        owner=int(owner) if symmetry.unique_owner else None,
        computed_owner=int(owner),
        specialized=bool(specialized),
        t_spec=None if np.isnan(t_spec) else t_spec,
        imbalance_drift=float(drift),
        converged=bool(np.asarray(trajectory.converged)[member]),
        stats=trajectory.stats,
        symmetric_start=symmetry.symmetric_start,
        symmetry_note=symmetry.note,
        separation_exponent=symmetry.max_separation,
        eta=trajectory.stats.step,
        step_error=trajectory.stats.step_error,
        empirical_loss=emp,
        imbalance_law=imbalance_law(model),
        imbalance_by_steps=by_steps,
        imbalance_step_residual=step_residual,
        unaligned_norm=unaligned_norm,
        imbalance_per_step=None if trajectory.imbalance_per_step is None else trajectory.imbalance_per_step[member],
        **per_feature,
    )


def _per_feature(c: Array, U: Array, model: Model, eps_align: float, groups: list[list[int]]) -> dict[str, Any]:
    """The per-feature fields of :class:`RunObservables` (``k > 1``) along ``c (n_t, m)``, ``U (n_t, m, d)``."""
    alpha = feature_alignment(U, model)
    end = feature_owners(c[-1], alpha[-1], eps_align, groups)
    norms = (
        feature_nonowner_norm(c, U, end.computed_owners, end.nearest, model.activation)
        if model.activation.homogeneous
        else None
    )
    return {
        "ownership": ownership_matrix(c, alpha),
        "owners": end.owners,
        "computed_owners": end.computed_owners,
        "feature_specialized": end.specialized,
        "coaligned": end.coaligned,
        "pruned": end.pruned,
        "feature_nonowner_norm": norms,
    }


def imbalance_law(model: Model) -> str:
    """The law δ follows under the model's flow, in words (recorded beside the measured δ)."""
    p = model.degree
    delta = "δ = a² − ‖w‖²" + ("" if p == 1 else f"/{p}")
    if not model.activation.homogeneous:
        return f"none: σ = {model.activation.describe()} is not homogeneous, so {delta} is not conserved"
    if model.weight_decay:
        return f"{delta} decays as δ(t) = δ(0)·e^(−2λt), λ = {model.weight_decay:g}"
    return f"conserved: δ(t) = δ(0), {delta}"
