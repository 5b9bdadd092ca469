"""Objectives: the losses that the flow and gradient descent descend, each a gradient oracle
with (optionally) its closed-form Hessian."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gaugecli.core.dynamics import population_gradient, population_hessian
from gaugecli.core.teacher import Teacher
from gaugecli.core.types import Array, Indices

GradientOracle = Callable[[Array, Array], tuple[Array, Array, Array | None]]
"""``(a, W) → (∂L/∂a, ∂L/∂W, loss or None)`` for the objective that GD descends."""

Hessian = Callable[[Array, Array], Array]
"""``(a, W) → ∇²L`` of shape ``(..., P, P)``, ``P = m (d + 1)``, packed ``θ = (a_1..a_m, w_1, ..., w_m)``."""


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

    def restricted(self, idx: Indices) -> Objective:
        """The objective of the members ``idx`` (itself when members share one loss)."""
        return self if self.members is None else self.members(idx)


def population_objective(teacher: Teacher) -> Objective:
    """The population loss ``L`` of SPEC §1 in closed form (gradient and Hessian)."""

    def gradient(a: Array, W: Array) -> tuple[Array, Array, None]:
        g = population_gradient(a, W, teacher)
        return g.a, g.W, None

    return Objective(gradient, lambda a, W: population_hessian(a, W, teacher), "population")


def population_oracle(teacher: Teacher) -> GradientOracle:
    return population_objective(teacher).gradient
