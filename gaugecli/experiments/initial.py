"""The initial condition of ``simulate`` and ``select``: the duplicates of SPEC §1, the same made
visibly different by ``ε`` (``--eps``), or random directions (``--init random``)."""

from __future__ import annotations

import numpy as np

from gaugecli.core.budget import check_input_dimension
from gaugecli.core.gauge import perturbed_duplicates, random_initial_condition
from gaugecli.core.types import Array
from gaugecli.experiments.common import ModelConfig, duplicates, require, require_finite

INITS = ("duplicates", "random")


MIN_EPS = 1e-12
"""The smallest ``--eps``. Below it the perturbation competes with round-off: all −D duplicates at
m = 5, D = 4, perturbed by ε and run alone or in one batch (same starts, other arithmetic), gave
other winners and T_spec 37 % apart at ε = 1e-16, the same winners and T_spec within 2e-3 at
1e-14 and 5e-5 at 1e-12 (measured; the last is the solver's tolerance, as at 1e-11)."""


def check_initial(init: str, eps: float | None, init_seed: int | None) -> None:
    """``init`` is one of :data:`INITS`; ``eps`` (in [:data:`MIN_EPS`, 1]) perturbs duplicates only; ``init_seed``
    (an integer ≥ 0) is given only where something is random."""
    require(init in INITS, "init", f"must be duplicates or random (got {init!r})")
    if eps is not None:
        require(
            init == "duplicates",
            "eps",
            "perturbs the duplicates; --init random has none (its directions are already distinct)",
        )
        require_finite(eps, "eps", low=0.0)
        require(
            MIN_EPS <= eps <= 1.0,
            "eps",
            f"must be in [{MIN_EPS:g}, 1] (a perturbation in radians/log-scale; a smaller one is at round-off, "
            f"where the arithmetic, not ε, picks the winner; got {eps!r})",
        )
    if init_seed is not None:
        require(
            isinstance(init_seed, int) and not isinstance(init_seed, bool) and init_seed >= 0,
            "init_seed",
            f"must be an integer ≥ 0 (got {init_seed!r})",
        )
        require(
            init == "random" or eps is not None,
            "init_seed",
            "has no effect on exact duplicates; it seeds --init random or the --eps perturbation",
        )


def initial_condition(
    model: ModelConfig, deltas: Array, init: str = "duplicates", eps: float | None = None, init_seed: int | None = None
) -> tuple[Array, Array]:
    """``(a0, W0)`` for imbalances ``deltas (B, m)``: every member gets the same directions and
    coefficients (members differ in δ only), seeded by ``init_seed`` (default 0)."""
    deltas = np.atleast_2d(np.asarray(deltas, float))
    check_input_dimension(model.d, model.k + deltas.size)  # W0 (B, m, d): refused before it is built
    seed = 0 if init_seed is None else init_seed
    if init == "random":
        return random_initial_condition(model.teacher(), deltas, model.c0, seed)
    if eps is None:
        return duplicates(model, deltas)
    teacher = model.teacher()
    starts = [
        perturbed_duplicates(teacher, row, eps, c0=model.c0, theta0=model.theta0, adversarial=False, seed=seed)
        for row in deltas
    ]
    return np.stack([s[0] for s in starts]), np.stack([s[1] for s in starts])
