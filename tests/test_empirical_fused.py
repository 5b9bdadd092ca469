"""The compiled pass of ``gaugecli.core.samples.empirical_fused`` against the numpy sums, torch's autograd and
the flows it drives.

The numpy route (``EmpiricalSample``'s ``_gradient_sums_numpy``, BLAS's matrix products and numpy's
reductions) is the reference: the compiled pass sums the same terms in another order, so each entry
agrees to ``k·ε`` of its terms' scale — ``Σ_i |term_i| / n`` for a sum of ``n`` terms, each itself
a product of sums over ``d`` inputs and ``m`` neurons: a recursive sum of ``N`` terms errs by at most
``(N − 1) ε`` of that scale, so ``4 (n + d + m) ε`` covers both routes' sums with margin.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gaugecli.core.activations import activation
from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
from gaugecli.core.model.model import standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.population import route
from gaugecli.core.samples import empirical_fused
from gaugecli.core.samples.empirical import EmpiricalSample
from gaugecli.core.samples.sample import stacked_empirical_objective
from gaugecli.core.samples.sample_draw import draw_sample

EPS = float(np.finfo(np.float64).eps)

ACTIVATIONS = {
    "relu": activation("relu"),
    "leaky-0.1": activation("leaky-relu", negative_slope=0.1),
    "linear": activation("linear"),
}
SHAPES = [((), 2, 5, 40, False), ((3,), 1, 4, 33, False), ((2, 3), 3, 6, 17, False), ((4,), 2, 5, 25, True)]
"""(members' axes, m, d, n, a stack: one sample per member)."""


def _sample(lead: tuple[int, ...], d: int, n: int, stack: bool, sigma: str) -> EmpiricalSample:
    rng = np.random.default_rng(n * 10 + d)
    if stack:
        samples = [(rng.standard_normal((n, d)), rng.standard_normal(n)) for _ in range(lead[0])]
        return EmpiricalSample.stack(samples, activation=ACTIVATIONS[sigma])
    return EmpiricalSample.from_arrays(
        rng.standard_normal((n, d)), rng.standard_normal(n), activation=ACTIVATIONS[sigma]
    )


def _scales(sample: EmpiricalSample, a: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``Σ_i |term_i| / n`` of each entry of ``(∂L_n/∂a, ∂L_n/∂W, L_n)`` (the sums' round-off scale)."""
    X, y = sample.arrays()
    X = X if X.ndim == W.ndim else X[(None,) * (W.ndim - 2)]
    Z = np.einsum("...md,...nd->...mn", W, X)
    H, slope = sample.activation.sigma(Z), sample.activation.derivative(Z)
    r = np.abs(np.einsum("...m,...mn->...n", np.abs(a), np.abs(H))) + np.abs(y)
    n = sample.n
    g_a = np.einsum("...mn,...n->...m", np.abs(H), r) / n
    g_W = np.abs(a)[..., None] * np.einsum("...mn,...n,...nd->...md", np.abs(slope), r, np.abs(X)) / n
    return g_a, g_W, 0.5 * np.sum(r * r, axis=-1) / n


@pytest.mark.parametrize("sigma", list(ACTIVATIONS))
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"lead{s[0]}-m{s[1]}-d{s[2]}-n{s[3]}{'-stack' if s[4] else ''}")
def test_the_compiled_gradient_is_the_numpy_gradient_to_round_off(
    sigma: str, shape: tuple[tuple[int, ...], int, int, int, bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    lead, m, d, n, stack = shape
    sample = _sample(lead, d, n, stack, sigma)
    rng = np.random.default_rng(m)
    a, W = rng.standard_normal(lead + (m,)), rng.standard_normal(lead + (m, d))
    assert sample._compiled(lead, m) is not None
    compiled = sample.gradient(a, W)
    with monkeypatch.context() as patch:
        patch.setattr(route, "_fused", False)
        assert sample._compiled(lead, m) is None
        reference = sample.gradient(a, W)
    bound = 4 * (n + d + m) * EPS
    for got, want, scale in zip(compiled, reference, _scales(sample, a, W), strict=True):
        assert np.shape(got) == np.shape(want) and type(got) is type(want)
        assert np.all(np.abs(got - want) <= bound * scale)


def test_the_compiled_gradient_is_torch_autograd_of_the_loss() -> None:
    """An independent reference: ``L_n`` written in torch from its definition, differentiated by autograd
    (whose relu'(0) = 0 is this σ's), on a stack of two samples."""
    sample = _sample((2,), 6, 50, True, "relu")
    rng = np.random.default_rng(3)
    a, W = rng.standard_normal((2, 3)), rng.standard_normal((2, 3, 6))
    ga, gW, loss = sample.gradient(a, W)
    X, y = (torch.from_numpy(v) for v in sample.arrays())
    at, Wt = torch.tensor(a, requires_grad=True), torch.tensor(W, requires_grad=True)
    r = torch.einsum("bm,bnm->bn", at, torch.relu(X @ Wt.transpose(-1, -2))) - y
    total = (0.5 * (r * r).mean(dim=-1)).sum()
    total.backward()
    bound = 4 * (50 + 6 + 3) * EPS
    g_a, g_W, sq = _scales(sample, a, W)
    assert at.grad is not None and Wt.grad is not None
    assert np.all(np.abs(ga - at.grad.numpy()) <= bound * g_a)
    assert np.all(np.abs(gW - Wt.grad.numpy()) <= bound * g_W)
    assert np.all(np.abs(loss - 0.5 * (r * r).mean(dim=-1).detach().numpy()) <= bound * sq)


def test_a_nan_state_gives_a_nan_gradient() -> None:
    """relu(NaN) stays NaN, as numpy's maximum keeps it: the flow's finiteness check then sees the fault."""
    sample = _sample((), 4, 20, False, "relu")
    W = np.ones((2, 4))
    W[1, 2] = np.nan
    ga, gW, loss = sample.gradient(np.ones(2), W)
    assert np.isnan(loss) and np.isnan(ga).any() and np.isnan(gW).any()


def test_samples_the_pass_does_not_take_keep_the_numpy_sums() -> None:
    """Another activation, a streamed sample, a sample of several chunks and a stack read by a
    different number of members take the numpy sums (and say so: no compiled route)."""
    model = standard_model(4)
    X, y = draw_sample(model, 64, seed=0)
    assert EmpiricalSample.from_arrays(X, y, activation=activation("erf"))._compiled((), 2) is None
    assert EmpiricalSample.draw(model, 64, seed=0, store=False)._compiled((), 2) is None
    assert EmpiricalSample.from_arrays(X, y, chunk_bytes=8 * 16)._compiled((), 2) is None
    stack = EmpiricalSample.stack([(X, y), (X, y)])
    assert stack._compiled((3,), 2) is None and stack._compiled((2,), 2) is not None
    with pytest.raises(ValueError, match="do not fit"):
        empirical_fused.gradient_packed(np.ones((3, 10)), *stack._compiled((2,), 2))  # type: ignore[misc]


def test_a_stacked_finite_sample_flow_is_the_numpy_routes_flow(monkeypatch: pytest.MonkeyPatch) -> None:
    """The flow on ``L_n`` driven by the compiled pass (the objective's packed gradient) and by the numpy
    sums: the same trajectory to the solver's tolerance (the right-hand sides differ by round-off, so
    the accepted steps can differ; rtol 1e-9 → agreement well within 1e-6)."""
    model = standard_model(4)
    samples = [draw_sample(model, 40, seed=s) for s in range(3)]
    rng = np.random.default_rng(0)
    a0, W0 = 0.5 * rng.standard_normal((3, 2)), 0.5 * rng.standard_normal((3, 2, 4))
    options = FlowOptions(rtol=1e-9, atol=1e-12, grid_points=5)

    def run() -> Network:
        objective = stacked_empirical_objective(samples)
        track = gradient_flow(Network(a0, W0), model, 2.0, options=options, objective=objective)
        return Network(track.a[..., -1, :], track.W[..., -1, :, :])

    assert stacked_empirical_objective(samples).packed is not None
    fast = run()
    with monkeypatch.context() as patch:
        patch.setattr(route, "_fused", False)
        assert stacked_empirical_objective(samples).packed is None
        slow = run()
    np.testing.assert_allclose(fast.a, slow.a, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(fast.W, slow.W, rtol=1e-6, atol=1e-9)


def test_compile_loops_covers_the_types_the_runs_pass() -> None:
    """``compile_loops`` (a ``plot`` worker's warm-up) compiles the one signature that GD's gradient and
    the flows' packed gradient then call, so a worker beside the one that compiled only loads it."""
    empirical_fused.compile_loops()
    compiled = set(empirical_fused._gradient.signatures)
    batched = set(empirical_fused._batch_gradient.signatures)
    sample = _sample((3,), 4, 30, True, "relu")
    a, W = np.ones((3, 2)), np.ones((3, 2, 4))
    sample.gradient(a, W)
    sample.objective().packed(np.ones((3, 10)))  # type: ignore[misc]
    sample.batch_gradient(a, W, np.stack([np.random.default_rng(b).permutation(30)[:8] for b in range(3)]))
    assert set(empirical_fused._gradient.signatures) == compiled
    assert set(empirical_fused._batch_gradient.signatures) == batched


@pytest.mark.parametrize("sigma", list(ACTIVATIONS))
def test_a_minibatch_gradient_is_the_numpy_gradient_of_the_gathered_rows(
    sigma: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``batch_gradient`` (the compiled pass gathering each member's rows itself) against the numpy sums
    of a stack that holds those rows, repeated rows and a batch of the whole sample included: the
    same terms in another order, so within the module's ``4 (B + d + m) ε`` of each entry's scale."""
    S, m, d, n, B = 3, 2, 5, 23, 7
    sample = _sample((S,), d, n, True, sigma)
    rng = np.random.default_rng(11)
    a, W = rng.standard_normal((S, m)), rng.standard_normal((S, m, d))
    X, y = sample.arrays()
    members = np.arange(S)[:, None]
    for rows in (rng.integers(0, n, (S, B)), np.stack([rng.permutation(n) for _ in range(S)])):
        assert sample._compiled((S,), m) is not None
        got = sample.batch_gradient(a, W, rows)
        held = EmpiricalSample.stack(
            list(zip(X[members, rows], y[members, rows], strict=True)), activation=ACTIVATIONS[sigma]
        )
        with monkeypatch.context() as patch:
            patch.setattr(route, "_fused", False)
            want = held.gradient(a, W)
            assert sample.batch_gradient(a, W, rows)[0].shape == (S, m)  # the numpy route's own gather
        bound = 4 * (rows.shape[1] + d + m) * EPS
        for g, w, scale in zip(got, want, _scales(held, a, W), strict=True):
            assert np.shape(g) == np.shape(w)
            assert np.all(np.abs(g - w) <= bound * scale)


def test_the_minibatch_pass_refuses_rows_of_another_stack() -> None:
    with pytest.raises(ValueError, match="do not fit"):
        empirical_fused.batch_gradient_packed(
            np.ones((2, 6)), np.ones((3, 4, 2)), np.ones((3, 4)), np.zeros((2, 1), dtype=np.int64), (1.0, 0.0)
        )
