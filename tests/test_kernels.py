"""Arc-cosine kernel and its closed-form derivatives against independent references.

References used here never go through ``gaugecli.core.kernels.arccos``: Monte Carlo over
``x ~ N(0, I)`` (with standard errors from the sample), central finite differences,
torch autograd of the plain ``arccos`` formula, and high-precision mpmath.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from gaugecli.core.kernels.arccos import (
    angular_profile,
    arccos_kernel,
    arccos_kernel_and_grad_sum,
    arccos_kernel_grad,
    arccos_kernel_hessians,
)

D = 4
N_MC = 1_000_000
CHUNK = 200_000


def _pair(phi: float, r1: float, r2: float, d: int = D) -> tuple[np.ndarray, np.ndarray]:
    """w = r1 e1 and w' = r2 (cos φ e1 + sin φ e2); φ = 0 and φ = π are built exactly."""
    e1, e2 = np.eye(d)[0], np.eye(d)[1]
    w = r1 * e1
    if phi == 0.0:
        wp = r2 * e1
    elif phi == np.pi:
        wp = -r2 * e1
    else:
        wp = r2 * (np.cos(phi) * e1 + np.sin(phi) * e2)
    return w, wp


# Exactly 0, exactly π, generic angles, non-unit norms.
PAIRS = [
    _pair(0.0, 0.7, 2.3),
    _pair(0.0, 1.0, 1.0),
    _pair(np.pi / 6, 1.5, 0.4),
    _pair(np.pi / 2, 2.0, 0.5),
    _pair(2 * np.pi / 3, 0.8, 1.7),
    _pair(np.pi, 1.3, 0.6),
    _pair(np.pi, 1.0, 1.0),
]
PHIS = [0.0, 0.0, np.pi / 6, np.pi / 2, 2 * np.pi / 3, np.pi, np.pi]


