"""σ = z² networks' L_n through the sample's fourth moments (gaugecli.core.samples.moments) against the
direct sum over the sample (EmpiricalSample) and against finite differences of L_n."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from gaugecli.core.samples.moments import QuadraticMoments, moments_apply
from gaugecli.core.samples.sample import empirical_oracle
from gaugecli.core.samples.sample_draw import draw_sample
from gaugecli.experiments.config import ModelConfig

EPS = np.finfo(float).eps


def _square(d: int = 8, k: int = 1):
    return replace(ModelConfig(d=d, k=k), activation="square").build()


@pytest.mark.parametrize("k", [1, 2])
def test_moment_form_equals_the_sum_over_the_sample(k: int) -> None:
    net = _square(k=k)
    X, y = draw_sample(net, 3000, 7)
    rng = np.random.default_rng(1)
    a, W = rng.normal(size=4), 0.4 * rng.normal(size=(4, net.d))
    direct = empirical_oracle(X, y, activation=net.activation)(a, W)
    # the independent sum: r_i = f(x_i) − y_i, L_n = mean(r²)/2
    r = ((X @ W.T) ** 2) @ a - y
    moments = QuadraticMoments(X, net).gradient(a, W)
    scale = float(np.mean(X**4)) * (np.sum(np.abs(a)) * np.max(np.sum(W**2, axis=1)) + 1.0)
    for got, want in zip(moments, direct, strict=True):
        # both are sums of O(n d²) products of size ≤ scale: agreement to k·ε·scale
        assert np.max(np.abs(got - want)) <= 1e3 * EPS * scale * max(1.0, float(np.max(np.abs(want))))
    assert moments[2] == pytest.approx(0.5 * np.mean(r**2), rel=1e-12)


def test_gradient_is_the_derivative_of_the_loss() -> None:
    net = _square()
    X, _ = draw_sample(net, 2000, 3)
    q = QuadraticMoments(X, net)
    rng = np.random.default_rng(2)
    a, W = rng.normal(size=3), 0.5 * rng.normal(size=(3, net.d))
    ga, gW, _ = q.gradient(a, W)
    h = 1e-6
    for j in range(3):
        e = np.zeros(3)
        e[j] = h
        fd = (q.gradient(a + e, W)[2] - q.gradient(a - e, W)[2]) / (2 * h)
        assert ga[j] == pytest.approx(fd, rel=1e-7, abs=1e-9)
    E = np.zeros_like(W)
    E[1, 2] = h
    fd = (q.gradient(a, W + E)[2] - q.gradient(a, W - E)[2]) / (2 * h)
    assert gW[1, 2] == pytest.approx(fd, rel=1e-7, abs=1e-9)


def test_ensemble_axes_are_members() -> None:
    net = _square()
    X, _ = draw_sample(net, 500, 0)
    q = QuadraticMoments(X, net)
    rng = np.random.default_rng(3)
    a, W = rng.normal(size=(2, 3)), rng.normal(size=(2, 3, net.d))
    ga, gW, loss = q.gradient(a, W)
    for b in range(2):
        one = q.gradient(a[b], W[b])
        np.testing.assert_allclose(ga[b], one[0], rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(gW[b], one[1], rtol=1e-13, atol=1e-13)
        assert loss[b] == pytest.approx(one[2], rel=1e-13)


def test_only_for_square_student_and_teacher() -> None:
    assert moments_apply(_square())
    assert not moments_apply(ModelConfig(d=8).build())
    assert not moments_apply(_square(d=64))  # M would hold 64⁴ numbers
    with pytest.raises(ValueError, match="σ = z²"):
        QuadraticMoments(np.zeros((4, 8)), ModelConfig(d=8).build())
