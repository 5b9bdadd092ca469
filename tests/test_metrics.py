"""Observables of SPEC §2 on hand-computable cases and against Monte Carlo."""

from __future__ import annotations

import numpy as np
import pytest

from gaugecli.core.model.gauge import function_coordinates
from gaugecli.core.model.metrics import (
    alignment,
    clock_free_gap,
    clock_free_gap_location,
    cumulative_log_time_integral,
    distance_to_path,
    empirical_nonowner_norm,
    final_owner,
    first_time_below,
    group_norm,
    instantaneous_owner,
    log_grid_nodes,
    log_time_integral,
    loss_decay_rate,
    nonowner_norm,
    specialization_time,
    time_rescaling_mismatch,
)
from gaugecli.core.model.model import Model, standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.model.teacher import Teacher

# ------------------------------------------------------------------------------------
# alignment and owners


def test_alignment_single_feature() -> None:
    teacher = Model(Teacher(coefficients=np.array([1.0]), directions=np.array([[2.0, 0.0, 0.0]])))  # non-unit v
    W = np.array([[3.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 2.0], [-1.0, 0.0, 0.0], [1.0, np.sqrt(3.0), 0.0]])
    alpha, which = alignment(W, teacher)
    np.testing.assert_allclose(alpha, [1.0, 1 / np.sqrt(2), 0.0, -1.0, 0.5], atol=1e-15)
    np.testing.assert_array_equal(which, 0)


def test_alignment_max_over_teacher_features() -> None:
    teacher = standard_model(4, k=2)
    W = np.array([[0.0, 5.0, 0.0, 0.0], [3.0, 1.0, 0.0, 0.0], [1.0, 3.0, 0.0, 0.0], [-1.0, -1.0, 1.0, 0.0]])
    alpha, which = alignment(W, teacher)
    np.testing.assert_allclose(alpha, [1.0, 3 / np.sqrt(10), 3 / np.sqrt(10), -1 / np.sqrt(3)], atol=1e-15)
    np.testing.assert_array_equal(which, [1, 0, 1, 0])
    # leading axes are kept
    alpha_b, which_b = alignment(np.stack([W, W[::-1]]), teacher)
    assert alpha_b.shape == (2, 4)
    np.testing.assert_allclose(alpha_b[1], alpha[::-1])
    np.testing.assert_array_equal(which_b[1], which[::-1])


def test_instantaneous_owner() -> None:
    c = np.array([0.5, 2.0, 1.0])
    alpha = np.array([0.9, 0.1, 0.5])
    assert int(instantaneous_owner(c, alpha)) == 2  # c·α = 0.45, 0.2, 0.5
    # batched over leading (time) axes
    c_t = np.array([[0.5, 2.0, 1.0], [3.0, 0.1, 0.1]])
    a_t = np.array([[0.9, 0.1, 0.5], [0.1, 1.0, 1.0]])
    np.testing.assert_array_equal(instantaneous_owner(c_t, a_t), [2, 0])


def test_final_owner() -> None:
    eps = 0.01
    # two aligned neurons: the one with larger c wins, even if another has larger c·α overall
    c = np.array([5.0, 0.3, 0.6, 0.2])
    alpha = np.array([0.5, 0.995, 0.992, 1.0])
    owner, spec = final_owner(c, alpha, eps)
    assert int(owner) == 2 and bool(spec)
    # the threshold is inclusive: α = 1 − ε counts as aligned
    owner, spec = final_owner(np.array([1.0, 0.5]), np.array([0.9, 0.99]), eps)
    assert int(owner) == 1 and bool(spec)
    # no aligned neuron: fall back to argmax c·α, flagged as not specialized
    owner, spec = final_owner(np.array([1.0, 2.0, 0.5]), np.array([0.9, 0.3, 0.98]), eps)
    assert int(owner) == 0 and not bool(spec)
    # batched
    cB = np.array([[5.0, 0.3, 0.6], [1.0, 2.0, 0.5]])
    aB = np.array([[0.5, 0.995, 0.992], [0.9, 0.3, 0.98]])
    owner, spec = final_owner(cB, aB, eps)
    np.testing.assert_array_equal(owner, [2, 0])
    np.testing.assert_array_equal(spec, [True, False])


