"""Symmetric starts: exactly equal neurons, and how fast round-off separates them.

Two neurons ``i, j`` with equal parameters ``(a_i, w_i) = (a_j, w_j)`` stay equal under
gradient flow: swapping them is a symmetry of ``L``, so the set ``θ_i = θ_j`` is invariant.
Whether it *attracts* is decided by the antisymmetric mode ``δθ_i = z, δθ_j = −z``, an exact
invariant subspace of the linearised flow (by the same swap symmetry), on which

    ż = −(H_ii − H_ij) z,

with ``H_ii``, ``H_ij`` the ``(d+1)×(d+1)`` blocks of the Hessian ``∇²L`` (both symmetric at
an equal pair). The **separation rate** is ``λ_anti = −λ_min(H_ii − H_ij)``: a positive rate
grows a round-off difference ``ε_machine`` like ``exp(Λ(t))`` with ``Λ(t) = ∫₀ᵗ λ_anti ds``.
Once ``Λ`` exceeds ``ln(1/ε_machine) ≈ 36`` the pair has separated by O(1) from nothing but
round-off, and which of the two ends up owning the feature is not set by the initial condition.

At the duplicate start (docs/theory.md, the model) (direction ``u0``, coefficient ``c0/m`` each) the rate of a
``−D`` pair tends to ``‖(c0/2 − 1/(2π)) u0 − v/4‖`` as ``D → ∞`` (for ``u0 ⊥ v``, m = 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population.dynamics import pair_hessian_blocks, population_gradient
from gaugecli.core.types import Array

MACHINE_EPSILON = float(np.finfo(np.float64).eps)
ROUNDOFF_EXPONENT = float(np.log(1.0 / MACHINE_EPSILON))
"""``ln(1/ε_machine) ≈ 36.04``: a separation exponent ``Λ`` beyond this turns round-off into O(1)."""


def _neuron_indices(i: int, m: int, d: int) -> Array:
    """Positions of ``(a_i, w_i)`` in the packed order ``θ = (a_1..a_m, w_1, ..., w_m)``."""
    return np.concatenate([[i], m + i * d + np.arange(d)])


def antisymmetric_rate(theta: Network, model: Model, pair: tuple[int, int]) -> Array:
    """``λ_anti = −λ_min(H_ii − H_ij)`` for the neurons ``pair = (i, j)`` of ``θ``; shape ``θ.batch``.

    Meaningful where the two neurons are equal (then ``H_ii − H_ij`` is symmetric and the
    antisymmetric mode is invariant); elsewhere it is the rate of the symmetrised block. The
    model's weight decay adds ``λI`` to ``H_ii`` alone, so it lowers the rate by ``λ``.
    """
    H_ii, H_ij = pair_hessian_blocks(Network.of(theta.a, theta.W), model, pair)
    block = H_ii - H_ij  # the two blocks alone: O(m d²) per time, not the O(m² d²) Hessian
    block = 0.5 * (block + np.swapaxes(block, -1, -2))
    return -np.linalg.eigvalsh(block)[..., 0] - model.weight_decay


def separation_exponent(t: Array, rate: Array) -> Array:
    """``Λ(t) = ∫₀ᵗ λ_anti ds`` by the trapezoid rule on the samples ``t`` (time axis last)."""
    t = np.asarray(t, float)
    rate = np.asarray(rate, float)
    steps = 0.5 * (rate[..., 1:] + rate[..., :-1]) * np.diff(t)
    return np.concatenate([np.zeros(rate.shape[:-1] + (1,)), np.cumsum(steps, axis=-1)], axis=-1)


def equal_groups(theta: Network) -> list[list[int]]:
    """Groups (size ≥ 2) of neurons with exactly equal parameters ``(a_j, w_j)``, for one
    network ``θ`` (``a (m,)``, ``W (m, d)``); each group in increasing index order."""
    a, W = np.asarray(theta.a, float), np.asarray(theta.W, float)
    groups: dict[bytes, list[int]] = {}
    for j in range(a.shape[-1]):
        key = np.concatenate([[a[j]], W[j]]).tobytes()
        groups.setdefault(key, []).append(j)
    return [g for g in groups.values() if len(g) >= 2]


SEPARATION_THRESHOLD = 0.5 * ROUNDOFF_EXPONENT
"""``Λ* = ½ ln(1/ε_machine) ≈ 18``: beyond it a round-off difference between equal neurons has
grown to ``√ε_machine ≈ 1.5e-8`` — about the accuracy to which the flow reports ``T_spec`` at its
default tolerance — so the run's digits are no longer set by its initial condition alone.

