"""``core.separation``: the power-law fit's standard error against the Monte-Carlo spread of
slopes, the asymptotic-slope error estimate against a known correction, and the paired
speed ratio of two reduced-equation runs against their event-located T_spec ratio."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from gaugecli.core.analyses.separation import asymptotic_slope, local_slopes, paired_speed_ratio, power_law_fit
from gaugecli.core.reduced import planar as reduced


def test_power_law_fit_recovers_exponent_and_its_standard_error_matches_the_spread() -> None:
    x = np.geomspace(4.0, 1024.0, 9)
    exact = power_law_fit(x, 3.0 * x**1.5)
    assert exact.slope == pytest.approx(1.5, abs=1e-12) and exact.intercept == pytest.approx(math.log(3.0))
    assert exact.stderr < 1e-12 and exact.n == 9
    np.testing.assert_allclose(exact(x), 3.0 * x**1.5, rtol=1e-12)
    # log-normal noise of 5 %: the reported s.e. should match the spread of slopes over seeds
    rng = np.random.default_rng(7)
    fits = [power_law_fit(x, 3.0 * x**1.5 * np.exp(0.05 * rng.standard_normal(x.size))) for _ in range(4000)]
    slopes = np.array([f.slope for f in fits])
    stderr = np.sqrt(np.mean([f.stderr**2 for f in fits]))
    assert np.std(slopes) == pytest.approx(stderr, rel=0.05)
    assert np.std(slopes) == pytest.approx(0.05 / np.sqrt(np.sum((np.log(x) - np.log(x).mean()) ** 2)), rel=0.05)
    # non-positive and non-finite points are ignored; too few points give NaN
    assert power_law_fit([1.0, 2.0, 4.0, -1.0], [1.0, 4.0, 16.0, 5.0]).slope == pytest.approx(2.0)
    assert math.isnan(power_law_fit([1.0], [1.0]).slope) and math.isnan(power_law_fit([1.0, 2.0], [1, 2]).stderr)


def test_asymptotic_slope_error_covers_an_order_two_correction() -> None:
    """``y = D²(1 + b/D²)``: local slope ``2 − 2b/D² + …``; the estimate's error bound must cover
    the true remaining deviation from 2 for either sign of b and spacing 2 or 4."""
    for ratio in (2.0, 4.0):
        D = ratio ** np.arange(0, 6)
        for b in (0.96, -0.5, 3.0):
            value, error = asymptotic_slope(D, D**2 * (1.0 + b / D**2))
            assert abs(value - 2.0) <= error
            # one more D shrinks the error estimate like D⁻²
            _, finer = asymptotic_slope(D * ratio, (D * ratio) ** 2 * (1.0 + b / (D * ratio) ** 2))
            assert finer / error == pytest.approx(ratio**-2, rel=0.1)
    mid, s = local_slopes([1.0, 4.0, 16.0], [1.0, 4.0, 16.0])
    np.testing.assert_allclose(mid, [2.0, 8.0]) and np.testing.assert_allclose(s, [1.0, 1.0])
    with pytest.raises(ValueError, match="three points"):
        asymptotic_slope([1.0, 2.0], [1.0, 2.0])


def test_paired_speed_ratio_averages_to_the_ratio_of_independently_located_times() -> None:
    """The paired integration (both runs by angle, ∫S dt as a state) against two separate reduced
    runs with event location by another solver (Radau): T₊, ∫S dt = T_spec(−D) and the time
    average meet them to the solvers' tolerance (rtol 1e-12 each; ~10·rtol on an event time), the
    series sit on the declared times, c₊ is the +D run's own, and c₋ is the −D run's at equal angle."""
    for D, c0 in ((8.0, 0.1), (256.0, 0.05)):
        t_plus = reduced.reduced_specialization_time(D, c0=c0, method="Radau")
        t_minus = reduced.reduced_specialization_time(-D, c0=c0, method="Radau")
        grid = np.concatenate([[0.0], np.geomspace(1e-9, t_plus * 1.2, 400)])
        sp = paired_speed_ratio(D, grid, c0=c0)
        assert sp.t_spec_plus == pytest.approx(t_plus, rel=1e-9)
        assert sp.t_spec_minus == pytest.approx(t_minus, rel=1e-9)
        assert sp.time_average == pytest.approx(t_minus / t_plus, rel=1e-9)
        np.testing.assert_array_equal(sp.t[:-1], grid[grid < sp.t_spec_plus * (1 - 1e-8)])
        assert sp.t[-1] == sp.t_spec_plus
        assert sp.speed_ratio[0] == pytest.approx((D + math.sqrt(D**2 + 4 * c0**2)) ** 2 / (4 * c0**2), rel=1e-9)
        np.testing.assert_allclose(sp.speed_ratio, sp.mobility_ratio * sp.coefficient_plus / sp.coefficient_minus)
        plus = reduced.solve_reduced(np.array([D]), t_max=2 * t_plus, c0=c0, grad_tol=None)
        c, theta = plus.dense(sp.t)
        np.testing.assert_allclose(sp.coefficient_plus, c[:, 0], rtol=1e-8)
        # the −D run at the angle the +D run has at its alignment: c₋ there, by root-finding
        minus = reduced.solve_reduced(np.array([-D]), t_max=2 * t_minus, c0=c0, grad_tol=None)
        from scipy.optimize import brentq

        def angle_gap(t: float, run: Any = minus, target: float = float(theta[-1, 0])) -> float:
            return float(run.dense(t)[1][0] - target)

        t_eq = brentq(angle_gap, 0.0, 1.5 * t_minus, xtol=1e-14)
        assert sp.coefficient_minus[-1] == pytest.approx(float(minus.dense(t_eq)[0][0]), rel=1e-8)
    with pytest.raises(ValueError, match="positive number"):
        paired_speed_ratio(float("nan"), grid)
