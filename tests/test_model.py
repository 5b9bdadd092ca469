"""The model object through the core: every activation of the registry, the degree-p gauge and weight
decay, each against a reference that does not share the code under test — finite differences,
Monte Carlo, autograd, a closed-form flow, the per-step algebra of gradient descent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from gaugecli.core.activations import REGISTRY, activation
from gaugecli.core.analyses.symmetry import exact_saddle
from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
from gaugecli.core.model.gauge import duplicate_initial_condition, function_coordinates, imbalance, squared_norms
from gaugecli.core.model.model import Model, standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.model.teacher import Teacher
from gaugecli.core.population.dynamics import dissipation, population_loss
from gaugecli.core.population.objective import population_objective
from gaugecli.core.samples.sample import EmpiricalSample
from gaugecli.core.samples.sample_draw import draw_sample
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.declare import ConfigError
from gaugecli.experiments.lockin.config import LockinConfig
from gaugecli.experiments.params import Mode
from gaugecli.experiments.simulate import SimulateConfig, simulate

HOMOGENEOUS = [name for name in REGISTRY if activation(name).degree is not None]
SIGMAS = [pytest.param(activation(n), id=n) for n in REGISTRY] + [
    pytest.param(activation("leaky-relu", negative_slope=0.3), id="leaky-relu-0.3")
]
SIGMAS_HOMOGENEOUS = [p for p in SIGMAS if p.values[0].degree is not None]  # type: ignore[union-attr]
RTOL = 1e-11  # flow tolerance of the conservation checks: δ's drift is ~ rtol × its size


def _random_state(d: int = 4, m: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray, Model]:
    rng = np.random.default_rng(seed)
    teacher = Teacher(np.array([1.0, -0.6]), rng.standard_normal((2, d)))
    return rng.standard_normal(m), 0.7 * rng.standard_normal((m, d)), Model(teacher)


# ----------------------------------------------------------------------------------------
# the population objective: gradient and Hessian against finite differences (weight decay included)


@pytest.mark.parametrize("sigma", SIGMAS)
@pytest.mark.parametrize("lam", [0.0, 0.05])
def test_population_gradient_and_hessian_match_finite_differences(sigma, lam) -> None:
    a, W, base = _random_state()
    model = Model(base.teacher, sigma, lam)
    objective = population_objective(model)
    theta = np.concatenate([a, W.ravel()])
    m, d = W.shape

    def J(th: np.ndarray) -> float:
        aa, WW = th[:m], th[m:].reshape(m, d)
        return float(population_loss(Network(aa, WW), model)) + 0.5 * lam * float(th @ th)

    def grad(th: np.ndarray) -> np.ndarray:
        ga, gW, _ = objective.gradient(th[:m], th[m:].reshape(m, d))
        return np.concatenate([ga, gW.ravel()])

    h = 1e-6
    fd = np.array([(J(theta + h * e) - J(theta - h * e)) / (2 * h) for e in np.eye(theta.size)])
    np.testing.assert_allclose(grad(theta), fd, rtol=1e-7, atol=1e-8)  # central difference: O(h²) + ε/h
    H = objective.hessian(a, W)
    fd_H = np.array([(grad(theta + h * e) - grad(theta - h * e)) / (2 * h) for e in np.eye(theta.size)])
    np.testing.assert_allclose(H, fd_H, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(H, H.T, atol=1e-13)


@pytest.mark.parametrize("sigma", SIGMAS)
def test_population_loss_matches_monte_carlo_with_the_teachers_activation(sigma) -> None:
    """L = ½E[(f − y)²] with the teacher's labels under the same σ: a sample of 10⁶ within 4 standard errors."""
    a, W, base = _random_state(seed=3)
    model = Model(base.teacher, sigma)
    X, y = draw_sample(model, 1_000_000, seed=11)
    sq = 0.5 * (sigma.sigma(X @ W.T) @ a - y) ** 2
    stderr = sq.std() / np.sqrt(sq.size)
    assert abs(sq.mean() - float(population_loss(Network(a, W), model))) <= 4 * stderr


# ----------------------------------------------------------------------------------------
# the degree-p gauge