def _mc_moments(stat, n: int = N_MC, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Sample mean and standard error of ``stat(X)`` (first axis = samples), in chunks."""
    rng = np.random.default_rng(seed)
    s1 = s2 = 0.0
    done = 0
    while done < n:
        k = min(CHUNK, n - done)
        vals = stat(rng.standard_normal((k, D)))
        s1 = s1 + vals.sum(axis=0)
        s2 = s2 + (vals**2).sum(axis=0)
        done += k
    mean = s1 / n
    var = np.maximum(s2 / n - mean**2, 0.0)
    return mean, np.sqrt(var / n)


def _assert_within_se(value, mean, se, k: float = 4.0, atol: float = 1e-12) -> None:
    value, mean, se = np.broadcast_arrays(value, mean, se)
    bad = np.abs(value - mean) > k * se + atol
    assert not np.any(bad), (value[bad], mean[bad], se[bad])


def _relu(z: np.ndarray) -> np.ndarray:
    return np.maximum(z, 0.0)


# ------------------------------------------------------------------------------------
# the kernel itself


def test_kernel_matches_monte_carlo_including_zero_and_pi() -> None:
    W1 = np.array([p[0] for p in PAIRS])
    W2 = np.array([p[1] for p in PAIRS])
    mean, se = _mc_moments(lambda X: _relu(X @ W1.T) * _relu(X @ W2.T))
    kappa = np.array([arccos_kernel(w[None], wp[None])[0, 0] for w, wp in PAIRS])
    _assert_within_se(kappa, mean, se)
    # the Monte Carlo is informative: standard errors are small relative to the values
    nonzero = kappa > 1e-3
    assert np.all(se[nonzero] < 5e-3 * kappa[nonzero])
    # φ = π: relu(w·x) relu(−λ w·x) vanishes identically
    assert np.all(
        mean[5:] == 0.0
    )  # exact by construction: one factor is relu of a non-positive number, exactly 0, in every sample
    np.testing.assert_allclose(kappa[5:], 0.0, atol=1e-15)


@pytest.mark.parametrize(("pair", "phi"), list(zip(PAIRS, PHIS, strict=True)))
def test_kernel_matches_textbook_formula(pair, phi) -> None:
    w, wp = pair
    n1, n2 = np.linalg.norm(w), np.linalg.norm(wp)
    expected = n1 * n2 * (np.sin(phi) + (np.pi - phi) * np.cos(phi)) / (2 * np.pi)
    got = arccos_kernel(w[None], wp[None])[0, 0]
    assert got == pytest.approx(expected, rel=1e-13, abs=1e-15)
    assert angular_profile(np.array(phi)) * n1 * n2 == pytest.approx(expected, rel=1e-13, abs=1e-15)


def test_kernel_special_values() -> None:
    rng = np.random.default_rng(3)
    W = rng.standard_normal((5, 6))
    K = arccos_kernel(W, W)
    # κ(w, w) = ‖w‖²/2, symmetric, positive semi-definite (a Gram matrix)
    np.testing.assert_allclose(np.diag(K), 0.5 * np.sum(W**2, axis=1), rtol=1e-14)
    np.testing.assert_allclose(K, K.T, rtol=1e-14)
    assert np.linalg.eigvalsh(K).min() > -1e-12
    # orthogonal vectors: κ = ‖w‖‖w'‖ / (2π)
    assert arccos_kernel(np.array([[2.0, 0.0]]), np.array([[0.0, 3.0]]))[0, 0] == pytest.approx(6.0 / (2 * np.pi))
    # positive homogeneity of degree one in each argument
    np.testing.assert_allclose(arccos_kernel(3.0 * W, 0.5 * W), 1.5 * K, rtol=1e-13)


def _mp_kernel_and_grad(w: np.ndarray, wp: np.ndarray):
    import mpmath as mp

    mp.mp.dps = 50
    wv = [mp.mpf(float(x)) for x in w]
    wpv = [mp.mpf(float(x)) for x in wp]
    n1 = mp.sqrt(mp.fsum(x * x for x in wv))
    n2 = mp.sqrt(mp.fsum(x * x for x in wpv))
    dot = mp.fsum(x * y for x, y in zip(wv, wpv, strict=True))
    # |w ∧ w'| through the Lagrange identity, in high precision
    cross = mp.sqrt(max(n1**2 * n2**2 - dot**2, mp.mpf(0)))
    phi = mp.atan2(cross, dot)
    kappa = n1 * n2 * (mp.sin(phi) + (mp.pi - phi) * mp.cos(phi)) / (2 * mp.pi)
    grad = [((mp.pi - phi) * y + mp.sin(phi) * n2 * x / n1) / (2 * mp.pi) for x, y in zip(wv, wpv, strict=True)]
    return float(kappa), np.array([float(g) for g in grad])


@pytest.mark.parametrize("phi", [1e-12, 1e-7, 0.3, 2.0, np.pi - 1e-3, np.pi - 1e-7])
def test_kernel_and_grad_vs_high_precision_near_singular_set(phi: float) -> None:
    rng = np.random.default_rng(11)
    Q, _ = np.linalg.qr(rng.standard_normal((D, D)))  # random rotation: no axis-aligned luck
    w0, wp0 = _pair(phi, 1.3, 0.7)
    w, wp = Q @ w0, Q @ wp0
    kappa_ref, grad_ref = _mp_kernel_and_grad(w, wp)
    scale = np.linalg.norm(w) * np.linalg.norm(wp)
    assert arccos_kernel(w[None], wp[None])[0, 0] == pytest.approx(kappa_ref, rel=1e-12, abs=1e-15 * scale)
    np.testing.assert_allclose(arccos_kernel_grad(w[None], wp[None])[0, 0], grad_ref, rtol=1e-10, atol=1e-14)


# ------------------------------------------------------------------------------------
# gradient


def _numeric_grad(fun, w: np.ndarray, h: float = 1e-6) -> np.ndarray:
    out = np.empty_like(w)
    for i in range(w.size):
        e = np.zeros_like(w)
        e[i] = h
        out[i] = (fun(w + e) - fun(w - e)) / (2 * h)
    return out


def test_grad_vs_central_finite_differences_random_pairs() -> None:
    rng = np.random.default_rng(5)
    for _ in range(20):
        w, wp = rng.standard_normal(D) * rng.uniform(0.3, 3), rng.standard_normal(D) * rng.uniform(0.3, 3)
        fd = _numeric_grad(lambda z, wp=wp: arccos_kernel(z[None], wp[None])[0, 0], w)
        got = arccos_kernel_grad(w[None], wp[None])[0, 0]
        np.testing.assert_allclose(got, fd, rtol=1e-7, atol=1e-9)


def test_grad_matches_monte_carlo() -> None:
    """∂κ/∂w = E[1(w·x > 0) relu(w'·x) x], including φ = 0 and φ = π."""
    W1 = np.array([p[0] for p in PAIRS])
    W2 = np.array([p[1] for p in PAIRS])

    def stat(X):
        ind = (X @ W1.T > 0).astype(float)  # (n, P)
        r = _relu(X @ W2.T)
        return (ind * r)[:, :, None] * X[:, None, :]  # (n, P, d)

    mean, se = _mc_moments(stat, seed=1)
    got = np.array([arccos_kernel_grad(w[None], wp[None])[0, 0] for w, wp in PAIRS])
    _assert_within_se(got, mean, se)


def _torch_kappa(w: torch.Tensor, wp: torch.Tensor) -> torch.Tensor:
    """The plain formula with φ = arccos(ŵ·ŵ'): what naive autograd differentiates."""
    n1, n2 = torch.linalg.norm(w), torch.linalg.norm(wp)
    cos = (w @ wp) / (n1 * n2)
    phi = torch.arccos(cos)
    return n1 * n2 * (torch.sin(phi) + (math.pi - phi) * cos) / (2 * math.pi)


def _torch_grad(w: np.ndarray, wp: np.ndarray) -> np.ndarray:
    wt = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    k = _torch_kappa(wt, torch.tensor(wp, dtype=torch.float64))
    (g,) = torch.autograd.grad(k, wt)
    return g.numpy()


def test_grad_matches_torch_autograd_away_from_singular_set() -> None:
    rng = np.random.default_rng(7)
    checked = 0
    while checked < 25:
        w, wp = rng.standard_normal(D) * rng.uniform(0.3, 3), rng.standard_normal(D) * rng.uniform(0.3, 3)
        cos = w @ wp / np.linalg.norm(w) / np.linalg.norm(wp)
        if abs(cos) > 0.999:
            continue
        np.testing.assert_allclose(arccos_kernel_grad(w[None], wp[None])[0, 0], _torch_grad(w, wp), rtol=1e-11)
        checked += 1


@pytest.mark.parametrize(("s1", "s2"), [(0.1, 0.05), (1.0, 1.0), (0.02, 3.0), (2.0, -0.5), (1.0, -1.0)])
def test_autograd_through_arccos_is_nan_where_closed_form_is_finite(s1: float, s2: float) -> None:
    """Duplicates (φ = 0, the paper's initial condition) and antipodes (φ = π)."""
    w, wp = s1 * np.eye(D)[1], s2 * np.eye(D)[1]
    assert np.all(np.isnan(_torch_grad(w, wp)))
    got = arccos_kernel_grad(w[None], wp[None])[0, 0]
    assert np.all(np.isfinite(got))
    if s2 > 0:  # φ = 0: ∂κ/∂w = w'/2
        np.testing.assert_allclose(got, wp / 2, rtol=1e-15, atol=1e-17)
    else:  # φ = π: ∂κ/∂w = 0
        np.testing.assert_allclose(got, 0.0, atol=1e-15)
    # and it is the true derivative: one-sided limits of finite differences agree
    fd = _numeric_grad(lambda z: arccos_kernel(z[None], wp[None])[0, 0], w, h=1e-7)
    np.testing.assert_allclose(got, fd, atol=1e-6)


def test_grad_at_phi_zero_and_pi_random_directions() -> None:
    rng = np.random.default_rng(8)
    for _ in range(10):
        w = rng.standard_normal(D)
        lam = rng.uniform(0.1, 5.0)
        np.testing.assert_allclose(arccos_kernel_grad(w[None], lam * w[None])[0, 0], lam * w / 2, rtol=1e-12)
        np.testing.assert_allclose(arccos_kernel_grad(w[None], -lam * w[None])[0, 0], 0.0, atol=1e-14 * lam)
        # a neuron with itself: ∂κ/∂w (w, w) = w/2, half of d/dw κ(w, w) = w
        np.testing.assert_allclose(arccos_kernel_grad(w[None], w[None])[0, 0], w / 2, rtol=1e-12)


# ------------------------------------------------------------------------------------
# Hessians


def _hessian_pairs() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(9)
    pairs = [
        (rng.standard_normal(D) * rng.uniform(0.5, 2), rng.standard_normal(D) * rng.uniform(0.5, 2)) for _ in range(8)
    ]
    pairs += [_pair(np.pi / 3, 0.9, 1.4), _pair(2.5, 1.1, 0.6)]
    return pairs


@pytest.mark.parametrize("pair", _hessian_pairs())
def test_hessians_vs_finite_differences_of_gradient(pair) -> None:
    w, wp = pair
    h11, h12 = arccos_kernel_hessians(w[None], wp[None])
    h = 1e-5

    def grad_w(z):
        return arccos_kernel_grad(z[None], wp[None])[0, 0]

    def grad_wp(z):
        return arccos_kernel_grad(w[None], z[None])[0, 0]

    fd11 = np.empty((D, D))
    fd12 = np.empty((D, D))
    for y in range(D):
        e = np.zeros(D)
        e[y] = h
        fd11[:, y] = (grad_w(w + e) - grad_w(w - e)) / (2 * h)
        fd12[:, y] = (grad_wp(wp + e) - grad_wp(wp - e)) / (2 * h)
    np.testing.assert_allclose(h11[0, 0], fd11, atol=1e-8)
    np.testing.assert_allclose(h12[0, 0], fd12, atol=1e-8)
    # ∂²κ/∂w² is symmetric; ∂²κ/∂w∂w' is the transpose of ∂²κ/∂w'∂w
    np.testing.assert_allclose(h11[0, 0], h11[0, 0].T, atol=1e-14)
    _, h21 = arccos_kernel_hessians(wp[None], w[None])
    np.testing.assert_allclose(h12[0, 0], h21[0, 0].T, atol=1e-14)


def test_hessians_at_phi_zero_and_pi() -> None:
    for w, wp in [_pair(0.0, 0.7, 2.3), _pair(np.pi, 1.3, 0.6)]:
        h11, h12 = arccos_kernel_hessians(w[None], wp[None])
        assert np.all(np.isfinite(h11)) and np.all(np.isfinite(h12))
        np.testing.assert_allclose(h11[0, 0], 0.0, atol=1e-14)
        expected12 = np.eye(D) / 2 if wp @ w > 0 else np.zeros((D, D))
        np.testing.assert_allclose(h12[0, 0], expected12, atol=1e-14)


def test_h12_is_the_monte_carlo_moment() -> None:
    """∂²κ/∂w∂w' = E[1(w·x > 0) 1(w'·x > 0) x xᵀ], including φ = 0 and φ = π."""
    W1 = np.array([p[0] for p in PAIRS])
    W2 = np.array([p[1] for p in PAIRS])

    def stat(X):
        both = ((X @ W1.T > 0) & (X @ W2.T > 0)).astype(float)  # (n, P)
        return both[:, :, None, None] * (X[:, None, :, None] * X[:, None, None, :])

    mean, se = _mc_moments(stat, seed=2)
    got = np.array([arccos_kernel_hessians(w[None], wp[None])[1][0, 0] for w, wp in PAIRS])
    _assert_within_se(got, mean, se)


def test_h11_kills_w_and_matches_directional_derivative() -> None:
    """∂κ/∂w is homogeneous of degree 0 in w, so ∂²κ/∂w² · w = 0; along w' the Hessian
    is the directional derivative of the gradient."""
    rng = np.random.default_rng(12)
    for _ in range(5):
        w, wp = rng.standard_normal(D), rng.standard_normal(D)
        h11, _ = arccos_kernel_hessians(w[None], wp[None])
        np.testing.assert_allclose(h11[0, 0] @ w, 0.0, atol=1e-13)
        eps = 1e-6
        dir_fd = (
            arccos_kernel_grad((w + eps * wp)[None], wp[None]) - arccos_kernel_grad((w - eps * wp)[None], wp[None])
        )[0, 0] / (2 * eps)
        np.testing.assert_allclose(h11[0, 0] @ wp, dir_fd, atol=1e-8)


# ------------------------------------------------------------------------------------
# shapes and batching


def test_pairwise_shapes_and_entries() -> None:
    rng = np.random.default_rng(13)
    W1, W2 = rng.standard_normal((3, D)), rng.standard_normal((5, D))
    K = arccos_kernel(W1, W2)
    G = arccos_kernel_grad(W1, W2)
    H11, H12 = arccos_kernel_hessians(W1, W2)
    assert K.shape == (3, 5) and G.shape == (3, 5, D) and H11.shape == H12.shape == (3, 5, D, D)
    for i in range(3):
        for j in range(5):
            assert K[i, j] == pytest.approx(arccos_kernel(W1[i : i + 1], W2[j : j + 1])[0, 0], rel=1e-14)
            np.testing.assert_allclose(G[i, j], arccos_kernel_grad(W1[i : i + 1], W2[j : j + 1])[0, 0], rtol=1e-13)
    np.testing.assert_allclose(K, arccos_kernel(W2, W1).T, rtol=1e-14)


def test_batching_over_leading_axes_equals_per_item_calls() -> None:
    rng = np.random.default_rng(14)
    W1 = rng.standard_normal((2, 3, 4, D))
    W2 = rng.standard_normal((2, 3, 2, D))
    W1[0, 1, 2] = 0.4 * W2[0, 1, 0]  # a duplicate pair inside the batch
    W1[1, 2, 0] = -2.0 * W2[1, 2, 1]  # and an antipodal one
    K = arccos_kernel(W1, W2)
    G = arccos_kernel_grad(W1, W2)
    H11, H12 = arccos_kernel_hessians(W1, W2)
    assert K.shape == (2, 3, 4, 2)
    assert G.shape == (2, 3, 4, 2, D)
    assert H11.shape == H12.shape == (2, 3, 4, 2, D, D)
    for b in np.ndindex(2, 3):
        np.testing.assert_allclose(K[b], arccos_kernel(W1[b], W2[b]), rtol=1e-15, atol=1e-16)
        np.testing.assert_allclose(G[b], arccos_kernel_grad(W1[b], W2[b]), rtol=1e-15, atol=1e-16)
        h11, h12 = arccos_kernel_hessians(W1[b], W2[b])
        np.testing.assert_allclose(H11[b], h11, rtol=1e-15, atol=1e-16)
        np.testing.assert_allclose(H12[b], h12, rtol=1e-15, atol=1e-16)
    # broadcasting a shared second argument against a batched first one
    V = rng.standard_normal((1, D))
    np.testing.assert_allclose(arccos_kernel(W1, V)[1, 2], arccos_kernel(W1[1, 2], V), rtol=1e-15)


def test_weighted_gradient_sum_is_the_contraction_of_the_pair_gradients() -> None:
    """``Σ_j c_j ∂κ(w_i, w'_j)/∂w_i`` formed from pair quantities equals the contraction of
    :func:`arccos_kernel_grad`'s ``(..., p, q, d)`` array — with duplicates (φ = 0) and antipodes
    (φ = π) among the pairs and a batch axis — to a few ulps of the terms' scale (the sums run
    in another order)."""
    rng = np.random.default_rng(12)
    W = rng.standard_normal((3, 5, D))
    W[:, 1] = 2.5 * W[:, 0]  # a duplicate direction
    W[:, 2] = -0.7 * W[:, 0]  # an antipode
    c = rng.standard_normal((3, 5))
    V, b = rng.standard_normal((2, D)), np.array([1.0, -0.4])
    for W2, weights in ((W, c), (V, b)):
        K, summed = arccos_kernel_and_grad_sum(W, W2, weights)
        reference = np.einsum("...pqd,...q->...pd", arccos_kernel_grad(W, W2), weights)
        scale = np.einsum("...pqd,...q->...pd", np.abs(arccos_kernel_grad(W, W2)), np.abs(weights))
        assert np.all(np.abs(summed - reference) <= 16 * np.finfo(float).eps * scale)
        np.testing.assert_array_equal(K, arccos_kernel(W, W2))


def test_every_activation_gives_the_weighted_gradient_sum() -> None:
    """The activations without a closed-form contraction fall back to the pair gradients; ReLU's
    own form agrees with that fallback."""
    from gaugecli.core.activations import REGISTRY, activation
    from gaugecli.core.activations.base import kernel_and_grad_sum

    rng = np.random.default_rng(13)
    W, c = rng.standard_normal((2, 3, D)), rng.standard_normal((2, 3))
    for name in REGISTRY:
        act = activation(name)
        K, summed = act.kernel_and_grad_sum(W, W, c)
        K_ref, ref = kernel_and_grad_sum(act, W, W, c)
        np.testing.assert_allclose(summed, ref, rtol=1e-13, atol=1e-15, err_msg=name)
        np.testing.assert_allclose(K, K_ref, rtol=1e-15, atol=0.0, err_msg=name)
