"""Population loss, its gradient and Hessian, and the reaction–transport split, for any activation.

Student ``f(x) = Σ_j a_j σ(w_j·x)``, teacher ``y(x) = Σ_k b_k σ(v_k·x)`` (``b = a*``), the
activation's kernel ``K(w, w') = E[σ(w·x) σ(w'·x)]`` (:class:`~gaugecli.core.model.model.Model`; where the
teacher has its own activation τ, ``K_wv`` is the cross kernel ``E[σ(w·x) τ(v·x)]`` and ``K_vv`` τ's):

    L(θ) = ½ E[(f − y)²] = ½ (aᵀ K_ww a − 2 aᵀ K_wv b + bᵀ K_vv b).

Shapes: ``a`` is ``(..., m)``, ``W`` is ``(..., m, d)``; any leading batch axes are
independent ensembles sharing the model. Everything here is the loss ``L``; the weight decay of
the objective the flows descend is added by :func:`gaugecli.core.population.objective.population_objective`.

For an activation of degree ``p`` the function coordinates ``c = a‖w‖^p``, ``u = w/‖w‖``
(:mod:`gaugecli.core.model.gauge`) move under gradient flow ``θ̇ = −∇L`` as

    ċ_j = −M^c_j ∂L/∂c_j,   M^c_j = ‖w_j‖^{2p−2} (‖w_j‖² + p² a_j²)   (reaction),
    u̇_j = −M^u_j grad_{u_j} L, M^u_j = 1/‖w_j‖²                       (transport),

(from ``∂L/∂a = ‖w‖^p ∂L/∂c`` and ``∇_w L = p a ‖w‖^{p−1} ∂L/∂c u + grad_u L/‖w‖``), so
``‖∇L‖² = R + T`` with ``R = Σ M^c (∂L/∂c)²`` and ``T = Σ M^u ‖grad_u L‖²``. At ``p = 1``,
``M^c = a² + ‖w‖² = √(δ² + 4c²)``. An activation without a degree has no such split.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from gaugecli.core.model.gauge import function_coordinates, imbalance, squared_norms
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population.route import fused_enabled
from gaugecli.core.types import Array


def population_loss(theta: Network, model: Model) -> Array:
    """``L(θ)``, shape ``θ.batch``.

    Absolute round-off is about 1e-16 (a difference of O(1) kernel terms), so loss
    values below ~1e-15 are noise; use :func:`gaugecli.core.model.metrics.nonowner_norm` to
    follow pruning to smaller scales.
    """
    a, W = theta.a, theta.W
    b, V, act = model.coefficients, model.directions, model.activation
    K_ww = act.kernel(W, W)
    K_wv = model.cross.kernel(W, V)
    K_vv = model.teacher_sigma.kernel(V, V)
    quad = np.einsum("...i,...ij,...j->...", a, K_ww, a)
    cross = np.einsum("...i,...ik,k->...", a, K_wv, b)
    const = b @ K_vv @ b
    return 0.5 * (quad - 2.0 * cross + const)


class Gradient(NamedTuple):
    """``∂L/∂a`` (``(..., m)``) and ``∂L/∂W`` (``(..., m, d)``)."""

    a: Array
    W: Array


def _readout_gradient_parts(a: Array, W: Array, model: Model) -> tuple[Array, Array]:
    """``(∂L/∂a, h)`` with ``∂L/∂w_j = a_j h_j``, ``h_j = Σ_i a_i ∂₁K(w_j, w_i) − Σ_k b_k ∂₁K(w_j, v_k)``."""
    b, V, act = model.coefficients, model.directions, model.activation
    K_ww, h_ww = act.kernel_and_grad_sum(W, W, a)
    K_wv, h_wv = model.cross.kernel_and_grad_sum(W, V, b)
    grad_a = np.einsum("...ji,...i->...j", K_ww, a) - K_wv @ b
    return grad_a, h_ww - h_wv


def _fused_weights(model: Model) -> tuple[float, float] | None:
    """``(A, B)`` of the compiled loops' kernel ``A κ + B w·w'`` where they apply — a student of the ReLU
    family ``σ = α relu + β id`` (ReLU, leaky ReLU, linear) with a teacher of the same σ — else ``None``
    (and always ``None`` on the numpy route, :func:`gaugecli.core.population.route.use_fused`)."""
    parts = model.activation.parts()
    if not fused_enabled() or parts is None or parts[0] != "relu" or model.teacher_sigma != model.activation:
        return None
    from gaugecli.core.population import fused

    return fused.kernel_weights(*parts[1])


def _smooth_kind(model: Model) -> int | None:
    """The code of :mod:`gaugecli.core.population.fused_smooth`'s loops for a student of squared ReLU, square
    or erf with a teacher of the same σ, else ``None`` (and always ``None`` on the numpy route)."""
    if not fused_enabled() or model.teacher_sigma != model.activation:
        return None
    from gaugecli.core.population.fused_smooth import KINDS

    return KINDS.get(type(model.activation))


def population_gradient(theta: Network, model: Model) -> Gradient:
    """Closed-form ``∇L(θ)``; finite for duplicate and antipodal neurons. For a ReLU student and
    teacher (or leaky ReLU, linear), the loops of :mod:`gaugecli.core.population.fused`; for squared ReLU,
    square or erf, those of :mod:`gaugecli.core.population.fused_smooth` (the same closed forms, compiled)."""
    a, W = theta.a, theta.W
    weights = _fused_weights(model)
    if weights is not None:
        from gaugecli.core.population import fused

        return Gradient(*fused.gradient(a, W, model.coefficients, model.directions, weights))
    kind = _smooth_kind(model)
    if kind is not None:
        from gaugecli.core.population import fused_smooth

        return Gradient(*fused_smooth.gradient(a, W, model.coefficients, model.directions, kind))
    grad_a, h = _readout_gradient_parts(a, W, model)
    return Gradient(grad_a, a[..., None] * h)


def population_gradient_packed(model: Model) -> Callable[[Array], Array] | None:
    """``Y (B, P) → ∇L`` in the flow's packing ``θ = (a_1..a_m, w_1, ..., w_m)`` where the compiled loops
    apply (:func:`gaugecli.core.population.fused.gradient_packed`,
    :func:`gaugecli.core.population.fused_smooth.gradient_packed`; ``None`` elsewhere): the same numbers as
    :func:`population_gradient`, without unpacking the state."""
    weights, kind = _fused_weights(model), _smooth_kind(model)
    b, V, r = model.coefficients, model.directions, model.d
    if weights is not None:
        from gaugecli.core.population import fused

        def packed(Y: Array) -> Array:
            return fused.gradient_packed(Y, Y.shape[-1] // (r + 1), b, V, weights)

        return packed
    if kind is not None:
        from gaugecli.core.population import fused_smooth

        b, V = np.ascontiguousarray(b, float), np.ascontiguousarray(V, float)

        def packed_smooth(Y: Array) -> Array:
            return fused_smooth.gradient_packed(Y, Y.shape[-1] // (r + 1), b, V, kind)

        return packed_smooth
    return None


def population_hessian(theta: Network, model: Model) -> Array:
    """Closed-form Hessian of ``L`` at ``θ`` in its flattened order ``(a_1..a_m, w_1, ..., w_m)``
    (:meth:`~gaugecli.core.model.state.Network.flatten`).

    Shape ``(..., P, P)`` with ``P = m (d + 1)``. Blocks (δ_ij the Kronecker delta):

    * ``∂²L/∂a_i∂a_j = K(w_i, w_j)``
    * ``∂²L/∂a_i∂w_j = δ_ij h_j + a_j ∂₁K(w_j, w_i)``
    * ``∂²L/∂w_j∂w_i = δ_ij a_j (Σ_l a_l ∂²₁₁K(w_j, w_l) − Σ_k b_k ∂²₁₁K(w_j, v_k)) + a_j a_i ∂²₁₂K(w_j, w_i)``

    For a ReLU, leaky-ReLU or linear student and teacher, the loops of :mod:`gaugecli.core.population.fused`;
    for squared ReLU, square or erf, those of :mod:`gaugecli.core.population.fused_smooth`.
    """
    a, W = theta.a, theta.W
    weights = _fused_weights(model)
    if weights is not None:
        from gaugecli.core.population import fused

        return fused.hessian(a, W, model.coefficients, model.directions, weights)
    kind = _smooth_kind(model)
    if kind is not None:
        from gaugecli.core.population import fused_smooth

        return fused_smooth.hessian(a, W, model.coefficients, model.directions, kind)
    b, V, act = model.coefficients, model.directions, model.activation
    m, d = W.shape[-2], W.shape[-1]
    batch = W.shape[:-2]
    _, h = _readout_gradient_parts(a, W, model)
    G_ww = act.kernel_grad(W, W)  # (..., j, i, d): ∂₁K(w_j, w_i)
    H11_ww, H12_ww = act.kernel_hessians(W, W)
    H11_wv, _ = model.cross.kernel_hessians(W, V)

    eye_m = np.eye(m)
    H_aa = act.kernel(W, W)
    # H_aw[..., i, j, :] = ∂²L/∂a_i ∂w_j
    H_aw = eye_m[..., :, :, None] * h[..., None, :, :] + a[..., None, :, None] * np.swapaxes(G_ww, -3, -2)
    diag = a[..., :, None, None] * (
        np.einsum("...jlxy,...l->...jxy", H11_ww, a) - np.einsum("...jkxy,k->...jxy", H11_wv, b)
    )
    H_ww = (a[..., :, None] * a[..., None, :])[..., None, None] * H12_ww  # (..., j, i, d, d)
    H_ww = H_ww + eye_m[..., :, :, None, None] * diag[..., :, None, :, :]

    P = m * (d + 1)
    H = np.empty(batch + (P, P))
    H[..., :m, :m] = H_aa
    H_aw_flat = H_aw.reshape(batch + (m, m * d))
    H[..., :m, m:] = H_aw_flat
    H[..., m:, :m] = np.swapaxes(H_aw_flat, -1, -2)
    H[..., m:, m:] = np.swapaxes(H_ww, -3, -2).reshape(batch + (m * d, m * d))
    return H


def pair_hessian_blocks(theta: Network, model: Model, pair: tuple[int, int]) -> tuple[Array, Array]:
    """The ``(d+1)×(d+1)`` blocks ``(H_ii, H_ij)`` of :func:`population_hessian` at ``θ`` for the neurons
    ``pair = (i, j)`` (rows ``(a_i, w_i)``, columns ``(a_i, w_i)`` resp. ``(a_j, w_j)``), in
    ``O(m d²)`` instead of the whole ``O(m² d²)`` Hessian. With ``p = i`` and ``q ∈ {i, j}``:

    ``[K(w_p, w_q), δ_pq h_qᵀ + a_q ∂₁K(w_q, w_p)ᵀ; δ_pq h_p + a_p ∂₁K(w_p, w_q),
    δ_pq a_p (Σ_l a_l ∂²₁₁K(w_p, w_l) − Σ_k b_k ∂²₁₁K(w_p, v_k)) + a_p a_q ∂²₁₂K(w_p, w_q)]``.
    """
    a, W = theta.a, theta.W
    b, V, act = model.coefficients, model.directions, model.activation
    i, j = pair
    d = W.shape[-1]
    wi, wij = W[..., [i], :], W[..., [i, j], :]
    h = _row_field(a, W, model, i)
    K = act.kernel(wi, wij)[..., 0, :]  # (..., 2): K(w_i, w_i), K(w_i, w_j)
    G_from_i = act.kernel_grad(wi, wij)[..., 0, :, :]  # ∂₁K(w_i, w_q), (..., 2, d)
    G_to_i = act.kernel_grad(wij, wi)[..., :, 0, :]  # ∂₁K(w_q, w_i), (..., 2, d)
    H11_w, _ = act.kernel_hessians(wi, W)
    H11_v, _ = model.cross.kernel_hessians(wi, V)
    _, H12 = act.kernel_hessians(wi, wij)  # (..., 1, 2, d, d)
    a_i, a_q = a[..., i], a[..., [i, j]]
    diag = a_i[..., None, None] * (
        np.einsum("...lxy,...l->...xy", H11_w[..., 0, :, :, :], a)
        - np.einsum("...kxy,k->...xy", H11_v[..., 0, :, :, :], b)
    )
    blocks = []
    for q in range(2):
        same = q == 0
        B = np.empty(a.shape[:-1] + (d + 1, d + 1))
        B[..., 0, 0] = K[..., q]
        B[..., 0, 1:] = a_q[..., q, None] * G_to_i[..., q, :] + (h if same else 0.0)
        B[..., 1:, 0] = a_i[..., None] * G_from_i[..., q, :] + (h if same else 0.0)
        B[..., 1:, 1:] = (a_i * a_q[..., q])[..., None, None] * H12[..., 0, q, :, :] + (diag if same else 0.0)
        blocks.append(B)
    return blocks[0], blocks[1]


def _row_field(a: Array, W: Array, model: Model, i: int) -> Array:
    """``h_i = Σ_l a_l ∂₁K(w_i, w_l) − Σ_k b_k ∂₁K(w_i, v_k)`` (``∂L/∂w_i = a_i h_i``), shape ``(..., d)``."""
    wi, act = W[..., [i], :], model.activation
    G_w = act.kernel_grad(wi, W)[..., 0, :, :]
    G_v = model.cross.kernel_grad(wi, model.directions)[..., 0, :, :]
    return np.einsum("...ld,...l->...d", G_w, a) - np.einsum("...kd,k->...d", G_v, model.coefficients)


class FunctionGradient(NamedTuple):
    """Gradient in function coordinates: ``∂L/∂c`` (``(..., m)``) and the Riemannian
    gradient on the sphere ``grad_u L`` (``(..., m, d)``, tangent to each ``u_j``)."""

    coefficient: Array
    direction: Array


def function_gradient(c: Array, U: Array, model: Model) -> FunctionGradient:
    """``∂L/∂c_j = Σ_i c_i K(u_j, u_i) − Σ_k b_k K(u_j, v_k)`` and
    ``grad_{u_j} L = (I − u_j u_jᵀ) c_j (Σ_i c_i ∂₁K(u_j, u_i) − Σ_k b_k ∂₁K(u_j, v_k))``.

    Computed from ``(c, u)`` alone, never from ``(a, w)``, so it is an independent
    route to the dissipation: a check of the split, not a restatement of it.
    """
    b, V, act = model.coefficients, model.directions, model.activation
    K_uu, G_uu = act.kernel_and_grad(U, U)
    K_uv, G_uv = model.cross.kernel_and_grad(U, V)
    dc = np.einsum("...ji,...i->...j", K_uu, c) - K_uv @ b
    du = c[..., None] * (np.einsum("...jid,...i->...jd", G_uu, c) - np.einsum("...jkd,k->...jd", G_uv, b))
    du = du - np.sum(du * U, axis=-1, keepdims=True) * U
    return FunctionGradient(dc, du)


def reaction_mobility(c: Array, delta: Array, degree: int = 1) -> Array:
    """``M^c = ‖w‖^{2p−2} (‖w‖² + p² a²)``; at ``p = 1`` it is ``a² + ‖w‖² = √(δ² + 4c²)``,
    identical for gauges ±D at equal ``c``."""
    if degree == 1:
        return np.hypot(delta, 2.0 * c)
    a_sq, w_sq = squared_norms(c, delta, degree)
    return w_sq ** (degree - 1) * (w_sq + degree**2 * a_sq)


def transport_mobility(c: Array, delta: Array, degree: int = 1) -> Array:
    """``M^u = 1/‖w‖²``, with ‖w‖² from :func:`~gaugecli.core.model.gauge.squared_norms` (no cancellation);
    at ``p = 1`` it is ``2/(−δ + √(δ² + 4c²))``.

    ``M^u(+D)/M^u(−D) = (D + √(D² + 4c²))² / (4c²) = Θ(D²/c²)`` at ``p = 1``.
    """
    if degree == 1:
        s = np.hypot(delta, 2.0 * c)
        with np.errstate(divide="ignore"):  # np.where evaluates the discarded branch too
            return np.where(delta <= 0, 2.0 / (s - delta), (s + delta) / (2.0 * c**2))
    _, w_sq = squared_norms(c, delta, degree)
    with np.errstate(divide="ignore"):
        return 1.0 / w_sq


class Dissipation(NamedTuple):
    """``−dL/dt = ‖∇L‖² = R + T`` and the relative residual of that identity."""

    reaction: Array
    transport: Array
    grad_norm_sq: Array
    residual: Array


def dissipation(theta: Network, model: Model) -> Dissipation:
    """Reaction ``R``, transport ``T`` (from function coordinates) and ``‖∇_θ L‖²``
    (from parameters) at ``θ = (a, W)``, with ``residual = |‖∇L‖² − (R + T)| / ‖∇L‖²``.

    ``L`` is the loss without the weight decay: the split is an identity of ``L`` at every point.
    An activation without a degree has no function coordinates: ``R``, ``T`` and the residual are NaN;
    so are ``T`` and the residual where a neuron sits at ``w = 0`` (absorbed: its mobility is infinite
    and its direction undefined, and ``∂L/∂w`` there is not its velocity)."""
    grad = population_gradient(theta, model)
    grad_norm_sq = np.sum(grad.a**2, axis=-1) + np.sum(grad.W**2, axis=(-1, -2))
    if not model.activation.homogeneous:
        nan = np.full(grad_norm_sq.shape, np.nan)
        return Dissipation(nan, nan.copy(), grad_norm_sq, nan.copy())
    reaction, transport = reaction_transport(theta, model)
    scale = np.where(grad_norm_sq > 0, grad_norm_sq, 1.0)
    residual = np.abs(grad_norm_sq - reaction - transport) / scale
    return Dissipation(reaction, transport, grad_norm_sq, residual)


def reaction_transport(theta: Network, model: Model) -> tuple[Array, Array]:
    """``(R, T)`` of :func:`dissipation` alone, from the function coordinates (``R = Σ_j M^c_j (∂L/∂c_j)²``,
    ``T = Σ_j M^u_j ‖grad_{u_j} L‖²``), without the parameter gradient ``‖∇_θ L‖²`` that checks them
    (what a phase map reads of every state of its runs); NaN for an activation without a degree. For ReLU
    (where the fused loops apply) the compiled :func:`gaugecli.core.population.fused.reaction_transport`: the same
    formulas, its sums in another order."""
    if not model.activation.homogeneous:
        nan = np.full(np.shape(theta.a)[:-1], np.nan)
        return nan, nan.copy()
    p = model.degree
    if p == 1 and _fused_weights(model) == (1.0, 0.0):  # ReLU: the same formulas, compiled (fused)
        from gaugecli.core.population import fused

        return fused.reaction_transport(theta.a, theta.W, model.coefficients, model.directions)
    c, U = function_coordinates(theta, p)
    delta = imbalance(theta, p)
    fg = function_gradient(c, U, model)
    reaction = np.sum(reaction_mobility(c, delta, p) * fg.coefficient**2, axis=-1)
    with np.errstate(invalid="ignore"):  # a neuron absorbed at w = 0 (core.absorption): ∞·0, NaN
        transport = np.sum(transport_mobility(c, delta, p) * np.sum(fg.direction**2, axis=-1), axis=-1)
    return reaction, transport
