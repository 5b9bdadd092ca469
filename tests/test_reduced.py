"""Reduced (c, θ) equations against the full flow in (a, w), and the D → ∞ constants.

Independent references: the full d = 16 gradient flow of the package (17 or more unknowns,
kernels in d dimensions, LSODA with the closed-form Hessian) against the 2m-unknown planar
system; finite differences of the planar loss; the limiting problems solved by quadrature
(−D) and by an ODE in θ (+D) against Richardson extrapolation of the reduced T_spec in 1/D.
Measured when written (rtol 1e-13 reduced): full flow vs reduced T_spec ≤ 1.1e-9 relative at
the flow's default rtol 1e-10, ≤ 2.4e-11 at rtol 1e-12; Richardson vs limits ≤ 2e-12.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import simpson

from gaugecli.core.analyses.observables import observe
from gaugecli.core.analyses.symmetry import ROUNDOFF_EXPONENT, antisymmetric_rate, separation_exponent
from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
from gaugecli.core.kernels.arccos import angular_profile
from gaugecli.core.model.gauge import duplicate_initial_condition, function_coordinates, imbalance, owner_imbalances
from gaugecli.core.model.metrics import clock_free_gap, distance_to_path
from gaugecli.core.model.model import standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.population.dynamics import dissipation, population_gradient, population_loss
from gaugecli.core.reduced.limits import (
    favorable_limit,
    favorable_limit_dissipation,
    favorable_limit_path,
    fitted_order,
    limit_clock_free_gap,
    richardson_limit,
    unfavorable_limit,
    unfavorable_limit_dissipation,
    unfavorable_limit_path,
)
from gaugecli.core.reduced.planar import (
    angular_slope,
    planar_gradient,
    planar_loss,
    planar_parameters,
    reduced_specialization_time,
    reduced_velocity,
    solve_reduced,
)

D16 = 16
TEACHER = standard_model(D16)
TIGHT = FlowOptions(rtol=1e-12, atol=1e-15)


def _full_tspec(delta: float, options: FlowOptions = FlowOptions()) -> float:
    a0, W0 = duplicate_initial_condition(TEACHER, np.array([delta]))
    t_max = 4.0 / delta if delta > 0 else -15.0 * delta
    return float(gradient_flow(Network(a0, W0), TEACHER, t_max=t_max, options=options).crossing_times[0])


def _random_planar(m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    c = rng.uniform(-1.0, 1.5, m)
    theta = rng.uniform(-np.pi, np.pi, m)
    theta[1] = theta[0]  # a duplicate pair
    theta[2] = theta[0] + np.pi  # and an antipode
    return c, theta


# ------------------------------------------------------------------------------------
# the planar loss and its gradient


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_planar_loss_is_the_population_loss(seed: int) -> None:
    c, theta = _random_planar(4, seed)
    a, W = planar_parameters(c, theta, np.array([3.0, -2.0, 0.0, 1.0]), d=5)
    assert planar_loss(c, theta) == pytest.approx(float(population_loss(Network(a, W), standard_model(5))), rel=1e-13)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_planar_gradient_vs_central_differences(seed: int) -> None:
    """Central differences of the planar loss (step 1e-6, error ~1e-11) — including the duplicate
    pair, where the signed-angle form stays smooth."""
    c, theta = _random_planar(4, seed)
    grad = planar_gradient(c, theta)
    h = 1e-6
    for j in range(4):
        e = np.eye(4)[j] * h
        dc = (planar_loss(c + e, theta) - planar_loss(c - e, theta)) / (2 * h)
        dth = (planar_loss(c, theta + e) - planar_loss(c, theta - e)) / (2 * h)
        assert grad.coefficient[j] == pytest.approx(dc, abs=1e-9)
        assert grad.angle[j] == pytest.approx(dth, abs=1e-9)


def test_angular_slope_is_smooth_through_duplicates() -> None:
    """γ(Δ) = d g(|Δ|)/dΔ ≈ −Δ/2 near 0 (no 0·∞), and vanishes at ±π."""
    small = np.array([-1e-9, 0.0, 1e-9])
    np.testing.assert_allclose(angular_slope(small), -small / 2, rtol=1e-8, atol=1e-300)
    np.testing.assert_allclose(angular_slope(np.array([np.pi, -np.pi])), 0.0, atol=1e-16)


@pytest.mark.parametrize("seed", [0, 1])
def test_reduced_velocity_is_the_full_flow_and_conserves_delta(seed: int) -> None:
    """Chain rule on the full gradient in d = 6: ċ = ȧ‖w‖ + a û·ẇ, θ̇ = u̇·(−sin θ, cos θ),
    and dδ/dt = 2aȧ − 2w·ẇ = 0 — δ drops out of the state, entering only the mobilities."""
    c, theta = _random_planar(4, seed)
    c = np.abs(c) + 0.05  # M^u at δ > 0 needs c ≠ 0
    deltas = np.array([4.0, -4.0, 0.5, -0.1])
    a, W = planar_parameters(c, theta, deltas, d=6)
    g = population_gradient(Network(a, W), standard_model(6))
    a_dot, W_dot = -g.a, -g.W
    norm = np.linalg.norm(W, axis=-1)
    U = W / norm[:, None]
    c_dot = a_dot * norm + a * np.sum(U * W_dot, axis=-1)
    tangent = np.stack([-np.sin(theta), np.cos(theta)], axis=-1)
    theta_dot = np.sum(tangent * W_dot[:, :2], axis=-1) / norm
    c_red, theta_red = reduced_velocity(c, theta, deltas)
    np.testing.assert_allclose(c_red, c_dot, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(theta_red, theta_dot, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(2 * a * a_dot - 2 * np.sum(W * W_dot, axis=-1), 0.0, atol=1e-13)


def test_flow_stays_in_span_of_teacher_and_students() -> None:
    """The gradient of w_j is a combination of the w_i and v_k, so the flow never leaves
    span(v_k, w_i(0)): checked on a generic configuration in d = 8 spanning 3 dimensions."""
    rng = np.random.default_rng(3)
    teacher = standard_model(8)
    V = teacher.directions
    W = rng.standard_normal((3, 2)) @ np.vstack([V[0], rng.standard_normal(8)])  # three neurons in a plane with v
    W = np.vstack([W, rng.standard_normal(8)])  # a fourth neuron adds one more direction
    a = rng.standard_normal(4)
    S = np.linalg.qr(np.vstack([V, W]).T)[0]
    g = population_gradient(Network(a, W), teacher)
    out_of_span = g.W - (g.W @ S) @ S.T
    assert np.max(np.abs(out_of_span)) <= 1e-14 * np.max(np.abs(g.W))


# ------------------------------------------------------------------------------------
# T_spec: reduced vs the full d = 16 flow


@pytest.mark.parametrize("D", [4.0, 16.0, 256.0])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_single_neuron_tspec_matches_full_flow(D: float, sign: float) -> None:
    reduced = reduced_specialization_time(sign * D, rtol=1e-13)
    assert _full_tspec(sign * D, TIGHT) == pytest.approx(reduced, rel=1e-10)
    assert _full_tspec(sign * D) == pytest.approx(reduced, rel=1e-8)


def test_reduced_reproduces_the_measured_values_and_is_method_independent() -> None:
    assert reduced_specialization_time(4.0) == pytest.approx(0.43626, abs=5e-6)
    assert reduced_specialization_time(-16.0) == pytest.approx(161.846, abs=5e-4)
    for delta in (16.0, -16.0):
        lsoda = reduced_specialization_time(delta, rtol=1e-13)
        assert reduced_specialization_time(delta, rtol=1e-13, method="BDF") == pytest.approx(lsoda, rel=1e-10)


@pytest.mark.parametrize(
    "deltas",
    [owner_imbalances(3, 4.0, 0), np.array([2.0, -1.0, 0.5]), np.array([-16.0, 16.0])],
    ids=["select-m3", "mixed", "pair-16"],
)
def test_planar_system_matches_full_flow_for_several_neurons(deltas: np.ndarray) -> None:
    """Every crossing time and the whole trajectory (c_j, α_j) of the full flow in d = 16,
    from the 2m-unknown reduced system (measured agreement ≤ 4e-12)."""
    red = solve_reduced(deltas, t_max=20.0, rtol=1e-13, grad_tol=None)
    a0, W0 = duplicate_initial_condition(TEACHER, deltas)
    full = gradient_flow(Network(a0, W0), TEACHER, t_max=20.0, options=TIGHT)
    np.testing.assert_allclose(full.crossing_times, red.crossing_times, rtol=1e-10)
    assert np.array_equal(np.isnan(full.crossing_times), np.isnan(red.crossing_times))
    c, U = function_coordinates(Network(full.a, full.W))
    c_red, theta_red = red.dense(full.t)
    np.testing.assert_allclose(c, c_red, atol=1e-10)
    np.testing.assert_allclose(U[..., 0], np.cos(theta_red), atol=1e-10)
    np.testing.assert_allclose(imbalance(Network(full.a, full.W)), np.broadcast_to(deltas, c.shape), rtol=1e-8)


@pytest.mark.parametrize(("m", "delta"), [(3, 4.0), (2, -1.0)])
def test_m_equal_duplicates_are_one_neuron_with_m_delta(m: int, delta: float) -> None:
    """m neurons (c/m, u, δ) move as one neuron (c, u, mδ) — parameters scaled by √m — so the
    symmetric trajectory is computable even where round-off breaks it in any solver (−D groups
    with Λ > 36, e.g. m = 3 at δ = −4, split in the 2m-unknown system too)."""
    full = solve_reduced(np.full(m, delta), t_max=60.0, rtol=1e-13, grad_tol=None, stop_at_crossing=0)
    one = reduced_specialization_time(m * delta, rtol=1e-13)
    assert full.crossing_times[0] == pytest.approx(one, rel=1e-10)


# ------------------------------------------------------------------------------------
# D → ∞ constants


STRENGTHS = 2.0 ** np.arange(5, 11)  # 32 … 1024


@pytest.fixture(scope="module")
def scaled_tspec() -> dict[str, np.ndarray]:
    return {
        "plus": np.array([reduced_specialization_time(D, rtol=1e-13) * D for D in STRENGTHS]),
        "minus": np.array([reduced_specialization_time(-D, rtol=1e-13) / D for D in STRENGTHS]),
    }


def test_favorable_constant(scaled_tspec) -> None:
    """lim D·T_spec(+D) from the limiting ODE in θ vs Richardson in 1/D² of the reduced T_spec."""
    limit = favorable_limit()
    assert limit == pytest.approx(1.7539225675, abs=1e-10)
    extrapolated, table = richardson_limit(STRENGTHS, scaled_tspec["plus"], order=2.0)
    assert extrapolated == pytest.approx(limit, rel=1e-10)
    assert abs(table[-1] - table[-2]) < 1e-10 * limit  # the extrapolation has settled
    assert fitted_order(STRENGTHS, scaled_tspec["plus"], limit) == pytest.approx(2.0, abs=0.01)
    # the correction: D·T_spec(+D) = limit − 0.14372/D² + O(D⁻⁴)
    coeff = (scaled_tspec["plus"] - limit) * STRENGTHS**2
    assert coeff[-1] == pytest.approx(-0.143718, rel=1e-4)


def test_unfavorable_constant(scaled_tspec) -> None:
    """lim T_spec(−D)/D = ∫ π dθ / (g (π − θ) sin θ) (quadrature) vs Richardson of the reduced T_spec."""
    limit = unfavorable_limit()
    assert limit == pytest.approx(10.0809313027, abs=1e-10)
    extrapolated, table = richardson_limit(STRENGTHS, scaled_tspec["minus"], order=2.0)
    assert extrapolated == pytest.approx(limit, rel=1e-10)
    assert abs(table[-1] - table[-2]) < 1e-10 * limit
    assert fitted_order(STRENGTHS, scaled_tspec["minus"], limit) == pytest.approx(2.0, abs=0.02)
    coeff = (scaled_tspec["minus"] - limit) * STRENGTHS**2
    assert coeff[-1] == pytest.approx(8.8528, rel=1e-4)


def test_unfavorable_constant_does_not_depend_on_c0() -> None:
    """The fast layer forgets c0: only the O(1/D²) correction depends on it. The favorable limit
    does depend on c0, and grows with it: a smaller c means a smaller ‖w‖, a larger M^u."""
    D = 1024.0
    for c0 in (0.03, 0.3):
        assert reduced_specialization_time(-D, c0=c0) / D == pytest.approx(unfavorable_limit(), rel=3e-6)
    assert favorable_limit(c0=0.03) < favorable_limit(c0=0.1) < favorable_limit(c0=0.3)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_full_flow_at_large_d_resolves_the_correction(sign: float) -> None:
    """The package's flow at D = 256 sits on limit + coeff/D² (coeff from the reduced fits)."""
    D = 256.0
    T = _full_tspec(sign * D, TIGHT)
    scaled, limit, coeff = (T * D, favorable_limit(), -0.143718) if sign > 0 else (T / D, unfavorable_limit(), 8.8528)
    assert (scaled - limit) * D**2 == pytest.approx(coeff, rel=2e-3)


