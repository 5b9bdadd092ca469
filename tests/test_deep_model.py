"""A network with two hidden layers on a fixed sample: the backpropagated gradient against torch's
autograd, the gauge solve (function unchanged, balances reached), the balances conserved along the
flow to the solver's tolerance, GD's exact per-step drift η²(‖g_out‖² − ‖g_in‖²) and its O(η) drift
over a fixed time, and GD → flow at first order as η → 0."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest
import torch

from gaugecli.core.integrate.deep_train import deep_descent, deep_flow, descent_balance_step
from gaugecli.core.model.deep import DeepNetwork, with_balances
from gaugecli.core.samples.deep_sample import DeepSample

EPS = np.finfo(float).eps
FLOW_RTOL = 1e-7
DRIFT_FACTOR = 10.0
"""A balance is a sum of squares: its error is ≲ 2‖θ‖ times the state's, which RK45 keeps at
``rtol·‖θ‖`` per step; the global error stays within a few times that (measured ~1e-9·‖θ‖² at rtol 1e-6)."""


def _teacher(d: int) -> DeepNetwork:
    """``y(x) = relu(relu(x_1))``: SPEC's teacher written with two hidden layers."""
    return DeepNetwork.of([np.eye(d)[:1], [[1.0]]], [1.0])


def _student(seed: int, d: int = 5, widths: tuple[int, int] = (3, 2)) -> DeepNetwork:
    rng = np.random.default_rng(seed)
    m1, m2 = widths
    # positive second layer and readout: no layer starts dead, so every flow here moves
    W2, a = np.abs(rng.standard_normal((m2, m1))), np.abs(rng.standard_normal(m2))
    return DeepNetwork.of([rng.standard_normal((m1, d)) / np.sqrt(d), W2], a)


@pytest.fixture(scope="module")
def sample() -> DeepSample:
    return DeepSample.draw(_teacher(5), 400, seed=3)


def _torch_loss(sample: DeepSample, widths: tuple[int, ...]) -> Callable[[torch.Tensor], torch.Tensor]:
    X, y = torch.tensor(sample.X), torch.tensor(sample.y)

    def loss(z: torch.Tensor) -> torch.Tensor:
        start, h = 0, X
        for m_in, m_out in itertools.pairwise(widths):
            h = torch.relu(h @ z[start : start + m_in * m_out].reshape(m_out, m_in).T)
            start += m_in * m_out
        return 0.5 * ((h @ z[start:] - y) ** 2).mean()

    return loss


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradient_is_autograd(sample: DeepSample, seed: int) -> None:
    """Backpropagation by hand against torch's autograd (float64, the same σ'(0) = 0), away from
    the kinks (no sample sits on one for a Gaussian draw): the same sums in another order, k·ε·scale."""
    net = _student(seed)
    grad, loss = sample.gradient(net)
    z = torch.tensor(net.flatten(), requires_grad=True)
    ref_loss = _torch_loss(sample, net.widths)(z)
    (ref,) = torch.autograd.grad(ref_loss, z)
    scale = float(np.abs(ref.numpy()).max()) + loss
    assert np.max(np.abs(grad.flatten() - ref.numpy())) <= 1e3 * EPS * scale
    assert loss == pytest.approx(float(ref_loss.detach()), rel=1e3 * EPS)


def test_loss_error_is_the_spread_over_independent_samples() -> None:
    """The stated Monte Carlo error of L_n against the spread of L_n over 40 independent samples:
    their standard deviation estimates the same σ/√n, within the sampling error of a standard
    deviation from 40 draws (±~11 %: a 3-sigma band of ±35 %)."""
    net = _student(0)
    teacher = _teacher(5)
    losses = [DeepSample.draw(teacher, 400, seed=s).loss(net) for s in range(40)]
    stated = DeepSample.draw(teacher, 400, seed=99).loss_error(net)
    assert np.std(losses, ddof=1) == pytest.approx(stated, rel=0.35)


