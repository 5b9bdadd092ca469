"""Objectives: the losses that the flow and gradient descent descend, each a gradient oracle
with (optionally) its closed-form Hessian, and the weight decay that any of them can carry:

    J(θ) = L(θ) + (λ/2) Σ_j (a_j² + ‖w_j‖²),   ∇J = ∇L + λθ,   ∇²J = ∇²L + λI.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population.dynamics import (
    _fused_weights,
    population_gradient,
    population_gradient_packed,
    population_hessian,
)
from gaugecli.core.types import Array, Indices

GradientOracle = Callable[[Array, Array], tuple[Array, Array, Array | None]]
"""``(a, W) → (∂L/∂a, ∂L/∂W, loss or None)`` for the objective that GD descends."""

Hessian = Callable[[Array, Array], Array]
"""``(a, W) → ∇²L`` of shape ``(..., P, P)``, ``P = m (d + 1)``, packed ``θ = (a_1..a_m, w_1, ..., w_m)``."""

HessianVector = Callable[[Array, Array, Array], Array]
"""``(a (m,), W (m, d), v (P,)) → ∇²L v (P,)``, packed as :data:`Hessian`."""


@dataclass(frozen=True)
class Objective:
    """A loss ``L`` to descend: ``gradient`` gives ``(∂L/∂a, ∂L/∂W, L or None)``, ``hessian``
    gives ``∇²L`` (``None``: the stiff solvers estimate their Jacobian by finite differences).
    ``name`` says which loss (``"population"``, ``"empirical n=…"``) in solver statistics.

    ``members``: for a loss that differs between the members of an ensemble (a ReLN with gates
    per member), ``members(idx)`` is the objective of the members ``idx`` of the flattened
    ensemble — the flow integrates chunks of members; ``None`` when every member shares it."""

    gradient: GradientOracle
    hessian: Hessian | None
    name: str
    members: Callable[[Indices], Objective] | None = None
    population: bool = False
    """The population loss (with or without decay): deterministic, with its exact saddles."""
    packed: Callable[[Array], Array] | None = None
    """``Y (B, P) → ∇J`` in the flow's packing (rows ``θ = (a_1..a_m, w_1, ..., w_m)``), where the
    objective has a route that skips unpacking (the population loss of the ReLU family: :mod:`gaugecli.core.population.fused`);
    ``None``: the flow packs what ``gradient`` returns. Both give the same numbers."""
    hessian_vector: HessianVector | None = None
    """``(a, W, v) → ∇²L v`` for one network without forming ``∇²L`` (the finite-sample loss), where
    the objective has it: GD's stability bound then takes ``λ_max`` by Lanczos
    (:func:`gaugecli.core.integrate.descent.stable_step_bound`)."""

    descent: tuple[Array, Array, tuple[float, float], float] | None = None
    """``(b, V, (A, B), λ)`` where the gradient is the compiled population gradient of the ReLU family
    against the teacher ``(b, V)`` with kernel weights ``(A, B)`` (:func:`gaugecli.core.population.fused.gradient`)
    plus ``λθ``: what :mod:`gaugecli.core.integrate.population_loop` descends in its compiled loop (the same
    numbers); ``None`` for any other loss."""

    def restricted(self, idx: Indices) -> Objective:
        """The objective of the members ``idx`` (itself when members share one loss)."""
        return self if self.members is None else self.members(idx)

    def with_weight_decay(self, weight_decay: float) -> Objective:
        """``J = L + (λ/2)‖θ‖²``: gradient ``+ λθ``, Hessian ``+ λI`` (itself when ``λ = 0``). The
        oracle's loss value stays ``L``, the data term, which is what the runs record."""
        lam = float(weight_decay)
        if lam == 0.0:
            return self
        base = self
        gradient = decayed(base.gradient, lam)
        hessian = None if base.hessian is None else _shifted(base.hessian, lam)
        members = None if base.members is None else _decayed_members(base.members, lam)
        packed = None if base.packed is None else _decayed_packed(base.packed, lam)
        hvp = None if base.hessian_vector is None else _shifted_product(base.hessian_vector, lam)
        name = f"{base.name} + weight decay λ={lam:g}"
        # one decay on the compiled gradient (a second would add λ₂θ to g + λ₁θ: another rounding)
        descent = None if base.descent is None or base.descent[3] != 0.0 else (*base.descent[:3], lam)
        return Objective(gradient, hessian, name, members, base.population, packed, hvp, descent)


def decayed(oracle: GradientOracle, weight_decay: float) -> GradientOracle:
    """The oracle of ``J = L + (λ/2)‖θ‖²`` from that of ``L`` (itself when ``λ = 0``): a minibatch
    oracle for SGD gets its decay here, a full objective by :meth:`Objective.with_weight_decay`."""
    lam = float(weight_decay)
    if lam == 0.0:
        return oracle

    def gradient(a: Array, W: Array) -> tuple[Array, Array, Array | None]:
        ga, gW, loss = oracle(a, W)
        return ga + lam * a, gW + lam * W, loss

    name = getattr(oracle, "objective_name", None)
    if name is not None:
        gradient.objective_name = f"{name} + weight decay λ={lam:g}"  # type: ignore[attr-defined]
    return gradient


def _shifted(hessian: Hessian, lam: float) -> Hessian:
    def shifted(a: Array, W: Array) -> Array:
        H = hessian(a, W)
        diag = np.arange(H.shape[-1])
        H[..., diag, diag] += lam
        return H

    return shifted


def _shifted_product(product: HessianVector, lam: float) -> HessianVector:
    return lambda a, W, v: product(a, W, v) + lam * np.asarray(v)


def _decayed_packed(packed: Callable[[Array], Array], lam: float) -> Callable[[Array], Array]:
    def decayed_packed(Y: Array) -> Array:
        G = packed(Y)
        G += lam * Y
        return G

    return decayed_packed


def _decayed_members(members: Callable[[Indices], Objective], lam: float) -> Callable[[Indices], Objective]:
    return lambda idx: members(idx).with_weight_decay(lam)


def population_objective(model: Model) -> Objective:
    """The population loss ``L`` (docs/theory.md §2) in closed form (gradient and Hessian), with the model's
    weight decay."""

    def gradient(a: Array, W: Array) -> tuple[Array, Array, None]:
        g = population_gradient(Network(a, W), model)
        return g.a, g.W, None

    weights = _fused_weights(model)
    objective = Objective(
        gradient,
        lambda a, W: population_hessian(Network(a, W), model),
        "population",
        population=True,
        packed=population_gradient_packed(model),
        descent=None if weights is None else (model.coefficients, model.directions, weights, 0.0),
    )
    return objective.with_weight_decay(model.weight_decay)


def population_oracle(model: Model) -> GradientOracle:
    return population_objective(model).gradient
