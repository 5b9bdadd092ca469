"""Gradient descent and heavy-ball momentum, as :class:`torch.optim.SGD` steps them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from gaugecli.core.integrate.optimizers.base import Optimizer, State
from gaugecli.core.types import Array


@dataclass(frozen=True)
class SGD(Optimizer):
    """``θ ← θ − η g``."""

    name: ClassVar[str] = "sgd"

    @property
    def is_gd(self) -> bool:
        return self.decay == 0.0

    def update(self, state: State, params: list[Array], grads: list[Array], eta: float) -> list[Array]:
        return [p - eta * g for p, g in zip(params, grads, strict=True)]


@dataclass(frozen=True)
class Momentum(Optimizer):
    """Heavy ball as torch steps it (dampening 0): ``b₁ = g₁``, ``b_k = β b_{k−1} + g_k``, then
    ``θ ← θ − η b`` — or, ``nesterov``, ``θ ← θ − η (g + β b)``. Unrolled,
    ``θ_{k+1} − θ_k = β (θ_k − θ_{k−1}) − η g_k``: at small η an effective step ``η/(1 − β)``."""

    name: ClassVar[str] = "momentum"
    momentum: float = 0.9
    nesterov: bool = False

    def update(self, state: State, params: list[Array], grads: list[Array], eta: float) -> list[Array]:
        beta = self.momentum
        if "momentum_buffer" not in state.buffers:  # torch: the first buffer is the gradient itself
            buffers = [g.copy() for g in grads]
        else:
            buffers = [beta * b + g for b, g in zip(state.buffers["momentum_buffer"], grads, strict=True)]
        state.buffers["momentum_buffer"] = buffers
        directions = [g + beta * b for g, b in zip(grads, buffers, strict=True)] if self.nesterov else buffers
        return [p - eta * u for p, u in zip(params, directions, strict=True)]

    def describe(self) -> str:
        return f"{'nesterov' if self.nesterov else 'momentum'} β = {self.momentum:g}"