@pytest.mark.parametrize("p", [1, 2, 3])
def test_squared_norms_invert_the_function_coordinates_without_cancellation(p) -> None:
    rng = np.random.default_rng(p)
    c = rng.standard_normal(2000) * 10.0 ** rng.uniform(-6, 3, 2000)
    delta = rng.standard_normal(2000) * 10.0 ** rng.uniform(-6, 6, 2000)
    delta[:10] = 0.0
    a_sq, w_sq = squared_norms(c, delta, p)
    assert np.all(a_sq > 0) and np.all(w_sq > 0)
    # each identity to a few ε of its own size: δ = a² − ‖w‖²/p is a difference, so it is judged
    # against the larger of its terms (that is the cancellation-free statement)
    np.testing.assert_allclose(a_sq * w_sq**p, c**2, rtol=2e-15 * (p + 2))
    assert np.all(np.abs(a_sq - w_sq / p - delta) <= 8e-16 * np.maximum(a_sq, w_sq / p))


@pytest.mark.parametrize("sigma", SIGMAS_HOMOGENEOUS)
def test_the_gauge_rescaling_leaves_the_function_and_its_loss_unchanged(sigma) -> None:
    a, W, base = _random_state(seed=5)
    model = Model(base.teacher, sigma)
    p = sigma.degree
    lam = np.array([0.3, 2.0, 7.0])
    a2, W2 = a / lam**p, lam[:, None] * W
    X = np.random.default_rng(0).standard_normal((50, W.shape[1]))
    np.testing.assert_allclose(sigma.sigma(X @ W2.T) @ a2, sigma.sigma(X @ W.T) @ a, rtol=1e-12, atol=1e-14)
    assert float(population_loss(Network(a2, W2), model)) == pytest.approx(
        float(population_loss(Network(a, W), model)), rel=1e-12
    )
    c, U = function_coordinates(Network(a, W), p)
    c2, U2 = function_coordinates(Network(a2, W2), p)
    np.testing.assert_allclose(c2, c, rtol=1e-14)
    np.testing.assert_allclose(U2, U, atol=1e-15)


@pytest.mark.parametrize("sigma", SIGMAS_HOMOGENEOUS)
def test_reaction_plus_transport_is_the_squared_gradient(sigma) -> None:
    """‖∇L‖² from the parameters equals R + T from the function coordinates, at any degree."""
    for seed in range(3):
        a, W, base = _random_state(m=4, seed=seed)
        diss = dissipation(Network(a, W), Model(base.teacher, sigma))
        assert float(diss.residual) <= 1e-13


@pytest.mark.parametrize("name", HOMOGENEOUS)
@pytest.mark.parametrize("lam", [0.0, 0.02])
def test_flow_follows_the_law_of_delta(name, lam) -> None:
    """δ = a² − ‖w‖²/p is conserved by the flow (λ = 0) and follows δ(0) e^{−2λt} under weight decay,
    to ≤ 1e-8 relative (the flow's tolerance is 1e-11), from a random start at d = 6, m = 3."""
    sigma = activation(name)
    rng = np.random.default_rng(1)
    model = standard_model(6, activation=sigma, weight_decay=lam)
    a0, W0 = 0.4 * rng.standard_normal(3), 0.4 * rng.standard_normal((3, 6))
    t = np.linspace(0.0, 20.0, 41)
    traj = gradient_flow(Network(a0, W0), model, 20.0, options=FlowOptions(rtol=RTOL, atol=1e-14), t_grid=t)
    p = sigma.degree
    delta = imbalance(Network(traj.a, traj.W), p)
    law = imbalance(Network(a0, W0), p) * np.exp(-2.0 * lam * traj.t)[:, None]
    assert np.max(np.abs(delta - law)) <= 1e-8 * max(1.0, float(np.max(np.abs(law))))
    if lam == 0.0 and p == 2:  # the ReLU gauge a² − ‖w‖² is *not* this flow's invariant
        wrong = imbalance(Network(traj.a, traj.W), 1)
        assert np.max(np.abs(wrong - wrong[0])) > 1e-3


def test_erf_has_no_gauge_and_its_delta_drifts() -> None:
    model = standard_model(6, activation=activation("erf"))
    rng = np.random.default_rng(1)
    a0, W0 = 0.4 * rng.standard_normal(3), 0.4 * rng.standard_normal((3, 6))
    traj = gradient_flow(Network(a0, W0), model, 20.0, options=FlowOptions(rtol=RTOL, atol=1e-14))
    delta = imbalance(Network(traj.a, traj.W))
    assert np.max(np.abs(delta - delta[0])) > 1e-3
    diss = dissipation(Network(traj.a[-1], traj.W[-1]), model)
    assert np.isnan(diss.reaction) and np.isnan(diss.transport)  # no function coordinates, no split


