"""The discrete optimizers gradient descent can step with: one file per family, one registry naming them.

Each :class:`~gaugecli.core.integrate.optimizers.base.Optimizer` is a frozen dataclass of its hyper-parameters
whose update is exactly ``torch.optim``'s (same order of operations up to round-off):

* ``sgd``: ``θ ← θ − η g`` (:class:`torch.optim.SGD` without momentum), the package's GD;
* ``momentum``: heavy ball, ``b ← β b + g`` (``b₁ = g₁``, torch's first-step buffer), ``θ ← θ − η b``,
  or Nesterov's ``θ ← θ − η (g + β b)``;
* ``adam``: ``m ← β₁ m + (1 − β₁) g``, ``v ← β₂ v + (1 − β₂) g²``,
  ``θ ← θ − (η / (1 − β₁ᵗ)) m / (√v / √(1 − β₂ᵗ) + ε)`` (bias correction, ε outside the root);
* ``adamw``: Adam on the loss's gradient after the decoupled decay ``θ ← (1 − ηλ) θ``.

The registry names modules rather than importing them (as :mod:`gaugecli.core.activations` does),
so the command line reads the names for ``--help`` and its checks without importing numpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gaugecli.core.integrate.optimizers.base import Optimizer

REGISTRY: dict[str, str] = {
    "sgd": "sgd:SGD",
    "momentum": "sgd:Momentum",
    "adam": "adam:Adam",
    "adamw": "adam:AdamW",
}
"""Name → ``module:Class`` in this package: the one line an optimizer adds."""

PARAMETERS: dict[str, tuple[str, ...]] = {
    "sgd": (),
    "momentum": ("momentum", "nesterov"),
    "adam": ("betas", "adam_eps"),
    "adamw": ("betas", "adam_eps", "decay"),
}
"""The keyword parameters each optimizer takes (the configs refuse the others)."""

ROTATION_INVARIANT: dict[str, bool] = {"sgd": True, "momentum": True, "adam": False, "adamw": False}
"""Whether the update commutes with an orthogonal change of basis ``θ → Qθ`` (a linear update in the
gradient does; Adam's per-coordinate normalisation does not). Only an invariant optimizer may run in
the invariant subspace's rotated coordinates (:mod:`gaugecli.core.model.subspace`)."""


def optimizer_class(name: str) -> type[Optimizer]:
    """The class registered as ``name`` (imported on first use); an unknown name is a ValueError."""
    if name not in REGISTRY:
        raise ValueError(f"unknown optimizer {name!r}; choose one of: {', '.join(REGISTRY)}")
    module, cls = REGISTRY[name].split(":")
    return getattr(importlib.import_module(f"{__name__}.{module}"), cls)


def optimizer(name: str, **params: Any) -> Optimizer:
    """The optimizer registered as ``name`` with its hyper-parameters ``params``."""
    return optimizer_class(name)(**params)
