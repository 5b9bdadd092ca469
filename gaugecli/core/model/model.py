"""The model: a teacher, the activation both networks use, and the weight decay of the objective.

Student ``f(x) = Σ_j a_j σ(w_j·x)``, teacher ``y(x) = Σ_k a*_k τ(v_k·x)`` (``τ = σ`` unless the teacher
has its own activation), inputs ``x ~ N(0, I_d)``, and the objective the flows descend

    J(θ) = L(θ) + (λ/2) Σ_j (a_j² + ‖w_j‖²),   L(θ) = ½ E[(f − y)²].

Every population quantity is a sum of the activation's kernel ``K(w, w') = E[σ(w·x) σ(w'·x)]``
(:mod:`gaugecli.core.activations`), so the whole core takes a :class:`Model` where it once took a
bare :class:`~gaugecli.core.model.teacher.Teacher`; the paper's model is ``Model(teacher)`` (ReLU, λ = 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property

from gaugecli.core.activations.base import Activation
from gaugecli.core.activations.cross import Relu2Cross, ReluLinearCross, cross_kernel
from gaugecli.core.activations.relu import ReLU
from gaugecli.core.model.teacher import Teacher, standard_teacher
from gaugecli.core.types import Array


@dataclass(frozen=True)
class Model:
    """The teacher, the activation ``σ`` of the student, the teacher's ``τ`` (``None``: ``σ``), and the
    weight decay ``λ ≥ 0``.

    It reads as its teacher (``coefficients``, ``directions``, ``k``, ``d``) and labels inputs:
    ``model(X) = τ(X Vᵀ) a*``. ``cross`` is the student–teacher kernel ``E[σ(w·x) τ(v·x)]``."""

    teacher: Teacher
    activation: Activation = field(default_factory=ReLU)
    weight_decay: float = 0.0
    teacher_activation: Activation | None = None

    def __post_init__(self) -> None:
        if not (math.isfinite(self.weight_decay) and self.weight_decay >= 0.0):
            raise ValueError(f"weight_decay must be a finite number ≥ 0 (got {self.weight_decay})")
        self.cross  # noqa: B018 - a pair without a closed-form kernel is refused when the model is made

    @property
    def teacher_sigma(self) -> Activation:
        """The teacher's activation τ."""
        return self.activation if self.teacher_activation is None else self.teacher_activation

    @cached_property
    def cross(self) -> Activation | ReluLinearCross | Relu2Cross:
        """The kernel ``E[σ(w·x) τ(v·x)]`` of student and teacher neurons (σ's own when ``τ = σ``)."""
        return cross_kernel(self.activation, self.teacher_sigma)

    @property
    def coefficients(self) -> Array:
        return self.teacher.coefficients

    @property
    def directions(self) -> Array:
        return self.teacher.directions

    @property
    def k(self) -> int:
        return self.teacher.k

    @property
    def d(self) -> int:
        return self.teacher.d

    @property
    def degree(self) -> int:
        """The ``p`` of the gauge quantities (:attr:`Activation.gauge_degree`)."""
        return self.activation.gauge_degree

    @property
    def is_paper_model(self) -> bool:
        """ReLU without weight decay: the model the paper's reduced equations and limits are about."""
        return isinstance(self.activation, ReLU) and self.teacher_sigma == self.activation and self.weight_decay == 0.0

    def unit_directions(self) -> Array:
        return self.teacher.unit_directions()

    def with_directions(self, directions: Array) -> Model:
        """The same model with the teacher's directions replaced (the teacher in other coordinates)."""
        return replace(self, teacher=Teacher(self.teacher.coefficients, directions))

    def __call__(self, X: Array) -> Array:
        """Teacher labels ``y = τ(X Vᵀ) a*`` on inputs ``X (n, d)``."""
        return self.teacher_sigma.sigma(X @ self.directions.T) @ self.coefficients

    def describe(self) -> str:
        """``relu``, ``leaky-relu (β = 0.1), weight decay λ = 0.01``: for summaries and figure notes."""
        decay = f", weight decay λ = {self.weight_decay:g}" if self.weight_decay else ""
        teacher = "" if self.teacher_activation is None else f", teacher {self.teacher_activation.describe()}"
        return self.activation.describe() + teacher + decay


def standard_model(
    d: int,
    k: int = 1,
    a_star: float = 1.0,
    activation: Activation | None = None,
    weight_decay: float = 0.0,
    teacher_activation: Activation | None = None,
) -> Model:
    """:func:`~gaugecli.core.model.teacher.standard_teacher` under ``activation`` (default ReLU; the teacher's
    ``teacher_activation``, default the same) and decay λ."""
    return Model(standard_teacher(d, k, a_star), activation or ReLU(), weight_decay, teacher_activation)