# ------------------------------------------------------------------------------------
# the dissipation budget


def _flow_budget(delta: float) -> tuple[float, float, float]:
    """(∫R dt, ∫T dt, L0 − L_end) from the package's flow: Simpson in ln t on a 4000-point grid."""
    a0, W0 = duplicate_initial_condition(TEACHER, np.array([delta]))
    tr = gradient_flow(Network(a0, W0), TEACHER, t_max=200 * (1 + abs(delta)), options=FlowOptions(grid_points=4000))
    obs = observe(tr, TEACHER)
    t = obs.t

    def integral(y: np.ndarray) -> float:
        return float(simpson(y[1:] * t[1:], x=np.log(t[1:])) + 0.5 * (y[0] + y[1]) * t[1])

    return integral(obs.reaction), integral(obs.transport), float(obs.loss[0] - obs.loss[-1])


@pytest.mark.parametrize("delta", [4.0, -4.0])
def test_dissipated_reaction_and_transport_match_full_flow(delta: float) -> None:
    red = solve_reduced(np.array([delta]), t_max=200 * (1 + abs(delta)))
    assert red.converged
    R, T, drop = _flow_budget(delta)
    assert red.dissipated_reaction == pytest.approx(R, rel=1e-6)
    assert red.dissipated_transport == pytest.approx(T, rel=1e-6)
    # bookkeeping: every bit of the loss drop is either reaction or transport
    assert red.dissipated_reaction + red.dissipated_transport == pytest.approx(drop, rel=1e-10)
    assert red.initial_loss - red.final_loss == pytest.approx(drop, rel=1e-10)


