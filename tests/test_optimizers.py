"""The optimizers of :mod:`gaugecli.core.integrate.optimizers` against ``torch.optim`` itself, stepped on a torch
version of the closed-form population loss; the basis a run is stated in; their options' refusals."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch

from gaugecli.core.integrate.descent import gradient_descent
from gaugecli.core.integrate.optimizers import REGISTRY, optimizer
from gaugecli.core.model.model import standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.population.objective import population_objective
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.declare import ConfigError

D, M, STEPS = 4, 2, 120


def relu_kernel(w: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """``E[relu(w·x) relu(u·x)] = ‖w‖‖u‖ (sin θ + (π − θ) cos θ) / 2π``, x ~ N(0, I): the arc-cosine
    kernel written out again in torch (not the package's code), for distinct directions."""
    nw, nu = torch.linalg.norm(w), torch.linalg.norm(u)
    cos = torch.clamp(w @ u / (nw * nu), -1.0, 1.0)
    theta = torch.arccos(cos)
    return nw * nu * (torch.sin(theta) + (math.pi - theta) * cos) / (2 * math.pi)


def torch_population_loss(a: torch.Tensor, W: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """``L = ½ E[(Σ_j a_j relu(w_j·x) − relu(v·x))²]``; the self terms ``K(w, w) = ‖w‖²/2`` in their own
    form (arccos is not differentiable at θ = 0)."""
    loss = 0.5 * 0.5 * (v @ v)
    for i in range(a.shape[0]):
        loss = loss + 0.5 * a[i] ** 2 * 0.5 * (W[i] @ W[i]) - a[i] * relu_kernel(W[i], v)
        for j in range(i + 1, a.shape[0]):
            loss = loss + a[i] * a[j] * relu_kernel(W[i], W[j])
    return loss


def torch_iterates(name: str, a0: np.ndarray, W0: np.ndarray, lr: float, **kw: object) -> tuple[np.ndarray, np.ndarray]:
    """``STEPS`` steps of ``torch.optim`` from ``(a0, W0)``: the iterates 0 … STEPS."""
    a = torch.tensor(a0, dtype=torch.float64, requires_grad=True)
    W = torch.tensor(W0, dtype=torch.float64, requires_grad=True)
    v = torch.zeros(D, dtype=torch.float64)
    v[0] = 1.0
    make = {"sgd": torch.optim.SGD, "momentum": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW}
    opt = make[name]([a, W], lr=lr, **kw)  # type: ignore[arg-type]
    out_a, out_W = [a0.copy()], [W0.copy()]
    for _ in range(STEPS):
        opt.zero_grad()
        torch_population_loss(a, W, v).backward()
        opt.step()
        out_a.append(a.detach().numpy().copy())
        out_W.append(W.detach().numpy().copy())
    return np.array(out_a), np.array(out_W)


def start() -> tuple[np.ndarray, np.ndarray]:
    """Two neurons in general position (every coordinate moves, no direction is a teacher's or the other's)."""
    rng = np.random.default_rng(7)
    return np.abs(rng.normal(0.5, 0.2, M)), rng.normal(0.0, 0.5, (M, D))


CASES = [
    ("sgd", 0.05, {}, {}),
    ("momentum", 0.02, {"momentum": 0.9}, {"momentum": 0.9}),
    ("momentum", 0.02, {"momentum": 0.8, "nesterov": True}, {"momentum": 0.8, "nesterov": True}),
    ("adam", 1e-2, {"betas": (0.9, 0.999), "eps": 1e-8}, {"betas": (0.9, 0.999), "adam_eps": 1e-8}),
    ("adam", 3e-3, {"betas": (0.5, 0.9), "eps": 1e-6}, {"betas": (0.5, 0.9), "adam_eps": 1e-6}),
    ("adamw", 1e-2, {"weight_decay": 0.1}, {"decay": 0.1}),
]


def test_torch_loss_is_the_population_loss() -> None:
    """The torch loss's autograd gradient is the package's closed-form gradient at the start
    (both are exact: they differ by round-off, ~1e-16 of gradients of size ~0.1)."""
    a0, W0 = start()
    a = torch.tensor(a0, requires_grad=True)
    W = torch.tensor(W0, requires_grad=True)
    v = torch.zeros(D, dtype=torch.float64)
    v[0] = 1.0
    torch_population_loss(a, W, v).backward()
    ga, gW, _ = population_objective(standard_model(D)).gradient(a0, W0)
    np.testing.assert_allclose(ga, a.grad.numpy(), rtol=0, atol=1e-14)  # type: ignore[union-attr]
    np.testing.assert_allclose(gW, W.grad.numpy(), rtol=0, atol=1e-14)  # type: ignore[union-attr]


@pytest.mark.parametrize(("name", "lr", "torch_kw", "our_kw"), CASES)
def test_every_iterate_matches_torch_optim(name: str, lr: float, torch_kw: dict, our_kw: dict) -> None:
    """Every iterate of ``gradient_descent`` with the optimizer is torch.optim's to round-off.

    Tolerance: the two gradients agree to ~1e-16 per step (the test above), each update adds a few ε
    of its own (another order of the same operations: torch's lerp, foreach kernels), and over
    ``STEPS`` steps of a non-expanding run of parameters of size ~1 these add up to ≲ STEPS · 8ε."""
    a0, W0 = start()
    ta, tW = torch_iterates(name, a0, W0, lr, **torch_kw)
    rule = optimizer(name, **our_kw)
    traj = gradient_descent(
        Network(a0, W0), standard_model(D), lr, STEPS * lr, optimizer=rule, record_every=1, grad_tol=0.0
    )
    assert traj.a.shape == (STEPS + 1, M)
    assert np.max(np.abs(tW[-1] - W0)) > 1e-2  # the run moved (a comparison of still points tests nothing)
    tol = STEPS * 8 * np.finfo(float).eps
    np.testing.assert_allclose(traj.a, ta, rtol=0, atol=tol)
    np.testing.assert_allclose(traj.W, tW, rtol=0, atol=tol)


def test_registry_names_every_optimizer() -> None:
    assert set(REGISTRY) == {"sgd", "momentum", "adam", "adamw"}
    assert {optimizer(n).name for n in REGISTRY} == set(REGISTRY)


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"mode": "flow", "optimizer": "adam"}, "optimizer"),
        ({"mode": "gd", "eta": 0.1, "momentum": 0.9}, "momentum"),
        ({"mode": "gd", "eta": 0.1, "optimizer": "adam", "momentum": 0.9}, "momentum"),
        ({"mode": "gd", "eta": 0.1, "optimizer": "momentum", "betas": (0.9, 0.99)}, "betas"),
        ({"mode": "gd", "eta": 0.1, "optimizer": "adam", "betas": (0.9, 1.0)}, "betas"),
        ({"mode": "gd", "eta": 0.1, "optimizer": "adam", "betas": (0.9, 0.99, 0.5)}, "betas"),
        ({"mode": "gd", "eta": 0.1, "optimizer": "momentum", "momentum": 1.0}, "momentum"),
        ({"mode": "gd", "eta": 2.0, "optimizer": "adam"}, "eta"),
        ({"mode": "gd", "optimizer": "adam"}, "eta"),
        ({"mode": "gd", "eta": 0.1, "optimizer": "sgd", "adam_eps": 1e-8}, "adam_eps"),
        ({"mode": "gd", "eta": 0.1, "optimizer": "adam", "adam_eps": 0.0}, "adam_eps"),
        ({"mode": "gd", "eta": 0.1, "optimizer": "momentum", "momentum": 0.0, "nesterov": True}, "nesterov"),
        ({"mode": "gd", "eta": 0.1, "basis_seed": 3}, "basis_seed"),
        ({"mode": "flow", "basis": "random"}, "basis"),
    ],
)
def test_refusals_name_the_parameter(kwargs: dict, param: str) -> None:
    with pytest.raises(ConfigError) as err:
        DynamicsConfig(**kwargs)
    assert err.value.param == param