@pytest.mark.parametrize("free", [None, [True, False]])
def test_gauge_solve_keeps_the_function_and_reaches_the_balances(sample: DeepSample, free: list[bool] | None) -> None:
    """Rescalings change no prediction (k·ε·scale) and reach any target (the convex solve's gtol);
    with layer 2 held (``free``), layer 1 reaches its targets through its own and the layer above's norms."""
    net = _student(4)
    targets = [np.array([3.0, -3.0, -3.0]), np.array([0.5, -1.0])]
    out = with_balances(net, targets, free)
    scale = 1.0 + net.norm_sq() + 10.5
    assert np.max(np.abs(out(sample.X) - net(sample.X))) <= 1e3 * EPS * (1.0 + np.abs(net(sample.X)).max())
    assert np.max(np.abs(out.balances()[0] - targets[0])) <= 1e-9 * scale
    if free is None:
        assert np.max(np.abs(out.balances()[1] - targets[1])) <= 1e-9 * scale
    else:
        # layer 2 was not rescaled: its readout is the start's (a multiplication by e^0 = 1 exactly)
        np.testing.assert_array_equal(out.a, net.a)


def test_balances_are_conserved_along_the_flow(sample: DeepSample) -> None:
    """Every hidden neuron's balance along RK45 at rtol 1e-7, while the loss falls by half and θ moves:
    drift ≤ DRIFT_FACTOR · rtol · max‖θ‖² (its basis above); the non-conserved ‖θ‖² moves by far more."""
    net = with_balances(_student(5), [np.array([2.0, -2.0, -2.0]), np.array([0.0, 1.0])])
    run = deep_flow(sample, net, np.linspace(0.0, 2.0, 9), rtol=FLOW_RTOL, method="RK45")
    assert run.loss[-1] < 0.5 * run.loss[0]
    for drift in run.drift:
        assert np.all(drift <= DRIFT_FACTOR * FLOW_RTOL * run.scale)
    norms = np.sum(run.states**2, axis=1)
    assert np.max(np.abs(norms - norms[0])) >= 1e3 * DRIFT_FACTOR * FLOW_RTOL * run.scale


def test_one_descent_step_moves_each_balance_by_eta_squared_times_its_gradients_balance(sample: DeepSample) -> None:
    """The per-step drift in closed form, η²(‖g_out‖² − ‖g_in‖²), against the step taken (k·ε·‖θ‖²:
    a difference of two sums of squares of size ‖θ‖²)."""
    net = with_balances(_student(6), [np.array([1.0, -1.0, 0.0]), np.array([0.5, -0.5])])
    for eta in (0.1, 0.01):
        run = deep_descent(sample, net, eta=eta, steps=1)
        grad, _ = sample.gradient(net)
        predicted = descent_balance_step(net, grad, eta)
        for ell in range(2):
            change = run.balances[ell][1] - run.balances[ell][0]
            assert np.max(np.abs(change - predicted[ell])) <= 1e3 * EPS * run.scale
        assert max(np.abs(p).max() for p in predicted) > 0.0  # not conserved exactly by a step


def test_descent_drift_over_a_fixed_time_is_first_order_in_eta(sample: DeepSample) -> None:
    """O(η²) per step over T/η steps: the drift at t = 1 halves (ratio 2 ± 0.3, a first-order
    ratio with its next-order correction at these η) as η halves."""
    net = with_balances(_student(7), [np.array([2.0, -2.0, 0.0]), np.array([1.0, -1.0])])
    drifts = []
    for eta in (0.02, 0.01):
        run = deep_descent(sample, net, eta=eta, steps=round(1.0 / eta), record_every=round(1.0 / eta))
        drifts.append(max(float(np.max(np.abs(b[-1] - b[0]))) for b in run.balances))
    assert drifts[0] / drifts[1] == pytest.approx(2.0, abs=0.3)


def test_descent_tends_to_the_flow_at_first_order(sample: DeepSample) -> None:
    """‖θ_GD(t) − θ_flow(t)‖ at t = 1 for η and η/2: GD's global error is first order (ratio 2 ± 0.3);
    the flow's own error (rtol 1e-7, ~1e-7·‖θ‖) is far below both (~1e-3)."""
    net = with_balances(_student(8), [np.array([1.0, -1.0, 0.0]), np.array([0.5, 0.0])])
    flow = deep_flow(sample, net, np.array([0.0, 1.0]), rtol=1e-7, method="RK45")
    errors = []
    for eta in (0.02, 0.01):
        gd = deep_descent(sample, net, eta=eta, steps=round(1.0 / eta), record_every=round(1.0 / eta))
        errors.append(float(np.linalg.norm(gd.states[-1] - flow.states[-1])))
    assert errors[0] / errors[1] == pytest.approx(2.0, abs=0.3)