@pytest.mark.parametrize("sigma", SIGMAS_HOMOGENEOUS)
@pytest.mark.parametrize("lam", [0.0, 0.05])
def test_gradient_descent_changes_delta_by_its_per_step_identity(sigma, lam) -> None:
    """θ' = θ − ηg: δ' = (1 − 2ηλ)δ + η²(g_a² − ‖g_w‖²/p) exactly (Euler's identity a g_a = w·g_w/p
    for the loss part), so per step only round-off separates the two sides."""
    a, W, base = _random_state(seed=7)
    model = Model(base.teacher, sigma, lam)
    p, eta = sigma.degree, 0.01
    objective = population_objective(model)
    for _ in range(20):
        ga, gW, _ = objective.gradient(a, W)
        before = imbalance(Network(a, W), p)
        a, W = a - eta * ga, W - eta * gW
        predicted = (1.0 - 2.0 * eta * lam) * before + eta**2 * (ga**2 - np.sum(gW**2, axis=-1) / p)
        scale = np.maximum(a**2, np.sum(W**2, axis=-1) / p)
        assert np.all(np.abs(imbalance(Network(a, W), p) - predicted) <= 16 * np.finfo(float).eps * scale)


@pytest.mark.parametrize("sigma", SIGMAS_HOMOGENEOUS)
@pytest.mark.parametrize("lam", [0.0, 0.05])
def test_gradient_descent_propagates_the_per_step_identity_at_the_models_degree(sigma, lam) -> None:
    """The δ̂ that :func:`gradient_descent` itself propagates (``imbalance_by_steps``) is the iterates'
    δ at the model's degree p, to round-off — through the code, for relu2 and square (p = 2) as for
    ReLU: a p dropped from its η² term leaves a residual of 4e-3 here (measured, relu2 and square).
    Basis: ≤ 16 ε · scale per step, accumulated over the K steps, scale = max(a², ‖w‖²/p)."""
    from gaugecli.core.integrate.descent import gradient_descent

    a0, W0, base = _random_state(seed=7)
    model = Model(base.teacher, sigma, lam)
    eta, t_max = 0.01, 0.5  # 50 steps, each with an η² term of size ~1e-4 · ‖g‖²
    traj = gradient_descent(Network(a0, W0), model, eta, t_max, record_every=1)
    p = sigma.degree
    assert traj.imbalance_by_steps is not None and len(traj.t) == 51
    scale = np.max(np.maximum(traj.a**2, np.sum(traj.W**2, axis=-1) / p))
    residual = np.max(np.abs(imbalance(Network(traj.a, traj.W), p) - traj.imbalance_by_steps))
    assert residual <= 16 * np.finfo(float).eps * 50 * scale, residual
    # and the η² term is no round-off here: it moved δ by far more than the bound
    moved = np.max(np.abs(traj.imbalance_by_steps[-1] - (1 - 2 * eta * lam) ** 50 * imbalance(Network(a0, W0), p)))
    assert moved > 1e4 * 16 * np.finfo(float).eps * 50 * scale, moved


STEPPED = [
    pytest.param(Mode.gd, {}, id="gd"),
    pytest.param(Mode.sample_gd, {"n_samples": 200}, id="sample-gd"),
    pytest.param(Mode.sgd, {"batch_size": 64}, id="sgd"),
]


