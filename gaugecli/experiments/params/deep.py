"""The parameters of ``gaugecli deep`` (:class:`~gaugecli.experiments.deep.DeepConfig`)."""

from __future__ import annotations

from gaugecli.experiments.declare import Fields, Param
from gaugecli.experiments.params.shared import (
    DYNAMICS,
    EXPERIMENT,
    GAUGE_STRENGTH,
    MODEL,
    NEURONS,
    OWNER,
    RTOL,
    STRENGTHS,
    Dynamics,
    Model,
)

MAX_DEEP_STRENGTH = 64.0
"""The largest gauge strength of ``deep``: T_spec(−D) grows like D (measured 162 at D = 16, layer 1,
n = 2000), and every kink a sample crosses costs the solver steps, so D = 64 already takes ~10 s a run."""
MAX_DEEP_SAMPLES = 100_000
"""The largest sample: a gradient costs ~n·d·m flops, and a run takes 10³–10⁴ of them."""


class Deep(Fields):
    """:class:`~gaugecli.experiments.deep.DeepConfig`."""

    layer = Param(
        "layer",
        "Hidden layer that holds the duplicates (1 or 2) of a two-hidden-layer network",
        MODEL,
        1,
        int,
        low=1,
        high=2,
    )
    m = NEURONS.but(help="Duplicates m in that layer", default=3, low=2, high=8)
    owner = OWNER
    select_strength = GAUGE_STRENGTH.but(
        name="select_strength",
        help="Gauge strength D of the selection: the owner's balance +D, the other duplicates' −D",
        short=None,
        high=MAX_DEEP_STRENGTH,
    )
    other_gauge = Param(
        "other_gauge",
        "Balance of every neuron of the other hidden layer (0: balanced; < 0: input-heavy, slow)",
        MODEL,
        0.0,
        low=-MAX_DEEP_STRENGTH,
        high=MAX_DEEP_STRENGTH,
    )
    gauge_strength = STRENGTHS.but(
        help="Gauge strengths D of the separation T_spec(−D)/T_spec(+D) of one neuron, e.g. -D 1,2,4,8",
        default=(1.0, 2.0, 4.0, 8.0),
        high=MAX_DEEP_STRENGTH,
        min_items=2,
        distinct=True,
    )
    d = Model.d.but(default=4, high=64)
    c0 = Model.c0.but(low=1e-3, high=10.0)
    eps_align = Model.eps_align
    n_samples = Dynamics.n_samples.but(
        help="Sample size n of the fixed Gaussian sample",
        default=1000,
        low=100,
        high=MAX_DEEP_SAMPLES,
        default_text=None,
    )
    sample_seed = Param("sample_seed", "Seed of the fixed Gaussian sample", DYNAMICS, 0, int, low=0)
    t_max = Dynamics.t_max.but(default=1000.0, high=1e5, default_text=None)
    rtol = RTOL.but(help="Relative tolerance of the flow solver (RK45)", default=1e-6, low=1e-10)
    eta = Dynamics.eta.but(
        help="Step η of the selection's gradient-descent run", default=0.01, high=1.0, default_text=None
    )
    separation = Param(
        "separation",
        "Also measure the separation T_spec(−D)/T_spec(+D) of one neuron at each `gauge_strength`",
        EXPERIMENT,
        True,
        bool,
    )
    contest = Param(
        "contest",
        "Also run the contest: duplicates in both hidden layers, +D to neuron `owner` of layer 1 and to the last of"
        " layer 2 (seconds at m = 3; ~25 s at m = 2, where the shares stay even to the horizon)",
        EXPERIMENT,
        False,
        bool,
    )