def test_dissipation_shares_tend_to_their_limits() -> None:
    """Integrated over a run: +D dissipates ~73 % through reaction, −D ~95 % through transport,
    with O(1/D²) corrections; at t = 0 it is the other way round."""
    plus, minus = favorable_limit_dissipation(), unfavorable_limit_dissipation()
    L0 = float(planar_loss(np.array([0.1]), np.array([np.pi / 2])))
    assert plus.reaction + plus.transport == pytest.approx(L0, rel=1e-10)
    assert minus.reaction == pytest.approx((0.1 - 1 / np.pi) ** 2 / 4, rel=1e-14)
    assert plus.reaction_share == pytest.approx(0.732932, abs=1e-6)
    assert minus.reaction_share == pytest.approx(0.050362, abs=1e-6)
    Ds = np.array([16.0, 32.0, 64.0])
    for sign, limit in ((1.0, plus.reaction_share), (-1.0, minus.reaction_share)):
        shares = []
        for D in Ds:
            red = solve_reduced(np.array([sign * D]), t_max=200 * (1 + D))
            shares.append(red.dissipated_reaction / (red.dissipated_reaction + red.dissipated_transport))
        assert fitted_order(Ds, shares, limit) == pytest.approx(2.0, abs=0.1)
        # the instant t = 0 looks the other way
        a0, W0 = duplicate_initial_condition(TEACHER, np.array([sign * Ds[0]]))
        diss0 = dissipation(Network(a0, W0), TEACHER)
        integrated_reaction_wins = shares[0] > 0.5
        assert integrated_reaction_wins == (sign > 0)
        assert (float(diss0.reaction) > float(diss0.transport)) == (sign < 0)


