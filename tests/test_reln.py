"""The ReLN view (gaugecli.core.reduced.reln, gaugecli.experiments.reln): closed forms against Monte Carlo
and finite differences, the identity with the ReLU student, conservation of δ, the gate floor,
the aligned race, the T_spec ratios and their asymptotes, and the subcommand's result and artifact."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from gaugecli.core.integrate import flow
from gaugecli.core.integrate.flow import gradient_flow
from gaugecli.core.kernels.arccos import arccos_kernel_hessians
from gaugecli.core.model.gauge import (
    duplicate_initial_condition,
    function_coordinates,
    imbalance,
    initial_direction,
)
from gaugecli.core.model.model import Model, standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.model.teacher import Teacher
from gaugecli.core.population.dynamics import population_gradient, population_hessian, population_loss
from gaugecli.core.reduced.reln import (
    final_gate_tspec_asymptote,
    gate_floor,
    gate_identity_error,
    race_coefficient,
    race_rate,
    race_time,
    race_time_exact,
    reln_floor,
    reln_flow,
    reln_geometry,
    reln_gradient,
    reln_hessian,
    reln_loss,
    trajectory_loss,
)
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.declare import ConfigError
from gaugecli.experiments.reln import RelnConfig, run_reln

EPS = 0.01


def _random_problem(seed: int, m: int = 3, d: int = 4) -> tuple[Teacher, np.ndarray, np.ndarray, np.ndarray]:
    """A two-feature teacher (non-unit v) and a random ReLN: gates, a, W (gate 1 duplicates gate 0
    and gate 2 is antipodal to it, to cover φ = 0 and φ = π)."""
    rng = np.random.default_rng(seed)
    teacher = Model(Teacher(np.array([1.0, -0.7]), rng.standard_normal((2, d))))
    G = rng.standard_normal((m, d))
    G[1] = 2.5 * G[0]
    G[2] = -G[0]
    return teacher, G, rng.standard_normal(m), rng.standard_normal((m, d))


def _flat(grad) -> np.ndarray:
    return np.concatenate([grad.a.ravel(), grad.W.ravel()])


def _unflat(theta: np.ndarray, m: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    return theta[:m], theta[m:].reshape(m, d)


# ------------------------------------------------------------------------------------------
# closed forms


def test_second_moments_and_loss_gradient_against_monte_carlo() -> None:
    """S_ij = E[1_i 1_j x xᵀ], r_j = E[1_j x y], L and ∇L against 2·10⁵ seeded Gaussian samples.

    Each estimate is compared with its own standard error: |closed − MC| ≤ 5 SE (this sample
    stays below 3.3 SE; for a fresh seed an entry exceeds 5 SE with probability < 1e-6)."""
    teacher, G, a, W = _random_problem(0)
    m, d = W.shape
    geo = reln_geometry(G, teacher)
    X = np.random.default_rng(1).standard_normal((200_000, d))
    gate = (X @ G.T > 0).astype(float)  # (n, m)
    y = teacher(X)
    f = np.sum(a * gate * (X @ W.T), axis=1)
    worst = []

    def check(samples: np.ndarray, closed: np.ndarray) -> None:
        samples = samples.reshape(samples.shape[0], -1)
        se = samples.std(axis=0) / math.sqrt(samples.shape[0])
        z = np.abs(samples.mean(axis=0) - np.ravel(closed)) / np.maximum(se, 1e-15)
        worst.append(float(np.max(z)))
        assert np.all(z <= 5.0), np.max(z)

    for i in range(m):
        for j in range(m):
            Z = (gate[:, i] * gate[:, j])[:, None] * X
            check(Z[:, :, None] * X[:, None, :], geo.S[i, j])
    check(gate[:, :, None] * X[:, None, :] * y[:, None, None], geo.r)
    check(0.5 * (f - y) ** 2, reln_loss(Network(a, W), geo))
    # ∂L/∂a_j = E[(f − y) 1_j (w_j·x)],  ∂L/∂w_j = a_j E[(f − y) 1_j x]
    res = (f - y)[:, None]
    g = reln_gradient(a, W, geo)
    check(res * gate * (X @ W.T), g.a)
    check(res[:, :, None] * gate[:, :, None] * a[None, :, None] * X[:, None, :], g.W)
    assert max(worst) > 0.5  # the comparison is not vacuous
    # the gates' lengths do not matter, and S_jj = I/2 for every gate
    np.testing.assert_allclose(geo.S[0, 0], np.eye(d) / 2, atol=1e-15)
    np.testing.assert_allclose(geo.S[0, 1], np.eye(d) / 2, atol=1e-15)  # gate 1 = 2.5 × gate 0
    np.testing.assert_allclose(geo.S[0, 2], 0.0, atol=1e-15)  # antipodal gates never fire together


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradient_and_hessian_against_finite_differences(seed: int) -> None:
    """Central differences of L (h = 1e-5: error ~h² ≈ 1e-10) and of ∇L (Hessian, error ~1e-9)."""
    teacher, G, a, W = _random_problem(seed)
    m, d = W.shape
    geo = reln_geometry(G, teacher)
    theta = np.concatenate([a, W.ravel()])
    h = 1e-5
    eye = np.eye(theta.size)
    fd_grad = np.array(
        [
            (
                reln_loss(Network(*_unflat(theta + h * e, m, d)), geo)
                - reln_loss(Network(*_unflat(theta - h * e, m, d)), geo)
            )
            / (2 * h)
            for e in eye
        ]
    )
    np.testing.assert_allclose(_flat(reln_gradient(a, W, geo)), fd_grad, rtol=0, atol=1e-8)
    fd_hess = np.array(
        [
            (
                _flat(reln_gradient(*_unflat(theta + h * e, m, d), geo))
                - _flat(reln_gradient(*_unflat(theta - h * e, m, d), geo))
            )
            / (2 * h)
            for e in eye
        ]
    )
    H = reln_hessian(a, W, geo)
    np.testing.assert_allclose(H, H.T, atol=1e-14)
    np.testing.assert_allclose(H, fd_hess, rtol=0, atol=1e-8)


def test_batched_geometry_matches_one_by_one() -> None:
    teacher, G, a, W = _random_problem(3)
    Gb = np.stack([G, np.roll(G, 1, axis=0)])
    ab, Wb = np.stack([a, 2 * a]), np.stack([W, -W])
    geo = reln_geometry(Gb, teacher)
    for b in range(2):
        one = reln_geometry(Gb[b], teacher)
        assert reln_loss(Network(ab[b], Wb[b]), one) == pytest.approx(
            float(reln_loss(Network(ab, Wb), geo)[b]), rel=1e-14
        )
        np.testing.assert_allclose(reln_hessian(ab, Wb, geo)[b], reln_hessian(ab[b], Wb[b], one), atol=1e-14)


@pytest.mark.parametrize("seed", range(4))
def test_gates_at_current_directions_reproduce_relu_to_round_off(seed: int) -> None:
    """With g_j = w_j the ReLN has the ReLU's loss and gradient to round-off; its Hessian lacks exactly the moving-gate blocks a_j ∂²L/∂w_j² terms
    (Σ_l a_l ∂²₁₁κ(w_j, w_l) − Σ_k a*_k ∂²₁₁κ(w_j, v_k)), which vanish for no student here."""
    rng = np.random.default_rng(seed)
    d, m = 5, 4
    teacher = Model(Teacher(np.array([1.0, 0.5]), rng.standard_normal((2, d))))
    a, W = rng.standard_normal(m), rng.standard_normal((m, d))
    W[1] = 0.3 * W[0]  # duplicate direction (φ = 0)
    W[2] = -W[0]  # antipodal (φ = π)
    dL, dg = gate_identity_error(Network(a, W), teacher)
    g = population_gradient(Network(a, W), teacher)
    # over 300 such random states: |ΔL|/L ≤ 2.3e-15 and ‖Δ∇L‖/‖∇L‖ ≤ 8.3e-16
    assert dL <= 1e-14 * float(population_loss(Network(a, W), teacher)), dL
    assert dg <= 1e-14 * float(np.sqrt(np.sum(g.a**2) + np.sum(g.W**2))), dg
    # the Hessians differ by the block-diagonal gate-motion term only
    geo = reln_geometry(W, teacher)
    diff = population_hessian(Network(a, W), teacher) - reln_hessian(a, W, geo)
    H11_ww, _ = arccos_kernel_hessians(W, W)
    H11_wv, _ = arccos_kernel_hessians(W, teacher.directions)
    motion = a[:, None, None] * (
        np.einsum("jlxy,l->jxy", H11_ww, a) - np.einsum("jkxy,k->jxy", H11_wv, teacher.coefficients)
    )
    expected = np.zeros_like(diff)
    for j in range(m):
        expected[m + j * d : m + (j + 1) * d, m + j * d : m + (j + 1) * d] = motion[j]
    np.testing.assert_allclose(diff, expected, atol=1e-13)
    assert np.max(np.abs(expected)) > 1e-2


# ------------------------------------------------------------------------------------------
# the flow


def test_reln_flow_conserves_delta_and_descends() -> None:
    """δ_j = a_j² − ‖w_j‖² is constant (drift ≤ 1e-8 at rtol 1e-10; measured 1.3e-9) and L decreases,
    for three pathways with their own random gates and gauges; the flow converges to the gates' floor
    min_β L (L is quadratic in β: the only other critical points are saddles)."""
    teacher = standard_model(4)
    deltas = np.array([4.0, -2.0, 0.5])
    a0, W0 = duplicate_initial_condition(teacher, deltas)
    G = np.random.default_rng(0).standard_normal((3, 4))
    tr = reln_flow(Network(a0, W0), G, teacher, t_max=1e5)
    assert bool(tr.converged)
    drift = np.max(np.abs(imbalance(Network(tr.a, tr.W)) - deltas), axis=0)
    assert np.all(drift <= 1e-8 * np.maximum(1.0, np.abs(deltas))), drift
    L = trajectory_loss(tr, reln_geometry(G, teacher))
    assert np.all(np.diff(L) <= 1e-14)
    assert L[-1] == pytest.approx(float(reln_floor(reln_geometry(G, teacher))), rel=1e-10)


def test_per_member_gates_survive_chunking(monkeypatch: pytest.MonkeyPatch) -> None:
    """An ensemble split into chunks (reordered by δ) still gives each member its own gates."""
    teacher = standard_model(3)
    psi = np.deg2rad([0.0, 30.0, 60.0, 90.0])
    v, u0 = teacher.directions[0], initial_direction(teacher, math.pi / 2)
    G = (np.cos(psi)[:, None] * v + np.sin(psi)[:, None] * u0)[:, None, :]
    deltas = np.array([[-2.0], [3.0], [-1.0], [2.0]])
    a0, W0 = duplicate_initial_condition(teacher, deltas)
    alone = [reln_flow(Network(a0[i], W0[i]), G[i], teacher, t_max=30.0) for i in range(4)]
    monkeypatch.setattr(flow, "ENSEMBLE_CHUNK_STATES", 8)  # two members per chunk
    together = reln_flow(Network(a0, W0), G, teacher, t_max=30.0)
    assert "2 chunks" in together.stats.method
    for i in range(4):
        L_alone = trajectory_loss(alone[i], reln_geometry(G[i], teacher))
        L_ens = trajectory_loss(together, reln_geometry(G, teacher))[i]
        assert L_ens[-1] == pytest.approx(L_alone[-1], rel=1e-6, abs=1e-12)


# ------------------------------------------------------------------------------------------
# gate floor


def test_gate_floor_closed_form_against_the_quadratic_minimum_and_its_expansion() -> None:
    teacher = standard_model(3)
    v, u = teacher.directions[0], initial_direction(teacher, math.pi / 2)
    psi = np.linspace(0.0, math.pi - 0.01, 40)
    G = (np.cos(psi)[:, None] * v + np.sin(psi)[:, None] * u)[:, None, :]
    np.testing.assert_allclose(gate_floor(psi), reln_floor(reln_geometry(G, teacher)), rtol=1e-12, atol=1e-16)
    assert gate_floor(0.0) == pytest.approx(0.0, abs=1e-16)
    # L_floor = ψ³/(3π) + O(ψ⁴): the relative correction shrinks linearly in ψ
    small = np.array([0.04, 0.02, 0.01])
    rel = gate_floor(small) / (small**3 / (3 * math.pi)) - 1
    assert np.all(np.abs(rel) <= 1.0 * small)
    np.testing.assert_allclose(rel[:-1] / rel[1:], 2.0, rtol=0.05)
    # a* scales it quadratically
    assert gate_floor(0.3, a_star=2.0) == pytest.approx(4 * gate_floor(0.3), rel=1e-14)


@pytest.mark.parametrize("delta", [4.0, -4.0])
def test_flow_ends_on_the_gate_floor(delta: float) -> None:
    """ψ = 2°: the flow's end loss is 4.474154e-6 = L_floor(2°) (measured to 2e-11 relative);
    the initial gate (ψ = 90°, exact at t = 0) plateaus at the lazy floor and never aligns."""
    teacher = standard_model(4)
    v, u0 = teacher.directions[0], initial_direction(teacher, math.pi / 2)
    a0, W0 = duplicate_initial_condition(teacher, np.array([delta]))
    for psi in (math.radians(2.0), math.pi / 2):
        g = math.cos(psi) * v + math.sin(psi) * u0
        tr = reln_flow(Network(a0, W0), g[None], teacher, t_max=3000.0)
        L = trajectory_loss(tr, reln_geometry(g[None], teacher))
        assert L[-1] == pytest.approx(float(gate_floor(psi)), rel=1e-9)
    assert gate_floor(math.radians(2.0)) == pytest.approx(4.474154e-6, rel=1e-6)
    assert np.isnan(tr.crossing_times[0])  # the ψ = 90° run
    assert population_loss(Network(a0, W0), teacher) == pytest.approx(float(L[0]), rel=1e-14)


# ------------------------------------------------------------------------------------------
# the aligned race


@pytest.mark.parametrize("delta", [0.0, 0.5, -0.5, 4.0, -4.0, 64.0])
def test_race_time_quadrature_antiderivative_and_ode_agree(delta: float) -> None:
    c0, c1 = 0.1, 0.99
    T_quad = race_time(c0, c1, delta)
    assert race_time_exact(c0, c1, delta) == pytest.approx(T_quad, rel=1e-11)
    sol = solve_ivp(
        lambda t, c: race_rate(c, delta), (0, 10 * T_quad), [c0], rtol=1e-12, atol=1e-14, events=lambda t, c: c[0] - c1
    )
    assert sol.t_events[0][0] == pytest.approx(T_quad, rel=1e-8)
    if delta == 0.0:  # Saxe's sigmoid
        assert T_quad == pytest.approx(math.log(c1 * (1 - c0) / (c0 * (1 - c1))), rel=1e-12)
    # the race erases the gauge: T(−D) = T(+D) exactly
    assert race_time(c0, c1, -delta) == T_quad
    # c(t) inverts t(c), also late (gap down to 1e-12) and from above a*
    t = np.array([0.0, 0.3, 1.0, 3.0]) * T_quad
    c = race_coefficient(t, c0, delta)
    assert c[0] == c0
    for ti, ci in zip(t[1:], c[1:], strict=True):
        assert race_time_exact(c0, ci, delta) == pytest.approx(ti, rel=1e-9)
    assert race_coefficient([1.0], 1.5, delta)[0] < 1.5


@pytest.mark.parametrize("delta", [4.0, -4.0, 0.0])
def test_aligned_reln_and_aligned_relu_follow_the_race(delta: float) -> None:
    """The reduction itself: a pathway started along v (gate v), and a ReLU neuron started along v
    (θ0 = 0), keep w ∥ v and move c exactly as the race (to the solver's tolerance)."""
    teacher = standard_model(3)
    v = teacher.directions[0]
    a0, W0 = duplicate_initial_condition(teacher, np.array([delta]), c0=0.1, theta0=0.0)
    for tr in (
        reln_flow(Network(a0, W0), v[None], teacher, t_max=30.0),
        gradient_flow(Network(a0, W0), teacher, t_max=30.0),
    ):
        c, U = function_coordinates(Network(tr.a[:, 0], tr.W[:, 0]))
        assert np.max(np.abs(U[:, 1:])) <= 1e-12
        mid = (tr.t > 0) & (c < 0.999)
        assert mid.sum() > 50
        np.testing.assert_allclose(c[mid], race_coefficient(tr.t[mid], 0.1, delta), rtol=1e-7)


# ------------------------------------------------------------------------------------------
# the final-gate ReLN against the ReLU flow


def _tspec(deltas: np.ndarray, d: int = 4) -> tuple[np.ndarray, np.ndarray]:
    teacher = standard_model(d)
    a0, W0 = duplicate_initial_condition(teacher, deltas[:, None])
    t_max = 40.0 * float(np.max(np.abs(deltas)) + 1) * 10
    relu = gradient_flow(Network(a0, W0), teacher, t_max).crossing_times[:, 0]
    reln = reln_flow(Network(a0, W0), teacher.directions[0][None], teacher, t_max).crossing_times[:, 0]
    return relu, reln


def test_favorable_ratio_is_a_constant_0606_and_the_asymptote_holds() -> None:
    """T_spec(ReLN)/T_spec(ReLU) at +D: 0.6250 (D=1), 0.6077 (4), 0.6064 (16), 0.6063 (64) measured;
    T_ReLN → (2/D) ln(1 + c0/tan θ_ε) = 1.0634/D (D = 64: 1.1e-5 relative) and T_ReLU → 1.754/D."""
    Ds = np.array([4.0, 16.0, 64.0])
    relu, reln = _tspec(Ds)
    ratio = reln / relu
    assert np.all(np.abs(ratio - 0.6065) <= 0.0015), ratio
    assert np.ptp(ratio[1:]) <= 2e-4
    asym = np.array([final_gate_tspec_asymptote(D, 0.1, EPS) for D in Ds])
    assert abs(reln[-1] / asym[-1] - 1) <= 1e-4
    assert Ds[-1] * asym[-1] == pytest.approx(1.0634, abs=1e-4)
    assert Ds[-1] * relu[-1] == pytest.approx(1.754, abs=2e-3)


def test_unfavorable_reln_pays_a_log_for_the_saddle_and_relu_does_not() -> None:
    """T_ReLN(−D) = D (4 ln D + B(D)) with B → 2 ln(1/(c0 tan θ_ε)) = 8.502 (measured B = 8.594, 8.509,
    8.502 at D = 16, 64, 256), whereas T_ReLU(−D)/D stays ≈ 10.1: the ReLN keeps the Θ(D²)
    separation (+D is ∝ 1/D for both) with an extra ln D factor for −D."""
    Ds = np.array([16.0, 64.0, 256.0])
    relu, reln = _tspec(-Ds, d=2)
    B = reln / Ds - 4 * np.log(Ds)
    B_inf = final_gate_tspec_asymptote(-1e6, 0.1, EPS) / 1e6 - 4 * math.log(1e6)
    assert B_inf == pytest.approx(8.502, abs=1e-3)
    assert np.all(np.abs(B - B_inf) <= 0.1), B
    assert np.all(np.diff(np.abs(B - B_inf)) < 0)  # converging
    slope = np.diff(reln / Ds) / np.diff(np.log(Ds))
    assert np.all(np.abs(slope - 4.0) <= 0.1), slope
    relu_slope = np.diff(relu / Ds) / np.diff(np.log(Ds))
    assert np.all(np.abs(relu_slope) <= 0.05), relu_slope
    assert np.all(np.abs(relu / Ds - 10.1) <= 0.1)


def test_dynamics_stay_in_the_plane_of_v_and_u0() -> None:
    """d = 2 and d = 16 give the same T_spec (the flow never leaves span(v, u0))."""
    deltas = np.array([4.0, -4.0])
    r2, n2 = _tspec(deltas, d=2)
    r16, n16 = _tspec(deltas, d=16)
    np.testing.assert_allclose(r2, r16, rtol=1e-7)
    np.testing.assert_allclose(n2, n16, rtol=1e-7)


# ------------------------------------------------------------------------------------------
# the subcommand


def _small_config(**kw) -> RelnConfig:
    base = dict(
        model=ModelConfig(d=4),
        strengths=(4.0,),
        m=3,
        restart=(0.5, 2.0),
        levels=(10.0, 100.0),
        envelope_levels=(0.2, 0.02, 0.002),
        psi_step=6.0,
    )
    base.update(kw)
    return RelnConfig(**base)


@pytest.fixture(scope="module")
def small_result():
    return run_reln(_small_config())


def test_run_reln_small(small_result) -> None:
    r = small_result
    by = {x.delta: x for x in r.ratios}
    assert set(by) == {4.0, -4.0}
    assert by[4.0].t_spec_reln / by[4.0].t_spec_relu == pytest.approx(0.6077, abs=5e-4)
    assert by[-4.0].t_spec_race == by[4.0].t_spec_race
    assert (
        r.fits.race_symmetry_error == 0.0
    )  # exact by construction: the race is even in δ through δ², and (−4)² == 4² exactly in IEEE arithmetic
    assert by[4.0].t_spec_reln_initial is None
    assert by[4.0].loss_end_reln_initial == pytest.approx(by[4.0].floor_reln_initial, rel=1e-9)
    assert r.identity_error <= 1e-14
    # the D → ∞ limits against large-D ReLU flows: D·T(+64) = 1.75389, T(−64)/64 = 10.0831,
    # T(−256)/256 = 10.0811 measured (O(1/D²) off the limits 1.75392, 10.0809)
    fav_lim, unfav_lim = r.fits.relu_limits
    assert fav_lim == pytest.approx(1.75389, abs=1e-4) and unfav_lim == pytest.approx(10.0811, abs=1e-3)
    # the favorable ratio at D = 4 lies 1.4e-3 above its limit
    assert 0 < r.fits.favorable_ratio[0] - r.fits.favorable_ratio_limit <= 2e-3
    # select (m = 3, D = 4): the final-pattern ReLN has the ReLU's owner and loss curve within 3 % of L0
    s = r.select
    assert s.owner_relu == s.owner_reln == s.owner_reln_shared == s.designated == 0
    assert s.max_abs_dloss_over_l0 <= 0.03
    assert s.nonowner_norm_end <= 1e-6 and s.nonowner_norm_end_relu <= 1e-6
    assert s.nonowner_norm_end_shared > 1e-5  # a shared linear gate selects but does not prune
    # restarts: from 2 T_spec the frozen-gate ReLN predicts the time to L/100 within 3 % (measured
    # 2.0 % at +4, 0.9 % at −4); from T_spec/2 its gates' floor lies above L(t0)/100
    assert len(r.restart) == 2 * 2 * 2  # ±D × t0 × level
    for x in r.restart:
        if x.t0_over_t_spec == 2.0:
            assert x.resolved and abs(x.rel_error) <= 0.03
        if x.t0_over_t_spec == 0.5 and x.level == 100.0:
            assert x.time_reln is None and x.gate_floor > x.loss_t0 / 100
    # envelope: at ℓ = 0.2 the ReLU is ~1.3× slower than the best fixed gate (+D), by ℓ = 0.002 the
    # moving gate of the −D neuron beats every fixed one
    env = {e.delta: e for e in r.envelope}
    assert 1.25 <= env[4.0].ratio[0] <= 1.34 and env[4.0].ratio[-1] < env[4.0].ratio[0]
    assert env[-4.0].ratio[-1] < 0.9


def test_artifact_validates(small_result) -> None:
    from gaugecli.store.artifacts import build_artifact, now
    from gaugecli.store.schemas import validate

    artifact = build_artifact("reln", _small_config(), small_result, seed=None, started=now())
    assert validate(artifact) == ("reln", 1)
    res = artifact["result"]
    assert set(res["ratios"][0]) >= {"D", "delta", "t_spec_relu", "t_spec_reln", "t_spec_race"}
    assert set(res["select"]) >= {
        "owner_reln",
        "t_spec_relu",
        "t_spec_reln",
        "max_abs_dloss_over_l0",
        "nonowner_norm_end",
    }


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"dynamics": DynamicsConfig(mode="gd")}, "mode"),
        ({"model": ModelConfig(d=4, k=2)}, "k"),
        ({"model": ModelConfig(d=4, a_star=-1.0)}, "a_star"),
        ({"strengths": ()}, "gauge_strength"),
        ({"strengths": (4.0, -1.0)}, "gauge_strength"),
        ({"m": 1}, "m"),
        ({"owner": 5}, "owner"),
        ({"restart": (0.0,)}, "restart"),
        ({"levels": (1.0,)}, "levels"),
        ({"envelope_levels": (-0.1,)}, "envelope_levels"),
        ({"psi_step": 0.0}, "psi_step"),
        ({"psi_step": 60.0}, "psi_step"),
    ],
)
def test_config_validation(kwargs: dict, param: str) -> None:
    with pytest.raises(ConfigError) as exc:
        _small_config(**kwargs)
    assert exc.value.param == param


def test_psi_grid() -> None:
    assert RelnConfig(psi_step=30.0).psi_grid_deg().tolist() == [0, 30, 60, 90]
    assert RelnConfig(psi_step=40.0).psi_grid_deg().tolist() == [0, 40, 80, 90]
    assert RelnConfig().psi_grid_deg().size == 46
    np.testing.assert_allclose(RelnConfig(psi_step=45.0).psi_grid(), [0, math.pi / 4, math.pi / 2])
