"""The invariant subspace of the population dynamics (docs/theory.md §5).

``∂₁κ(w, w') ∈ span(w, w')``, so ``ẇ_j = −a_j h_j`` lies in ``span(w_1 … w_m, v_1 … v_k)``: the
population gradient flow — and population gradient descent, whose steps are such gradients —
never leaves ``S = span(teacher vectors, initial student vectors)``, ``dim S = r ≤ k + m``.
With an orthonormal basis ``Q`` (``d × r``) of ``S`` and coordinates ``W̃ = W Q`` the loss, its
gradient and Hessian are the same closed forms evaluated on ``W̃`` and the teacher ``Ṽ = V Q``
(they depend on inner products only, and ``Q Qᵀ`` is the identity on ``S``), so the dynamics of
``(a, W̃)`` *are* the dynamics of ``(a, W)``: ``W(t) = W̃(t) Qᵀ`` exactly, not approximately.
The cost then depends on ``r`` instead of ``d``; ``d`` matters only for finite samples (whose
gradients leave ``S``). For the duplicate start (docs/theory.md, the model), ``S = span(v, u0)`` is a plane.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from gaugecli.core.model.model import Model
from gaugecli.core.types import Array

RANK_TOLERANCE = 1e-13
"""A pivoted-QR diagonal below this fraction of the largest counts as zero: the vectors beyond
are in the span of the earlier ones to within round-off (Householder QR resolves components
down to ~N·ε_machine ≈ 1e-15 of the largest for N ≤ 100 vectors). A component dropped here
changes the start by less than this relative amount."""


@dataclass(frozen=True)
class Subspace:
    """An orthonormal basis ``basis`` (``d × r``) of the invariant subspace ``S``."""

    basis: Array

    @property
    def d(self) -> int:
        return int(self.basis.shape[0])

    @property
    def r(self) -> int:
        return int(self.basis.shape[1])

    def coordinates(self, W: Array) -> Array:
        """``W̃ = W Q``: the coordinates in ``S`` of vectors ``W (..., d)`` that lie in ``S``."""
        return np.asarray(W, float) @ self.basis

    def embed(self, W_tilde: Array) -> Array:
        """``W = W̃ Qᵀ``: back to ``R^d``."""
        return np.asarray(W_tilde, float) @ self.basis.T

    def model(self, model: Model) -> Model:
        """The model with its teacher in the coordinates of ``S`` (its directions lie in ``S`` by construction)."""
        return model.with_directions(self.coordinates(model.directions))


def invariant_subspace(model: Model, W0: Array) -> Subspace | None:
    """``S = span(v_1 … v_k, every row of W0)`` for an initial condition ``W0 (..., m, d)`` (all
    members of an ensemble together), or ``None`` when ``S`` is all of ``R^d`` (nothing to gain).

    Rank by QR with column pivoting of the distinct unit vectors (duplicates are dropped first,
    so ``m`` duplicates cost one vector; the neurons' norms do not matter, only their directions)."""
    d = model.d
    vectors = np.concatenate([model.directions, np.asarray(W0, float).reshape(-1, d)])
    # directions only: a norm of 1e15 next to ‖v‖ = 1 must not push v below the rank tolerance
    units = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    # equal rows once each (a dict of row bytes: np.unique(axis=0) sorts rows of length d, 0.3 s at d = 10⁵)
    vectors = np.array(list({row.tobytes(): row for row in units}.values()))
    Q, R, _ = scipy.linalg.qr(vectors.T, mode="economic", pivoting=True)
    diag = np.abs(np.diag(R))
    r = int(np.count_nonzero(diag > RANK_TOLERANCE * diag[0]))
    if r >= d:
        return None
    return Subspace(np.ascontiguousarray(Q[:, :r]))


def random_basis(d: int, seed: int) -> Subspace:
    """All of ``R^d`` in the coordinates of a seeded Haar-random orthogonal ``Q`` (``scipy.stats.ortho_group``):
    ``W̃ = W Q``, the teacher's ``ṽ = Qᵀv``. A rotation-invariant dynamics (flow, GD, momentum) is the
    same in it to round-off; Adam's per-coordinate normalisation is not."""
    from scipy.stats import ortho_group

    return Subspace(np.ascontiguousarray(ortho_group.rvs(d, random_state=np.random.default_rng(seed))))
