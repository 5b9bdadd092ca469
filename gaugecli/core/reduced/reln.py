"""The gated-linear (ReLN) view of the student: fixed gates, linear pathways.

A ReLN (Jarvis et al., ICLR 2025, "Make Haste Slowly") keeps the student's activation
pattern fixed at gate directions ``g_j`` and lets each pathway be linear:

    f(x) = Σ_j a_j 1[g_j·x > 0] (w_j·x).

With ``β_j = a_j w_j`` and ``x ~ N(0, I_d)`` its population loss is quadratic in β,

    L = ½ Σ_ij β_iᵀ S_ij β_j − Σ_j β_jᵀ r_j + ½ E[y²],

with the same arc-cosine geometry as the ReLU student (:mod:`gaugecli.core.kernels.arccos`):
``S_ij = E[1_i 1_j x xᵀ] = ∂²κ/∂w∂w'(g_i, g_j)`` (it depends on the gate angles only, and
``S_jj = I/2``), ``r_j = E[1_j x y] = Σ_k a*_k ∂κ/∂w(g_j, v_k)`` and ``E[y²] = Σ_kl a*_k a*_l κ(v_k, v_l)``.
Gradient flow on ``(a_j, w_j)`` conserves ``δ_j = a_j² − ‖w_j‖²`` exactly as for ReLU
(``∂L/∂a_j = w_j·e_j``, ``∂L/∂w_j = a_j e_j`` with ``e_j = ∂L/∂β_j``), and moves the pathway
coefficient ``c_j = a_j‖w_j‖`` with the same reaction mobility ``√(δ_j² + 4c_j²)``.

With gates equal to the current directions ``g_j = w_j`` the ReLN *is* the ReLU student
at that point (same function, loss and gradient; not the same Hessian, which for ReLU also
has the moving-gate terms ``∂²κ/∂w²``). The informative ReLNs keep their gates fixed.

Also here: the aligned-pathway race (Saxe-style reduction) ``ċ = −√(δ² + 4c²)(c − a*)/2`` and
the gate floor ``L_floor(ψ)``: the best a fixed gate at angle ψ from the teacher can do.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import integrate, optimize

from gaugecli.core.defaults import EPS_ALIGN
from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
from gaugecli.core.integrate.trajectory import Trajectory
from gaugecli.core.kernels.arccos import arccos_kernel, arccos_kernel_grad, arccos_kernel_hessians
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population.dynamics import Gradient, population_gradient, population_loss
from gaugecli.core.population.objective import Objective
from gaugecli.core.types import Array, Indices, Progress


class RelnGeometry(NamedTuple):
    """The quadratic form of one ReLN (or a batch of them).

    ``gates``: unit gate directions ``(..., m, d)``; ``S``: second moments ``S_ij``,
    ``(..., m, m, d, d)``; ``r``: teacher correlations ``r_j``, ``(..., m, d)``;
    ``target_energy``: ``E[y²]``.
    """

    gates: Array
    S: Array
    r: Array
    target_energy: float

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.gates.shape[:-2]

    def take(self, members: Indices) -> RelnGeometry:
        """The ReLNs of the flattened batch indices ``members`` (all of them if unbatched)."""
        if not self.batch_shape:
            return self
        m, d = self.gates.shape[-2:]
        return RelnGeometry(
            self.gates.reshape(-1, m, d)[members],
            self.S.reshape(-1, m, m, d, d)[members],
            self.r.reshape(-1, m, d)[members],
            self.target_energy,
        )

    def with_time_axis(self) -> RelnGeometry:
        """Insert an axis before the neuron axis, to evaluate a trajectory ``(..., n_t, m)``."""
        return RelnGeometry(
            self.gates[..., None, :, :], self.S[..., None, :, :, :, :], self.r[..., None, :, :], self.target_energy
        )


def reln_geometry(gates: Array, model: Model) -> RelnGeometry:
    """``S_ij = ∂²κ/∂w∂w'(g_i, g_j)``, ``r_j = Σ_k a*_k ∂κ/∂w(g_j, v_k)`` and ``E[y²]`` for gates
    ``(..., m, d)`` (any non-zero length: only their directions matter)."""
    G = np.asarray(gates, dtype=np.float64)
    norms = np.linalg.norm(G, axis=-1, keepdims=True)
    if G.ndim < 2 or not np.all(norms > 0) or not np.all(np.isfinite(G)):
        raise ValueError("reln: gates must be an array (..., m, d) of finite, non-zero directions")
    G = G / norms
    b, V = model.coefficients, model.directions
    _, S = arccos_kernel_hessians(G, G)
    r = np.einsum("...jkd,k->...jd", arccos_kernel_grad(G, V), b)
    energy = float(b @ arccos_kernel(V, V) @ b)
    return RelnGeometry(G, S, r, energy)


def _residual_direction(beta: Array, geo: RelnGeometry) -> Array:
    """``e_j = ∂L/∂β_j = Σ_i S_ji β_i − r_j``."""
    return np.einsum("...jixy,...iy->...jx", geo.S, beta) - geo.r


def reln_loss(theta: Network, geo: RelnGeometry) -> Array:
    """``L = ½ Σ_ij β_iᵀ S_ij β_j − Σ_j β_jᵀ r_j + ½ E[y²]`` with ``β_j = a_j w_j``; shape ``θ.batch``."""
    beta = theta.a[..., None] * theta.W
    quad = np.einsum("...ix,...ijxy,...jy->...", beta, geo.S, beta)
    cross = np.einsum("...jx,...jx->...", beta, geo.r)
    return 0.5 * quad - cross + 0.5 * geo.target_energy


def reln_gradient(a: Array, W: Array, geo: RelnGeometry) -> Gradient:
    """``∂L/∂a_j = w_j·e_j`` and ``∂L/∂w_j = a_j e_j``; ``δ_j`` is conserved because
    ``a_j ∂L/∂a_j = w_j·∂L/∂w_j``."""
    e = _residual_direction(a[..., None] * W, geo)
    return Gradient(np.sum(W * e, axis=-1), a[..., None] * e)


def reln_hessian(a: Array, W: Array, geo: RelnGeometry) -> Array:
    """Hessian in the packed order ``θ = (a_1..a_m, w_1, ..., w_m)`` (as
    :func:`gaugecli.core.population.dynamics.population_hessian`), shape ``(..., P, P)``:

    * ``∂²L/∂a_i∂a_j = w_iᵀ S_ij w_j``
    * ``∂²L/∂a_i∂w_j = δ_ij e_i + a_j S_ijᵀ w_i``
    * ``∂²L/∂w_i∂w_j = a_i a_j S_ij``
    """
    m, d = W.shape[-2:]
    beta = a[..., None] * W
    e = _residual_direction(beta, geo)
    SW = np.einsum("...ijxy,...ix->...ijy", geo.S, W)  # (S_ijᵀ w_i)_y
    H_aa = np.einsum("...ijy,...jy->...ij", SW, W)
    H_aw = np.eye(m)[:, :, None] * e[..., :, None, :] + a[..., None, :, None] * SW
    H_ww = (a[..., :, None] * a[..., None, :])[..., None, None] * geo.S  # (..., i, j, x, y)
    batch = np.broadcast_shapes(a.shape[:-1], geo.batch_shape)
    P = m * (d + 1)
    H = np.empty(batch + (P, P))
    H[..., :m, :m] = H_aa
    H_aw_flat = np.broadcast_to(H_aw, batch + (m, m, d)).reshape(batch + (m, m * d))
    H[..., :m, m:] = H_aw_flat
    H[..., m:, :m] = np.swapaxes(H_aw_flat, -1, -2)
    H[..., m:, m:] = np.broadcast_to(np.swapaxes(H_ww, -3, -2), batch + (m, d, m, d)).reshape(batch + (m * d, m * d))
    return H


def reln_objective(geo: RelnGeometry) -> Objective:
    """The ReLN loss as an :class:`~gaugecli.core.population.objective.Objective` for :func:`gradient_flow`;
    a batched ``geo`` gives member ``b`` of the flattened ensemble the gates ``geo.take(b)``."""

    def gradient(a: Array, W: Array) -> tuple[Array, Array, None]:
        g = reln_gradient(a, W, geo)
        return g.a, g.W, None

    members = (lambda idx: reln_objective(geo.take(idx))) if geo.batch_shape else None
    return Objective(gradient, lambda a, W: reln_hessian(a, W, geo), "reln", members)


def reln_flow(
    theta0: Network,
    gates: Array,
    model: Model,
    t_max: float,
    *,
    eps_align: float = EPS_ALIGN,
    options: FlowOptions = FlowOptions(),
    progress: Progress | None = None,
) -> Trajectory:
    """Gradient flow of the ReLN with fixed ``gates`` from ``θ0``, by the package's stiff
    solver (:func:`gaugecli.core.integrate.gradient_flow`: LSODA, closed-form Jacobian, crossing
    times of ``α_j = ŵ_j·v`` located on the dense output). ``gates`` is ``(m, d)`` (shared) or
    has the ensemble axes of ``θ0`` (one ReLN per member)."""
    theta0 = Network.of(theta0.a, theta0.W)
    geo = reln_geometry(gates, model)
    if geo.batch_shape not in ((), theta0.batch):
        raise ValueError(f"reln: gates batch {geo.batch_shape} must be () or the ensemble's {theta0.batch}")
    return gradient_flow(
        theta0, model, t_max, eps_align=eps_align, options=options, progress=progress, objective=reln_objective(geo)
    )


def trajectory_loss(trajectory: Trajectory, geo: RelnGeometry) -> Array:
    """``L(t)`` of a ReLN trajectory ``(..., n_t)``."""
    g = geo.with_time_axis() if geo.batch_shape else geo
    return reln_loss(trajectory.theta, g)


def pathway_norm(theta: Network, geo: RelnGeometry, keep: Array) -> Array:
    """``‖Σ_{j∈keep} a_j 1[g_j·x>0](w_j·x)‖_{L²(N(0,I))} = (Σ_{i,j∈keep} β_iᵀ S_ij β_j)^{1/2}`` at
    ``θ``: the ReLN counterpart of the non-owner norm P (``keep``: boolean mask over neurons)."""
    beta = np.where(np.asarray(keep)[..., None], theta.a[..., None] * theta.W, 0.0)
    return np.sqrt(np.maximum(np.einsum("...ix,...ijxy,...jy->...", beta, geo.S, beta), 0.0))


def reln_floor(geo: RelnGeometry) -> Array:
    """The lowest loss the gates allow: ``min_β L = ½E[y²] − ½ rᵀ S⁺ r`` (pseudo-inverse: the
    second-moment matrix is singular for antipodal or repeated gates)."""
    m, d = geo.gates.shape[-2:]
    S = np.swapaxes(geo.S, -3, -2).reshape(geo.batch_shape + (m * d, m * d))
    r = geo.r.reshape(geo.batch_shape + (m * d,))
    x = np.einsum("...ij,...j->...i", np.linalg.pinv(S, hermitian=True), r)
    return 0.5 * geo.target_energy - 0.5 * np.einsum("...i,...i->...", r, x)


def gate_floor(psi: Array | float, a_star: float = 1.0) -> Array:
    """One gate at angle ψ from a unit teacher feature ``a* relu(v·x)``:

        L_floor(ψ) = a*² (¼ − [(π−ψ)² + sin²ψ + 2(π−ψ) sinψ cosψ] / (4π²)) = a*² (ψ³/(3π) + O(ψ⁴)).

    (``S = I/2``, so ``β* = 2r`` and ``L = a*²/4 − ‖r‖²`` with ``r = a*((π−ψ)v + sinψ ĝ)/(2π)``.)
    """
    psi = np.asarray(psi, dtype=np.float64)
    s, c = np.sin(psi), np.cos(psi)
    return a_star**2 * (0.25 - ((np.pi - psi) ** 2 + s**2 + 2.0 * (np.pi - psi) * s * c) / (4.0 * np.pi**2))


def gate_identity_error(theta: Network, model: Model) -> tuple[float, float]:
    """Absolute differences ``(|ΔL|, ‖Δ∇L‖)`` (largest over any batch axes) between the ReLU student
    at ``θ = (a, W)`` and the ReLN gated by its current directions, equal in exact arithmetic. Absolute,
    because both losses are differences of O(1) kernel terms, so near convergence a relative error
    only measures the size of the loss."""
    a, W = theta.a, theta.W
    geo = reln_geometry(W, model)
    dL = np.abs(population_loss(theta, model) - reln_loss(theta, geo))
    g_relu, g_reln = population_gradient(theta, model), reln_gradient(a, W, geo)
    dg = np.sqrt(np.sum((g_relu.a - g_reln.a) ** 2, axis=-1) + np.sum((g_relu.W - g_reln.W) ** 2, axis=(-1, -2)))
    return float(np.max(dL)), float(np.max(dg))


# ----------------------------------------------------------------------------------------
# the aligned race


def race_rate(c: Array | float, delta: float, target: float = 1.0) -> Array:
    """``ċ = −√(δ² + 4c²)(c − a*)/2``: an aligned pathway (``w ∥ v``, gate v, or an aligned ReLU
    neuron) has ``L = ¼(c − a*)²`` and reaction mobility ``√(δ² + 4c²)``. Even in δ."""
    c = np.asarray(c, dtype=np.float64)
    return -np.hypot(delta, 2.0 * c) * (c - target) / 2.0


def _check_race(c_start: float, c_end: float, delta: float, target: float) -> None:
    if not (target > 0 and np.isfinite(target)):
        raise ValueError(f"race: the target a* must be > 0 (got {target!r})")
    if not (min(c_start, c_end) > 0 or delta != 0):
        raise ValueError("race: at δ = 0 the race starts and ends at c > 0 (c = 0 is a fixed point)")
    if (c_start - target) * (c_end - target) <= 0 or abs(c_end - target) > abs(c_start - target):
        raise ValueError(f"race: c relaxes monotonically to a* = {target}; c_end must lie between c_start and a*")


def race_time(c_start: float, c_end: float, delta: float, target: float = 1.0) -> float:
    """Time for the race to carry ``c`` from ``c_start`` to ``c_end``:
    ``T = ∫ 2 dc / ((a* − c) √(δ² + 4c²))`` by quadrature (:func:`scipy.integrate.quad`).
    Depends on δ only through δ², so ``T(−D) = T(+D)``: the race erases the gauge."""
    _check_race(c_start, c_end, delta, target)
    value, _ = integrate.quad(
        lambda c: 2.0 / ((target - c) * np.hypot(delta, 2.0 * c)), c_start, c_end, epsabs=0.0, epsrel=1e-12, limit=200
    )
    return float(value)


def _race_antiderivative(c: ArrayLike, delta: float, target: float, gap: ArrayLike | None = None) -> Array:
    # ∫ 2 dc / ((a − c)√(δ² + 4c²)) = (2/s) ln[(4ac + δ² + s√(δ² + 4c²)) / |a − c|],  s = √(δ² + 4a²);
    # the argument of the log is ≥ 2δ² + 4a(c + |c|) > 0 (Cauchy–Schwarz) unless δ = 0 and c ≤ 0.
    # ``gap`` = a − c when the caller has it more accurately than ``target − c``.
    s = np.hypot(delta, 2.0 * target)
    c = np.asarray(c, dtype=np.float64)
    gap = target - c if gap is None else gap
    return (2.0 / s) * (np.log(4.0 * target * c + delta**2 + s * np.hypot(delta, 2.0 * c)) - np.log(np.abs(gap)))


def race_time_exact(c_start: float, c_end: float, delta: float, target: float = 1.0) -> float:
    """:func:`race_time` from the antiderivative ``(2/s) ln[(4a*c + δ² + s√(δ² + 4c²)) / |a* − c|]``,
    ``s = √(δ² + 4a*²)``; at δ = 0 and a* = 1 it is the Saxe sigmoid ``T = ln[c(1−c₀)/(c₀(1−c))]``."""
    _check_race(c_start, c_end, delta, target)
    return float(_race_antiderivative(c_end, delta, target) - _race_antiderivative(c_start, delta, target))


def race_coefficient(t: Array, c0: float, delta: float, target: float = 1.0) -> Array:
    """``c(t)`` of the race from ``c(0) = c0``, by inverting :func:`race_time_exact` (monotone in c)
    in the log of the remaining gap ``z = (a* − c)/(a* − c0)``, so that late times stay accurate."""
    t = np.atleast_1d(np.asarray(t, dtype=np.float64))
    if np.any(t < 0) or not np.all(np.isfinite(t)):
        raise ValueError("race: times must be finite and ≥ 0")
    if c0 == target:
        return np.full(t.shape, float(target))
    _check_race(c0, target - 0.5 * (target - c0), delta, target)
    F0 = _race_antiderivative(c0, delta, target)
    out = np.empty_like(t)
    for i, ti in enumerate(t):

        def excess(logz: float, ti: float = ti) -> float:
            g = (target - c0) * np.exp(logz)
            return float(_race_antiderivative(target - g, delta, target, g) - F0 - ti)

        lo = -1.0
        while excess(lo) < 0.0 and lo > -700.0:  # e^-700: the gap is below any float resolution of c
            lo = max(2.0 * lo, -700.0)
        if ti == 0.0:
            out[i] = c0
        elif excess(lo) < 0.0:  # beyond the underflow of the gap: c = a* to round-off
            out[i] = target
        else:
            out[i] = target - (target - c0) * np.exp(optimize.brentq(excess, lo, 0.0, xtol=1e-14, rtol=1e-14))
    return out


def race_loss(c: Array, target: float = 1.0) -> Array:
    """``L = ¼(c − a*)²`` of an aligned pathway (ReLU or final-gate ReLN)."""
    return 0.25 * (np.asarray(c, dtype=np.float64) - target) ** 2


# ----------------------------------------------------------------------------------------
# asymptotes of the final-gate ReLN (one pathway, gate = v, started at u0 ⊥ v)


def final_gate_tspec_asymptote(delta: float, c0: float, eps_align: float, a_star: float = 1.0) -> float:
    """Large-|δ| asymptote of ``T_spec`` for the single pathway gated by the teacher ``v``
    (``L = ¼‖β − a* v‖²``) from ``β = c0 u0``, ``u0 ⊥ v``; ``tan θ_ε = √(1 − (1−ε)²)/(1 − ε)``:

    * ``δ = +D``: ``a² ≈ D`` dominates, β relaxes to ``a* v`` at rate D/2 along a straight line, so
      ``T ≈ (2/D) ln(1 + c0/(a* tan θ_ε))`` (1.0634/D at the defaults);
    * ``δ = −D``: a linear pathway ⊥ v has zero correlation with the target, so β sits near the saddle
      β = 0: a relaxes (rate D/2) to its slaved value ``a* w_v/‖w‖²``, which leaves the seed
      ``tan θ ≈ D²/(c0 a*)``, and on the slow manifold ``‖w‖² ≈ D``, ``tan θ`` decays at exactly
      ``a*²/(2D)``: ``T ≈ (2D/a*²) ln(D²/(c0 a* tan θ_ε))`` = ``D(4 ln D + 8.502)`` at the defaults.
    """
    if delta == 0 or c0 <= 0 or not 0 < eps_align < 1 or a_star <= 0:
        raise ValueError("asymptote: needs δ ≠ 0, c0 > 0, 0 < ε < 1 and a* > 0")
    tan_eps = np.sqrt(1.0 - (1.0 - eps_align) ** 2) / (1.0 - eps_align)
    D = abs(delta)
    if delta > 0:
        return float(2.0 / D * np.log1p(c0 / (a_star * tan_eps)))
    return float(2.0 * D / a_star**2 * np.log(D**2 / (c0 * a_star * tan_eps)))
