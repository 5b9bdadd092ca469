"""The optimizer a stepped run steps with (``gd``, ``sample-gd``, ``sgd``) and the basis it sees.

Stdlib only, as every module of :mod:`gaugecli.experiments.params`. The update rules are
``torch.optim``'s (:mod:`gaugecli.core.integrate.optimizers`); ``eta`` is the learning rate of each.
"""

from __future__ import annotations

from gaugecli.core.integrate.optimizers import REGISTRY as OPTIMIZER_REGISTRY
from gaugecli.experiments.declare import Fields, Param, number
from gaugecli.experiments.params import shared
from gaugecli.experiments.params.shared import DYNAMICS, NUMERICS

DEFAULT_OPTIMIZER = "sgd"
DEFAULT_MOMENTUM = 0.9
DEFAULT_BETAS = (0.9, 0.999)
DEFAULT_ADAM_EPS = 1e-8
"""torch.optim's defaults (``SGD``'s usual β, ``Adam``'s betas and ε)."""
MAX_ADAM_LR = 1.0
"""The largest Adam/AdamW learning rate: an Adam step moves every coordinate by up to ~η whatever its
gradient, and the teacher's scale is a*‖v‖ = 1, so a step of 1 crosses the whole problem in one move."""
BASES = ("standard", "random")
MAX_RANDOM_BASIS_D = 1024
"""The largest d `basis` random turns: scipy's Haar draw of a dense d × d orthogonal matrix is O(d³) in a
Python loop (measured 0.5 s at d = 1024, 11 s at 2048), and the run then steps in all d coordinates."""


class Stepping(Fields):
    """How a stepped run steps: the optimizer, its hyper-parameters and the basis it sees (``None``: not
    given; an option without effect for the chosen optimizer or mode is refused)."""

    optimizer = Param(
        "optimizer",
        "Update rule of gd, sample-gd and sgd, as torch.optim steps it (`eta` is its learning rate): sgd, "
        "momentum (heavy ball), adam, adamw (Adam with `weight_decay` as its decoupled decay)",
        DYNAMICS,
        None,
        str,
        choices=tuple(OPTIMIZER_REGISTRY),
        metavar="NAME",
        default_text=DEFAULT_OPTIMIZER,
    )
    momentum = Param(
        "momentum",
        "Heavy-ball β of `optimizer` momentum (torch's SGD momentum, dampening 0)",
        DYNAMICS,
        None,
        low=0.0,
        high=1.0,
        open_high=True,
        metavar="β",
        default_text=number(DEFAULT_MOMENTUM),
        why_high="at β ≥ 1 the buffer never forgets a gradient and the steps grow without bound",
    )
    nesterov = Param("nesterov", "Nesterov's momentum (`optimizer` momentum)", DYNAMICS, None, bool, default_text="off")
    betas = Param(
        "betas",
        "Adam's β1,β2: the decay of the gradient's mean and of its square (`optimizer` adam, adamw)",
        DYNAMICS,
        None,
        low=0.0,
        high=1.0,
        open_high=True,
        plural=True,
        min_items=2,
        metavar="β1,β2",
        default_text="0.9,0.999",
        why_high="at β = 1 an average never leaves its zero start and the bias correction divides by 0",
    )
    adam_eps = Param(
        "adam_eps",
        "Adam's ε, added outside the square root (`optimizer` adam, adamw)",
        NUMERICS,
        None,
        low=0.0,
        high=1.0,
        open_low=True,
        default_text=number(DEFAULT_ADAM_EPS),
        why_low="a coordinate the loss never moves (outside the teacher's span) would step by 0/0",
        why_high="from there on ε outweighs √v of every gradient the model has (|g| ≤ 1 at c0 ≤ 1): Adam is GD with "
        "step η/ε; use `optimizer` sgd",
    )

    basis = Param(
        "basis",
        "standard: teacher v = e1, initial direction u0 = (cos θ0) e1 + (sin θ0) e2; random: the whole problem "
        "(teacher, initial weights) turned by a seeded orthogonal matrix Q (scipy.stats.ortho_group, seed "
        "`basis_seed`). Only a rotation-invariant optimizer (sgd, momentum) and the flow see no difference",
        DYNAMICS,
        None,
        str,
        choices=BASES,
        default_text="standard",
    )
    basis_seed = Param(
        "basis_seed", "Seed of the random basis Q (`basis` random)", DYNAMICS, None, int, low=0, default_text="0"
    )
    imbalance_every_step = Param(
        "imbalance_every_step",
        "Record δ_j = a_j² − ‖w_j‖² of every neuron at every step (the run's imbalance_per_step), not only at "
        "the saved iterates: 8 bytes per neuron per step, refused above 2^24 numbers (128 MiB)",
        DYNAMICS,
        None,
        bool,
        default_text="off",
    )


class Dynamics(shared.Dynamics, Stepping):
    """:class:`~gaugecli.experiments.config.DynamicsConfig`: how the network moves (the mode, its step
    and tolerance) and, in a stepped mode, with which update rule in which basis."""
