"""The initial condition of ``simulate`` and ``select``: the duplicates of docs/theory.md (the model), the same made
visibly different by ``ε`` (``--eps``, at random or ``--init adversarial``), random directions
(``--init random``), a practitioner's Gaussian draw (``--init gaussian``), or Kunin et al.'s pairs
of opposite output weights sharing an input weight (``simulate --init paired``: f₀ ≡ 0).

``--init gaussian`` draws ``ã_j ~ N(0, σ_a²)``, ``w_j ~ N(0, σ_w² I/d)`` from
``default_rng(init_seed)`` in that order, with ``a_j = |ã_j|``, or ``ã_j`` itself with ``--mixed-signs``
(a neuron with ``a < 0 < δ`` can reach ``w = 0``, the ReLU's kink, where the population flow absorbs
it and lets it go again: :mod:`gaugecli.core.integrate.absorption`). Its visible function ``c_j = a_j‖w_j‖^p``, ``u_j`` is
kept and the gauge applied as for the duplicates (claim C1: the same function), or its own
``δ_j = a_j² − ‖w_j‖²/p`` with ``simulate --gauge natural``.

``--init adversarial`` is the start of ``perturb --kind adversarial`` (the favorable neuron turned
away from the teacher by ε, with a smaller coefficient), from the same core function."""

from __future__ import annotations

import math

import numpy as np

from gaugecli.core.model.gauge import (
    function_coordinates,
    imbalance,
    parameters_from_function,
    perturbed_duplicates,
    random_initial_condition,
)
from gaugecli.core.model.state import Network
from gaugecli.core.types import Array
from gaugecli.experiments.budget import check_input_dimension
from gaugecli.experiments.common import duplicates
from gaugecli.experiments.config import ModelConfig
from gaugecli.experiments.declare import require
from gaugecli.experiments.params import Model, Simulate


def check_initial(
    init: str,
    eps: float | None,
    init_seed: int | None,
    theta0: float | None = None,
    scales: tuple[float | None, float | None] = (None, None),
    mixed_signs: bool = False,
) -> None:
    """``eps`` perturbs duplicates only (``init`` adversarial needs it, below ``π − θ0``: the
    favorable neuron turns to ``θ0 + ε``); ``init_seed`` is given only where something is random;
    ``scales`` (σ_a, σ_w) and ``mixed_signs`` only with ``init`` gaussian (their ranges are declared in
    :class:`~gaugecli.experiments.params.Initial`)."""
    require(
        eps is None or init not in ("random", "gaussian", "paired"),
        "eps",
        f"perturbs the duplicates; `init` {init} has none (its directions are already distinct)",
    )
    for name, value in zip(("init_scale_a", "init_scale_w"), scales, strict=True):
        require(value is None or init == "gaussian", name, "is the scale of `init` gaussian; it has no effect here")
    require(
        not mixed_signs or init == "gaussian",
        "mixed_signs",
        "keeps the signs `init` gaussian draws; it has no effect here",
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
        init_seed is None or init in ("random", "gaussian", "paired") or eps is not None,
        "init_seed",
        "has no effect on exact duplicates; it seeds `init` random, gaussian or paired, or the `eps` perturbation",
    )


def ignored_by_start(init: str, natural: bool = False) -> dict[str, str]:
    """The parameters that the start ``init`` (with ``gauge`` natural where ``natural``) never reads,
    each with why: ``init`` gaussian draws each neuron's coefficient and direction, so it reads
    neither ``c0`` nor ``theta0``; ``init`` random draws the directions (``theta0``); the natural
    gauge keeps the draw's own ``δ_j = a_j² − ‖w_j‖²/p``, so no gauge strength D enters. Such a
    parameter is refused where it is given (and a map over it), never silently ignored."""
    ignored: dict[str, str] = {}
    if init == "gaussian":
        ignored["c0"] = (
            "has no effect with `init` gaussian: the draw sets each coefficient (`init_scale_a`, `init_scale_w`)"
        )
        ignored["theta0"] = "has no effect with `init` gaussian: the draw sets each direction (w ~ N(0, σ_w² I/d))"
    elif init == "random":
        ignored["theta0"] = "has no effect with `init` random: the directions are drawn (`init_seed`)"
    elif init == "paired":
        ignored["c0"] = "has no effect with `init` paired: f0 ≡ 0, each neuron's scale is `init_scale` τ"
        ignored["theta0"] = "has no effect with `init` paired: the directions are drawn (`init_seed`)"
    if natural:
        ignored["gauge_strength"] = "has no effect with `gauge` natural: δ is the draw's own, a_j² − ‖w_j‖²/p"
    return ignored