@pytest.mark.parametrize(("mode", "extra"), STEPPED)
@pytest.mark.parametrize("lam", [0.0, 0.05])
def test_every_stepped_mode_follows_the_per_step_identity_with_the_models_decay(mode, extra, lam) -> None:
    """The δ that gradient descent propagates by its per-step identity (with ``1 − 2ηλ``) is the
    iterates' δ to accumulated round-off — for the population loss, ``L_n`` and minibatches alike:
    each mode's gradient carries the model's decay (SGD and ``L_n`` once descended without it).
    Basis: ≤ 16 ε · scale per step over K steps, scale = max(a², ‖w‖²) ≤ (|δ| + 2c)."""
    config = SimulateConfig(
        model=ModelConfig(weight_decay=lam),
        dynamics=DynamicsConfig(mode=mode, t_max=10.0, **extra),
        gauge="unfavorable",
        strengths=(4.0,),
    )
    run = simulate(config)[0]
    steps = run.stats.n_steps
    scale = float(np.max(np.maximum(run.norm_a**2, run.norm_w**2)))
    assert run.imbalance_step_residual is not None
    assert run.imbalance_step_residual <= 16 * np.finfo(float).eps * steps * scale
    # the finite step breaks the flow's law δ(0)e^{−2λt} at O(η) (the η² term over t/η steps) …
    law = run.imbalance[0] * np.exp(-2.0 * lam * run.t)[:, None]
    assert run.imbalance_drift > 1e3 * run.imbalance_step_residual
    # … and without the decay in the gradient δ would not have decayed at all
    if lam:
        assert np.all(np.abs(run.imbalance[-1] - law[-1]) < 0.1 * np.abs(run.imbalance[0] - law[-1]))


def test_the_per_step_identity_exposes_an_oracle_without_the_models_decay() -> None:
    """Descending ``L`` alone while the model says λ > 0 — the bug this identity would have caught
    — leaves δ conserved, far from the propagated ``(1 − 2ηλ)^k δ(0)``."""
    from gaugecli.core.integrate.descent import gradient_descent
    from gaugecli.core.population.objective import population_oracle

    base = standard_model(4)
    model = Model(base.teacher, base.activation, 0.05)
    a0, W0 = duplicate_initial_condition(model, np.array([-4.0]), 0.01)
    traj = gradient_descent(Network(a0, W0), model, 0.05, 5.0, oracle=population_oracle(base))
    assert traj.imbalance_by_steps is not None
    gap = np.max(np.abs(imbalance(Network(traj.a, traj.W)) - traj.imbalance_by_steps))
    assert gap > 1.0  # (1 − (1 − 2ηλ)^100) · 4 ≈ 1.6


def test_flow_modes_follow_the_decay_law_to_the_solver_tolerance() -> None:
    """The flow on ``L_n`` with decay: δ(t) = δ(0)e^{−2λt} to its solver's tolerance (rtol 1e-4 on
    samples, propagated to δ: a few rtol · max(1, |δ|))."""
    lam = 0.05
    for dynamics in (DynamicsConfig(t_max=10.0), DynamicsConfig(mode=Mode.sample, n_samples=200, t_max=10.0)):
        config = SimulateConfig(
            model=ModelConfig(weight_decay=lam), dynamics=dynamics, gauge="unfavorable", strengths=(4.0,)
        )
        run = simulate(config)[0]
        assert run.imbalance_by_steps is None and run.imbalance_step_residual is None
        assert run.imbalance_drift <= 10 * dynamics.solver_rtol
        assert run.imbalance[-1, 0] == pytest.approx(-4.0 * np.exp(-2 * lam * run.t[-1]), rel=10 * dynamics.solver_rtol)


# ----------------------------------------------------------------------------------------
# the finite-sample loss under every activation


@pytest.mark.parametrize("sigma", SIGMAS)
def test_empirical_gradient_and_hessian_match_autograd(sigma) -> None:
    a, W, base = _random_state(seed=9)
    model = Model(base.teacher, sigma)
    X, y = draw_sample(model, 500, seed=2)
    sample = EmpiricalSample.from_arrays(X, y, activation=sigma, chunk_bytes=4096)  # several chunks
    ga, gW, loss = sample.gradient(a, W)
    m, d = W.shape

    def L(theta: torch.Tensor) -> torch.Tensor:
        f = sigma.sigma_torch(torch.from_numpy(X) @ theta[m:].reshape(m, d).T) @ theta[:m]
        return 0.5 * torch.mean((f - torch.from_numpy(y)) ** 2)

    theta = torch.from_numpy(np.concatenate([a, W.ravel()]))
    g_ref = torch.autograd.functional.jacobian(L, theta).numpy()
    np.testing.assert_allclose(np.concatenate([ga, gW.ravel()]), g_ref, rtol=1e-12, atol=1e-14)
    assert float(loss) == pytest.approx(float(L(theta)), rel=1e-13)
    # off the kinks (a random sample meets none) the closed-form Hessian is autograd's
    H_ref = torch.autograd.functional.hessian(L, theta).numpy()
    np.testing.assert_allclose(sample.hessian(a, W), H_ref, rtol=1e-11, atol=1e-13)