def test_adamw_decay_is_the_models_weight_decay() -> None:
    """AdamW's decoupled decay is the model's λ; the other optimizers take none of their own."""
    dyn = DynamicsConfig(mode="gd", eta=1e-3, optimizer="adamw")
    lam = ModelConfig(weight_decay=0.01).weight_decay
    assert dyn.update_rule(lam).decay == lam
    assert (
        DynamicsConfig(mode="gd", eta=1e-3, optimizer="adam").update_rule(lam).decay == 0.0
    )  # exact by construction: Adam's coupled decay leaves the decoupled one unset: a constant


def _run(optimizer_name: str, basis: str | None, eta: float, **kw: object) -> tuple[np.ndarray, np.ndarray]:
    """δ at the end and the crossing time of a ±D pair (m = 2, D = 4) under ``optimizer_name``."""
    from gaugecli.core.model.gauge import imbalance
    from gaugecli.experiments.common import duplicates, integrate_ensemble

    model = ModelConfig()
    deltas = np.array([[4.0, -4.0]])
    a0, W0 = duplicates(model, deltas)
    dyn = DynamicsConfig(mode="gd", eta=eta, optimizer=optimizer_name, basis=basis, t_max=3.0, **kw)  # type: ignore[arg-type]
    traj, _ = integrate_ensemble(model, dyn, Network(a0, W0))
    return imbalance(Network(traj.a[..., -1, :], traj.input_weights()[..., -1, :, :])), traj.crossing_times


