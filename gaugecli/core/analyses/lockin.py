"""Lock-in diagnostics on a trajectory sampled on a uniform "epoch" grid.

Related work (RELATED.md §2): Xu (arXiv 2605.08119) proposes a spectral detector of
"lock-in" built on the weight updates, and tests Tian's repulsion rule for
``B = (F̃ᵀF̃ + ηI)⁻¹``. This module computes both, and the markers that replace them here,
on a trajectory sampled at ``t_k = k τ`` with the epoch ``τ = T_spec / per``.

**Update matrix.** ``Ẇ = dW/dt = −∂L/∂W`` (``m × d``) at every epoch, from the gradient
(never from differences of iterates). At the duplicate start every row is ``a_j h`` with one
common ``h`` (docs/theory.md §1: ``∂₁κ(w_j, w_i) = w_i/2`` at φ = 0), so ``Ẇ`` has rank one; neurons of
one gauge class stay equal, so the rank never exceeds the number of distinct classes (and the
flow stays in span(v, u0), so it is ≤ 2). The rank-2 share ``σ2/σ1`` measures how far the
classes have gone separate ways: it peaks near ``T_spec`` with height ∝ 1/D.

**Xu's detector, as released.** Not the singular values of ``Ẇ``: the eigenvalues
``λ1 ≥ λ2 ≥ λ3 ≥ …`` of the Gram matrix of the last ``window`` flattened per-epoch updates;
gap ``g = λ2/λ3``; slope ``s_k = (ln g_k − ln g_{k−lag}) / lag``; it fires at the first epoch
``k ≥ burn_in`` with ``s_k > threshold``. Where the updates span fewer than three directions
over a window, ``λ3`` is round-off (|λ3| ≈ 1e-16 λ1), ``g`` is noise and so is the firing; the
*floored* variant replaces ``λ3`` by ``max(λ3, floor · λ1)``.

**Tian's B.** Centered neuron features ``f̃_j = relu(w_j·x) − E relu(w_j·x)`` with Gram
``G_jl = E[f̃_j f̃_l]`` (population: ``κ(w_j, w_l) − ‖w_j‖‖w_l‖/(2π)``; finite sample: the
centered activations, ``F̃ᵀF̃/n``), ``B = (G + ηI)⁻¹``. With the ridge residual projector
``P_η = I − F̃(F̃ᵀF̃ + ηI)⁻¹F̃ᵀ``, ``F̃ᵀP_ηF̃ = G − G B G = ηI − η²B``, so for ``j ≠ l``
``f̃_jᵀP_η f̃_l = −η² B_jl`` *exactly*: Tian's sign rule ``sign B_jl = −sign(f̃_jᵀP_η f̃_l)`` is
an algebraic identity, and a direct evaluation of ``G − GBG`` can only lose its sign to
round-off (a difference of O(‖G‖) terms that should leave O(η²‖B‖)). The informative
statistic is ``frac(B_jl < 0 | S_jl > 0)`` with ``S`` the cosine similarity of the features.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from gaugecli.core.analyses.symmetry import antisymmetric_rate, separation_exponent
from gaugecli.core.kernels.arccos import arccos_kernel
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.types import Array, Indices

_TWO_PI = 2.0 * np.pi

STRUCTURAL_RTOL = 1e-9
"""A singular value ``σ_k ≤ STRUCTURAL_RTOL · σ_1`` of ``Ẇ`` counts as structurally zero. Structural
zeros are round-off (all-plus: σ2/σ1 ≤ 1.5e-15 measured; σ3 exactly 0 in span(v, u0)); a genuine
σ2 grows linearly from the start: σ2/σ1 = 1.6e-6 (D = 4) and 1.0e-7 (D = 64) at t = 1e-4 T_spec."""

ROUNDOFF_LEVEL = 1e-13
"""``|λ3| ≤ ROUNDOFF_LEVEL · λ1`` counts as round-off: the eigenvalues of a ``window × window``
Gram matrix are accurate to ~``window · ε · λ1`` ≈ 4e-15 λ1 for ``window = 20``."""


# ----------------------------------------------------------------------------------------
# the update matrix


def update_singular_values(dW: Array) -> Array:
    """Singular values ``σ1 ≥ σ2 ≥ …`` of each ``m × d`` update matrix ``dW (..., m, d)``."""
    return np.linalg.svd(np.asarray(dW, float), compute_uv=False)


def structural_rank(sv: Array, rtol: float = STRUCTURAL_RTOL) -> Array:
    """Number of singular values above ``rtol · σ1`` (``sv`` descending on the last axis); 0 where σ1 = 0."""
    sv = np.asarray(sv, float)
    top = sv[..., :1]
    return np.sum((sv > rtol * top) & (top > 0), axis=-1)


def rank2_share(sv: Array) -> Array:
    """``σ2/σ1`` (0 where σ1 = 0)."""
    sv = np.asarray(sv, float)
    s1 = sv[..., 0]
    return np.divide(sv[..., 1], s1, out=np.zeros_like(s1), where=s1 > 0)


class Peak(NamedTuple):
    """Height and position of a sampled maximum (position refined by a parabola through the three samples around it)."""

    height: float
    t_peak: float


def sampled_peak(t: Array, values: Array) -> Peak:
    """Maximum of ``values`` on the uniform grid ``t``, refined by the parabola through its neighbours.

    The refinement moves the peak by at most half a grid step; at the edges the sample itself is returned.
    """
    t, values = np.asarray(t, float), np.asarray(values, float)
    i = int(np.nanargmax(values))
    if 0 < i < t.size - 1:
        y0, y1, y2 = values[i - 1 : i + 2]
        curvature = y0 - 2.0 * y1 + y2
        if curvature < 0:
            shift = 0.5 * (y0 - y2) / curvature
            step = t[i + 1] - t[i]
            return Peak(float(y1 - 0.25 * (y0 - y2) * shift), float(t[i] + shift * step))
    return Peak(float(values[i]), float(t[i]))


# ----------------------------------------------------------------------------------------
# Xu's detector


def window_gram_eigenvalues(updates: Array, window: int) -> Array:
    """Eigenvalues (descending) of the Gram matrix ``U Uᵀ`` of the last ``window`` flattened updates.

    ``updates`` is ``(n_epochs, ...)``: each epoch's update, flattened. Row ``k`` of the result
    (shape ``(n_epochs, window)``) belongs to the window ending at epoch ``k``; rows ``k < window − 1``
    (incomplete windows) are NaN. The Gram matrix of ``window`` vectors is formed and diagonalised
    in float64, as in Xu's code, so its eigenvalues carry absolute round-off ~``window · ε · λ1``
    (they can be slightly negative): the singular values of ``U`` would be more accurate, but the
    point is to reproduce the detector as released.
    """
    U = np.asarray(updates, float).reshape(len(updates), -1)
    n = U.shape[0]
    out = np.full((n, window), np.nan)
    if n < window:
        return out
    stacks = np.moveaxis(sliding_window_view(U, window, axis=0), -1, -2)  # (n − window + 1, window, P)
    gram = stacks @ np.swapaxes(stacks, -1, -2)
    out[window - 1 :] = np.linalg.eigvalsh(gram)[..., ::-1]
    return out


class XuDetection(NamedTuple):
    """Per-epoch series (NaN where undefined) and the first firing epoch (``None`` if it never fires)."""

    gap: Array
    slope: Array
    fire_epoch: int | None


def eigengap(eigenvalues: Array, floor: float | None = None) -> Array:
    """``λ2/|λ3|`` per window; with ``floor``, ``λ2/max(λ3, floor · λ1)``.

    Raw: the magnitude of λ3, because at round-off λ3 is as often slightly negative as
    positive and only its size says anything; an exact zero gives ``inf``.
    """
    lam = np.asarray(eigenvalues, float)
    l1, l2, l3 = lam[..., 0], lam[..., 1], lam[..., 2]
    den = np.abs(l3) if floor is None else np.maximum(l3, floor * l1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return l2 / den


def xu_detector(gap: Array, lag: int, threshold: float, burn_in: int) -> XuDetection:
    """``s_k = (ln g_k − ln g_{k−lag}) / lag``; fires at the first ``k ≥ burn_in`` with ``s_k > threshold``."""
    gap = np.asarray(gap, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_gap = np.log(gap)
    slope = np.full(gap.shape, np.nan)
    slope[lag:] = (log_gap[lag:] - log_gap[:-lag]) / lag
    k = np.arange(gap.size)
    with np.errstate(invalid="ignore"):
        fires = np.flatnonzero((k >= burn_in) & (slope > threshold))
    return XuDetection(gap, slope, int(fires[0]) if fires.size else None)


def xu_lockin(eigenvalues: Array, lag: int, threshold: float, burn_in: int, floor: float | None = None) -> XuDetection:
    """Xu's detector on the windowed-Gram eigenvalues ``(n_epochs, ≥ 3)``: the gap
    (:func:`eigengap`, raw or floored) and its slope test (:func:`xu_detector`). The one
    implementation every lock-in study calls (the gauge model's runs and the modular-addition task)."""
    return xu_detector(eigengap(eigenvalues, floor), lag, threshold, burn_in)


class RollingGram:
    """The eigenvalues of :func:`window_gram_eigenvalues` as a stream: :meth:`push` one flattened
    update per epoch and get the eigenvalues (descending) of the Gram matrix of the last ``window``
    updates (NaN until ``window`` have been pushed). Each push forms one new row of the Gram matrix
    (``window`` dot products) instead of holding every update, so a long run of large updates
    (2048 × 142 floats an epoch on the modular-addition task) needs ``window`` of them in memory.
    The Gram matrix is kept in the order of arrival modulo ``window``: a permutation of the window's
    own, with the same eigenvalues."""

    def __init__(self, window: int) -> None:
        self.window = window
        self.count = 0
        self.buffer: Array | None = None
        self.gram = np.zeros((window, window))

    def push(self, update: Array) -> Array:
        """Add one flattened update; the current window's eigenvalues (descending), NaN while incomplete."""
        u = np.asarray(update, float).ravel()
        if self.buffer is None:
            self.buffer = np.zeros((self.window, u.size))
        slot = self.count % self.window
        self.buffer[slot] = u
        row = self.buffer @ u
        self.gram[slot, :] = row
        self.gram[:, slot] = row
        self.count += 1
        if self.count < self.window:
            return np.full(self.window, np.nan)
        return np.linalg.eigvalsh(self.gram)[::-1]


def effective_rank(sv: Array) -> float:
    """Roy & Vetterli's effective rank ``exp(−Σ p_k ln p_k)``, ``p_k = σ_k/Σσ`` (1 for a rank-one
    matrix, r for r equal singular values; NaN for a zero matrix)."""
    s = np.asarray(sv, float)
    total = float(np.sum(s))
    if total <= 0:
        return float("nan")
    p = s[s > 0] / total
    return float(np.exp(-np.sum(p * np.log(p))))


def roundoff_fraction(eigenvalues: Array, level: float = ROUNDOFF_LEVEL) -> float:
    """Fraction of complete windows whose ``|λ3| ≤ level · λ1`` (λ3 is round-off there)."""
    lam = np.asarray(eigenvalues, float)
    ok = np.isfinite(lam[..., 2])
    if not np.any(ok):
        return float("nan")
    return float(np.mean(np.abs(lam[ok, 2]) <= level * lam[ok, 0]))


# ----------------------------------------------------------------------------------------
# Tian's B


def centered_feature_gram(W: Array) -> Array:
    """Population ``G_jl = E[f̃_j f̃_l] = κ(w_j, w_l) − ‖w_j‖‖w_l‖/(2π)`` for ``f_j = relu(w_j·x)``,
    ``x ~ N(0, I)`` (``E relu(w·x) = ‖w‖/√(2π)``); shape ``(..., m, m)``."""
    W = np.asarray(W, float)
    norms = np.linalg.norm(W, axis=-1)
    return arccos_kernel(W, W) - norms[..., :, None] * norms[..., None, :] / _TWO_PI


def sample_feature_gram(F: Array) -> Array:
    """``F̃ᵀF̃/n`` for activations ``F (..., n, m)`` centered over the samples."""
    F = np.asarray(F, float)
    Fc = F - np.mean(F, axis=-2, keepdims=True)
    return np.swapaxes(Fc, -1, -2) @ Fc / F.shape[-2]


def feature_similarity(G: Array) -> Array:
    """Cosine similarity ``S_jl = G_jl / √(G_jj G_ll)`` of the centered features (0 for a zero feature)."""
    G = np.asarray(G, float)
    diag = np.sqrt(np.maximum(np.diagonal(G, axis1=-2, axis2=-1), 0.0))
    scale = diag[..., :, None] * diag[..., None, :]
    return np.divide(G, scale, out=np.zeros_like(G), where=scale > 0)


def ridge_from_gram(G: Array, ridge: float) -> Array:
    """``η = ridge · tr(G)/m``: a ridge relative to the features' mean variance, so that it means
    the same for input-heavy (‖w‖² ≈ D) and output-heavy (‖w‖² ≈ c²/D) neurons."""
    G = np.asarray(G, float)
    return ridge * np.trace(G, axis1=-2, axis2=-1) / G.shape[-1]


class TianB(NamedTuple):
    """``G``, ``B = (G + ηI)⁻¹``, the directly evaluated ``F̃ᵀP_ηF̃ = G − GBG`` and the ridge η."""

    G: Array
    B: Array
    projected: Array
    eta: Array


def tian_b(G: Array, eta: Array | float) -> TianB:
    """Tian's ``B`` and the directly evaluated projected similarity ``G − G B G``."""
    G = np.asarray(G, float)
    eta = np.asarray(eta, float)
    m = G.shape[-1]
    B = np.linalg.inv(G + eta[..., None, None] * np.eye(m))
    return TianB(G, B, G - G @ B @ G, eta)


def _offdiag(m: int) -> tuple[Indices, Indices]:
    return np.triu_indices(m, k=1)


def sign_identity_residual(tb: TianB) -> Array:
    """``max_{j<l} |(G − GBG)_jl + η² B_jl| / max|G|``: the identity ``f̃_jᵀP_ηf̃_l = −η²B_jl`` checked
    against the direct evaluation, relative to the terms that cancel in it (O(‖G‖)); round-off
    makes this ~ε · cond(G + ηI)."""
    m = tb.B.shape[-1]
    iu = _offdiag(m)
    eta2 = tb.eta[..., None, None] ** 2
    gap = np.abs(tb.projected + eta2 * tb.B)[..., iu[0], iu[1]]
    return np.max(gap, axis=-1) / np.max(np.abs(tb.G), axis=(-1, -2))


def direct_sign_match(tb: TianB) -> Array:
    """Fraction of pairs ``j < l`` with ``sign B_jl = −sign(G − GBG)_jl`` evaluated directly."""
    m = tb.B.shape[-1]
    iu = _offdiag(m)
    return np.mean(np.sign(tb.B[..., iu[0], iu[1]]) == -np.sign(tb.projected[..., iu[0], iu[1]]), axis=-1)


def informative_rate(B: Array, S: Array, tol: float = 0.0) -> Array:
    """``frac(B_jl < 0 | S_jl > tol)`` over pairs ``j < l``; NaN where no pair is similar."""
    m = B.shape[-1]
    iu = _offdiag(m)
    similar = S[..., iu[0], iu[1]] > tol
    negative = B[..., iu[0], iu[1]] < 0
    count = np.sum(similar, axis=-1)
    hits = np.sum(similar & negative, axis=-1)
    return np.divide(hits, count, out=np.full(count.shape, np.nan), where=count > 0)


# ----------------------------------------------------------------------------------------
# duplicate instability


def duplicate_instability(t: Array, theta: Network, model: Model, group: list[int]) -> tuple[Array, Array]:
    """``(λ_anti(t), Λ(t))`` of the pair ``group[:2]`` along a trajectory ``θ`` (``a (n, m)``, ``W (n, m, d)``).

    The pair is replaced by its mean before the Hessian is taken, so the rate is that of the
    equal pair on the invariant set even after round-off has begun to split the two (the
    antisymmetric mode is an exact invariant subspace only there). Λ is the trapezoid integral
    of λ_anti (:func:`gaugecli.core.analyses.symmetry.separation_exponent`).
    """
    i, j = group[0], group[1]
    a = np.array(theta.a, float)
    W = np.array(theta.W, float)
    a_mean = 0.5 * (a[..., i] + a[..., j])
    W_mean = 0.5 * (W[..., i, :] + W[..., j, :])
    a[..., i] = a[..., j] = a_mean
    W[..., i, :] = W[..., j, :] = W_mean
    rate = antisymmetric_rate(Network(a, W), model, (i, j))
    return rate, separation_exponent(t, rate)


def similar_pairs(S: Array, count: int) -> tuple[Indices, Indices]:
    """The ``count`` pairs ``j < l`` of largest similarity ``S_jl`` (fewer if there are fewer pairs),
    most similar first."""
    m = S.shape[-1]
    iu = _offdiag(m)
    values = S[iu]
    count = min(count, values.size)
    top = np.argpartition(-values, count - 1)[:count] if count < values.size else np.arange(values.size)
    top = top[np.argsort(-values[top], kind="stable")]
    return iu[0][top], iu[1][top]


class PairSigns(NamedTuple):
    """Tian's sign rule on the most similar pairs of features: ``match`` = frac(sign B_jl =
    −sign(f̃_jᵀP_ηf̃_l) evaluated directly), ``negative`` = frac(B_jl < 0), ``similarity`` = the
    pairs' mean cosine similarity."""

    match: float
    negative: float
    similarity: float


def pair_sign_rule(F: Array, count: int, ridge: float) -> PairSigns:
    """Xu's test of Tian's rule on activations ``F (n × m)``: centre over the samples, ``G = F̃ᵀF̃/n``,
    ``η = ridge · tr G/m`` (:func:`ridge_from_gram`), ``B = (G + ηI)⁻¹``; on the ``count`` most similar
    pairs (cosine of the centred features) the fraction whose directly evaluated
    ``f̃_jᵀP_ηf̃_l = (G − GBG)_jl`` has the sign opposite to ``B_jl``, and the fraction with ``B_jl < 0``.
    (``G − GBG = ηI − η²B`` exactly, so the first fraction is 1 up to round-off: see the module's docstring.)"""
    G = sample_feature_gram(F)
    tb = tian_b(G, ridge_from_gram(G, ridge))
    S = feature_similarity(G)
    first, second = similar_pairs(S, count)
    B = tb.B[first, second]
    return PairSigns(
        float(np.mean(np.sign(B) == -np.sign(tb.projected[first, second]))),
        float(np.mean(B < 0)),
        float(np.mean(S[first, second])),
    )