def test_specialization_time() -> None:
    crossing = np.array([[1.5, np.nan, 3.0], [np.nan, 0.25, 7.0]])
    np.testing.assert_array_equal(specialization_time(crossing, np.array([2, 1])), [3.0, 0.25])
    np.testing.assert_array_equal(specialization_time(crossing, np.array([0, 0])), [1.5, np.nan])
    assert float(specialization_time(crossing[0], 2)) == 3.0
    assert np.isnan(float(specialization_time(crossing[0], 1)))  # never aligned
    # time-major batches: (ensemble, seed, m) with per-member owners
    crossing3 = np.stack([crossing, crossing[::-1]])
    np.testing.assert_array_equal(
        specialization_time(crossing3, np.array([[2, 1], [1, 2]])), [[3.0, 0.25], [0.25, 3.0]]
    )


def test_specialization_time_scalar_owner_broadcasts_over_batch() -> None:
    crossing = np.array([[1.5, np.nan, 3.0], [np.nan, 0.25, 7.0]])
    np.testing.assert_array_equal(specialization_time(crossing, 0), [1.5, np.nan])


# ------------------------------------------------------------------------------------
# non-owner functional norm


def _mc_norm_sq(c: np.ndarray, U: np.ndarray, owner: int, n: int = 1_000_000, seed: int = 0) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    keep = np.arange(c.size) != owner
    s1 = s2 = 0.0
    for _ in range(n // 200_000):
        X = rng.standard_normal((200_000, U.shape[1]))
        g = np.maximum(X @ U[keep].T, 0.0) @ c[keep]
        s1 += np.sum(g**2)
        s2 += np.sum(g**4)
    mean = s1 / n
    return mean, np.sqrt((s2 / n - mean**2) / n)


@pytest.mark.parametrize("owner", [0, 2])
def test_nonowner_norm_vs_monte_carlo(owner: int) -> None:
    rng = np.random.default_rng(3)
    c = np.array([1.0, -0.4, 0.7, 0.25])
    U = rng.standard_normal((4, 5))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    mean, se = _mc_norm_sq(c, U, owner, seed=owner)
    P = float(nonowner_norm(c, U, owner))
    assert abs(P**2 - mean) <= 4 * se
    assert se < 0.01 * mean


def test_nonowner_norm_closed_forms() -> None:
    d = 5
    E = np.eye(d)
    # mutually orthogonal non-owners: P² = ½ Σ c_j² + (1/π) Σ_{i<j} c_i c_j
    c = np.array([9.0, 0.3, -0.5, 0.8])
    U = E[:4]
    expected = 0.5 * (0.09 + 0.25 + 0.64) + (0.3 * -0.5 + 0.3 * 0.8 + -0.5 * 0.8) / np.pi
    assert float(nonowner_norm(c, U, 0)) == pytest.approx(np.sqrt(expected), rel=1e-14)
    # duplicate non-owners merge: P = |Σ_{j≠o} c_j| / √2
    c = np.array([0.2, 0.7, 0.4, -0.1])
    U = np.tile(E[1], (4, 1))
    assert float(nonowner_norm(c, U, 2)) == pytest.approx(abs(0.2 + 0.7 - 0.1) / np.sqrt(2), rel=1e-14)
    # exactly cancelling duplicates: zero
    assert float(nonowner_norm(np.array([1.0, 0.5, -0.5]), np.tile(E[0], (3, 1)), 0)) == pytest.approx(0, abs=1e-15)
    # antipodal non-owners: disjoint supports, P² = ½ (c1² + c2²)
    U = np.stack([E[0], E[2], -E[2]])
    assert float(nonowner_norm(np.array([3.0, 0.6, 0.8]), U, 0)) == pytest.approx(np.sqrt(0.5), rel=1e-14)
    # m = 1: nothing but the owner
    assert (
        float(nonowner_norm(np.array([2.0]), E[:1], 0)) == 0.0
    )  # exact by construction: the only neuron is the owner: an empty sum


def test_group_norm_is_the_subsets_function_norm() -> None:
    """``group_norm`` of a mask is ``nonowner_norm`` with every other neuron counted as the owner:
    Monte Carlo on the subset {1, 3} (the estimator of the non-owner tests, with the two others
    zeroed), and the closed form of a cancelling pair of one direction."""
    rng = np.random.default_rng(5)
    c = np.array([0.9, -0.4, 0.7, 0.25])
    U = rng.standard_normal((4, 5))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    members = np.array([False, True, False, True])
    mean, se = _mc_norm_sq(np.where(members, c, 0.0), U, owner=0, seed=7)
    assert abs(float(group_norm(c, U, members)) ** 2 - mean) <= 4 * se
    # one direction, coefficients ε and −(ε + η): together they carry |η| ‖σ(u·x)‖ = |η|/√2
    E = np.eye(5)
    pair = np.array([0.02, -0.0201])
    assert float(group_norm(pair, np.tile(E[1], (2, 1)), np.array([True, True]))) == pytest.approx(
        1e-4 / np.sqrt(2), rel=1e-9
    )
    # the whole layer but the owner is nonowner_norm
    assert float(group_norm(c, U, np.arange(4) != 2)) == pytest.approx(float(nonowner_norm(c, U, 2)), rel=1e-15)


def test_nonowner_norm_batched_owner() -> None:
    rng = np.random.default_rng(4)
    c = rng.standard_normal((3, 4))
    U = rng.standard_normal((3, 4, 5))
    U /= np.linalg.norm(U, axis=-1, keepdims=True)
    owners = np.array([0, 3, 1])
    P = nonowner_norm(c, U, owners)
    assert P.shape == (3,)
    for b in range(3):
        assert P[b] == pytest.approx(float(nonowner_norm(c[b], U[b], int(owners[b]))), rel=1e-14)


def test_empirical_nonowner_norm_approaches_population_value() -> None:
    rng = np.random.default_rng(5)
    a = np.array([0.8, -0.6, 1.2])
    W = rng.standard_normal((3, 4)) * np.array([[0.5], [2.0], [1.0]])
    X = rng.standard_normal((400_000, 4))
    c, U = function_coordinates(Network(a, W))
    P = float(nonowner_norm(c, U, 1))
    P_n = float(empirical_nonowner_norm(a, W, 1, X))
    g = np.maximum(X @ W[[0, 2]].T, 0.0) @ a[[0, 2]]
    se = (g**2).std() / np.sqrt(X.shape[0])
    assert P_n**2 == pytest.approx(np.mean(g**2), rel=1e-12)
    assert abs(P_n**2 - P**2) <= 4 * se
    # batched owners
    P_b = empirical_nonowner_norm(np.stack([a, a]), np.stack([W, W]), np.array([1, 0]), X[:1000])
    assert P_b[0] == pytest.approx(float(empirical_nonowner_norm(a, W, 1, X[:1000])), rel=1e-13)
    assert P_b[1] == pytest.approx(float(empirical_nonowner_norm(a, W, 0, X[:1000])), rel=1e-13)


# ------------------------------------------------------------------------------------
# times and clock-free comparisons


def test_first_time_below() -> None:
    t = np.array([0.0, 1.0, 2.0, 3.0])
    v = np.array([1.0, 0.1, 0.01, 0.001])
    # log-linear interpolation between (1, 0.1) and (2, 0.01)
    assert first_time_below(t, v, 0.03) == pytest.approx(1 + np.log(0.3) / np.log(0.1), rel=1e-14)
    assert first_time_below(t, v, 0.01) == 2.0  # hits a sample exactly
    assert first_time_below(t, v, 5.0) == 0.0  # already below at the start
    assert np.isnan(first_time_below(t, v, 1e-4))  # never
    # exact for an exponential: L = e^{−t} sampled coarsely
    tt = np.linspace(0, 10, 6)
    assert first_time_below(tt, np.exp(-tt), np.exp(-3.3)) == pytest.approx(3.3, rel=1e-12)
    # only the first passage counts
    assert first_time_below(t, np.array([1.0, 0.01, 1.0, 0.001]), 0.5) < 1.0


def _curves(t: np.ndarray):
    loss = np.exp(-t)
    return loss, 1 - loss**2, 1 - loss  # α₁(ℓ) = 1 − ℓ², α₂(ℓ) = 1 − ℓ


def test_clock_free_gap_hand_value_and_identity() -> None:
    t = np.linspace(0, 20, 4000)
    loss, a1, a2 = _curves(t)
    # max_ℓ |ℓ − ℓ²| = 1/4 at ℓ = 1/2
    assert clock_free_gap(loss, a1, loss, a2) == pytest.approx(0.25, abs=1e-4)
    assert (
        clock_free_gap(loss, a1, loss, a1) == 0.0
    )  # exact by construction: the same inputs twice: a difference of identical numbers


def test_clock_free_gap_is_invariant_under_monotone_time_reparametrization() -> None:
    t = np.linspace(0, 20, 4000)
    loss, a1, a2 = _curves(t)
    ref = clock_free_gap(loss, a1, loss, a2)
    for tau in (lambda s: s**3 / 400.0, lambda s: np.expm1(s / 4.0), lambda s: 7.0 * s):
        s = np.linspace(0, 20, 2500)  # a different sampling of a different clock
        loss_s = np.exp(-tau(s))
        alpha_s = 1 - loss_s
        assert clock_free_gap(loss, a1, loss_s, alpha_s) == pytest.approx(ref, abs=2e-3)
        # a run against its own time-reparametrized copy: no gap
        assert clock_free_gap(loss, a2, loss_s, alpha_s) == pytest.approx(0.0, abs=2e-3)
    # reparametrizing time without resampling leaves the (loss, α) pairs, hence Δ, exactly unchanged
    assert clock_free_gap(loss, a1, loss, a2) == ref


def test_clock_free_gap_ignores_non_monotone_blips_and_floor() -> None:
    t = np.linspace(0, 20, 4000)
    loss, a1, a2 = _curves(t)
    bumpy = loss.copy()
    bumpy[1000:1003] *= 1.5  # the loss rises briefly: those samples are not new minima
    a_bumpy = a2.copy()
    a_bumpy[1000:1003] = -5.0  # garbage alignment there must be ignored
    assert clock_free_gap(loss, a1, bumpy, a_bumpy) == pytest.approx(0.25, abs=1e-3)
    # disjoint loss ranges: undefined
    assert np.isnan(
        clock_free_gap(np.array([1.0, 0.5]), np.array([0.0, 0.1]), np.array([0.1, 0.05]), np.array([0.0, 0.1]))
    )


def test_time_rescaling_mismatch_recovers_the_scale() -> None:
    def L(t):
        return 0.3 * np.exp(-t) + 0.2 * np.exp(-0.2 * t)

    t1 = np.concatenate([[0.0], np.geomspace(1e-3, 60.0, 800)])
    for s_true in (0.25, 3.7, 40.0):
        t2 = t1 * s_true
        mismatch, s = time_rescaling_mismatch(t1, L(t1), t2, L(t2 / s_true))
        assert mismatch <= 1e-3
        assert s == pytest.approx(s_true, rel=1e-2)
    # a curve and itself: s = 1
    mismatch, s = time_rescaling_mismatch(t1, L(t1), t1, L(t1))
    assert mismatch <= 1e-4 and s == pytest.approx(1.0, rel=1e-2)


def test_time_rescaling_finds_scales_the_horizons_do_not_tell() -> None:
    """Both runs on one grid (one horizon), run 2 slower by 4·10⁵ and by 6·10⁶ (±D at D = 256 and
    1024): the search must not be centred on the horizons' ratio."""
    t = np.concatenate([[0.0], np.geomspace(1e-8, 1e9, 6000)])
    L = lambda x: np.exp(-x)  # noqa: E731
    for s_true in (4e5, 6e6):
        mismatch, s = time_rescaling_mismatch(t, L(t), t, L(t / s_true))
        assert mismatch <= 1e-3
        assert s == pytest.approx(s_true, rel=1e-2)


def test_time_rescaling_cannot_match_different_shapes() -> None:
    t = np.concatenate([[0.0], np.geomspace(1e-3, 60.0, 800)])
    one_rate = 0.5 * np.exp(-t)
    two_rates = 0.25 * np.exp(-t) + 0.25 * np.exp(-0.01 * t)
    mismatch, _ = time_rescaling_mismatch(t, one_rate, t, two_rates)
    assert mismatch > 0.05


# ------------------------------------------------------------------------------------
# integrals over a run and the loss-decay rate


def _two_scale_grid(points: int = 400, t_end: float = 2e3) -> np.ndarray:
    """The flow's output grid: 0, then log-spaced from 1e-9 (integrate.log_time_grid)."""
    return np.concatenate([[0.0], np.geomspace(1e-9, t_end, points - 1)])


def _two_scale_rate(t: np.ndarray) -> tuple[np.ndarray, float]:
    """A fast and a slow relaxation, 1e-3 and 1e2 (the −D run's two clocks), and the exact
    ``∫_0^{t_end}``: ``(1 − e^{−t/τ₁}) + 2 (1 − e^{−t/τ₂})``."""
    y = np.exp(-t / 1e-3) / 1e-3 + 2.0 * np.exp(-t / 1e2) / 1e2
    return y, float(-np.expm1(-t[-1] / 1e-3) - 2.0 * np.expm1(-t[-1] / 1e2))


def test_log_time_integral_two_clocks_against_closed_form() -> None:
    t = _two_scale_grid()
    y, exact = _two_scale_rate(t)
    assert log_time_integral(t, y) == pytest.approx(exact, rel=1e-9)
    # the trapezoid in t on the same samples is what this replaces: off by ~1e-3
    assert abs(np.trapezoid(y, t) / exact - 1) > 1e-4
    # time axis last, leading axes kept (R and T of several runs at once)
    both = log_time_integral(t, np.stack([y, 2 * y]))
    np.testing.assert_allclose(both, [exact, 2 * exact], rtol=1e-9)
    # two samples: the trapezoid; one sample: nothing
    assert log_time_integral(np.array([0.0, 2.0]), np.array([1.0, 3.0])) == 4.0
    assert log_time_integral(np.array([0.0]), np.array([1.0])) == 0.0  # exact by construction: one point: an empty sum
    with pytest.raises(ValueError, match="increase"):
        log_time_integral(np.array([0.0, 2.0, 1.0]), np.ones(3))


def test_cumulative_log_time_integral_against_closed_form() -> None:
    t = _two_scale_grid()
    y, exact = _two_scale_rate(t)
    cumulative = cumulative_log_time_integral(t, y)
    closed = -np.expm1(-t / 1e-3) - 2.0 * np.expm1(-t / 1e2)  # ∫_0^t, at every sample
    assert cumulative[0] == 0.0 and np.all(
        np.diff(cumulative) >= 0
    )  # exact by construction: a cumulative integral starts at 0 by definition
    assert cumulative[-1] == pytest.approx(exact, rel=1e-9)  # the end: spectral, as the Simpson total
    np.testing.assert_allclose(cumulative, closed, rtol=2e-3, atol=1e-12)  # in between: O(h²), h = 0.06
    np.testing.assert_allclose(cumulative_log_time_integral(t, np.stack([y, 3 * y]))[1], 3 * cumulative)


def test_inserted_nodes_are_left_out_of_the_quadrature() -> None:
    """Crossing times inserted into a log-spaced grid split intervals unequally and cost
    Simpson its order; dropping them restores the closed-form value."""
    base = _two_scale_grid()
    events = np.array([3.1e-3, 0.77, 41.3, np.nan])  # NaN: a neuron that never crossed
    t = np.unique(np.concatenate([base, events[np.isfinite(events)]]))
    y, exact = _two_scale_rate(t)
    keep = log_grid_nodes(t, events)
    np.testing.assert_array_equal(t[keep], base)
    assert log_time_integral(t[keep], y[keep]) == pytest.approx(exact, rel=1e-9)
    assert abs(log_time_integral(t, y) / exact - 1) > 1e-8  # with them: ~1e-7, measurably worse
    # t = 0 stays even when it is a crossing time (aligned from the start); None keeps all
    assert log_grid_nodes(np.array([0.0, 1.0, 2.0]), np.array([0.0]))[0]
    assert np.all(log_grid_nodes(t, None))


def test_loss_decay_rate_against_the_derivative_of_a_closed_form() -> None:
    """The −D run's shape: a fast mode with a small part of the loss (c relaxing), then a slow one."""
    t = _two_scale_grid(t_end=3e3)
    loss = 0.01 * np.exp(-t / 1e-3) + 0.22 * np.exp(-t / 50.0)
    exact = 0.01 / 1e-3 * np.exp(-t / 1e-3) + 0.22 / 50.0 * np.exp(-t / 50.0)
    rate = loss_decay_rate(t, loss)
    resolved = (t > 0) & (loss > 1e-12)
    np.testing.assert_allclose(rate[resolved], exact[resolved], rtol=1e-4)
    assert np.isnan(rate[0])  # t = 0 is not on the ln-t axis
    assert np.all(np.isnan(rate[~resolved]))  # below the floor the loss is round-off
    assert np.all(np.isnan(loss_decay_rate(t[:3], loss[:3])))  # too few samples for a spline


def test_distance_to_path_against_brute_force_and_closed_forms() -> None:
    """Point-to-polyline distances from the k-d tree search against all segments (brute force),
    and against the closed form for a circle sampled finely (distance = |r − 1|)."""
    rng = np.random.default_rng(3)
    # a random-walk polyline and points near it
    path = np.cumsum(rng.normal(size=(300, 2)) * 0.05, axis=0)
    points = path[rng.integers(0, 300, 50)] + rng.normal(size=(50, 2)) * 0.01
    got = distance_to_path(points[:, 0], points[:, 1], path[:, 0], path[:, 1], neighbours=300)
    a, b = path[:-1], path[1:]
    d = b - a
    rel = points[:, None, :] - a[None, :, :]
    s = np.clip(np.sum(rel * d[None], axis=-1) / np.sum(d * d, axis=-1)[None], 0.0, 1.0)
    brute = np.min(np.linalg.norm(rel - s[..., None] * d[None], axis=-1), axis=1)
    np.testing.assert_allclose(got, brute, rtol=0, atol=1e-15)
    # a finely sampled unit circle: the polyline lies inside by ≤ h²/8 (h = 2π/20000)
    phi = np.linspace(0.0, 2.0 * np.pi, 20_001)
    r = np.array([0.9, 0.999, 1.0, 1.001, 1.2])
    psi = np.linspace(0.3, 5.0, r.size)
    got = distance_to_path(r * np.cos(psi), r * np.sin(psi), np.cos(phi), np.sin(phi))
    np.testing.assert_allclose(got, np.abs(r - 1.0), rtol=0, atol=(2 * np.pi / 20_000) ** 2 / 8 + 1e-15)
    # a point beyond an end of the path: the distance to that end
    assert distance_to_path(np.array([2.0]), np.array([0.0]), np.array([0.0, 1.0]), np.zeros(2))[0] == 1.0


def test_clock_free_gap_location_is_where_the_gap_is_attained() -> None:
    """Two closed-form α(ℓ) curves, α₁ = 1 − ℓ and α₂ = (1 − ℓ)², on ℓ ∈ [0.01, 1]: the gap
    ℓ(1 − ℓ) is largest at ℓ = ½ (Δ = ¼), and the located point reads both curves there."""
    loss = np.geomspace(1.0, 0.01, 4000)
    gap, level, a1, a2 = clock_free_gap_location(loss, 1.0 - loss, loss, (1.0 - loss) ** 2, levels=20_000)
    assert gap == pytest.approx(0.25, abs=1e-6) and level == pytest.approx(0.5, abs=1e-3)
    assert a1 == pytest.approx(1.0 - level, abs=1e-6) and a2 == pytest.approx((1.0 - level) ** 2, abs=1e-6)
    assert gap == clock_free_gap(loss, 1.0 - loss, loss, (1.0 - loss) ** 2, levels=20_000) == a1 - a2
    assert all(np.isnan(clock_free_gap_location(loss, loss, loss * 1e-3, loss, floor=1e-20)))