def ignored_by_config(config: object) -> dict[str, str]:
    """:func:`ignored_by_start` for a run's config (its ``init`` and ``natural``; none for a config
    without a drawn start): what its summary header and its rerun file leave out."""
    init = getattr(config, "init", None)
    return {} if init is None else ignored_by_start(init, bool(getattr(config, "natural", False)))


def check_start_reads(
    model: ModelConfig, init: str, natural: bool = False, strengths: tuple[float, ...] = Simulate.strengths.default
) -> None:
    """Refuse ``c0``, ``theta0`` or gauge strengths ``strengths`` given (other than their defaults) to
    a start that ignores them (:func:`ignored_by_start`)."""
    given = {
        "c0": model.c0 != Model.c0.default,
        "theta0": model.theta0 != Model.theta0.default,
        "gauge_strength": tuple(strengths) != Simulate.strengths.default,
    }
    for name, why in ignored_by_start(init, natural).items():
        require(not given[name], name, why)


DEFAULT_SCALE = 0.3
"""σ_a and σ_w of ``init`` gaussian when not given (as ``gaugecli predict``'s)."""


def gaussian_draw(
    model: ModelConfig, m: int, seed: int, scales: tuple[float | None, float | None], mixed_signs: bool = False
) -> tuple[Array, Array]:
    """``(a (m,), W (m, d))`` of ``init`` gaussian (module docstring)."""
    scale_a, scale_w = (DEFAULT_SCALE if s is None else float(s) for s in scales)
    rng = np.random.default_rng(seed)
    a = rng.normal(0.0, scale_a, m)
    if not mixed_signs:
        a = np.abs(a)
    W = rng.normal(0.0, scale_w / np.sqrt(model.d), (m, model.d))
    return a, W


def natural_imbalances(
    model: ModelConfig, m: int, seed: int | None, scales: tuple[float | None, float | None]
) -> Array:
    """The δ of the ``init`` gaussian draw itself, ``a_j² − ‖w_j‖²/p``: shape ``(m,)`` (the same with
    mixed signs: δ does not see the sign of ``a``)."""
    a, W = gaussian_draw(model, m, 0 if seed is None else seed, scales)
    return imbalance(Network(a, W), model.build().activation.gauge_degree)


def initial_condition(
    model: ModelConfig,
    deltas: Array,
    init: str = "duplicates",
    eps: float | None = None,
    init_seed: int | None = None,
    scales: tuple[float | None, float | None] = (None, None),
    mixed_signs: bool = False,
) -> tuple[Array, Array]:
    """``(a0, W0)`` for imbalances ``deltas (B, m)``: every member gets the same directions and
    coefficients (members differ in δ only), seeded by ``init_seed`` (default 0); ``mixed_signs``: the
    output weights of ``init`` gaussian keep their drawn signs."""
    deltas = np.atleast_2d(np.asarray(deltas, float))
    check_input_dimension(model.d, model.k + deltas.size)  # W0 (B, m, d): refused before it is built
    seed = 0 if init_seed is None else init_seed
    if init == "gaussian":  # the draw's function, each member with its row of δ
        p = model.build().activation.gauge_degree
        c, U = function_coordinates(Network(*gaussian_draw(model, deltas.shape[-1], seed, scales, mixed_signs)), p)
        starts = [parameters_from_function(c, U, row, p) for row in deltas]
        return np.stack([s[0] for s in starts]), np.stack([s[1] for s in starts])
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
