"""The ``D → ∞`` dissipation (reaction, transport) of both gauges as a cached run.

Where the loss goes as ``D → ∞``: ``∫R dt`` and ``∫T dt`` over a whole run
(:func:`gaugecli.core.reduced.limits.favorable_limit_dissipation`, an ODE in ``s = D t``, and
:func:`~gaugecli.core.reduced.limits.unfavorable_limit_dissipation`, closed form) — the limit marks of
fig6 (b), ``R/(R + T)`` at ``D → ∞``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaugecli.core.defaults import C0, THETA0
from gaugecli.core.types import Progress
from gaugecli.experiments.declare import require, require_finite


@dataclass(frozen=True)
class LimitDissipationConfig:
    """The model ``(c0, θ0, a*)``; ``s_max`` the end of the ``+D`` limit flow in ``s = D t`` (by
    ``s = 400`` it has relaxed as ``e^{−s/2}`` to the teacher: nothing left to dissipate)."""

    c0: float = C0
    theta0: float = THETA0
    a_star: float = 1.0
    s_max: float = 400.0

    def __post_init__(self) -> None:
        require_finite(self.c0, "c0", low=0.0)
        require_finite(self.a_star, "a_star", low=0.0)
        require(0.0 < self.theta0 < np.pi, "theta0", f"must be in (0, π) (got {self.theta0!r})")
        require_finite(self.s_max, "s_max", low=0.0)


@dataclass(frozen=True)
class LimitDissipation:
    """``lim_{D→∞}`` of ``∫R dt`` (reaction) and ``∫T dt`` (transport) over a whole run of each
    gauge; their sum is the initial loss ``L(c0, θ0)`` (the loss the run spends)."""

    favorable_reaction: float
    favorable_transport: float
    unfavorable_reaction: float
    unfavorable_transport: float

    def reaction_share(self, gauge: str) -> float:
        """``∫R / (∫R + ∫T)`` of ``gauge`` (``favorable`` or ``unfavorable``) as ``D → ∞``."""
        reaction, transport = {
            "favorable": (self.favorable_reaction, self.favorable_transport),
            "unfavorable": (self.unfavorable_reaction, self.unfavorable_transport),
        }[gauge]
        return reaction / (reaction + transport)


def limit_dissipation(config: LimitDissipationConfig, progress: Progress | None = None) -> LimitDissipation:
    """Both gauges' ``D → ∞`` dissipation at ``config`` (the ``+D`` one an ODE, milliseconds)."""
    from gaugecli.core.reduced.limits import favorable_limit_dissipation, unfavorable_limit_dissipation

    model = (config.c0, config.theta0, config.a_star)
    plus = favorable_limit_dissipation(*model, s_max=config.s_max)
    minus = unfavorable_limit_dissipation(*model)
    if progress is not None:
        progress(1.0)
    return LimitDissipation(plus.reaction, plus.transport, minus.reaction, minus.transport)