# ----------------------------------------------------------------------------------------
# the linear network: the exactly solvable control


@pytest.mark.parametrize(("delta", "expected"), [(0.0, np.log(999.0) / 2.0), (4.0, 0.170968), (-4.0, 0.170968)])
def test_linear_aligned_neuron_follows_the_closed_form(delta, expected) -> None:
    """For an aligned neuron of the linear network L = ½(c − 1)² and ċ = −√(δ² + 4c²)(c − 1), even in
    δ: from c = 1e-3 to ½ it takes ln(999)/2 at δ = 0 (Saxe et al.'s logistic) and 0.170968 at δ = ±4.
    The core's flow of (a, w), read at c = ½ by root-finding on a fine declared grid."""
    from scipy.integrate import quad

    model = standard_model(2, activation=activation("linear"))
    a0, W0 = duplicate_initial_condition(model, np.array([delta]), c0=1e-3, theta0=0.0)
    t = np.linspace(0.0, 5.0, 5001)
    traj = gradient_flow(Network(a0, W0), model, 5.0, options=FlowOptions(rtol=1e-12, atol=1e-15), t_grid=t)
    c, _ = function_coordinates(Network(traj.a[:, 0], traj.W[:, 0]))
    k = int(np.flatnonzero(c >= 0.5)[0])
    # the closed form's own integral from the sample before the crossing: no interpolation error
    rest, _ = quad(lambda x: 1.0 / (np.hypot(delta, 2 * x) * (1 - x)), c[k - 1], 0.5, epsabs=1e-14)
    assert traj.t[k - 1] + rest == pytest.approx(expected, rel=2e-6 if delta else 1e-9)
    exact, _ = quad(lambda x: 1.0 / (np.hypot(delta, 2 * x) * (1 - x)), 1e-3, 0.5, epsabs=1e-14)
    assert exact == pytest.approx(expected, rel=3e-6)  # the six digits


@pytest.mark.parametrize(("delta", "a_star"), [(0.0, 1.0), (4.0, 1.0), (-4.0, 1.0), (0.3, 2.0), (300.0, 1.0)])
def test_linear_aligned_time_is_the_integral_of_its_ode(delta, a_star) -> None:
    """``core.linear.aligned_time`` (an antiderivative) against quadrature of ``1/(√(δ² + 4c²)(a* − c))``,
    to quadrature's 1e-12; even in δ; Saxe et al.'s logistic at δ = 0; the issue's 0.170968 at δ = ±4."""
    from scipy.integrate import quad

    from gaugecli.core.reduced.linear import aligned_time

    c0, c1 = 1e-3, 0.5 * a_star
    got = aligned_time(delta, c0, c1, a_star)
    ref, _ = quad(lambda x: 1.0 / (np.hypot(delta, 2 * x) * (a_star - x)), c0, c1, epsabs=1e-15, epsrel=1e-13)
    assert got == pytest.approx(ref, rel=1e-11)
    assert aligned_time(-delta, c0, c1, a_star) == got
    if delta == 0.0 and a_star == 1.0:
        assert got == pytest.approx(np.log(999.0) / 2.0, rel=1e-11)
    if abs(delta) == 4.0:
        assert got == pytest.approx(0.170968, abs=5e-7)
    with pytest.raises(ValueError, match="c_from"):
        aligned_time(delta, c1, c0, a_star)


# ----------------------------------------------------------------------------------------
# σ = x² from u0 ⊥ v: an exact saddle, said so


def test_square_from_an_orthogonal_start_is_an_exact_saddle_and_relu_is_not() -> None:
    square = standard_model(8, activation=activation("square"))
    relu = standard_model(8)
    a0, W0 = duplicate_initial_condition(square, np.array([4.0, -4.0]))
    assert exact_saddle(Network(a0, W0), square)
    assert not exact_saddle(Network(*duplicate_initial_condition(relu, np.array([4.0, -4.0]))), relu)
    a1, W1 = duplicate_initial_condition(square, np.array([4.0, -4.0]), theta0=1.2)
    assert not exact_saddle(Network(a1, W1), square)