# ------------------------------------------------------------------------------------
# separation of an equal pair along its (exact) symmetric trajectory


def _pair_exponent(delta: float) -> tuple[float, float]:
    """Λ(T_spec) and Λ(end) for two equal neurons of imbalance δ, along the symmetric trajectory
    computed as one neuron with 2δ and read in parameters by planar_parameters."""
    red = solve_reduced(np.array([2 * delta]), t_max=200 * (1 + abs(delta)))
    D = abs(delta)
    t = np.concatenate([[0.0], np.geomspace(1e-4 / D, red.t[-1], 1000)])
    C, theta = red.dense(t)
    a, W = planar_parameters(np.repeat(C / 2, 2, axis=1), np.repeat(theta, 2, axis=1), np.full(2, delta))
    Lam = separation_exponent(t, antisymmetric_rate(Network(a, W), standard_model(2), (0, 1)))
    return float(np.interp(red.crossing_times[0], t, Lam)), float(Lam[-1])


def test_minus_pairs_cross_the_roundoff_exponent_plus_pairs_do_not() -> None:
    """−D pairs: Λ(T_spec) ≈ 4.6 D (19.2 at D = 4, 37.4 at D = 8 > ln(1/ε_machine) = 36.04);
    +D pairs: Λ stays ≈ 1.39 over the whole run, whatever D (1.3914 at D = 4, 1.3863 at D = 64)."""
    lam4, _ = _pair_exponent(-4.0)
    lam8, _ = _pair_exponent(-8.0)
    assert lam4 == pytest.approx(19.1987, rel=1e-3)
    assert lam8 == pytest.approx(37.373, rel=1e-3)
    assert lam4 < ROUNDOFF_EXPONENT < lam8
    for D, expected in ((4.0, 1.3914), (64.0, 1.3863)):
        assert _pair_exponent(D)[1] == pytest.approx(expected, abs=1e-3)
    # the full flow at D = 4 stays symmetric and gives the same Λ
    a0, W0 = duplicate_initial_condition(standard_model(3), np.full(2, -4.0))
    tr = gradient_flow(Network(a0, W0), standard_model(3), t_max=300.0, options=FlowOptions(grid_points=2000))
    Lam = separation_exponent(tr.t, antisymmetric_rate(Network(tr.a, tr.W), standard_model(3), (0, 1)))
    assert float(np.interp(tr.crossing_times[0], tr.t, Lam)) == pytest.approx(lam4, rel=1e-3)


