"""``core.separation``: the power-law fit's standard error against the Monte-Carlo spread of
slopes, the asymptotic-slope error estimate against a known correction, and the paired
speed ratio of two reduced-equation runs against their event-located T_spec ratio."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gaugecli.core import reduced
from gaugecli.core.separation import asymptotic_slope, local_slopes, paired_speed_ratio, power_law_fit


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


def test_paired_speed_ratio_of_reduced_runs_averages_to_their_time_ratio() -> None:
    """Two runs of the reduced (c, θ) equations, saved on log grids like the full flow's: the
    time average of S over the +D run equals T_spec(−D)/T_spec(+D) from event location."""
    D = 8.0
    runs = {}
    for sign in (1.0, -1.0):
        sol = reduced.solve_reduced(np.array([sign * D]), t_max=1e3, grad_tol=None, stop_at_crossing=0)
        t_spec = float(sol.crossing_times[0])
        grid = np.concatenate([[0.0], np.geomspace(1e-9, t_spec * 1.2, 400)])
        grid = grid[grid <= sol.t[-1]]
        c, theta = sol.dense(grid)
        runs[sign] = (grid, c[:, 0], np.cos(theta[:, 0]), t_spec)
    plus, minus = runs[1.0], runs[-1.0]
    sp = paired_speed_ratio(D, plus[:3], minus[1:3], plus[3])
    assert sp.t[0] == 0.0 and sp.t[-1] == plus[3]
    c0 = 0.1
    assert sp.speed_ratio[0] == pytest.approx((D + math.sqrt(D**2 + 4 * c0**2)) ** 2 / (4 * c0**2), rel=1e-9)
    assert sp.time_average == pytest.approx(minus[3] / plus[3], rel=5e-4)
    np.testing.assert_allclose(sp.speed_ratio, sp.mobility_ratio * sp.coefficient_plus / sp.coefficient_minus)
    with pytest.raises(ValueError, match="positive time"):
        paired_speed_ratio(D, plus[:3], minus[1:3], float("nan"))
