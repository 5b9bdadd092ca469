"""The parameters of ``gaugecli predict`` (:class:`~gaugecli.experiments.predict.PredictConfig`)."""

from __future__ import annotations

from gaugecli.experiments.declare import Fields, Param
from gaugecli.experiments.params.optimizer import Dynamics
from gaugecli.experiments.params.shared import (
    EXPERIMENT,
    RTOL,
    Initial,
)

PREDICTORS = ("delta", "alignment", "c-alpha", "angular-speed", "race", "race-matched")
"""The rules of ``gaugecli predict`` (:mod:`gaugecli.experiments.predict.predictors` defines each)."""
MAX_PREDICT_WIDTH = 64
"""The most neurons per feature (``m/k``) of ``gaugecli predict``: each run is a flow of ``m (k + m + 1)``
unknowns (in the invariant subspace), so its cost grows like ``m³`` at least."""
MAX_PREDICT_SAMPLES = 100_000
"""The largest sample of ``gaugecli predict --n-samples``: a chunk of 50 flows on ``L_n`` costs ≈ 5–7 s
on one core at n ≤ 1000 (d = 16, m = 4, natural δ), and the cost of a gradient grows with n."""
MAX_PREDICT_FEATURES = 8
"""The most teacher features of ``gaugecli predict`` (``d ≥ k + 1``; each adds a column to every run)."""


class Predict(Fields):
    """:class:`~gaugecli.experiments.predict.PredictConfig`: which neuron owns each feature from a
    random Gaussian start, against what each predictor names (population flow, ReLU)."""

    ks = Param(
        "ks",
        "Teacher features k of the study (each its own cells)",
        EXPERIMENT,
        (1, 2, 3),
        int,
        low=1,
        high=MAX_PREDICT_FEATURES,
        plural=True,
        metavar="K1,K2,…",
    )
    widths = Param(
        "m_per_k",
        "Neurons per feature m/k (a cell has m = (m/k)·k neurons)",
        EXPERIMENT,
        (1, 8),
        int,
        low=1,
        high=MAX_PREDICT_WIDTH,
        plural=True,
        metavar="W1,W2,…",
        deprecated=("widths",),
        why_high="each run is a flow of m(k + m + 1) unknowns; wider runs cost minutes each",
    )
    spreads = Param(
        "spreads",
        "δ-spread ratios ρ = σ_δ/σ_vis: δ_j ~ N(0, ρ² σ_vis²) beside the visible draw, σ_vis = σ_a σ_w/√d "
        "the standard deviation of c_j α_jk(0)",
        EXPERIMENT,
        (0.0, 10.0, 100.0),
        low=0.0,
        high=1e4,
        plural=True,
        min_items=0,
        metavar="ρ1,ρ2,…",
        why_high="beyond it the largest |δ| makes the flow's horizon (∝ 1 + max|δ|) impractically long",
    )
    natural = Param(
        "natural",
        "Also run each cell with δ as the Gaussian draw gives it (δ_j = a_j² − ‖w_j‖²)",
        EXPERIMENT,
        True,
        bool,
    )
    runs = Param("runs", "Random starts (seeds) per cell", EXPERIMENT, 30, int, low=2, high=100_000)
    n_samples = Param(
        "n_samples",
        "Sample sizes n: every cell is also trained by gradient flow on the empirical loss L_n of n Gaussian "
        "inputs, a sample of its own per seed (none by default: the population flow only); each such cell runs "
        "to the cell's horizon, long at large ρ (ρ = 100: minutes per chunk of 50 seeds)",
        EXPERIMENT,
        (),
        int,
        low=2,
        high=MAX_PREDICT_SAMPLES,
        plural=True,
        min_items=0,
        distinct=True,
        metavar="N1,N2,…",
        why_high="each run is a flow on L_n in d dimensions to the cell's horizon; larger n cost minutes per chunk",
    )
    sgd_batch = Param(
        "batch_size",
        "Minibatch size B: every finite-sample cell is also trained by SGD on its samples (batches resampled "
        "every epoch, seeded by the run's seed), step `eta`; none by default",
        EXPERIMENT,
        None,
        int,
        low=1,
        metavar="B",
        deprecated=("sgd_batch",),
    )
    sgd_eta = Param(
        "eta",
        "Step size η of the SGD cells (run to the cell's horizon: ⌈t_max/η⌉ steps)",
        EXPERIMENT,
        0.1,
        low=1e-4,
        high=1.0,
        open_low=False,
        deprecated=("sgd_eta",),
        why_low="the SGD cells run ⌈t_max/η⌉ steps to the cell's horizon (t_max ≈ 340 at the defaults)",
    )
    first_seed = Param(
        "first_seed",
        "Seed of the first start (a cell's starts are seeds first_seed, first_seed + 1, …)",
        EXPERIMENT,
        0,
        int,
        low=0,
    )
    init_scale_a = Initial.init_scale_a.but(help="σ_a of the output weights: |a_j| with a_j ~ N(0, σ_a²)", default=0.3)
    init_scale_w = Initial.init_scale_w.but(help="σ_w of the input weights: w_j ~ N(0, σ_w² I/d)", default=0.3)
    mixed_signs = Initial.mixed_signs.but(
        help="Keep each output weight's drawn sign, a_j ~ N(0, σ_a²), instead of |a_j|: a neuron with "
        "a_j < 0 < δ_j may be absorbed at w = 0 and leave it again (population flow only: not with --n-samples)"
    )
    rtol = RTOL.but(
        default=1e-7,
        help="Relative tolerance of the population flow solver (owners agree with rtol 1e-10 in every run measured)",
    )
    optimizer = Dynamics.optimizer.but(
        help="Train the population cells by this update rule instead of the flow: population GD in the stated basis "
        "of R^d, as torch.optim steps it with its default hyper-parameters, learning rate `optimizer_eta`, to the cell's "
        "horizon (the finite-sample cells keep their own dynamics): sgd, momentum, adam, adamw",
        panel=EXPERIMENT,
        default_text="none: the population flow",
    )
    optimizer_eta = Dynamics.eta.but(
        name="optimizer_eta",
        help="Learning rate of `optimizer` (its cells run ⌈t_max/η⌉ steps: give `t_max`); the SGD cells' step is `eta`",
        panel=EXPERIMENT,
        default_text="none",
    )
