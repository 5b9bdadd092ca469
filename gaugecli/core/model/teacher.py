"""The teacher network ``y(x) = Σ_k a*_k relu(v_k·x)``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from gaugecli.core.types import Array


@dataclass(frozen=True)
class Teacher:
    """Teacher features: output weights ``coefficients`` (a*, shape ``(k,)``) and
    input weights ``directions`` (v, shape ``(k, d)``, rows of norm ‖v_k‖)."""

    coefficients: Array
    directions: Array

    def __post_init__(self) -> None:
        b = np.ascontiguousarray(np.atleast_1d(np.asarray(self.coefficients, dtype=np.float64)))
        V = np.ascontiguousarray(np.atleast_2d(np.asarray(self.directions, dtype=np.float64)))
        if V.shape[0] != b.shape[0]:
            raise ValueError(f"teacher: {b.shape[0]} coefficients but {V.shape[0]} directions; give one per feature")
        if np.any(np.linalg.norm(V, axis=1) == 0.0):
            raise ValueError("teacher: every direction v_k must be non-zero")
        object.__setattr__(self, "coefficients", b)
        object.__setattr__(self, "directions", V)

    @property
    def k(self) -> int:
        return int(self.coefficients.shape[0])

    @property
    def d(self) -> int:
        return int(self.directions.shape[1])

    def unit_directions(self) -> Array:
        """``v̂_k = v_k/‖v_k‖``, ``(k, d)``, read-only (computed once: the alignment of every step reads it)."""
        return self._units

    @cached_property
    def _units(self) -> Array:
        units = self.directions / np.linalg.norm(self.directions, axis=1, keepdims=True)
        units.flags.writeable = False
        return units

    def __call__(self, X: Array) -> Array:
        """Teacher output on inputs ``X`` of shape ``(n, d)``."""
        return np.maximum(X @ self.directions.T, 0.0) @ self.coefficients


def standard_teacher(d: int, k: int = 1, a_star: float = 1.0) -> Teacher:
    """``k`` unit features ``v_k = e_k`` (default ``k = 1``, ``v = e1``) each with weight ``a*``.

    With ``k`` features the student's initial direction (``e_{k+1}``) stays orthogonal
    to all of them, so ``d ≥ k + 1`` is required.
    """
    if d < k + 1:
        raise ValueError(f"d must be at least k + 1 = {k + 1} for a {k}-feature teacher (got d={d})")
    directions = np.zeros((k, d))  # not np.eye(d)[:k]: that is d² numbers, 80 GB at d = 10⁵
    directions[np.arange(k), np.arange(k)] = 1.0
    return Teacher(coefficients=np.full(k, float(a_star)), directions=directions)


def random_teacher(d: int, k: int, seed: int | np.random.SeedSequence) -> Teacher:
    """``k`` features as Kunin et al. (2024) and Chizat draw them: directions ``v_k`` uniformly random
    on the unit sphere (normalised Gaussians) and output weights ``a*_k = ±1`` with random signs, both
    from ``default_rng(seed)`` (directions first). Not the torch stream of their code: the same law,
    other draws (their runs and ours agree within seed-to-seed variation)."""
    rng = np.random.default_rng(seed)
    V = rng.standard_normal((k, d))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    signs = np.where(rng.standard_normal(k) >= 0.0, 1.0, -1.0)
    return Teacher(coefficients=signs, directions=V)
