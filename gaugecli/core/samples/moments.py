"""``L_n`` of a σ = z² network (student and teacher) through the sample's fourth moments.

With ``f(x) = Σ_j a_j (w_j·x)² = xᵀ A x``, ``A = Σ_j a_j w_j w_jᵀ``, and the teacher's
``f*(x) = xᵀ A* x``, ``A* = Σ_k a*_k v_k v_kᵀ``, the residual is ``r(x) = xᵀ Δ x`` with
``Δ = A − A*``, so

    L_n = (1/2n) Σ_i (x_iᵀ Δ x_i)² = ½ vec(Δ)ᵀ M vec(Δ),   M = (1/n) Σ_i vec(x_i x_iᵀ) vec(x_i x_iᵀ)ᵀ,

    ∂L_n/∂a_j = w_jᵀ G w_j,   ∂L_n/∂w_j = 2 a_j G w_j,   G = unvec(M vec(Δ)) = (1/n) Σ_i r_i x_i x_iᵀ.

The sample enters only through ``M`` (``d² × d²``, formed once), so a gradient costs ``O(d⁴ + m d²)``
instead of ``O(n m d)``: at ``d = 16``, ``n = 10⁴`` about 20× less. It is the same ``L_n`` as
:class:`~gaugecli.core.samples.empirical.EmpiricalSample`'s, to round-off: the labels are those of ``A*``
rather than the stored ``y = fl(τ(XVᵀ)a*)``, which differ from them by round-off, and the loss is
formed from ``Δ`` (no cancellation between ``f`` and ``y``, as in ``½ mean(r²)``).
"""

from __future__ import annotations

import numpy as np

from gaugecli.core.model.model import Model
from gaugecli.core.population.objective import GradientOracle
from gaugecli.core.types import Array

MAX_MOMENT_BYTES = 64 * 2**20
"""``M`` holds ``d⁴`` numbers: 0.5 MiB at d = 16, 8 MiB at d = 32, 128 MiB at d = 64 (refused)."""


def moments_apply(model: Model) -> bool:
    """Whether ``L_n`` of ``model`` is a quadratic form in ``Δ``: student and teacher σ = z², no decay
    (the decay term is added by the caller's objective, not here), ``M`` within :data:`MAX_MOMENT_BYTES`."""
    return (
        model.activation.name == "square"
        and model.teacher_sigma.name == "square"
        and 8 * model.d**4 <= MAX_MOMENT_BYTES
    )


class QuadraticMoments:
    """The fourth-moment matrix ``M`` of a sample ``X (n, d)`` and the teacher's ``A*``."""

    def __init__(self, X: Array, model: Model) -> None:
        if not moments_apply(model):
            raise ValueError(
                f"QuadraticMoments needs σ = z² for student and teacher and d ≤ 32 (got {model.describe()}, d = {model.d})"
            )
        X = np.asarray(X, dtype=float)
        n, d = X.shape
        self.n, self.d = n, d
        M = np.zeros((d * d, d * d))
        for start in range(0, n, 4096):  # rows in blocks: vec(x xᵀ) is d² wide
            block = X[start : start + 4096]
            psi = (block[:, :, None] * block[:, None, :]).reshape(block.shape[0], d * d)
            M += psi.T @ psi
        self.M = M / n
        V, c = model.directions, model.coefficients
        self.teacher = np.einsum("k,ki,kj->ij", c, V, V)

    def residual_form(self, a: Array, W: Array) -> Array:
        """``Δ = Σ_j a_j w_j w_jᵀ − A*`` with the ensemble axes of ``a (..., m)``, ``W (..., m, d)``."""
        return np.einsum("...j,...ji,...jk->...ik", a, W, W) - self.teacher

    def gradient(self, a: Array, W: Array) -> tuple[Array, Array, Array]:
        """``(∂L_n/∂a, ∂L_n/∂W, L_n)``, ensemble axes kept."""
        a, W = np.asarray(a, float), np.asarray(W, float)
        delta = self.residual_form(a, W).reshape(*a.shape[:-1], self.d * self.d)
        g = delta @ self.M  # M is symmetric
        loss = 0.5 * np.einsum("...i,...i->...", delta, g)
        G = g.reshape(*a.shape[:-1], self.d, self.d)
        GW = np.einsum("...ik,...jk->...ji", G, W)  # G w_j (G symmetric)
        ga = np.einsum("...ji,...ji->...j", W, GW)
        gW = 2.0 * a[..., None] * GW
        return ga, gW, loss

    def oracle(self) -> GradientOracle:
        """For :func:`gaugecli.core.integrate.descent.gradient_descent`."""
        return self.gradient