Measured Λ (c0 = 0.1, default horizon, flow at rtol 1e-10; the flow runs in the invariant
subspace, so every d gives the same numbers): all −D duplicates, m = 5: 48.5 at D = 4 and 53.7
at D = 16 (round-off splits the group late; Λ counted up to the split); m = 2, D = 4: 20.5;
m = 5, D = 1: 13.3. The select configuration's −D non-owners: 0.50, 0.16, 0.04 at D = 1, 4, 16
(0.01 for m = 8, D = 64); +D co-owners: 1.4; balanced: 2.6. Where the owner itself is in an
equal group the run has no unique owner whatever Λ is (a tie), so the threshold only decides
the wording there; for groups of non-owners — where it decides the flag — every measured Λ is
≤ 0.5, two orders of magnitude below it."""

SEPARATED = 1e-3
"""Relative difference beyond which two neurons that started equal count as separated; the
linearisation behind ``Λ`` describes them only up to here."""


RATE_SAMPLES = 100
"""Saved times (evenly spaced in index, i.e. log-spaced in t) at which ``λ_anti`` is evaluated
for ``Λ``. Measured against all 400 saved times: Λ changes by < 1 % (all −D, select, all +D at
D = 4), while the report's cost drops 4×."""


@dataclass(frozen=True)
class SymmetryReport:
    """Equal neurons at ``t = 0`` and what became of them along one run.

    ``groups``: groups of exactly equal neurons at ``t = 0``; ``separation``: per group, the
    largest ``Λ(t)`` reached while its first pair was still equal (within :data:`SEPARATED`);
    ``separated``: per group, whether the pair did separate along the run. ``owner_tied``:
    the run's owner belongs to a group (an exact tie: its partners carry the same δ and start).
    ``symmetric_start``: ``owner_tied`` or some group unstable (``Λ > threshold`` or separated) —
    the outcome is not set by the initial condition alone, or has no unique owner.
    ``unique_owner``: false when the owner is tied. ``note``: one line for the user, or ``None``.
    """

    groups: list[list[int]]
    separation: list[float]
    separated: list[bool]
    owner_tied: bool
    symmetric_start: bool
    unique_owner: bool
    note: str | None

    @property
    def max_separation(self) -> float | None:
        return max(self.separation) if self.separation else None


def _span(group: list[int]) -> str:
    """``0, 1, 2`` for a short group; runs of consecutive indices as ``0–199`` (one line at any m)."""
    if len(group) <= 5:
        return ", ".join(str(j) for j in group)
    runs: list[list[int]] = []
    for j in group:
        if runs and j == runs[-1][1] + 1:
            runs[-1][1] = j
        else:
            runs.append([j, j])
    text = ", ".join(f"{lo}–{hi}" if hi > lo else str(lo) for lo, hi in runs[:4])
    return text + (", …" if len(runs) > 4 else "") + f" ({len(group)} neurons)"


SADDLE_TOLERANCE = 1e-14
"""A start counts as an exact saddle when every ``|u_j·v̂_k|`` and the teacher component of the
gradient, relative to the gradient, are ≤ 1e-14 (~50 ε). ``u0`` at θ0 = π/2 is built as
``cos(π/2) v + sin(π/2) e2`` and carries ``cos(π/2) = 6.1e-17`` along v: orthogonal up to round-off."""

SADDLE_NOTE = (
    "exact saddle: every neuron starts orthogonal to the teacher and the gradient has no teacher "
    "component (σ = {sigma}: the kernel's gradient along v vanishes at w ⊥ v), so the exact flow never "
    "aligns; any alignment seen is round-off escaping the saddle. T_spec is null; start at θ0 < π/2 (--theta0)"
)


def exact_saddle(theta0: Network, model: Model, tol: float = SADDLE_TOLERANCE) -> bool:
    """Whether the start ``θ0`` (``a (m,)``, ``W (m, d)``) lies on the invariant set ``{W ⊥ V}``: every neuron
    orthogonal to every teacher feature and the gradient's teacher component zero (to ``tol``).

    The kernel's gradient ``∂K(w, v)/∂w`` lies in ``span(w, v)``; its ``v`` coefficient is a function
    of ``‖w‖, ‖v‖`` and ``w·v`` alone, so where it vanishes at ``w·v = 0`` it vanishes for every norm
    and the set is invariant (σ = z²: ``∂K/∂w = 2‖v‖² w + 4(w·v) v``). ReLU's has ``(π − φ)/(2π) ≠ 0``:
    no saddle there."""
    a, W = np.asarray(theta0.a, float), np.asarray(theta0.W, float)
    V = model.unit_directions()
    U = W / np.linalg.norm(W, axis=-1, keepdims=True)
    if not np.all(np.abs(U @ V.T) <= tol):
        return False
    grad = population_gradient(Network(a, W), model).W + model.weight_decay * W
    scale = np.linalg.norm(grad)
    return bool(scale == 0.0 or np.linalg.norm(grad @ V.T) <= tol * scale)


