"""Ownership per teacher feature: who carries each ``v_k``, over time and at the end (docs/theory.md, the model; docs/howto/ownership.md).

For a teacher ``y = Σ_k a*_k σ(v_k·x)`` with ``k`` features and a student of ``m`` neurons
``c_j σ(u_j·x)`` (function coordinates, :mod:`gaugecli.core.model.gauge`):

* **alignment with feature k**: ``α_jk = u_j·v̂_k`` (``|u_j·v̂_k|`` for an even σ, whose ``u`` and
  ``−u`` are one feature); for ``k = 1`` this is the ``α_j`` of docs/theory.md (the model);
* **ownership matrix** ``O_jk(t) = c_j(t) α_jk(t)``, shape ``(n_t, m, k)``: the score whose argmax
  over ``j`` is the instantaneous owner of feature ``k``, ``o_k(t) = argmax_j c_j α_jk`` — the model's
  ``o(t) = argmax_j c_j α_j`` feature by feature;
* **final owner of feature k**: the neuron aligned with ``v_k`` (``α_jk ≥ 1 − ε_align``) carrying the
  largest ``c`` — the final owner (docs/theory.md, the model) with ``α`` read against ``v_k``. ``None`` ("no owner") when
  no neuron is aligned with ``v_k``, or when the owner is tied: it started exactly equal to another
  neuron (same δ, same start — docs/theory.md §9: no unique owner). ``computed_owners`` keep argmax's
  choice in every case (where none is aligned, ``argmax_j c_j α_jk``, as ``computed_owner`` does at
  ``k = 1``);
* **co-alignment**: a neuron other than the computed owner that is aligned with ``v_k`` and still
  carries function (``|c_j| > FUNCTION_LEVEL``) shares feature ``k`` with its owner (C7's
  boundary: non-owners at δ > 0 co-align);
* **pruned**: a neuron aligned with no feature that carries no function, ``|c_j| ≤ FUNCTION_LEVEL``
  (its function ``c_j σ(u_j·x)`` has norm ``|c_j| ‖σ(u·x)‖``, ``|c_j|/√2`` for ReLU);
* **non-owner norm of feature k**: ``P_k(t) = ‖Σ_{j ∈ N_k, j ≠ o_k} c_j σ(u_j·x)‖_{L²(N(0, I))}``,
  ``N_k`` the neurons whose final nearest feature is ``k`` (``argmax_l α_jl`` at the end) and
  ``o_k`` the computed owner: the function left beside the owner of ``v_k``. At ``k = 1``, ``N_1``
  is every neuron and ``P_1`` is the model's ``P(t)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaugecli.core.activations.base import Activation
from gaugecli.core.model.gauge import unit_directions
from gaugecli.core.model.model import Model
from gaugecli.core.types import Array

FUNCTION_LEVEL = 1e-6
"""A neuron with ``|c_j| ≤ 1e-6`` carries no function: the pruning level of claim C7 (``P ≤ 1e-6``)."""


def feature_alignment(U: Array, model: Model) -> Array:
    """``α_jk = û_j·v̂_k`` (``|·|`` for an even σ), shape ``(..., m, k)``, from directions or weights ``U (..., m, d)``."""
    U = np.asarray(U, float)
    cos = unit_directions(U) @ model.unit_directions().T  # w = 0 (absorbed): α = 0
    return np.abs(cos) if model.activation.even else cos


def ownership_matrix(c: Array, alpha: Array) -> Array:
    """``O_jk = c_j α_jk``, shape ``(..., m, k)``, from ``c (..., m)`` and ``α (..., m, k)``."""
    return np.asarray(c, float)[..., None] * np.asarray(alpha, float)


@dataclass(frozen=True)
class FeatureOwners:
    """The end of one run, feature by feature (module docstring): ``owners[k]`` (an index or
    ``None``), ``computed_owners[k]`` (argmax's choice), ``specialized[k]`` (some neuron is aligned
    with ``v_k``), ``tied[k]`` (the owner started equal to another neuron), ``coaligned[j][k]``
    and ``pruned[j]``; ``nearest[j]`` is neuron j's final nearest feature."""

    owners: list[int | None]
    computed_owners: list[int]
    specialized: list[bool]
    tied: list[bool]
    coaligned: list[list[bool]]
    pruned: list[bool]
    nearest: list[int]


def feature_owners(c: Array, alpha: Array, eps_align: float, groups: list[list[int]] | None = None) -> FeatureOwners:
    """Owners of every feature from one final state: ``c (m,)``, ``α (m, k)`` (:func:`feature_alignment`);
    ``groups``: the groups of neurons that started exactly equal (:func:`gaugecli.core.analyses.symmetry.equal_groups`)."""
    c, alpha = np.asarray(c, float), np.asarray(alpha, float)
    m, k = alpha.shape
    aligned = alpha >= 1.0 - eps_align
    score = ownership_matrix(c, alpha)
    tied_to = {j for g in groups or [] for j in g}
    owners: list[int | None] = []
    computed: list[int] = []
    specialized: list[bool] = []
    tied: list[bool] = []
    for f in range(k):
        if np.any(aligned[:, f]):
            o = int(np.argmax(np.where(aligned[:, f], c, -np.inf)))
        else:
            o = int(np.argmax(score[:, f]))
        computed.append(o)
        specialized.append(bool(np.any(aligned[:, f])))
        tied.append(o in tied_to)
        owners.append(o if specialized[-1] and not tied[-1] else None)
    carries = np.abs(c) > FUNCTION_LEVEL
    coaligned = [[bool(aligned[j, f] and carries[j] and j != computed[f]) for f in range(k)] for j in range(m)]
    pruned = [bool(not np.any(aligned[j]) and not carries[j]) for j in range(m)]
    nearest = [int(x) for x in np.argmax(alpha, axis=-1)]
    return FeatureOwners(owners, computed, specialized, tied, coaligned, pruned, nearest)


def feature_nonowner_norm(c: Array, U: Array, owners: list[int], nearest: list[int], activation: Activation) -> Array:
    """``P_k(t)`` of every feature (module docstring), shape ``(..., k)``, from ``c (..., m)`` and
    unit directions ``U (..., m, d)`` (a homogeneous σ: the function of a neuron is ``c σ(u·x)``)."""
    c, U = np.asarray(c, float), np.asarray(U, float)
    K = activation.kernel(U, U)
    near = np.asarray(nearest)
    out = []
    for f, o in enumerate(owners):
        keep = (near == f) & (np.arange(c.shape[-1]) != o)
        rest = np.where(keep, c, 0.0)
        out.append(np.sqrt(np.maximum(np.einsum("...i,...ij,...j->...", rest, K, rest), 0.0)))
    return np.stack(out, axis=-1)
