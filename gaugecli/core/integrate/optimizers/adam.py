"""Adam and AdamW, as :class:`torch.optim.Adam` and :class:`torch.optim.AdamW` step them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gaugecli.core.integrate.optimizers.base import Optimizer, State
from gaugecli.core.types import Array


@dataclass(frozen=True)
class Adam(Optimizer):
    """``m ← β₁ m + (1 − β₁) g``, ``v ← β₂ v + (1 − β₂) g²`` (both from 0), then
    ``θ ← θ − (η / (1 − β₁ᵗ)) · m / (√v / √(1 − β₂ᵗ) + ε)``: bias-corrected, ε outside the root.
    Per coordinate: at small η and ε every coordinate with a steady gradient moves at rate η
    whatever its size (``m/√v → sign g``), so the update is not invariant under the rescaling
    ``(a, w) → (a/λ, λw)`` nor under a rotation of the inputs."""

    name: ClassVar[str] = "adam"
    betas: tuple[float, float] = (0.9, 0.999)
    adam_eps: float = 1e-8

    def update(self, state: State, params: list[Array], grads: list[Array], eta: float) -> list[Array]:
        beta1, beta2 = self.betas
        if "exp_avg" not in state.buffers:
            state.buffers["exp_avg"] = [np.zeros_like(g) for g in grads]
            state.buffers["exp_avg_sq"] = [np.zeros_like(g) for g in grads]
        # m by torch's lerp, m + (1 − β₁)(g − m): the same number as β₁m + (1 − β₁)g up to round-off
        m: list[Array] = [mk + (1.0 - beta1) * (g - mk) for mk, g in zip(state.buffers["exp_avg"], grads, strict=True)]
        v: list[Array] = [
            beta2 * vk + (1.0 - beta2) * g * g for vk, g in zip(state.buffers["exp_avg_sq"], grads, strict=True)
        ]
        state.buffers["exp_avg"], state.buffers["exp_avg_sq"] = m, v
        step_size = eta / (1.0 - beta1**state.t)
        root = math.sqrt(1.0 - beta2**state.t)
        return [
            p - step_size * mk / (np.sqrt(vk) / root + self.adam_eps) for p, mk, vk in zip(params, m, v, strict=True)
        ]

    def describe(self) -> str:
        return f"{self.name} β = ({self.betas[0]:g}, {self.betas[1]:g})"


@dataclass(frozen=True)
class AdamW(Adam):
    """Adam on the loss's gradient after the decoupled decay ``θ ← (1 − ηλ)θ`` (``decay`` = λ)."""

    name: ClassVar[str] = "adamw"

    def describe(self) -> str:
        return f"{super().describe()}, decoupled decay λ = {self.decay:g}"