def exact_saddles(theta0: Network, model: Model, tol: float = SADDLE_TOLERANCE) -> Array:
    """:func:`exact_saddle` of every start of a batch ``θ0`` (``a (B, m)``, ``W (B, m, d)``) at once:
    ``(B,)`` booleans, the same rule (the gradient of the starts orthogonal to the teacher computed in one
    call; its norms over each start's ``(m, d)`` block)."""
    a, W = np.asarray(theta0.a, float), np.asarray(theta0.W, float)
    V = model.unit_directions()
    U = W / np.linalg.norm(W, axis=-1, keepdims=True)
    orthogonal = np.all(np.abs(U @ V.T) <= tol, axis=(-2, -1))
    out = np.zeros(orthogonal.shape, bool)
    if np.any(orthogonal):
        Wo = W[orthogonal]
        grad = population_gradient(Network(a[orthogonal], Wo), model).W + model.weight_decay * Wo
        scale = np.linalg.norm(grad, axis=(-2, -1))
        out[orthogonal] = (scale == 0.0) | (np.linalg.norm(grad @ V.T, axis=(-2, -1)) <= tol * scale)
    return out


def symmetry_report(
    t: Array, theta: Network, model: Model, owner: int, *, threshold: float = SEPARATION_THRESHOLD
) -> SymmetryReport:
    """Detect a symmetric or tied start along one trajectory ``θ`` (``a (n_t, m)``, ``W (n_t, m, d)``).

    For each group of equal neurons at ``t = 0`` the separation exponent ``Λ(t) = ∫ λ_anti``
    of its first pair is integrated along the saved times (trapezoid) with the population
    Hessian, as long as the pair stays equal; in finite-sample runs it is the population
    estimate of the same rate.
    """
    t, a, W = np.asarray(t, float), np.asarray(theta.a, float), np.asarray(theta.W, float)
    groups = equal_groups(Network(a[0], W[0]))
    separation: list[float] = []
    separated: list[bool] = []
    rows = np.concatenate([a[..., None], W], axis=-1)  # (n_t, m, d + 1): each neuron's (a_j, w_j)
    for g in groups:
        i, j = g[0], g[1]
        # the group has split once any member is SEPARATED from the first (often one breaks away)
        diff = np.linalg.norm(rows[:, g[1:]] - rows[:, [i]], axis=-1).max(axis=-1)
        gap = diff / np.maximum(np.linalg.norm(rows[:, i], axis=-1), 1e-300)
        apart = np.flatnonzero(gap > SEPARATED)
        end = max(int(apart[0]) if apart.size else t.size, 1)
        # the rate is smooth in t: RATE_SAMPLES of the saved times carry the integral (each
        # needs a full Hessian, the whole cost of this report)
        window = np.unique(np.linspace(0, end - 1, min(end, RATE_SAMPLES)).round().astype(int))
        rate = antisymmetric_rate(Network(a[window], W[window]), model, (i, j))
        separation.append(float(np.max(separation_exponent(t[window], rate))))
        separated.append(bool(apart.size))
    tied = next((g for g in groups if owner in g), None)
    unstable = [g for g, lam, sep in zip(groups, separation, separated, strict=True) if sep or lam > threshold]
    note = None
    remedy = "make them differ visibly (--eps) or give distinct δ (--deltas)"
    if unstable:
        k = groups.index(unstable[0])
        g, lam = groups[k], separation[k]
        who = "who owns the feature" if owner in g else f"their paths (the owner, neuron {owner}, is not among them)"
        if separated[k]:
            note = (
                f"symmetric start: neurons {_span(g)} start identical and round-off split them "
                f"(separation exponent Λ = {lam:.3g} > {threshold:.3g}): round-off decides {who}; {remedy}"
            )
        else:
            note = (
                f"symmetric start: neurons {_span(g)} start identical on an unstable symmetric set "
                f"(Λ = {lam:.3g} > {threshold:.3g}: round-off grows e^Λ ≈ 10^{lam / math.log(10):.0f}-fold) and end tied, "
                f"no unique owner; {remedy}"
            )
    elif tied is not None:
        lam = separation[groups.index(tied)]
        note = (
            f"tie: neurons {_span(tied)} start identical with the same δ and stay identical (Λ = {lam:.3g}): "
            "they share the feature, no unique owner; give distinct δ (--deltas) or a visible perturbation (--eps)"
        )
    return SymmetryReport(
        groups=groups,
        separation=separation,
        separated=separated,
        owner_tied=tied is not None,
        symmetric_start=bool(unstable) or tied is not None,
        unique_owner=tied is None,
        note=note,
    )
