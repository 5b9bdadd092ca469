"""The initial condition of ``simulate`` and ``select``: the duplicates of SPEC §1, the same made
visibly different by ``ε`` (``--eps``), or random directions (``--init random``)."""

from __future__ import annotations

import numpy as np

from gaugecli.core.budget import check_input_dimension
from gaugecli.core.gauge import perturbed_duplicates, random_initial_condition
from gaugecli.core.types import Array
from gaugecli.experiments.common import duplicates
from gaugecli.experiments.config import ModelConfig
from gaugecli.experiments.declare import require


def check_initial(init: str, eps: float | None, init_seed: int | None) -> None:
    """``eps`` perturbs duplicates only; ``init_seed`` is given only where something is random
    (their ranges are declared in :class:`~gaugecli.experiments.params.Initial`)."""
    require(
        eps is None or init == "duplicates",
        "eps",
        "perturbs the duplicates; `init` random has none (its directions are already distinct)",
    )
    require(
        init_seed is None or init == "random" or eps is not None,
        "init_seed",
        "has no effect on exact duplicates; it seeds `init` random or the `eps` perturbation",
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
        return random_initial_condition(model.build(), deltas, model.c0, seed)
    if eps is None:
        return duplicates(model, deltas)
    net = model.build()
    starts = [
        perturbed_duplicates(net, row, eps, c0=model.c0, theta0=model.theta0, adversarial=False, seed=seed)
        for row in deltas
    ]
    return np.stack([s[0] for s in starts]), np.stack([s[1] for s in starts])
