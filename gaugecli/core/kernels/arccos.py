"""Arc-cosine kernel of degree one and its closed-form derivatives.

For ``x ~ N(0, I_d)`` and weight vectors ``w, w'`` at angle ``φ``,

    κ(w, w') = E[relu(w·x) relu(w'·x)] = ‖w‖‖w'‖ (sin φ + (π − φ) cos φ) / (2π).

Every function here is written so that it stays finite at ``φ = 0`` (duplicate
neurons: the paper's initial condition) and at ``φ = π``.  The angle is taken as
``φ = atan2(‖q‖, ρ)`` with ``ρ = ŵ·ŵ'`` and ``q = ŵ' − ρŵ``, which is accurate for
tiny angles (``arccos`` of a rounded cosine is not), and whose derivatives are never
formed: the gradients below are closed forms, not autograd through ``arccos``
(which is NaN exactly at duplicates).

Shapes: ``W1`` is ``(..., p, d)`` and ``W2`` is ``(..., q, d)``; outputs carry the
pair axes ``(..., p, q)`` followed by the vector axes. Leading axes broadcast, so a
batch of ensembles costs one call.
"""

from __future__ import annotations

from typing import overload

import numpy as np

from gaugecli.core.types import Array

_TWO_PI = 2.0 * np.pi
# Below this sine the rank-one terms q qᵀ / sin φ are replaced by their limit 0;
# their norm equals sin φ, so the error is at most this number.
_SIN_FLOOR = 1e-300


def _norm(X: Array) -> Array:
    # sqrt of a dot product: the gradient's hot path calls this ~10⁵ times on tiny
    # arrays, where np.linalg.norm's dispatch costs more than the arithmetic; the gufunc
    # vecdot dispatches fastest below a few thousand entries (1.2–1.7 µs against einsum's
    # 2.3–2.7 µs), einsum's loop is ~10 % faster above
    if X.size < _VECDOT_BELOW:
        return np.sqrt(np.vecdot(X, X))
    return np.sqrt(np.einsum("...i,...i->...", X, X))


_VECDOT_BELOW = 4096


def _unit(W: Array) -> tuple[Array, Array]:
    norm = _norm(W)
    # a neuron at w = 0 (absorbed there, gaugecli.core.integrate.flow) has no direction: U = 0, so that its
    # pairs carry κ = 0 and finite angles instead of NaN
    return W / np.where(norm > 0.0, norm, 1.0)[..., None], norm


def _pair_geometry(W1: Array, W2: Array) -> dict[str, Array]:
    """Pairwise unit vectors, norms, cosine ρ, perpendicular part q, sine and angle."""
    U1, n1 = _unit(W1)
    U2, n2 = (U1, n1) if W2 is W1 else _unit(W2)  # the pairs of a layer with itself: one normalisation
    rho = np.minimum(np.maximum(U1 @ np.swapaxes(U2, -1, -2), -1.0), 1.0)  # (..., p, q)
    # q_ij = û2_j − ρ_ij û1_i : the part of û2_j orthogonal to û1_i.
    q = U2[..., None, :, :] - rho[..., :, :, None] * U1[..., :, None, :]
    sin = _norm(q)
    phi = np.arctan2(sin, rho)
    return {"U1": U1, "U2": U2, "n1": n1, "n2": n2, "rho": rho, "q": q, "sin": sin, "phi": phi}


@overload
def angular_profile(phi: float) -> float: ...
@overload
def angular_profile(phi: Array) -> Array: ...
def angular_profile(phi: float | Array) -> float | Array:
    """``g(φ) = (sin φ + (π − φ) cos φ) / (2π)``, so that κ(w, w') = ‖w‖‖w'‖ g(φ); elementwise on
    an array of angles, a float for one angle."""
    return (np.sin(phi) + (np.pi - phi) * np.cos(phi)) / _TWO_PI


def _kernel(geo: dict[str, Array]) -> Array:
    g = (geo["sin"] + (np.pi - geo["phi"]) * geo["rho"]) / _TWO_PI
    return geo["n1"][..., :, None] * geo["n2"][..., None, :] * g


def _kernel_grad(geo: dict[str, Array], W2: Array) -> Array:
    W2b = W2[..., None, :, :]
    term_w2 = (np.pi - geo["phi"])[..., None] * W2b
    term_w1 = (geo["sin"] * geo["n2"][..., None, :])[..., None] * geo["U1"][..., :, None, :]
    return (term_w2 + term_w1) / _TWO_PI


