"""Gradient flow and gradient descent: conservation (C2), dissipation along the flow (C3),
the Θ(D²) separation of specialization times (C4, small scale), GD → flow, batching, and
the step policy (a GD step whose error on T_spec is stated and ≤ 1 %)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gaugecli.core.integrate.descent import gradient_descent, stable_step_bound
from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
from gaugecli.core.integrate.step import choose_step, step_error
from gaugecli.core.integrate.trajectory import NumericalFault, log_time_grid
from gaugecli.core.model.gauge import duplicate_initial_condition, imbalance, owner_imbalances
from gaugecli.core.model.model import standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.population.dynamics import dissipation, population_gradient, population_loss
from gaugecli.core.population.objective import population_objective

d = 4
TEACHER = standard_model(d)
EPS = 0.01
DS = (4.0, 8.0, 16.0, 32.0)


def _alignment(W: np.ndarray) -> np.ndarray:
    return (W / np.linalg.norm(W, axis=-1, keepdims=True)) @ np.eye(d)[0]


def _t_max(delta: float) -> float:
    """Comfortably past T_spec (≈ 1.8/D favorable, ≈ 10 D unfavorable at c0 = 0.1)."""
    return 4.0 / delta if delta > 0 else -15.0 * delta


@pytest.fixture(scope="module")
def flow_tspec() -> dict[float, float]:
    """T_spec of a single neuron for δ = ±D at the default tight tolerance."""
    out = {}
    for D in DS:
        for delta in (D, -D):
            a0, W0 = duplicate_initial_condition(TEACHER, np.array([delta]))
            tr = gradient_flow(Network(a0, W0), TEACHER, t_max=_t_max(delta), eps_align=EPS)
            out[delta] = float(tr.crossing_times[0])
    return out


# ------------------------------------------------------------------------------------
# C2 conservation and C3 along the flow


@pytest.mark.parametrize(
    ("deltas", "t_max"),
    [
        (np.array([4.0]), 15.0),
        (np.array([-4.0]), 60.0),
        (owner_imbalances(3, 4.0, 0), 20.0),
        (owner_imbalances(3, 4.0, 2), 20.0),
    ],
    ids=["m1+D", "m1-D", "m3-owner0", "m3-owner2"],
)
def test_c2_conservation_and_c3_identity_along_flow(deltas: np.ndarray, t_max: float) -> None:
    a0, W0 = duplicate_initial_condition(TEACHER, deltas)
    tr = gradient_flow(Network(a0, W0), TEACHER, t_max=t_max)
    m = deltas.size
    assert tr.a.shape == (tr.t.size, m) and tr.W.shape == (tr.t.size, m, d)
    assert tr.t[0] == 0.0 and np.all(np.diff(tr.t) > 0)  # exact by construction: the declared grid's first time
    np.testing.assert_array_equal(tr.a[0], a0)
    np.testing.assert_array_equal(tr.W[0], W0)
    # C2: δ_j(t) = δ_j(0) at every saved time
    drift = np.max(np.abs(imbalance(Network(tr.a, tr.W)) - deltas), axis=0)
    assert np.all(drift <= 1e-8 * np.maximum(1.0, np.abs(deltas))), drift
    # C3: ‖∇L‖² = R + T at every saved time where the gradient is above round-off
    # (‖∇L‖ ≥ 1e-5, gaugecli.core.analyses.observables.RESOLVED_GRADIENT), and to an absolute round-off
    # floor after that: each gradient entry is a difference of O(1) kernel terms
    diss = dissipation(Network(tr.a, tr.W), TEACHER)
    resolved = diss.grad_norm_sq >= 1e-10
    assert resolved.sum() > 0.5 * tr.t.size
    assert np.max(diss.residual[resolved]) <= 1e-10
    assert np.all(diss.residual * diss.grad_norm_sq <= 1e-10 * diss.grad_norm_sq + 1e-20)
    # the loss decreases along the flow (down to round-off) and the owner aligns
    L = population_loss(Network(tr.a, tr.W), TEACHER)
    assert np.all(np.diff(L) <= 1e-13)
    owner = int(np.argmax(deltas))
    assert _alignment(tr.W[-1, owner]) > 1 - EPS
    assert np.isfinite(tr.crossing_times[owner])


def test_c3_loss_derivative_matches_grad_norm() -> None:
    """−dL/dt from central differences of tight-tolerance runs equals ‖∇L‖² = R + T."""
    deltas = owner_imbalances(3, 4.0, 1)
    a0, W0 = duplicate_initial_condition(TEACHER, deltas)
    opts = FlowOptions()
    for t0 in (0.05, 0.4):
        h = 1e-3 * t0

        def end_state(t):
            tr = gradient_flow(Network(a0, W0), TEACHER, t_max=t, options=opts)
            assert tr.t[-1] == pytest.approx(t, rel=1e-14)
            return tr.a[-1], tr.W[-1]

        L_plus = float(population_loss(Network(*end_state(t0 + h)), TEACHER))
        L_minus = float(population_loss(Network(*end_state(t0 - h)), TEACHER))
        a, W = end_state(t0)
        diss = dissipation(Network(a, W), TEACHER)
        dLdt = (L_plus - L_minus) / (2 * h)
        assert -dLdt == pytest.approx(float(diss.grad_norm_sq), rel=1e-5)
        assert -dLdt == pytest.approx(float(diss.reaction + diss.transport), rel=1e-5)


def test_c3_integrated_dissipation_on_the_saved_grid() -> None:
    """L(0) − L(t) = ∫ ‖∇L‖² dt (trapezoid on the saved, fine log grid)."""
    a0, W0 = duplicate_initial_condition(TEACHER, np.array([-4.0]))
    tr = gradient_flow(Network(a0, W0), TEACHER, t_max=60.0)
    L = population_loss(Network(tr.a, tr.W), TEACHER)
    gsq = dissipation(Network(tr.a, tr.W), TEACHER).grad_norm_sq
    integral = np.concatenate([[0.0], np.cumsum(0.5 * (gsq[1:] + gsq[:-1]) * np.diff(tr.t))])
    np.testing.assert_allclose(L[0] - L, integral, rtol=2e-3, atol=1e-6 * L[0])


def test_flow_reports_convergence_when_it_stops_on_the_convergence_event() -> None:
    a0, W0 = duplicate_initial_condition(TEACHER, np.array([8.0]))
    tr = gradient_flow(Network(a0, W0), TEACHER, t_max=1000.0, options=FlowOptions(stop_at_convergence=True))
    assert "termination event" in tr.stats.message and bool(tr.converged)
    # the stored grid is the declared one either way; past the event the final state is held
    full = gradient_flow(Network(a0, W0), TEACHER, t_max=1000.0)
    assert bool(full.converged) and "termination event" not in full.stats.message
    np.testing.assert_array_equal(tr.t, full.t)
    assert tr.t[-1] == 1000.0
    np.testing.assert_allclose(tr.a[-1], full.a[-1], atol=1e-8)  # ‖∇L‖ ≤ 1e-10 at the event


def test_crossings_within_their_location_tolerance_are_one_grid_time() -> None:
    """Tied neurons cross together; round-off may part their located roots by an ulp, which must
    not add a grid point (the stored series' length would then depend on the arithmetic path).
    Crossings farther apart than brentq's tolerance stay distinct."""
    from gaugecli.core.integrate.crossings import CROSSING_RTOL, CROSSING_XTOL, declared_grid

    t = 0.21896048936197188
    base = declared_grid(500.0, 400, np.array([[t, np.nan]]))
    ulp_apart = declared_grid(500.0, 400, np.array([[t, np.nextafter(t, 1.0)], [t + 2e-16, np.nan]]))
    np.testing.assert_array_equal(ulp_apart, base)
    apart = t + 2.0 * (CROSSING_XTOL + CROSSING_RTOL * t)
    assert declared_grid(500.0, 400, np.array([[t, apart]])).size == base.size + 1


def test_a_crossing_the_dense_output_puts_an_ulp_off_is_the_step_end() -> None:
    """Where the stored state at a step's end is within ulps of the threshold, the dense output
    there may fall on the other side: the crossing is that end (no bracket error); otherwise the
    root is found to the stated tolerance."""
    from gaugecli.core.integrate.crossings import CROSSING_RTOL, CROSSING_XTOL, locate_crossing

    lo, hi = 0.2, 0.3
    assert locate_crossing(lambda t: t - hi - 1e-17 - 2e-16 * (t == hi), lo, hi) == hi
    assert locate_crossing(lambda t: t - lo + 2e-16 * (t == lo), lo, hi) == lo
    root = 0.2718281828459045
    assert abs(locate_crossing(lambda t: np.tanh(t - root), lo, hi) - root) <= CROSSING_XTOL + CROSSING_RTOL * root


def test_many_crossings_are_located_at_once_to_the_stated_tolerance() -> None:
    """:func:`locate_crossings` on increasing gaps of several shapes (steep, flat, curved, one that
    sits at an end): every root within ``CROSSING_XTOL + CROSSING_RTOL·t``, the ends as the scalar
    rule says, and each gap evaluated only at times inside its own bracket."""
    from gaugecli.core.integrate.crossings import CROSSING_RTOL, CROSSING_XTOL, locate_crossings

    roots = np.array([0.25, 3.0, 1e-3, 42.42, 0.9])
    lo, hi = np.array([0.2, 1.0, 0.0, 40.0, 0.5]), np.array([0.3, 10.0, 0.01, 45.0, 0.9])
    scale = np.array([1e3, 1e-3, 1.0, 0.1, 1.0])
    seen: list[tuple[np.ndarray, np.ndarray]] = []

    def gaps(t: np.ndarray, k: np.ndarray) -> np.ndarray:
        seen.append((t.copy(), k.copy()))
        out = np.tanh(scale[k] * (t - roots[k]))
        curved = k == 2
        out[curved] = np.expm1(500.0 * (t[curved] - roots[k][curved]))
        return out

    got = locate_crossings(gaps, lo, hi)
    assert got[4] == hi[4]  # the gap is 0 at the bracket's end: that end
    inner = np.arange(4)
    assert np.all(np.abs(got[inner] - roots[inner]) <= CROSSING_XTOL + CROSSING_RTOL * roots[inner])
    for t, k in seen:
        assert np.all((t >= lo[k]) & (t <= hi[k]))


def test_stored_grid_is_declared_and_does_not_depend_on_batch_mates() -> None:
    """A member's stored states depend on its own start only: the grid is the declared log grid
    plus its crossing, whatever else shares the call; simulate integrates each run by itself, so
    a run alone and the same run inside a sweep are stored identically."""
    from gaugecli.core.integrate.crossings import GRID_DECADES, declared_grid
    from gaugecli.experiments.simulate import SimulateConfig, simulate, simulate_batch

    a0, W0 = duplicate_initial_condition(TEACHER, np.array([4.0]))
    tr = gradient_flow(Network(a0, W0), TEACHER, t_max=500.0)
    assert (
        tr.t[0] == 0.0 and tr.t[1] == pytest.approx(500.0 * 10**-GRID_DECADES) and tr.t[-1] == 500.0
    )  # exact by construction: the declared grid's ends
    np.testing.assert_array_equal(tr.t, declared_grid(500.0, 400, tr.crossing_times))
    alone = simulate(SimulateConfig(gauge="unfavorable", strengths=(16.0,)))[0]
    batch = simulate_batch(
        [SimulateConfig(gauge="unfavorable", strengths=(D,)) for D in (1.0, 16.0, 64.0)]
        + [SimulateConfig(gauge="favorable", strengths=(16.0, 4.0))]
    )
    swept = simulate(SimulateConfig(gauge="unfavorable", strengths=(64.0, 16.0)))[1]
    for other in (batch[1], swept):
        for field in ("t", "alignment", "coefficient", "loss"):
            np.testing.assert_array_equal(getattr(alone, field), getattr(other, field))
        assert alone.t_spec == other.t_spec


# ------------------------------------------------------------------------------------
# specialization times (C4 at small scale)


def test_crossing_time_is_an_exact_event(flow_tspec) -> None:
    """The saved grid contains T_spec and α(T_spec) = 1 − ε to solver accuracy."""
    for delta in (4.0, -4.0):
        a0, W0 = duplicate_initial_condition(TEACHER, np.array([delta]))
        tr = gradient_flow(Network(a0, W0), TEACHER, t_max=_t_max(delta))
        T = tr.crossing_times[0]
        i = int(np.argmin(np.abs(tr.t - T)))
        assert tr.t[i] == T
        assert _alignment(tr.W[i, 0]) == pytest.approx(1 - EPS, abs=1e-9)
        assert np.all(_alignment(tr.W[:i, 0]) < 1 - EPS)
        assert T == flow_tspec[delta]


def test_c4_quadratic_separation_slope(flow_tspec) -> None:
    Ds = np.array(DS)
    ratio = np.array([flow_tspec[-D] / flow_tspec[D] for D in DS])
    assert np.all(np.isfinite(ratio)) and np.all(ratio > 1)
    slope = np.polyfit(np.log(Ds), np.log(ratio), 1)[0]
    assert slope == pytest.approx(2.0, abs=0.1)
    # each gauge separately: T(+D) ∝ 1/D and T(−D) ∝ D
    assert np.polyfit(np.log(Ds), np.log([flow_tspec[D] for D in DS]), 1)[0] == pytest.approx(-1.0, abs=0.05)
    assert np.polyfit(np.log(Ds), np.log([flow_tspec[-D] for D in DS]), 1)[0] == pytest.approx(1.0, abs=0.05)


def test_c4_asymptotic_constants(flow_tspec) -> None:
    plus = {D: flow_tspec[D] * D for D in DS}
    minus = {D: flow_tspec[-D] / D for D in DS}
    assert abs(plus[32.0] / plus[16.0] - 1) < 0.1
    assert abs(minus[32.0] / minus[16.0] - 1) < 0.1
    # and the approach is monotone: the change shrinks as D doubles
    assert abs(plus[32.0] / plus[16.0] - 1) <= abs(plus[8.0] / plus[4.0] - 1)
    assert abs(minus[32.0] / minus[16.0] - 1) <= abs(minus[8.0] / minus[4.0] - 1)


@pytest.mark.parametrize("delta", [4.0, -4.0])
def test_tspec_is_tolerance_converged(flow_tspec, delta: float) -> None:
    a0, W0 = duplicate_initial_condition(TEACHER, np.array([delta]))
    loose = gradient_flow(Network(a0, W0), TEACHER, t_max=_t_max(delta), options=FlowOptions(rtol=1e-7, atol=1e-10))
    assert float(loose.crossing_times[0]) == pytest.approx(flow_tspec[delta], rel=1e-3)


# ------------------------------------------------------------------------------------
# gradient descent


def test_gd_tspec_converges_to_flow_at_rate_eta(flow_tspec) -> None:
    """T_spec^GD − T_spec^flow = C η + O(η²): the error per step is one constant C (measured
    1.116–1.122 at D = 4), and the Richardson combination 2T(η/2) − T(η) removes it, leaving
    ≤ 2 % of the smallest error. A T_spec read off the iterate grid (error ~ η·U(0,1)) fails both."""
    a0, W0 = duplicate_initial_condition(TEACHER, np.array([4.0]))
    etas = np.array([0.02, 0.01, 0.005, 0.0025])
    t_gd = np.array(
        [
            float(gradient_descent(Network(a0, W0), TEACHER, eta, t_max=1.5 * flow_tspec[4.0]).crossing_times[0])
            for eta in etas
        ]
    )
    err = t_gd - flow_tspec[4.0]
    per_step = err / etas
    assert np.all(err > 0)  # GD lags the flow
    assert np.ptp(per_step) < 0.02 * per_step.mean()
    richardson = 2 * t_gd[1:] - t_gd[:-1] - flow_tspec[4.0]
    assert np.max(np.abs(richardson)) < 0.02 * err[-1]


def test_gd_iterates_and_imbalance_drift_per_step() -> None:
    """One GD step by hand; δ changes by exactly η²(‖∂L/∂a‖² − ‖∂L/∂w‖²) per neuron (O(η²), C2)."""
    a0, W0 = duplicate_initial_condition(TEACHER, owner_imbalances(3, 4.0, 0))
    eta = 0.01
    tr = gradient_descent(Network(a0, W0), TEACHER, eta, t_max=3 * eta, grid_points=10)
    np.testing.assert_allclose(tr.t, [0.0, eta, 2 * eta, 3 * eta], rtol=1e-15)
    g = population_gradient(Network(a0, W0), TEACHER)
    a1, W1 = a0 - eta * g.a, W0 - eta * g.W
    np.testing.assert_allclose(tr.a[1], a1, rtol=1e-14)
    np.testing.assert_allclose(tr.W[1], W1, rtol=1e-14, atol=1e-17)
    jump = imbalance(Network(a1, W1)) - imbalance(Network(a0, W0))
    np.testing.assert_allclose(jump, eta**2 * (g.a**2 - np.sum(g.W**2, axis=-1)), rtol=1e-6, atol=1e-15)
    # and over a fixed horizon the drift is O(η)
    drifts = []
    for e in (0.01, 0.005):
        tr = gradient_descent(Network(a0, W0), TEACHER, e, t_max=1.0)
        drifts.append(
            np.max(np.abs(imbalance(Network(tr.a[..., -1, :], tr.W[..., -1, :, :])) - owner_imbalances(3, 4.0, 0)))
        )
    assert drifts[1] / drifts[0] == pytest.approx(0.5, rel=0.1)


@pytest.mark.parametrize("eta", [10.0, 1e3, 1e6])
def test_gd_divergence_names_the_stable_bound(eta: float) -> None:
    a0, W0 = duplicate_initial_condition(TEACHER, np.array([4.0]))
    bound = stable_step_bound(Network(a0, W0), TEACHER)
    assert 0 < bound < eta
    with pytest.raises(NumericalFault, match="stable bound") as info:
        gradient_descent(Network(a0, W0), TEACHER, eta, t_max=200 * eta)
    assert f"{bound:.4g}" in str(info.value)


def test_stable_step_bound_is_two_over_top_curvature() -> None:
    a0, W0 = duplicate_initial_condition(TEACHER, np.array([4.0]))
    m = 1

    def grad(th):
        g = population_gradient(Network(th[:m], th[m:].reshape(m, d)), TEACHER)
        return np.concatenate([g.a, g.W.ravel()])

    th0 = np.concatenate([a0, W0.ravel()])
    h = 1e-7
    H = np.stack([(grad(th0 + h * e) - grad(th0 - h * e)) / (2 * h) for e in np.eye(th0.size)], axis=1)
    lam = np.linalg.eigvalsh(0.5 * (H + H.T))[-1]
    assert stable_step_bound(Network(a0, W0), TEACHER) == pytest.approx(2 / lam, rel=1e-5)


# ------------------------------------------------------------------------------------
# batching


def test_batched_flow_matches_separate_runs(flow_tspec) -> None:
    deltas = np.array([[4.0], [-4.0], [8.0]])
    a0, W0 = duplicate_initial_condition(TEACHER, deltas)
    tr = gradient_flow(Network(a0, W0), TEACHER, t_max=60.0)
    assert tr.crossing_times.shape == (3, 1)
    assert tr.a.shape == (3, tr.t.size, 1) and tr.W.shape == (3, tr.t.size, 1, d)
    for b, delta in enumerate(deltas[:, 0]):
        assert float(tr.crossing_times[b, 0]) == pytest.approx(flow_tspec[delta], rel=1e-6)
    np.testing.assert_allclose(
        imbalance(Network(tr.a, tr.W))[..., 0], np.broadcast_to(deltas, (3, tr.t.size)), rtol=1e-9
    )
    # and the member states agree with separate runs at a common final time
    short = gradient_flow(Network(a0, W0), TEACHER, t_max=0.3)
    for b in range(3):
        single = gradient_flow(Network(a0[b], W0[b]), TEACHER, t_max=0.3)
        assert single.t[-1] == short.t[-1] == pytest.approx(0.3, rel=1e-14)
        np.testing.assert_allclose(short.a[b, -1], single.a[-1], rtol=1e-7)
        np.testing.assert_allclose(short.W[b, -1], single.W[-1], rtol=1e-7, atol=1e-12)


def test_batched_gd_matches_separate_runs() -> None:
    deltas = np.array([[4.0, -4.0], [-4.0, 4.0]])
    a0, W0 = duplicate_initial_condition(TEACHER, deltas)
    tr = gradient_descent(Network(a0, W0), TEACHER, 0.01, t_max=1.0)
    for b in range(2):
        single = gradient_descent(Network(a0[b], W0[b]), TEACHER, 0.01, t_max=1.0)
        np.testing.assert_array_equal(single.t, tr.t)
        np.testing.assert_allclose(tr.a[b], single.a, rtol=1e-13, atol=1e-16)
        np.testing.assert_allclose(tr.crossing_times[b], single.crossing_times, rtol=1e-13)


def test_log_time_grid() -> None:
    g = log_time_grid(1e-3, 10.0, 5)
    np.testing.assert_allclose(g, [0.0, 1e-3, 10 ** (-5 / 3), 10 ** (-1 / 3), 10.0], rtol=1e-13)
    assert log_time_grid(5.0, 1.0, 4)[1] == 1.0  # t_first is capped at t_end


# ------------------------------------------------------------------------------------
# step policy


@pytest.mark.parametrize("deltas", [np.array([4.0]), np.array([-4.0]), owner_imbalances(3, 4.0, 0)], ids=str)
def test_choose_step_meets_and_states_its_error(deltas: np.ndarray) -> None:
    """The automatic step keeps |T_spec^GD − T_spec^flow| ≤ 1 %, and the error it states (from
    η vs η/2) matches the true error against the independent flow reference to 10 % of itself
    (measured: within 1 % for ±4, 16, 64 and m = 2, 5)."""
    a0, W0 = duplicate_initial_condition(TEACHER, deltas)
    t_max = 400.0
    choice = choose_step(Network(a0, W0), TEACHER, t_max)
    flow = gradient_flow(Network(a0, W0), TEACHER, t_max, options=FlowOptions(rtol=1e-9, atol=1e-12))
    t_flow = float(np.nanmin(flow.crossing_times))
    gd = gradient_descent(Network(a0, W0), TEACHER, choice.eta, t_max, stop_at_crossing=True, grid_points=3)
    true = abs(float(np.nanmin(gd.crossing_times)) - t_flow) / t_flow
    assert choice.step_error is not None and choice.step_error <= 0.01
    assert true <= 0.01
    assert choice.step_error == pytest.approx(true, rel=0.1)
    # the step comes from the run's own time scale: ≥ 100 steps before the crossing
    assert choice.eta <= t_flow / 100
    assert choice.eta < stable_step_bound(Network(a0, W0), TEACHER)
    # a given step: the same estimate from one pilot at η/2
    given = step_error(Network(a0, W0), TEACHER, 4 * choice.eta, t_max)
    true_given = (
        abs(
            float(
                np.nanmin(
                    gradient_descent(
                        Network(a0, W0), TEACHER, 4 * choice.eta, t_max, stop_at_crossing=True, grid_points=3
                    ).crossing_times
                )
            )
            - t_flow
        )
        / t_flow
    )
    assert given.step_error == pytest.approx(true_given, rel=0.1)


def test_choose_step_without_a_crossing_states_no_error() -> None:
    a0, W0 = duplicate_initial_condition(TEACHER, np.array([-4.0]))
    choice = choose_step(Network(a0, W0), TEACHER, 1.0)  # T_spec(−4) ≈ 42: nothing crosses by t = 1
    assert choice.step_error is None and np.all(np.isnan(choice.t_cross))
    assert choice.eta <= 1.0 / 100


def test_gd_stops_at_the_first_crossing_on_request() -> None:
    a0, W0 = duplicate_initial_condition(TEACHER, owner_imbalances(2, 4.0, 0))
    full = gradient_descent(Network(a0, W0), TEACHER, 0.002, 5.0)
    short = gradient_descent(Network(a0, W0), TEACHER, 0.002, 5.0, stop_at_crossing=True)
    assert short.crossing_times[0] == full.crossing_times[0]
    assert short.t[-1] == pytest.approx(math.ceil(full.crossing_times[0] / 0.002) * 0.002, rel=1e-12)
    assert short.t[-1] < 0.1 * full.t[-1]


def test_gd_without_crossings_takes_the_same_iterates_and_locates_none() -> None:
    """``crossings=False`` drops the per-step alignment only: the update reads no alignment, so the
    iterates are the same arithmetic in the same order (equal arrays), and no crossing is named."""
    a0, W0 = duplicate_initial_condition(TEACHER, owner_imbalances(2, 4.0, 0))
    full = gradient_descent(Network(a0, W0), TEACHER, 0.002, 5.0)
    bare = gradient_descent(Network(a0, W0), TEACHER, 0.002, 5.0, crossings=False)
    assert np.isfinite(full.crossing_times[0]).any() and np.isnan(bare.crossing_times).all()
    np.testing.assert_array_equal(bare.t, full.t)
    np.testing.assert_array_equal(bare.a, full.a)
    np.testing.assert_array_equal(bare.W, full.W)


def test_flow_without_crossings_reaches_the_same_states_and_locates_none() -> None:
    """``crossings=False`` skips the root finding after the solve: the solver takes the same steps, so
    the state at every time of the grid (which then lacks the crossings) is the same dense output —
    evaluated among other times, whose vectorised sums may round differently by an ulp or two."""
    a0, W0 = duplicate_initial_condition(TEACHER, owner_imbalances(2, 4.0, 0))
    full = gradient_flow(Network(a0, W0), TEACHER, 30.0)
    bare = gradient_flow(Network(a0, W0), TEACHER, 30.0, crossings=False)
    assert np.isfinite(full.crossing_times[0]).any() and np.isnan(bare.crossing_times).all()
    shared = np.isin(full.t, bare.t)
    assert bare.t.size == int(shared.sum()) < full.t.size  # the grid less the located T_spec
    ulps = 8 * np.finfo(float).eps  # a few ulps of the interpolant's sums, relative to the state's scale
    np.testing.assert_allclose(bare.a, full.a[shared], rtol=ulps, atol=ulps * np.max(np.abs(full.a)))
    np.testing.assert_allclose(bare.W, full.W[shared], rtol=ulps, atol=ulps * np.max(np.abs(full.W)))


def test_flow_objective_and_time_grid() -> None:
    """An explicit population objective is the default flow; ``t_grid`` samples the same
    dense solution at given times, holding the final state after convergence."""
    a0, W0 = duplicate_initial_condition(TEACHER, owner_imbalances(2, 4.0, 1))
    ref = gradient_flow(Network(a0, W0), TEACHER, 30.0)
    explicit = gradient_flow(Network(a0, W0), TEACHER, 30.0, objective=population_objective(TEACHER))
    np.testing.assert_array_equal(explicit.a, ref.a)
    assert explicit.stats.objective == "population"
    grid = np.array([0.0, 0.1, 1.0, ref.t[-1], 1e3])
    sampled = gradient_flow(Network(a0, W0), TEACHER, 30.0, t_grid=grid)
    np.testing.assert_array_equal(sampled.t, grid)
    i = int(np.argmin(np.abs(ref.t - 1.0)))
    assert ref.t[i] != 1.0  # not a point of the default grid: an independent sample of the dense output
    np.testing.assert_allclose(sampled.a[-1], ref.a[-1], rtol=1e-12)
    np.testing.assert_allclose(sampled.a[-2], sampled.a[-1], rtol=0)
