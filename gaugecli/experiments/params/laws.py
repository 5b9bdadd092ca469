"""The parameters of ``gaugecli laws`` (:class:`~gaugecli.experiments.laws.LawsConfig`)."""

from __future__ import annotations

from gaugecli.experiments.declare import Fields, Param
from gaugecli.experiments.params.shared import EXPERIMENT, MODEL, Model

LAW_ACTIVATIONS: tuple[str, ...] = ("relu", "leaky-relu", "linear")
"""The activations whose network depends on its parameters through a known reparametrization: the
path products (relu, leaky-relu: positively homogeneous of degree 1) or the end-to-end map (linear)."""
MAX_LAW_PARAMS = 60
"""Budget: at most this many parameters D (weights and biases) — the nested forward-mode Jacobians
hold (fields × D × D) numbers per point, and the linear network 3,4,3,1 (D = 27, four levels) takes ~5 s."""
MAX_LAW_PATHS = 400
"""Budget: at most this many paths N (the generators; level 2 brackets N × N of them)."""
MAX_LAW_LAYERS = 4
"""Budget: at most this many layers (three hidden ones): each level of brackets nests one more
forward-mode derivative, and deeper linear networks need more levels."""


class Laws(Fields):
    """:class:`~gaugecli.experiments.laws.LawsConfig`."""

    layer_widths = Param(
        "layer_widths",
        "Layer widths of the fully connected network, input first (n_0, n_1, …, n_L)",
        MODEL,
        (3, 4, 3, 1),
        int,
        low=1,
        high=64,
        plural=True,
        min_items=3,
        metavar="N0,N1,…",
    )
    activation = Model.activation.but(help="Activation of the hidden layers", choices=LAW_ACTIVATIONS, default="relu")
    bias = Param("bias", "A bias in every layer (it adds to a hidden neuron's incoming norm)", MODEL, False, bool)
    points = Param(
        "points",
        "Random points at which the Lie algebra's trace is computed (and its fields told apart)",
        EXPERIMENT,
        4,
        int,
        low=2,
        high=16,
    )
