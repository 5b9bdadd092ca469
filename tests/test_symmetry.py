"""Separation rate of equal neurons against its closed form and against the flow itself."""

from __future__ import annotations

import numpy as np
import pytest

from gaugecli.core.dynamics import population_gradient
from gaugecli.core.gauge import duplicate_initial_condition
from gaugecli.core.symmetry import ROUNDOFF_EXPONENT, antisymmetric_rate, equal_groups, separation_exponent
from gaugecli.core.teacher import standard_teacher

TEACHER = standard_teacher(6)


@pytest.mark.parametrize("m", [2, 5])
def test_minus_pair_rate_tends_to_closed_form(m: int) -> None:
    """λ_anti(0) of a −D pair → ‖(c0/2 − 1/2π) u0 − v/4‖ (c0 the total coefficient), with O(1/D) error."""
    c0 = 0.1
    u0, v = np.eye(6)[1], np.eye(6)[0]
    limit = np.linalg.norm((c0 / 2 - 1 / (2 * np.pi)) * u0 - v / 4)
    errors = []
    for D in (64.0, 256.0, 1024.0):
        a, W = duplicate_initial_condition(TEACHER, np.full(m, -D), c0, np.pi / 2)
        errors.append(abs(antisymmetric_rate(a, W, TEACHER, (0, 1)) - limit))
    assert errors[-1] < 1e-4
    assert errors[0] / errors[-1] == pytest.approx(16.0, rel=0.2)  # O(1/D)


def test_rate_is_the_growth_of_an_antisymmetric_kick() -> None:
    """Finite differences: kick the pair by ±z along the least-stable mode; the gradient
    difference equals −λ_anti times the kick (the mode is an eigenvector of the linear flow)."""
    a, W = duplicate_initial_condition(TEACHER, np.array([-4.0, -4.0, 4.0]), 0.1, np.pi / 2)
    from gaugecli.core.dynamics import population_hessian
    from gaugecli.core.symmetry import _neuron_indices

    H = population_hessian(a, W, TEACHER)
    ii, jj = _neuron_indices(0, 3, 6), _neuron_indices(1, 3, 6)
    block = H[np.ix_(ii, ii)] - H[np.ix_(ii, jj)]
    lam, vec = np.linalg.eigh(block)
    z = 1e-6 * vec[:, 0]
    a1, W1 = a.copy(), W.copy()
    a1[0] += z[0]
    a1[1] -= z[0]
    W1[0] += z[1:]
    W1[1] -= z[1:]
    g = population_gradient(a1, W1, TEACHER)
    diff = np.concatenate([[g.a[0] - g.a[1]], g.W[0] - g.W[1]]) / 2  # ż = −(this)
    np.testing.assert_allclose(-diff, -lam[0] * z, atol=1e-12)
    assert antisymmetric_rate(a, W, TEACHER, (0, 1)) == pytest.approx(-lam[0])


def test_separation_exponent_integrates() -> None:
    t = np.linspace(0.0, 2.0, 2001)
    np.testing.assert_allclose(separation_exponent(t, 3 * t**2)[-1], 8.0, rtol=1e-6)
    assert ROUNDOFF_EXPONENT == pytest.approx(36.04, abs=0.01)


def test_equal_groups() -> None:
    a, W = duplicate_initial_condition(TEACHER, np.array([4.0, -4.0, -4.0, 1.0, -4.0]), 0.1, np.pi / 2)
    assert equal_groups(a, W) == [[1, 2, 4]]
    W[2, 0] += 1e-15
    assert equal_groups(a, W) == [[1, 4]]