def test_simulate_reports_no_t_spec_at_the_saddle_and_one_off_it() -> None:
    (at,) = simulate(SimulateConfig(model=ModelConfig(activation="square"), gauge="favorable"))
    assert at.t_spec is None and at.symmetric_start and "exact saddle" in (at.symmetry_note or "")
    (off,) = simulate(SimulateConfig(model=ModelConfig(activation="square", theta0=1.2), gauge="favorable"))
    assert off.t_spec is not None and off.t_spec > 0 and not off.symmetric_start
    # the saddle is the population loss's: gradient descent on it stays there, a finite sample leaves it
    gd = DynamicsConfig(mode=Mode.gd, eta=0.01, t_max=20.0)
    (stuck,) = simulate(SimulateConfig(model=ModelConfig(activation="square"), dynamics=gd, gauge="favorable"))
    assert stuck.t_spec is None and "exact saddle" in (stuck.symmetry_note or "")
    sample = DynamicsConfig(mode=Mode.sample, n_samples=2000)
    (free,) = simulate(SimulateConfig(model=ModelConfig(activation="square"), dynamics=sample, gauge="favorable"))
    assert free.t_spec is not None and "exact saddle" not in (free.symmetry_note or "")


# ----------------------------------------------------------------------------------------
# configuration


def test_negative_slope_belongs_to_leaky_relu_and_paper_only_analyses_refuse_other_models() -> None:
    with pytest.raises(ConfigError) as info:
        ModelConfig(activation="relu2", negative_slope=0.1)
    assert info.value.param == "negative_slope"
    assert ModelConfig(activation="leaky-relu").sigma().negative_slope == 0.01  # type: ignore[attr-defined]
    with pytest.raises(ConfigError) as info:
        ModelConfig(activation="tanh")
    assert info.value.param == "activation"
    for model, param in [
        (ModelConfig(activation="erf"), "activation"),
        (ModelConfig(weight_decay=0.1), "weight_decay"),
    ]:
        with pytest.raises(ConfigError) as info:
            LockinConfig(model=model, dynamics=DynamicsConfig())
        assert info.value.param == param


def test_relu_runs_are_those_of_the_paper_model() -> None:
    """The default model is ReLU without decay: the same T_spec as the model built explicitly."""
    config = SimulateConfig(gauge="unfavorable")
    explicit = SimulateConfig(model=ModelConfig(activation="relu", weight_decay=0.0), gauge="unfavorable")
    assert simulate(config)[0].t_spec == pytest.approx(simulate(explicit)[0].t_spec, rel=1e-12)


TOY = '''
import json, sys
from dataclasses import dataclass
from typing import ClassVar
import numpy as np
from gaugecli.core.activations import register
from gaugecli.core.activations.base import Activation, filled, inner, pair_shape, right


@dataclass(frozen=True)
class Doubled(Activation):
    """σ(z) = 2z: the linear kernel times four."""
    name: ClassVar[str] = "doubled"
    degree: ClassVar[int | None] = 1
    def sigma(self, z): return 2.0 * np.asarray(z, float)
    def derivative(self, z): return np.full(np.shape(z), 2.0)
    def sigma_torch(self, z): return 2.0 * z
    def derivative_torch(self, z):
        import torch
        return torch.full_like(z, 2.0)
    def kernel(self, W1, W2): return 4.0 * inner(W1, W2)
    def kernel_grad(self, W1, W2): return 4.0 * filled(pair_shape(W1, W2) + (W1.shape[-1],), right(W2))
    def kernel_hessians(self, W1, W2):
        d = W1.shape[-1]; shape = pair_shape(W1, W2) + (d, d)
        return np.zeros(shape), filled(shape, 4.0 * np.eye(d))


register(Doubled)
from gaugecli.cli.app import app
app(sys.argv[1:])
'''


