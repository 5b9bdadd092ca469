"""Activations as objects: one file per activation, one registry naming them.

An :class:`~gaugecli.core.activations.base.Activation` bundles everything the Gaussian
teacher-student model ``f(x) = Σ_j a_j σ(w_j·x)``, ``x ~ N(0, I_d)``, needs from ``σ``: the function
and its derivative (numpy and torch), the homogeneity degree ``p`` that sets the gauge
``(a, w) → (a/λ^p, λw)``, and the kernel ``K(w, w') = E[σ(w·x) σ(w'·x)]`` with its gradient and
Hessian blocks in closed form (finite at duplicate and antipodal neurons). Adding an activation is
one new module and one line in :data:`ACTIVATIONS`; the tests parametrise over the registry.

Not yet wired into the dynamics, which still use :mod:`gaugecli.core.kernels` (ReLU) and
:mod:`gaugecli.core.quadratic` (σ = z²) directly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gaugecli.core.activations.base import Activation
from gaugecli.core.activations.erf import Erf
from gaugecli.core.activations.leaky_relu import LeakyReLU
from gaugecli.core.activations.linear import Linear
from gaugecli.core.activations.relu import ReLU
from gaugecli.core.activations.relu2 import ReLU2
from gaugecli.core.activations.square import Square

__all__ = ["ACTIVATIONS", "Activation", "Erf", "LeakyReLU", "Linear", "ReLU", "ReLU2", "Square", "activation"]

ACTIVATIONS: dict[str, Callable[..., Activation]] = {
    cls.name: cls for cls in (ReLU, LeakyReLU, ReLU2, Square, Linear, Erf)
}
"""Name → factory; the factory's keyword arguments are the activation's parameters
(``leaky-relu``: ``negative_slope``)."""


def activation(name: str, **params: Any) -> Activation:
    """The activation registered as ``name``, built with ``params``; an unknown name is a ValueError."""
    try:
        factory = ACTIVATIONS[name]
    except KeyError:
        raise ValueError(f"unknown activation {name!r}; choose one of: {', '.join(sorted(ACTIVATIONS))}") from None
    return factory(**params)