@pytest.mark.parametrize(("name", "kw"), [("sgd", {}), ("momentum", {"momentum": 0.9})])
def test_gd_and_momentum_are_rotation_invariant(name: str, kw: dict) -> None:
    """The same run stated in a random basis (full R^d, turned by Q) and in the invariant subspace of
    the standard one: δ and the crossing time agree to round-off. Tolerance: the two runs differ by
    the arithmetic of a d × d rotation (~d ε per product) over 300 steps of a non-expanding map;
    1e-10 is ~100 times what that allows."""
    d_std, t_std = _run(name, None, 0.01, **kw)
    d_rot, t_rot = _run(name, "random", 0.01, **kw)
    np.testing.assert_allclose(d_rot, d_std, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(t_rot, t_std, rtol=1e-10, equal_nan=True)


def test_adam_sees_the_basis() -> None:
    """Adam's per-coordinate normalisation is not rotation invariant: the same problem turned by Q ends
    with another δ (a measured difference, far above round-off)."""
    d_std, _ = _run("adam", None, 1e-2)
    d_rot, _ = _run("adam", "random", 1e-2)
    assert np.max(np.abs(d_rot - d_std)) > 1e-3 * np.max(np.abs(d_std))


def test_heavy_ball_flow_is_the_limit_of_small_step_momentum() -> None:
    """Torch's momentum with ``η = h²``, ``β = 1 − γh`` (time ``kh``) is a first-order scheme for
    ``θ̈ + γθ̇ = −∇L``: the favorable neuron's crossing time moves towards the flow's by a factor
    ~2 as h halves (first order: ratios 2 ± 0.3 allowed for the O(h²) rest), and Richardson's
    extrapolation ``2T(h/2) − T(h)`` meets the flow's to better than the last error's tenth."""
    from gaugecli.core.integrate.heavy_ball import heavy_ball_flow
    from gaugecli.core.model.gauge import duplicate_initial_condition

    model, gamma = standard_model(8), 2.0
    a0, W0 = duplicate_initial_condition(model, np.array([4.0]), 0.1, math.pi / 2)
    flow = heavy_ball_flow(Network(a0, W0), model, gamma, 10.0)
    t_flow = flow.crossing_times[0]
    assert np.isfinite(t_flow)
    times = []
    for h in (0.02, 0.01, 0.005):
        rule = optimizer("momentum", momentum=1.0 - gamma * h)
        traj = gradient_descent(
            Network(a0, W0), model, h * h, 10.0 * h, optimizer=rule, grid_points=3, stop_at_crossing=True
        )
        times.append(traj.crossing_times[0] / h)  # iterate k at kη = kh²: time kh
    errors = np.abs(np.array(times) - t_flow)
    assert 1.7 < errors[0] / errors[1] < 2.3 and 1.7 < errors[1] / errors[2] < 2.3
    assert abs(2 * times[2] - times[1] - t_flow) < 0.1 * errors[2]


def _adam_crossing(delta: float, eta: float, t_max: float) -> float:
    """The first crossing ``α ≥ 0.99`` of one neuron of gauge ``delta`` under Adam (m = 1, d = 16, c0 = 0.1)."""
    from gaugecli.experiments.common import duplicates

    model = ModelConfig(eps_align=0.01)
    a0, W0 = duplicates(model, np.array([[delta]]))
    traj = gradient_descent(
        Network(a0, W0), model.build(), eta, t_max, optimizer=optimizer("adam"), eps_align=0.01, stop_at_crossing=True
    )
    return float(traj.crossing_times[0, 0])


def test_adam_separation_grows_like_d_not_d_squared() -> None:
    """Under Adam the ±D separation T(−D)/T(+D) grows like D, not like the flow's D²: small-lr Adam is
    sign-like, every coordinate moves at rate ~η, so the unfavorable neuron (‖w‖ ~ √D) turns in a time
    ∝ √D and the favorable one (‖w‖ ~ c0/√D) in one ∝ 1/√D. The local slopes between D = 16, 64, 256
    must lie within 0.15 of that law's 1 (finite-lr corrections at these D; see docs/theory.md), which
    is 0.85 away from the flow's 2."""
    strengths = [16.0, 64.0, 256.0]
    ratios = [_adam_crossing(-D, 1e-3, 20 * (1 + D)) / _adam_crossing(D, 1e-3, 20.0) for D in strengths]
    slopes = np.diff(np.log(ratios)) / np.diff(np.log(strengths))
    assert np.all(np.abs(slopes - 1.0) < 0.15), slopes


def test_adam_claims_judge_the_sign_like_law_and_refuse_the_flows() -> None:
    """The verify claim passes runs whose ratio grows like D and fails runs that grow like the flow's D²
    (T_spec values built from those laws: the judge alone, no run)."""
    from types import SimpleNamespace

    from gaugecli.pipeline import Inputs
    from gaugecli.verify.optimizers import ADAM_STRENGTHS, _adam_exponent

    def inputs(power: float) -> Inputs:
        results = {}
        for D in ADAM_STRENGTHS[True]:
            results[f"favorable-D{D:g}"] = SimpleNamespace(t_spec=1.0 / D ** (power / 2))
            results[f"unfavorable-D{D:g}"] = SimpleNamespace(t_spec=D ** (power / 2))
        return Inputs(results, {})

    assert _adam_exponent(inputs(1.0), True).passed
    assert not _adam_exponent(inputs(2.0), True).passed


def test_heavy_ball_separation_grows_like_d_to_three_halves() -> None:
    """Under the heavy-ball flow at fixed γ the separation is Θ(D^{3/2}), between Adam's D and the flow's D²:
    a mode the flow grows at rate μ grows at (−γ + √(γ² + 4μ))/2, so the +D neuron's μ ~ D (≫ γ²) turns in
    a time ∝ 1/√D (inertia-limited) and the −D neuron's μ ~ 1/D (≪ γ²) in one ∝ γD (overdamped). The local
    slopes between D = 4, 16, 64 must lie within 0.1 of 3/2 (the log of the +D neuron's escape time moves
    them by ~1/ln D; measured within 0.04 at these D), 0.5 away from both other laws."""
    from gaugecli.core.integrate.heavy_ball import heavy_ball_flow
    from gaugecli.core.model.gauge import duplicate_initial_condition

    model, gamma = standard_model(16), 2.0
    strengths = [4.0, 16.0, 64.0]
    ratios = []
    for D in strengths:
        times = []
        for delta, t_max in ((D, 40.0), (-D, 40.0 * (1 + D) * gamma)):
            a0, W0 = duplicate_initial_condition(model, np.array([delta]), 0.1, math.pi / 2)
            flow = heavy_ball_flow(Network(a0, W0), model, gamma, t_max, eps_align=0.01, rtol=1e-8, atol=1e-11)
            times.append(flow.crossing_times[0])
        ratios.append(times[1] / times[0])
    slopes = np.diff(np.log(ratios)) / np.diff(np.log(strengths))
    assert np.all(np.abs(slopes - 1.5) < 0.1), slopes


@pytest.mark.parametrize(("name", "torch_kw"), [("adamw", {"weight_decay": 0.1}), ("adam", {"weight_decay": 0.1})])
def test_a_runs_weight_decay_reaches_torch_as_its_own(name: str, torch_kw: dict) -> None:
    """Through the configs (``--optimizer adamw --weight-decay 0.1`` and ``--optimizer adam``): AdamW's decay
    is torch's decoupled ``weight_decay``, Adam's its coupled one (``+λθ`` in the gradient). The run's last
    iterate is torch's after the same steps (tolerance as in the per-iterate comparison)."""
    from gaugecli.experiments.common import duplicates, integrate_ensemble

    lr = 1e-2
    model = ModelConfig(d=D, weight_decay=0.1)
    a0, W0 = duplicates(model, np.array([[3.0]]))  # one neuron: the torch loss has no arccos at θ = 0
    dyn = DynamicsConfig(mode="gd", eta=lr, optimizer=name, t_max=STEPS * lr)  # type: ignore[arg-type]
    traj, _ = integrate_ensemble(model, dyn, Network(a0, W0))
    assert traj.stats.n_steps == STEPS
    ta, tW = torch_iterates(name, a0[0], W0[0], lr, **torch_kw)
    tol = STEPS * 8 * np.finfo(float).eps
    np.testing.assert_allclose(traj.a[0, -1], ta[-1], rtol=0, atol=tol)
    np.testing.assert_allclose(traj.input_weights()[0, -1], tW[-1], rtol=0, atol=tol)


def test_heavy_ball_moves_delta_by_its_kinetic_imbalance() -> None:
    """Along the heavy-ball flow (p = 1, λ = 0) ``γ(δ(t) − δ(0)) + δ̇(t) = 2∫₀ᵗ (ȧ² − ‖ẇ‖²) ds``
    (docs/theory.md §13), with δ̇ = 2(aȧ − w·ẇ) from the solved velocities and the integral by Simpson's
    rule on a uniform grid of 4001 points. Tolerance: the solver's rtol 1e-11 on states of size ≤ 2 and
    Simpson's O(Δt⁴) error (Δt = 1e-3) are both ≲ 1e-9; 1e-7 of the largest term. The drift is real:
    far above that (δ is not conserved)."""
    from scipy.integrate import cumulative_simpson

    from gaugecli.core.integrate.heavy_ball import heavy_ball_solve
    from gaugecli.core.integrate.saveat import SaveAt
    from gaugecli.core.model.gauge import duplicate_initial_condition

    model, gamma, m, d = standard_model(4), 1.5, 2, 4
    a0, W0 = duplicate_initial_condition(model, np.array([1.0, -1.0]), 0.5, 1.2)
    t = np.linspace(0.0, 4.0, 4001)
    sol = heavy_ball_solve(
        Network(a0, W0), gamma, 4.0, population_objective(model), rtol=1e-11, atol=1e-13, save=SaveAt(t)
    )
    n = m * (d + 1)
    a, W = sol.y[:m].T, sol.y[m:n].T.reshape(-1, m, d)
    va, vW = sol.y[n : n + m].T, sol.y[n + m :].T.reshape(-1, m, d)
    delta = a**2 - np.sum(W**2, axis=-1)
    delta_dot = 2 * (a * va - np.sum(W * vW, axis=-1))
    kinetic = va**2 - np.sum(vW**2, axis=-1)
    lhs = gamma * (delta - delta[0]) + delta_dot
    rhs = 2 * cumulative_simpson(kinetic, x=t, axis=0, initial=0.0)
    scale = np.max(np.abs(lhs))
    assert scale > 1e-3  # a kinetic imbalance moved δ
    np.testing.assert_allclose(lhs, rhs, rtol=0, atol=1e-7 * scale)


def test_a_random_basis_beyond_its_dimension_is_refused_before_it_is_drawn() -> None:
    from gaugecli.experiments.common import duplicates, integrate_ensemble
    from gaugecli.experiments.params import MAX_RANDOM_BASIS_D

    model = ModelConfig(d=MAX_RANDOM_BASIS_D + 1)
    a0, W0 = duplicates(model, np.array([[4.0]]))
    with pytest.raises(ConfigError) as err:
        integrate_ensemble(model, DynamicsConfig(mode="gd", eta=1e-3, basis="random", t_max=1.0), Network(a0, W0))  # type: ignore[arg-type]
    assert err.value.param == "basis"


def test_predict_trains_its_population_cells_by_the_optimizer() -> None:
    """``predict --optimizer sgd --optimizer-eta 0.01``: its population cells step GD in all d coordinates from the same
    starts as the flow's cells. The predictors read the start alone, so their picks are the flow cells';
    and GD at a small step realises the flow's owners (GD → flow as η → 0; ρ = 100 keeps every start far
    from a tie)."""
    from gaugecli.experiments.predict import PredictConfig, chunks
    from gaugecli.experiments.predict.chunk import predict_chunk

    common = {"ks": (1,), "widths": (2,), "spreads": (100.0,), "natural": False, "runs": 6, "t_max": 60.0}
    flow_job = chunks(PredictConfig(**common))[0][0]  # type: ignore[arg-type]
    gd_job = chunks(PredictConfig(**common, optimizer="sgd", optimizer_eta=1e-2))[0][0]  # type: ignore[arg-type]
    assert gd_job.optimizer == "sgd" and gd_job.eta == 1e-2 and flow_job.optimizer is None
    flow, gd = predict_chunk(flow_job), predict_chunk(gd_job)
    assert gd.picks == flow.picks
    assert gd.owners == flow.owners and gd.failed == 0
    assert all(o >= 0 for row in flow.owners for o in row)  # every run has an owner: the agreement says something


def test_heavy_ball_claim_judges_the_three_halves_law_and_refuses_the_others() -> None:
    """The verify claim passes a pair whose ratio grows like D^{3/2}(1 + 0.2/√D) (the inertia-limited
    rate's O(D^{-1/2}) correction, docs/theory.md §13) and fails pairs grown like Adam's D or the flow's D²;
    the full profile also fails slopes within its tolerance whose distance from 3/2 grows with D (ratio
    D^{3/2} e^{g}, g = 0.01 (ln D)²/(2 ln²4): deviations 0.015 … 0.045). Times built from those laws: the
    judge alone, no run."""
    from types import SimpleNamespace

    from gaugecli.pipeline import Inputs
    from gaugecli.verify.optimizers import HEAVY_BALL_STRENGTHS, _heavy_ball_exponent

    def inputs(ratio: Any, quick: bool) -> Inputs:
        Ds = np.asarray(HEAVY_BALL_STRENGTHS[quick])
        plus = Ds**-0.5
        pair = SimpleNamespace(strengths=list(Ds), t_plus=list(plus), t_minus=list(plus * ratio(Ds)))
        return Inputs({"heavy-ball": pair}, {})

    def law(power: float) -> Any:
        return lambda D: D**power * (1.0 + 0.2 / np.sqrt(D))

    for quick in (True, False):
        assert _heavy_ball_exponent(inputs(law(1.5), quick), quick).passed
        assert not _heavy_ball_exponent(inputs(law(1.0), quick), quick).passed
        assert not _heavy_ball_exponent(inputs(law(2.0), quick), quick).passed
    drifting = inputs(lambda D: D**1.5 * np.exp(0.01 * np.log(D) ** 2 / (2 * np.log(4.0) ** 2)), False)
    assert not _heavy_ball_exponent(drifting, False).passed


def test_momentum_drift_claim_judges_order_eta_and_refuses_order_one() -> None:
    """The verify claim passes per-step records whose drift is proportional to η and fails one whose drift
    does not shrink with η (Adam's kind) or shrinks like η² (records built from those laws: the judge alone)."""
    from types import SimpleNamespace

    from gaugecli.pipeline import Inputs
    from gaugecli.verify.optimizers import DRIFT_ETAS, _momentum_drift

    def inputs(power: float) -> Inputs:
        t = np.linspace(0.0, 2.0, 11)
        runs = {
            f"eta{eta:g}": SimpleNamespace(imbalance_per_step=(-4.0 + eta**power * t)[:, None]) for eta in DRIFT_ETAS
        }
        return Inputs(runs, {})

    assert _momentum_drift(inputs(1.0), True).passed
    assert not _momentum_drift(inputs(0.0), True).passed
    assert not _momentum_drift(inputs(2.0), True).passed