def arccos_kernel(W1: Array, W2: Array) -> Array:
    """κ(w1_i, w2_j) for all pairs, shape ``(..., p, q)``."""
    return _kernel(_pair_geometry(W1, W2))


def arccos_kernel_grad(W1: Array, W2: Array) -> Array:
    """∂κ/∂w (first argument) for all pairs, shape ``(..., p, q, d)``.

    ``∂κ/∂w = ((π − φ) w' + sin φ ‖w'‖ ŵ) / (2π)`` — finite at φ = 0 (where it is
    ``w'/2``) and at φ = π (where it is 0).
    """
    return _kernel_grad(_pair_geometry(W1, W2), W2)


def arccos_kernel_and_grad(W1: Array, W2: Array) -> tuple[Array, Array]:
    """``(κ, ∂κ/∂w)`` from one evaluation of the pair geometry (the gradient's hot path)."""
    geo = _pair_geometry(W1, W2)
    return _kernel(geo), _kernel_grad(geo, W2)


def arccos_kernel_and_grad_sum(W1: Array, W2: Array, weights: Array) -> tuple[Array, Array]:
    """``(κ, Σ_j c_j ∂κ(w1_i, w2_j)/∂w1_i)`` for weights ``c`` (``(..., q)``, broadcasting):

        Σ_j c_j ∂κ/∂w = ( Σ_j c_j (π − φ_ij) w2_j + (Σ_j c_j sin φ_ij ‖w2_j‖) ŵ1_i ) / (2π),

    shape ``(..., p, d)``: the contraction the gradient needs, as one matrix product and one
    matrix–vector product of pair quantities instead of the ``(..., p, q, d)`` array of
    :func:`arccos_kernel_grad` (its terms, summed in another order: the same to round-off)."""
    geo = _pair_geometry(W1, W2)
    c = np.asarray(weights, dtype=np.float64)[..., None, :]  # (..., 1, q)
    turning = np.matmul((np.pi - geo["phi"]) * c, W2)  # Σ_j c_j (π − φ_ij) w2_j
    radial = np.sum(geo["sin"] * (c * geo["n2"][..., None, :]), axis=-1)  # Σ_j c_j sin φ_ij ‖w2_j‖
    return _kernel(geo), (turning + radial[..., None] * geo["U1"]) / _TWO_PI


def arccos_kernel_hessians(W1: Array, W2: Array) -> tuple[Array, Array]:
    """Second derivatives ``(∂²κ/∂w∂w, ∂²κ/∂w∂w')``, each ``(..., p, q, d, d)``.

    With ``q = ŵ' − ρŵ`` and ``q' = ŵ − ρŵ'`` (both of norm sin φ):

    * ``∂²κ/∂w² = ‖w'‖ / (2π‖w‖) · (sin φ (I − ŵŵᵀ) + q qᵀ / sin φ)``
      ( = E[δ(w·x) x xᵀ relu(w'·x)] ), which vanishes at φ = 0 and φ = π;
    * ``∂²κ/∂w∂w' = ((π − φ) I + q q'ᵀ / sin φ + sin φ ŵ ŵ'ᵀ) / (2π)``
      ( = E[1(w·x>0) 1(w'·x>0) x xᵀ] ), equal to I/2 at φ = 0 and 0 at φ = π.

    The rank-one terms have norm sin φ, so they are set to their limit 0 when
    sin φ underflows.
    """
    geo = _pair_geometry(W1, W2)
    U1, U2, rho, q, sin, phi = geo["U1"], geo["U2"], geo["rho"], geo["q"], geo["sin"], geo["phi"]
    d = W1.shape[-1]
    eye = np.eye(d)
    u1 = U1[..., :, None, :]
    u2 = U2[..., None, :, :]
    safe_sin = np.where(sin > _SIN_FLOOR, sin, 1.0)
    inv_sin = np.where(sin > _SIN_FLOOR, 1.0 / safe_sin, 0.0)[..., None, None]

    proj = eye - u1[..., :, None] * u1[..., None, :]
    qqT = q[..., :, None] * q[..., None, :]
    scale11 = (geo["n2"][..., None, :] / geo["n1"][..., :, None]) / _TWO_PI
    h11 = scale11[..., None, None] * (sin[..., None, None] * proj + qqT * inv_sin)

    q_prime = u1 - rho[..., None] * u2
    qqpT = q[..., :, None] * q_prime[..., None, :]
    h12 = (
        (np.pi - phi)[..., None, None] * eye
        + qqpT * inv_sin
        + sin[..., None, None] * (u1[..., :, None] * u2[..., None, :])
    ) / _TWO_PI
    return h11, h12