@pytest.mark.parametrize(("delta", "bound"), [(1e3, 1e-8), (-1e3, 3e-6)])
def test_limit_paths_are_the_reduced_flow_at_large_D(delta: float, bound: float) -> None:
    """The D → ∞ paths in the (c, α) plane against the reduced flow itself at |δ| = 1000 (a different
    ODE: the mobilities at finite D), sampled log-uniformly in t so that the −D fast layer (t ~ 2/D)
    is resolved. Measured largest distances: 6.8e-9 for +D (≈ 0.0068/D²: the mobility ratio's
    c²/D² correction), 1.75e-6 for −D (≈ 1.7 ln D/(D² ln 1024): the rounded corner where c reaches
    the slow manifold)."""
    path = favorable_limit_path(points=64_001) if delta > 0 else unfavorable_limit_path(points=64_001)
    sol = solve_reduced(np.array([delta]), t_max=60.0 / delta if delta > 0 else 50.0 * -delta, rtol=1e-12)
    t = np.concatenate([[0.0], np.geomspace(1e-7 * sol.t[-1], sol.t[-1], 20_000)])
    c, theta = sol.dense(t)
    d = distance_to_path(c[:, 0], np.cos(theta[:, 0]), path.coefficient, np.cos(path.angle))
    assert np.max(d) <= bound
    # both paths start at the initial function and end at the teacher (c = a*, θ = 0)
    assert (path.coefficient[0], path.angle[0]) == (0.1, np.pi / 2)
    assert path.coefficient[-1] == pytest.approx(1.0, abs=1e-12) and abs(path.angle[-1]) <= 1e-12


def test_unfavorable_limit_path_is_the_segment_then_the_slow_manifold() -> None:
    path = unfavorable_limit_path(c0=0.2, theta0=2.0, a_star=1.5, points=401)
    on_segment = path.angle == 2.0
    corner = 2.0 * 1.5 * (np.sin(2.0) + (np.pi - 2.0) * np.cos(2.0)) / (2 * np.pi)
    assert np.count_nonzero(on_segment) == 100 and path.coefficient[on_segment][-1] == pytest.approx(corner)
    manifold = ~on_segment
    np.testing.assert_allclose(path.coefficient[manifold], 3.0 * angular_profile(path.angle[manifold]), rtol=1e-14)
    assert np.all(np.diff(path.angle[manifold]) < 0)
    with pytest.raises(ValueError, match="theta0"):
        unfavorable_limit_path(theta0=0.0)
    with pytest.raises(ValueError, match="a_star"):
        favorable_limit_path(a_star=0.0)


def test_limit_clock_free_gap_is_the_gap_of_the_reduced_flow_at_large_D() -> None:
    """Δ between the D → ∞ paths against Δ between the reduced flows at D = ±1000 (another ODE,
    sampled log-uniformly in t): equal to 1e-3 (measured 4e-4, from the two level grids)."""
    runs = {
        sign: solve_reduced(np.array([sign * 1e3]), t_max=60e-3 if sign > 0 else 5e4, rtol=1e-12) for sign in (1, -1)
    }
    curves = {}
    for sign, sol in runs.items():
        c, theta = sol.dense(np.concatenate([[0.0], np.geomspace(1e-8 * sol.t[-1], sol.t[-1], 8000)]))
        curves[sign] = (planar_loss(c, theta), np.cos(theta[:, 0]))
    reference = clock_free_gap(*curves[1], *curves[-1], floor=1e-14)
    assert limit_clock_free_gap() == pytest.approx(reference, abs=1e-3)
    assert limit_clock_free_gap() == pytest.approx(0.4022, abs=5e-4)
