"""Cross kernels ``K(w, v) = E[σ(w·x) τ(v·x)]`` between a student's activation σ and a teacher's τ.

A teacher with another activation than the student's needs the kernel of the pair. It is in closed
form where both belong to one family of :meth:`~gaugecli.core.activations.base.Activation.parts`:

* **relu**: ``σ = α relu + β id`` (relu ``(1, 0)``, leaky-relu ``(1 − β, β)``, linear ``(0, 1)``). With
  ``E[relu(u) v] = E[uv]/2`` for zero-mean jointly Gaussian ``(u, v)`` (the leaky-relu derivation),

      E[σ₁(u) σ₂(v)] = α₁α₂ κ(w, v) + γ w·v,   γ = (α₁β₂ + β₁α₂)/2 + β₁β₂,

  with ``κ`` the degree-one arc-cosine kernel.
* **relu2**: ``σ(z) = A relu(z)² + B relu(−z)²`` (relu2 ``(1, 0)``, square ``(1, 1)``). With ``K₂`` the
  degree-two arc-cosine kernel and ``relu(−w·x)² = relu((−w)·x)²``,

      E[σ₁(u) σ₂(v)] = (A₁A₂ + B₁B₂) K₂(w, v) + (A₁B₂ + B₁A₂) K₂(w, −v).

Other pairs (another degree, erf) have no closed form here: :func:`cross_kernel` refuses them. The
derivatives follow from the parts' (the ``−v`` term's ``∂/∂v`` flips sign).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaugecli.core.activations.base import Activation, filled, inner, kernel_and_grad_sum, pair_shape, right
from gaugecli.core.kernels.arccos import arccos_kernel, arccos_kernel_grad, arccos_kernel_hessians
from gaugecli.core.types import Array


@dataclass(frozen=True)
class ReluLinearCross:
    """``α₁α₂ κ(w, v) + γ w·v`` (module docstring, relu family)."""

    relu: float
    linear: float

    def kernel(self, W1: Array, W2: Array) -> Array:
        return self.relu * arccos_kernel(W1, W2) + self.linear * inner(W1, W2)

    def kernel_grad(self, W1: Array, W2: Array) -> Array:
        linear = filled(pair_shape(W1, W2) + (W1.shape[-1],), right(W2))
        return self.relu * arccos_kernel_grad(W1, W2) + self.linear * linear

    def kernel_and_grad(self, W1: Array, W2: Array) -> tuple[Array, Array]:
        return self.kernel(W1, W2), self.kernel_grad(W1, W2)

    def kernel_and_grad_sum(self, W1: Array, W2: Array, weights: Array) -> tuple[Array, Array]:
        return kernel_and_grad_sum(self, W1, W2, weights)

    def kernel_hessians(self, W1: Array, W2: Array) -> tuple[Array, Array]:
        h11, h12 = arccos_kernel_hessians(W1, W2)
        return self.relu * h11, self.relu * h12 + self.linear * np.eye(W1.shape[-1])


@dataclass(frozen=True)
class Relu2Cross:
    """``s K₂(w, v) + t K₂(w, −v)`` (module docstring, relu2 family)."""

    base: Activation  # relu2: its kernel K₂
    same: float
    flipped: float

    def kernel(self, W1: Array, W2: Array) -> Array:
        return self.same * self.base.kernel(W1, W2) + self.flipped * self.base.kernel(W1, -W2)

    def kernel_grad(self, W1: Array, W2: Array) -> Array:
        return self.same * self.base.kernel_grad(W1, W2) + self.flipped * self.base.kernel_grad(W1, -W2)

    def kernel_and_grad(self, W1: Array, W2: Array) -> tuple[Array, Array]:
        return self.kernel(W1, W2), self.kernel_grad(W1, W2)

    def kernel_and_grad_sum(self, W1: Array, W2: Array, weights: Array) -> tuple[Array, Array]:
        return kernel_and_grad_sum(self, W1, W2, weights)

    def kernel_hessians(self, W1: Array, W2: Array) -> tuple[Array, Array]:
        h11, h12 = self.base.kernel_hessians(W1, W2)
        f11, f12 = self.base.kernel_hessians(W1, -W2)
        return self.same * h11 + self.flipped * f11, self.same * h12 - self.flipped * f12


def cross_kernel(student: Activation, teacher: Activation) -> Activation | ReluLinearCross | Relu2Cross:
    """The kernel of the pair (the student's own when ``teacher == student``); a ValueError naming
    the families for a pair without a closed form."""
    if teacher == student:
        return student
    mine, theirs = student.parts(), teacher.parts()
    if mine is None or theirs is None or mine[0] != theirs[0]:
        raise ValueError(
            f"no closed-form kernel between student σ = {student.describe()} and teacher τ = {teacher.describe()}; "
            "pair activations of one family: relu, leaky-relu, linear (degree 1) or relu2, square (degree 2)"
        )
    family, (a1, b1), (a2, b2) = mine[0], mine[1], theirs[1]
    if family == "relu":
        return ReluLinearCross(a1 * a2, (a1 * b2 + b1 * a2) / 2.0 + b1 * b2)
    from gaugecli.core.activations.relu2 import ReLU2

    return Relu2Cross(ReLU2(), a1 * a2 + b1 * b2, a1 * b2 + b1 * a2)
