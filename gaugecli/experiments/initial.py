"""The initial condition of ``simulate`` and ``select``: the duplicates of SPEC §1, the same made
visibly different by ``ε`` (``--eps``, at random or ``--init adversarial``), or random directions
(``--init random``).

``--init adversarial`` is the start of ``perturb --kind adversarial`` (the favorable neuron turned
away from the teacher by ε, with a smaller coefficient), from the same core function."""

from __future__ import annotations

import math

import numpy as np

from gaugecli.core.budget import check_input_dimension
from gaugecli.core.gauge import perturbed_duplicates, random_initial_condition
from gaugecli.core.types import Array
from gaugecli.experiments.common import duplicates
from gaugecli.experiments.config import ModelConfig
from gaugecli.experiments.declare import require


def check_initial(init: str, eps: float | None, init_seed: int | None, theta0: float | None = None) -> None:
    """``eps`` perturbs duplicates only (``init`` adversarial needs it, below ``π − θ0``: the
    favorable neuron turns to ``θ0 + ε``); ``init_seed`` is given only where something is random
    (their ranges are declared in :class:`~gaugecli.experiments.params.Initial`)."""
    require(
        eps is None or init != "random",
        "eps",
        "perturbs the duplicates; `init` random has none (its directions are already distinct)",
    )
    if init == "adversarial":
        require(eps is not None, "eps", "is needed by `init` adversarial: the angle of its turn")
        require(init_seed is None, "init_seed", "has no effect on `init` adversarial (it is deterministic)")
        if theta0 is not None and eps is not None:
            limit = math.pi - theta0
            require(
                eps < limit,
                "eps",
                f"of `init` adversarial turns the favorable neuron to θ0 + ε, so ε must be < π − θ0 = {limit:.4g}",
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
    if eps is None:  # init adversarial without eps is refused by check_initial
        return duplicates(model, deltas)
    net = model.build()
    adversarial = init == "adversarial"
    starts = [
        perturbed_duplicates(net, row, eps, c0=model.c0, theta0=model.theta0, adversarial=adversarial, seed=seed)
        for row in deltas
    ]
    return np.stack([s[0] for s in starts]), np.stack([s[1] for s in starts])
