"""The activation registry: every kernel against Monte Carlo, every derivative against finite
differences, finiteness at duplicate and antipodal neurons, and agreement with the ReLU and σ = z²
code already in the core. Parametrised over :data:`ACTIVATIONS`, so a new activation is tested
as soon as it is registered."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from gaugecli.core.activations import ACTIVATIONS, Activation, LeakyReLU, activation
from gaugecli.core.kernels import arccos as kernels

D = 5
N_MC = 1_000_000  # the issue asks ≥ 10⁶ samples per Monte Carlo check
MC_SIGMAS = 4.0

# Parameter sets beyond the defaults; every registered name is tested at least with its defaults.
VARIANTS: dict[str, list[dict[str, Any]]] = {"leaky-relu": [{"negative_slope": 0.01}, {"negative_slope": 0.3}]}


def _cases() -> list[Any]:
    cases = []
    for name in ACTIVATIONS:
        for params in VARIANTS.get(name, [{}]):
            label = name + "".join(f"-{v}" for v in params.values())
            cases.append(pytest.param(activation(name, **params), id=label))
    return cases


CASES = _cases()

W = np.array([0.8, -0.5, 0.3, 0.6, -0.2])  # ‖w‖ ≈ 1.17


def _rotated(w: np.ndarray, angle: float, norm: float) -> np.ndarray:
    """A vector of ``norm`` at ``angle`` from ``w`` (rotated towards a fixed orthogonal direction)."""
    u = w / np.linalg.norm(w)
    e = np.array([0.3, 0.9, -0.1, 0.2, 0.5])
    e = e - (e @ u) * u
    e /= np.linalg.norm(e)
    return norm * (np.cos(angle) * u + np.sin(angle) * e)


PAIRS = {
    "phi0": 2.0 * W,  # duplicate direction, different norm
    "small": _rotated(W, 1e-2, 1.5),
    "half_pi": _rotated(W, np.pi / 2, 1.2),
    "pi": -W,  # antipodal
    "generic": np.array([-0.4, 0.9, 0.7, -0.1, 0.5]),
}


@pytest.fixture(scope="module")
def gaussian_sample() -> np.ndarray:
    return np.random.default_rng(20240611).standard_normal((N_MC, D))


# ----------------------------------------------------------------------------------------
# (1) kernel against Monte Carlo


@pytest.mark.parametrize("pair", list(PAIRS))
@pytest.mark.parametrize("act", CASES)
def test_kernel_matches_monte_carlo(act: Activation, pair: str, gaussian_sample: np.ndarray) -> None:
    w2 = PAIRS[pair]
    products = act.sigma(gaussian_sample @ W) * act.sigma(gaussian_sample @ w2)
    estimate = products.mean()
    # Basis: the standard error of the estimate, from the samples themselves (sample std / √n);
    # the closed form must lie within 4 of them (the bound; a false alarm ~6e-5 per case, decided once at a fixed seed).
    stderr = products.std(ddof=1) / np.sqrt(N_MC)
    K = act.kernel(W[None], w2[None])[0, 0]
    scale = (np.linalg.norm(W) * np.linalg.norm(w2)) ** 2
    if np.max(np.abs(products)) <= 1e-14 * scale:
        # every product vanishes (relu-type σ at φ = π: σ(u) σ(−u) = 0), so the samples carry no
        # spread to compare with; tested by size rather than by `stderr == 0`, which another BLAS
        # kernel summing w·x in another order need not reproduce: the closed form must be 0 to round-off
        assert abs(K) <= 1e-14 * scale
    else:
        assert abs(K - estimate) <= MC_SIGMAS * stderr, f"z = {(K - estimate) / stderr:.2f}"


@pytest.mark.parametrize("act", CASES)
def test_gradient_and_cross_hessian_match_monte_carlo(act: Activation, gaussian_sample: np.ndarray) -> None:
    """Differentiating under the expectation: ∂K/∂w = E[σ'(w·x) σ(w'·x) x] and
    ∂²K/∂w∂w' = E[σ'(w·x) σ'(w'·x) x xᵀ] (σ' a.e. suffices: a kink is a null set), at every pair,
    each entry within 4 of its own standard errors (10⁶ samples)."""
    X = gaussian_sample
    X2 = X**2
    for pair, w2 in PAIRS.items():
        d1, s2, d2 = act.derivative(X @ W), act.sigma(X @ w2), act.derivative(X @ w2)
        grad_samples = (d1 * s2)[:, None] * X
        G = act.kernel_grad(W[None], w2[None])[0, 0]
        err = grad_samples.std(axis=0, ddof=1) / np.sqrt(N_MC)
        assert np.all(np.abs(G - grad_samples.mean(axis=0)) <= MC_SIGMAS * err + 1e-12), pair
        weights = d1 * d2
        # the sums over samples as matrix products (BLAS; einsum's loop over 10⁶ × 5 × 5 took half
        # the test's time): the same sums in another order, round-off ≪ the standard errors
        h12_mean = (X * weights[:, None]).T @ X / N_MC
        h12_sq = (X2 * (weights**2)[:, None]).T @ X2 / N_MC
        h12_err = np.sqrt(np.maximum(h12_sq - h12_mean**2, 0.0) / (N_MC - 1))
        _, H12 = act.kernel_hessians(W[None], w2[None])
        assert np.all(np.abs(H12[0, 0] - h12_mean) <= MC_SIGMAS * h12_err + 1e-12), pair


@pytest.mark.parametrize("act", CASES)
def test_torch_derivatives_equal_numpy_and_curvature_is_the_derivative_of_the_slope(act: Activation) -> None:
    z = np.linspace(-3.0, 3.0, 601)
    z = z[np.abs(z) > 1e-3]  # off the kink
    zt = torch.from_numpy(z)
    np.testing.assert_allclose(act.derivative_torch(zt).numpy(), act.derivative(z), rtol=1e-14, atol=1e-15)
    curvature = act.curvature_torch(zt)
    h = 1e-5
    fd = (act.derivative(z + h) - act.derivative(z - h)) / (2 * h)
    if curvature is None:  # piecewise linear: σ'' vanishes off the kink
        np.testing.assert_allclose(fd, 0.0, atol=1e-9)
    else:
        np.testing.assert_allclose(curvature.numpy(), fd, rtol=1e-7, atol=1e-8)


# ----------------------------------------------------------------------------------------
# (2), (3) derivatives against central differences

# W1 rows: w and a generic vector; W2 columns: every PAIRS partner, so row 0 meets φ = 0, a small
# angle, π/2 and φ = π exactly, row 1 generic angles.
W1_FD = np.stack([W, np.array([0.2, 0.7, -0.9, 0.4, 0.1])])
W2_FD = np.stack(list(PAIRS.values()))
H_REL = 1e-6
# Central differences with h = 1e-6·‖w‖: truncation h²·f‴/6 ~ 1e-13 and round-off ~ eps·|f|/h ~ 1e-10
# relative (measured: ≤ 2.3e-10, normwise, relative to the largest entry of the analytic array), so
# 1e-8 leaves a 40× margin while still catching any wrong term. For ReLU-type kernels the Hessian is
# only Lipschitz at φ = 0 and π (κ has a |φ|³ term there), so central differences of the gradient carry
# an O(h) ~ 1e-6 truncation error at those pairs instead (measured ≤ 6.1e-7): they get 1e-5.
FD_TOL = 1e-8
FD_TOL_KINK = 1e-5


def _steps(X: np.ndarray) -> np.ndarray:
    return H_REL * np.linalg.norm(X, axis=-1)


def _fd_wrt(f: Any, X: np.ndarray) -> np.ndarray:
    """Central differences of ``f(X)`` (axes ``(p, q, ...)``) in each row of ``X``, coordinate by
    coordinate: row ``i`` of ``X`` only affects row ``i`` of the output, so one shift per coordinate
    moves every row at once. Returns ``(p, q, ..., d)``."""
    h = _steps(X)
    cols = []
    for k in range(X.shape[-1]):
        shift = np.zeros_like(X)
        shift[:, k] = h
        diff = f(X + shift) - f(X - shift)
        cols.append(diff / (2.0 * h.reshape((-1,) + (1,) * (diff.ndim - 1))))
    return np.stack(cols, axis=-1)


def _normwise(fd: np.ndarray, exact: np.ndarray, scale: float | None = None) -> np.ndarray:
    """``max |fd − exact|`` per pair relative to ``scale`` (default: the largest entry of ``exact``)."""
    err = np.abs(fd - exact).reshape(exact.shape[0], exact.shape[1], -1).max(axis=-1)
    return err / (np.abs(exact).max() if scale is None else scale)


@pytest.mark.parametrize("act", CASES)
def test_kernel_grad_matches_finite_differences(act: Activation) -> None:
    exact = act.kernel_grad(W1_FD, W2_FD)
    fd = _fd_wrt(lambda X: act.kernel(X, W2_FD), W1_FD)
    assert _normwise(fd, exact).max() <= FD_TOL


def _hessian_tolerance(act: Activation) -> np.ndarray:
    tol = np.full((W1_FD.shape[0], W2_FD.shape[0]), FD_TOL)
    if act.name in {"relu", "leaky-relu"}:
        kinks = [list(PAIRS).index("phi0"), list(PAIRS).index("pi")]
        tol[0, kinks] = FD_TOL_KINK
    return tol


@pytest.mark.parametrize("act", CASES)
def test_kernel_hessian_blocks_match_finite_differences(act: Activation) -> None:
    h11, h12 = act.kernel_hessians(W1_FD, W2_FD)
    fd11 = _fd_wrt(lambda X: act.kernel_grad(X, W2_FD), W1_FD)
    # ∂/∂w'_b of ∂K(w_i, w'_j)/∂w_a: shift the rows of W2, so the pair axes come out as (q, p)
    fd12 = np.swapaxes(_fd_wrt(lambda X: np.swapaxes(act.kernel_grad(W1_FD, X), 0, 1), W2_FD), 0, 1)
    tol = _hessian_tolerance(act)
    # both blocks are parts of one Hessian, so share its scale (∂²K/∂w² is 0 for the linear σ)
    scale = max(np.abs(h11).max(), np.abs(h12).max())
    assert np.all(_normwise(fd11, h11, scale) <= tol)
    assert np.all(_normwise(fd12, h12, scale) <= tol)
    # ∂²K/∂w² is a second derivative in one vector, hence symmetric
    np.testing.assert_allclose(h11, np.swapaxes(h11, -1, -2), rtol=0, atol=1e-13 * np.abs(h11).max())


# ----------------------------------------------------------------------------------------
# (4) finite at φ = 0 and φ = π exactly; shapes and broadcasting


@pytest.mark.parametrize("act", CASES)
def test_outputs_are_finite_at_duplicates_and_antipodes(act: Activation) -> None:
    W1 = np.stack([W, W, 3.0 * W])
    W2 = np.stack([W, -W, 0.5 * W, -2.0 * W])  # exact duplicates, antipodes, parallel and antiparallel
    for A, B in [(W1, W2), (W1, W1)]:
        K = act.kernel(A, B)
        g = act.kernel_grad(A, B)
        h11, h12 = act.kernel_hessians(A, B)
        for out in (K, g, h11, h12):
            assert np.all(np.isfinite(out))


@pytest.mark.parametrize("act", CASES)
def test_shapes_broadcast_like_core_kernels(act: Activation) -> None:
    rng = np.random.default_rng(3)
    W1, W2 = rng.standard_normal((2, 3, D)), rng.standard_normal((1, 4, D))
    K, g = act.kernel(W1, W2), act.kernel_grad(W1, W2)
    h11, h12 = act.kernel_hessians(W1, W2)
    assert K.shape == (2, 3, 4) and g.shape == (2, 3, 4, D)
    assert h11.shape == h12.shape == (2, 3, 4, D, D)
    for b in range(2):  # a batch is the same as one call per member
        np.testing.assert_allclose(K[b], act.kernel(W1[b], W2[0]), rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(h12[b], act.kernel_hessians(W1[b], W2[0])[1], rtol=1e-14, atol=1e-15)
    # K(w, w') = K(w', w)
    np.testing.assert_allclose(act.kernel(W2[0], W1[0]), act.kernel(W1[0], W2[0]).T, rtol=1e-13, atol=1e-15)


# ----------------------------------------------------------------------------------------
# (5), (6) σ, σ' and the degree

Z = np.linspace(-3.0, 3.0, 60)  # an even count: no point at the kink z = 0


@pytest.mark.parametrize("act", CASES)
def test_derivative_matches_finite_differences_of_sigma(act: Activation) -> None:
    h = 1e-6
    fd = (act.sigma(Z + h) - act.sigma(Z - h)) / (2.0 * h)
    # truncation h²σ'''/6 ~ 1e-12, round-off eps·|σ|/h ~ 1e-9 (|σ| ≤ 9): 1e-7 absolute
    np.testing.assert_allclose(fd, act.derivative(Z), rtol=0, atol=1e-7)


@pytest.mark.parametrize("act", CASES)
def test_sigma_torch_equals_sigma(act: Activation) -> None:
    z = np.concatenate([Z, [0.0, -0.0, 1e-300, -1e-300]])
    got = act.sigma_torch(torch.from_numpy(z)).numpy()
    np.testing.assert_allclose(got, act.sigma(z), rtol=1e-15, atol=1e-16)


@pytest.mark.parametrize("act", CASES)
def test_degree_is_the_homogeneity_of_sigma(act: Activation) -> None:
    if act.degree is None:
        # not homogeneous: σ(2z) ≠ 2^p σ(z) for p = 1, 2
        for p in (1, 2):
            assert not np.allclose(act.sigma(2.0 * Z), 2.0**p * act.sigma(Z))
        return
    for c in (0.25, 1.7, 3.0):
        np.testing.assert_allclose(act.sigma(c * Z), c**act.degree * act.sigma(Z), rtol=1e-14, atol=0)


# ----------------------------------------------------------------------------------------
# (7) agreement with the ReLU and σ = z² code already in the core


def test_relu_is_the_core_arc_cosine_kernel_exactly() -> None:
    relu = activation("relu")
    rng = np.random.default_rng(7)
    W1, W2 = rng.standard_normal((2, 3, D)), rng.standard_normal((2, 4, D))
    W2[0, 0] = W1[0, 0]  # a duplicate
    W2[1, 1] = -W1[1, 2]  # an antipode
    np.testing.assert_array_equal(relu.kernel(W1, W2), kernels.arccos_kernel(W1, W2))
    np.testing.assert_array_equal(relu.kernel_grad(W1, W2), kernels.arccos_kernel_grad(W1, W2))
    for mine, core in zip(relu.kernel_hessians(W1, W2), kernels.arccos_kernel_hessians(W1, W2), strict=True):
        np.testing.assert_array_equal(mine, core)


def test_square_is_the_fourth_moment_of_the_matrix_form() -> None:
    # σ = z² makes the network a quadratic form: a σ(w·x) + b σ(w'·x) = xᵀ M x with M = a wwᵀ + b w'w'ᵀ,
    # and Isserlis gives E[(xᵀMx)²] = (tr M)² + 2‖M‖_F². With a = b = 1 the cross term of that
    # expansion is 2K(w, w'): an independent route to the kernel (no kernel formula involved).
    square = activation("square")
    for w2 in PAIRS.values():

        def moment(M: np.ndarray) -> float:
            return float(np.trace(M) ** 2 + 2.0 * np.sum(M * M))

        A, B = np.outer(W, W), np.outer(w2, w2)
        ref = 0.5 * (moment(A + B) - moment(A) - moment(B))
        mine = square.kernel(W[None], w2[None])[0, 0]
        assert abs(mine - ref) <= 1e-13 * abs(ref)


# ----------------------------------------------------------------------------------------
# (8) the registry


def test_registry_refuses_an_unknown_name() -> None:
    with pytest.raises(ValueError, match="unknown activation 'tanh'") as excinfo:
        activation("tanh")
    for name in ACTIVATIONS:
        assert name in str(excinfo.value)


def test_registry_names_match_and_parameters_pass_through() -> None:
    for name, factory in ACTIVATIONS.items():
        assert factory().name == name
    for params, slope in [({}, 0.01), ({"negative_slope": 0.3}, 0.3)]:  # default as torch.nn.LeakyReLU
        leaky = activation("leaky-relu", **params)
        assert isinstance(leaky, LeakyReLU) and leaky.negative_slope == slope


@pytest.mark.parametrize("act", CASES)
def test_kernel_and_grad_is_kernel_and_kernel_grad(act: Activation) -> None:
    """The hot path's shared-geometry pair is the two functions' values (to round-off: same formulas)."""
    W1, W2 = W1_FD, W2_FD
    K, G = act.kernel_and_grad(W1, W2)
    np.testing.assert_allclose(K, act.kernel(W1, W2), rtol=1e-15, atol=1e-16)
    np.testing.assert_allclose(G, act.kernel_grad(W1, W2), rtol=1e-15, atol=1e-16)
