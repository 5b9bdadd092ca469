"""The linearised pruning rate (core/analyses/pruning.py) against independent closed forms."""

from __future__ import annotations

import numpy as np
import pytest

from gaugecli.core.analyses.pruning import pruning_rate, pruning_rate_limit

G2 = (np.pi**2 / 4 + 1) / (4 * np.pi**2)
"""‖∂κ(β, u)/∂β‖² at β = v, u ⊥ v: ((π/2)² + 1)/(2π)²."""


def test_limit_is_the_smallest_root_of_the_two_by_two() -> None:
    """λ_k = smallest eigenvalue of [[½, √k‖g‖], [√k‖g‖, k/2]], by the quadratic formula."""
    assert pruning_rate_limit(1) == pytest.approx(0.5 - np.sqrt(G2), rel=1e-13)
    for k in (1, 2, 4, 9):
        tr, det = 0.5 + k / 2, k / 4 - k * G2
        assert pruning_rate_limit(k) == pytest.approx((tr - np.sqrt(tr**2 - 4 * det)) / 2, rel=1e-12)
    assert pruning_rate_limit(4) == pytest.approx(0.294060, abs=1e-6)


def test_rate_per_D_converges_to_the_limit_like_one_over_D_squared() -> None:
    """Owner +D, non-owners −D at φ = π/2: mobilities √(D² + 4), (D + √(D² + 4))/2, kD differ from
    D by O(1/D), so λ/D − λ_k shrinks ×4 per doubling of D at large D."""
    for k in (1, 4):
        gaps = [abs(pruning_rate(D, -D, k) / D - pruning_rate_limit(k)) for D in (64.0, 128.0, 256.0)]
        assert gaps[0] / gaps[1] == pytest.approx(4.0, rel=0.02) and gaps[1] / gaps[2] == pytest.approx(4.0, rel=0.01)


def test_small_negative_delta_sets_the_rate() -> None:
    """|δ| → 0: the non-owner is the slow variable, λ ≈ |δ| (κ(u,u) − g·(½I)⁻¹·g) = |δ| (½ − 2‖g‖²)."""
    for d in (1e-3, 1e-4):
        assert pruning_rate(4.0, -d) / d == pytest.approx(0.5 - 2 * G2, rel=1e-3)


def test_only_negative_delta_is_pruned() -> None:
    assert np.isnan(pruning_rate(4.0, 0.0)) and np.isnan(pruning_rate(4.0, 1.0))
    assert pruning_rate(4.0, -1.0) > 0
