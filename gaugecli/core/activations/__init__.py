"""Activations as objects: one file per activation, one registry naming them.

An :class:`~gaugecli.core.activations.base.Activation` bundles everything the Gaussian
teacher-student model ``f(x) = Σ_j a_j σ(w_j·x)``, ``x ~ N(0, I_d)``, needs from ``σ``: the function
and its derivatives (numpy and torch), the homogeneity degree ``p`` that sets the gauge
``(a, w) → (a/λ^p, λw)``, and the kernel ``K(w, w') = E[σ(w·x) σ(w'·x)]`` with its gradient and
Hessian blocks in closed form (finite at duplicate and antipodal neurons).

**Adding an activation** is one new module here and one line in :data:`REGISTRY`; the command
line's ``--activation`` choices, the configs' check and the tests (parametrised over the registry)
follow from it. :func:`register` adds one at run time (a notebook's own, or a test's toy).

The registry names modules rather than importing them, so that the command line reads the names
(for ``--help`` and its checks) without importing numpy; :data:`ACTIVATIONS` (name → class) imports
them on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gaugecli.core.activations.base import Activation

REGISTRY: dict[str, str] = {
    "relu": "relu:ReLU",
    "leaky-relu": "leaky_relu:LeakyReLU",
    "relu2": "relu2:ReLU2",
    "square": "square:Square",
    "linear": "linear:Linear",
    "erf": "erf:Erf",
}
"""Name → ``module:Class`` in this package: the one line an activation adds."""

PARAMETERS: dict[str, tuple[str, ...]] = {"leaky-relu": ("negative_slope",)}
"""The keyword parameters of the activations that have any (the others take none)."""

_LOADED: dict[str, type[Activation]] = {}


def activation_class(name: str) -> type[Activation]:
    """The class registered as ``name`` (imported on first use); an unknown name is a ValueError."""
    if name not in _LOADED:
        if name not in REGISTRY:
            raise ValueError(f"unknown activation {name!r}; choose one of: {', '.join(REGISTRY)}")
        module, cls = REGISTRY[name].split(":")
        _LOADED[name] = getattr(importlib.import_module(f"{__name__}.{module}"), cls)
    return _LOADED[name]


def activation(name: str, **params: Any) -> Activation:
    """The activation registered as ``name``, built with ``params`` (``leaky-relu``: ``negative_slope``)."""
    return activation_class(name)(**params)


def register(cls: type[Activation]) -> type[Activation]:
    """Register ``cls`` under ``cls.name`` for this process (usable as a class decorator)."""
    REGISTRY[cls.name] = f"{cls.__module__}:{cls.__qualname__}"
    _LOADED[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    """Remove an activation registered at run time (a test's toy)."""
    REGISTRY.pop(name, None)
    _LOADED.pop(name, None)


def __getattr__(attr: str) -> Any:
    # ACTIVATIONS and the classes themselves import numpy: only when asked for
    if attr == "ACTIVATIONS":
        return {name: activation_class(name) for name in REGISTRY}
    if attr == "Activation":
        from gaugecli.core.activations.base import Activation

        return Activation
    for name, target in REGISTRY.items():
        if target.endswith(":" + attr):
            return activation_class(name)
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
