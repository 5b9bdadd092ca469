"""The optimizer interface: hyper-parameters in a frozen dataclass, the running state beside it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar

from gaugecli.core.types import Array


@dataclass
class State:
    """What an optimizer carries between steps, per parameter array: the step count ``t`` (torch's
    ``state['step']``) and named buffers (``momentum_buffer``, ``exp_avg``, ``exp_avg_sq``)."""

    t: int = 0
    buffers: dict[str, list[Array]] = field(default_factory=dict)


@dataclass(frozen=True)
class Optimizer(ABC):
    """One update rule. :meth:`step` maps the parameters and their gradients at step ``k`` to the
    parameters at ``k + 1`` with learning rate ``eta``; the state it reads and writes is the caller's
    (one per run), so one optimizer object serves any number of runs."""

    name: ClassVar[str]
    decay: float = 0.0
    """A decoupled weight decay ``θ ← (1 − ηλ)θ`` before the update (AdamW's; 0 for the others,
    whose decay, if any, is the objective's ``+λθ`` in the gradient: torch's ``weight_decay``)."""

    @property
    def is_gd(self) -> bool:
        """Plain gradient descent ``θ ← θ − η g``: GD's per-step identity for δ holds."""
        return False

    def start(self) -> State:
        return State()

    @abstractmethod
    def update(self, state: State, params: list[Array], grads: list[Array], eta: float) -> list[Array]:
        """The new parameters (new arrays; ``params`` are not modified)."""

    def step(self, state: State, params: list[Array], grads: list[Array], eta: float) -> list[Array]:
        state.t += 1
        if self.decay:
            params = [(1.0 - eta * self.decay) * p for p in params]
        return self.update(state, params, grads, eta)

    def describe(self) -> str:
        return self.name