def test_a_registered_toy_activation_runs_through_the_command_line(tmp_path: Path) -> None:
    """One class and its registration: the CLI's choices, the config's check and the core follow.
    σ = 2z doubles student and teacher of the linear network at the same (a, w), so its loss is
    four times the linear one and its flow runs four times as fast: T_spec is the linear T_spec / 4
    (both at rtol 1e-10, so to ~1e-8)."""
    script = tmp_path / "toy.py"
    script.write_text(TOY)
    out = subprocess.run(
        [
            sys.executable,
            str(script),
            "simulate",
            "--activation",
            "doubled",
            "-D",
            "4",
            "--json",
            "--cache-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    record = json.loads(out.stdout.strip().splitlines()[-1])
    assert record["kind"] == "simulate"
    artifact = json.loads(Path(record["path"]).read_text())
    assert artifact["config"]["model"]["activation"] == "doubled"
    t_toy = artifact["result"]["t_spec"]
    (linear,) = simulate(SimulateConfig(model=ModelConfig(activation="linear"), strengths=(4.0,)))
    assert linear.t_spec is not None
    assert t_toy == pytest.approx(linear.t_spec / 4.0, rel=1e-7)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_simulate_stores_t_spec_for_every_activation_and_both_gauges(name) -> None:
    """Every activation learns the feature in both gauges, the favorable one first; the homogeneous
    ones conserve δ (C2's 1e-8), erf's δ drifts. σ = z² starts off its saddle (θ0 = 1.2)."""
    theta0 = 1.2 if name == "square" else np.pi / 2
    runs = {}
    for gauge in ("favorable", "unfavorable"):
        (run,) = simulate(SimulateConfig(model=ModelConfig(activation=name, theta0=theta0), gauge=gauge))
        assert run.t_spec is not None and run.t_spec > 0 and run.owner == 0, (name, gauge)
        if activation(name).degree is None:
            assert run.imbalance_drift > 1e-3
        else:
            assert run.imbalance_drift <= 1e-8, (name, gauge, run.imbalance_drift)
        runs[gauge] = run
    assert runs["favorable"].t_spec < runs["unfavorable"].t_spec


# ----------------------------------------------------------------------------------------
# a teacher with its own activation: the cross kernels

PAIRS = [
    ("relu", "linear", {}),
    ("linear", "relu", {}),
    ("relu", "leaky-relu", {"negative_slope": 0.3}),
    ("leaky-relu", "linear", {"negative_slope": 0.2}),
    ("relu2", "square", {}),
    ("square", "relu2", {}),
]


def _pair(student: str, teacher: str, params: dict[str, float]) -> tuple[Any, Any]:
    def make(name: str) -> Any:
        return activation(name, **(params if name == "leaky-relu" else {}))

    return make(student), make(teacher)


@pytest.mark.parametrize(("student", "teacher", "params"), PAIRS)
def test_cross_kernel_matches_monte_carlo_and_finite_differences(student, teacher, params) -> None:
    """E[σ(w·x) τ(v·x)] against 10⁶ samples (4 standard errors), ∂/∂w and the two Hessian blocks
    against central differences, at generic pairs and at φ = 0 and π."""
    from gaugecli.core.activations.cross import cross_kernel

    sigma, tau = _pair(student, teacher, params)
    cross = cross_kernel(sigma, tau)
    rng = np.random.default_rng(4)
    W = rng.standard_normal((2, 5))
    V = np.concatenate([rng.standard_normal((1, 5)), 1.3 * W[:1], -0.7 * W[1:]])  # generic, φ = 0, φ = π
    X = rng.standard_normal((1_000_000, 5))
    prod = sigma.sigma(X @ W.T)[:, :, None] * tau.sigma(X @ V.T)[:, None, :]
    err = prod.std(axis=0) / np.sqrt(X.shape[0])
    assert np.all(np.abs(cross.kernel(W, V) - prod.mean(axis=0)) <= 4 * err + 1e-12)
    h = 1e-6
    G = cross.kernel_grad(W, V)
    H11, H12 = cross.kernel_hessians(W, V)
    for i in range(2):
        for j in range(3):
            for a_ in range(5):
                e = np.zeros(5)
                e[a_] = h
                Wp, Wm, Vp, Vm = W.copy(), W.copy(), V.copy(), V.copy()
                Wp[i] += e
                Wm[i] -= e
                Vp[j] += e
                Vm[j] -= e
                fd = (cross.kernel(Wp, V) - cross.kernel(Wm, V))[i, j] / (2 * h)
                assert G[i, j, a_] == pytest.approx(fd, rel=1e-6, abs=1e-8)
                fd11 = (cross.kernel_grad(Wp, V) - cross.kernel_grad(Wm, V))[i, j] / (2 * h)
                fd12 = (cross.kernel_grad(W, Vp) - cross.kernel_grad(W, Vm))[i, j] / (2 * h)
                # a kink of relu sits at φ = 0 and π for the second derivatives: compare generic pairs there
                if j == 0 or sigma.parts()[0] == "relu2":  # type: ignore[index]
                    np.testing.assert_allclose(H11[i, j, :, a_], fd11, rtol=1e-5, atol=1e-7)
                    np.testing.assert_allclose(H12[i, j, :, a_], fd12, rtol=1e-5, atol=1e-7)


def test_a_pair_without_a_closed_form_is_refused_naming_the_parameter() -> None:
    for student, teacher in [("relu", "erf"), ("relu", "relu2"), ("erf", "relu")]:
        with pytest.raises(ConfigError) as info:
            ModelConfig(activation=student, teacher_activation=teacher)
        assert info.value.param == "teacher_activation" and "no closed-form kernel" in str(info.value)
    with pytest.raises(ConfigError) as info:
        ModelConfig(activation="relu", teacher_activation="linear", negative_slope=0.1)
    assert info.value.param == "negative_slope"
    assert (
        ModelConfig(activation="relu", teacher_activation="leaky-relu", negative_slope=0.1)
        .build()
        .teacher_sigma.negative_slope
        == 0.1
    )  # type: ignore[attr-defined]


@pytest.mark.parametrize(("student", "teacher", "params"), PAIRS[:3] + PAIRS[4:5])
def test_misspecified_population_loss_and_gradient(student, teacher, params) -> None:
    """With τ ≠ σ: L against a sample labelled by τ (Monte Carlo), ∇L against finite differences of L,
    the closed-form Hessian against differences of the gradient."""
    sigma, tau = _pair(student, teacher, params)
    a, W, base = _random_state(seed=2)
    model = Model(base.teacher, sigma, teacher_activation=tau)
    X, y = draw_sample(model, 1_000_000, seed=5)
    np.testing.assert_allclose(y, tau.sigma(X @ base.directions.T) @ base.coefficients)
    sq = 0.5 * (sigma.sigma(X @ W.T) @ a - y) ** 2
    assert abs(sq.mean() - float(population_loss(Network(a, W), model))) <= 4 * sq.std() / np.sqrt(sq.size)
    objective = population_objective(model)
    theta = np.concatenate([a, W.ravel()])
    m, d = W.shape

    def grad(th: np.ndarray) -> np.ndarray:
        ga, gW, _ = objective.gradient(th[:m], th[m:].reshape(m, d))
        return np.concatenate([ga, gW.ravel()])

    h = 1e-6
    L = lambda th: float(population_loss(Network(th[:m], th[m:].reshape(m, d)), model))  # noqa: E731
    fd = np.array([(L(theta + h * e) - L(theta - h * e)) / (2 * h) for e in np.eye(theta.size)])
    np.testing.assert_allclose(grad(theta), fd, rtol=1e-7, atol=1e-8)
    fd_H = np.array([(grad(theta + h * e) - grad(theta - h * e)) / (2 * h) for e in np.eye(theta.size)])
    np.testing.assert_allclose(objective.hessian(a, W), fd_H, rtol=1e-6, atol=1e-7)


def test_a_relu_student_of_a_linear_teacher_keeps_half_the_loss() -> None:
    """One ReLU neuron against y = v·x: the best it can do is relu(v·x) (c = 1, u = v), whose error
    relu(−v·x) has E[relu(−z)²]/2 = 1/4 of loss left; the flow gets there and conserves δ."""
    (run,) = simulate(SimulateConfig(model=ModelConfig(teacher_activation="linear"), gauge="favorable"))
    assert run.final_loss == pytest.approx(0.25, abs=1e-9)
    assert run.alignment[-1, 0] == pytest.approx(1.0, abs=1e-9)
    assert run.imbalance_drift <= 1e-8


def test_every_public_name_of_the_package_resolves_and_the_model_is_among_them() -> None:
    """``gaugecli.<name>`` for every name of ``__all__`` (lazily imported); the model objects are public."""
    import gaugecli

    for name in gaugecli.__all__:
        assert getattr(gaugecli, name) is not None, name
    model = gaugecli.standard_model(4, activation=gaugecli.activation("relu2"), weight_decay=0.01)
    assert isinstance(model, gaugecli.Model) and model.degree == 2
    assert issubclass(gaugecli.ConfigError, ValueError)
