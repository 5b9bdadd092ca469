"""The configuration of ``gaugecli lockin --task modular-addition``: :class:`TaskLockinConfig` and
its runs (:class:`TaskPoint`, one per activation, condition and seed).

Every choice, and where it comes from (Tian's released code, ``modular_addition_simple2.py`` with
``config/dyn_madd.yaml``, where the published study is silent; the study's own M = 71, K = 2048):

* data: all M² pairs; a ``train_fraction`` of them (0.3: the code's ``test_size: 0.7``) for
  training, drawn by the seed (numpy ``default_rng(seed)`` permutation; the code draws with
  scikit-learn's ``train_test_split(random_state=seed)``: same law, other numbers);
* network: one-hot ``[e_a; e_b]``, bias-free ``W (K × 2M)``, σ ∈ {x², ReLU}, bias-free ``V (M × K)``,
  ``nn.Linear``'s default initialisation drawn from the seed; float32;
* loss: the MSE of zero-mean outputs (the code's ``loss_func: mse``; its yaml default ``nll`` cannot
  run with its own default ``set_weight_reg``, which asserts MSE);
* optimizer: full-batch Adam, lr 1e-3, weight decay 1e-4 (coupled, ``optim.Adam``), one step an
  epoch; ``epochs`` 600 (the code's 3000 would cost 5× more on two shared cores; x² at K = 2048 groks
  near epoch 415 at 30 %, measured; at K = 512, Tian's yaml width, it had not by 600);
* read-out refit: off. The code's ``set_weight_reg: 1e-3`` refits V by ridge regression every epoch;
  measured here at K = 2048 it costs 1.3 CPU-s an epoch against 0.09 for the step (14×), so the
  read-out is trained by the optimizer, as in the issue's measurement; ``readout_refit`` turns it on;
* controls: the same model at ``control_fraction`` = 0.1 of the pairs, which does not generalise
  within 900 epochs (the issue's measurement; checked per run: a control that groks is reported);
* groks: test accuracy reaches ``grok_threshold`` = 0.9 (from ≈ 0.01 at chance, 1/M) at some epoch,
  measured on ``test_pairs`` = 500 held-out pairs, a uniform subsample (binomial standard error ≤ 2.2 %,
  1.3 % at the threshold), which halves the cost of the test pass;
* ΔW: the first layer's update per epoch (the only layer the published detector reads);
  the detector: lockin's window 20, lag 25, threshold 0.04, burn-in 100 (Xu's released defaults),
  raw (|λ3|) and floored (λ3 ≥ ``floor`` · λ1);
* the cross-check (:mod:`.gauge_check`): the gauge model's ``select`` start and aligned control
  (lockin's defaults, n = 10⁴ samples per ``gauge_seeds`` seed) trained as this task is, Adam with
  its lr and weight decay for ``gauge_epochs`` = 3000 steps, the detector on ΔW every step;
* Tian's sign rule: the ``sign_pairs`` = 200 most similar pairs (cosine) of the zero-mean hidden
  activations of the training set, ridge ``η = ridge · tr G/K`` (lockin's), every ``sign_every`` = 300
  epochs and at the last, i.e. at 0, 300 and 599 (each evaluation costs ≈ 2 CPU-s at K = 2048: a K × K
  Gram and its inverse).
"""

from __future__ import annotations

from dataclasses import dataclass

from gaugecli.experiments.declare import require
from gaugecli.experiments.params import LockinTask


@dataclass(frozen=True)
class TaskLockinConfig:
    """Every option of ``gaugecli lockin --task modular-addition`` (fields:
    :class:`~gaugecli.experiments.params.LockinTask`; the choices and their sources: this module)."""

    modulus: int = LockinTask.modulus.default
    hidden_units: int = LockinTask.hidden_units.default
    activations: tuple[str, ...] = LockinTask.activations.default
    train_fraction: float = LockinTask.train_fraction.default
    control_fraction: float = LockinTask.control_fraction.default
    optimizer: str = LockinTask.optimizer.default
    eta: float = LockinTask.eta.default
    weight_decay: float = LockinTask.weight_decay.default
    epochs: int = LockinTask.epochs.default
    seeds: tuple[int, ...] = LockinTask.seeds.default
    refit: float = LockinTask.refit.default
    test_pairs: int = LockinTask.test_pairs.default
    grok_threshold: float = LockinTask.grok_threshold.default
    sign_every: int = LockinTask.sign_every.default
    sign_pairs: int = LockinTask.sign_pairs.default
    late_fraction: float = LockinTask.late_fraction.default
    gauge_seeds: tuple[int, ...] = LockinTask.gauge_seeds.default
    gauge_epochs: int = LockinTask.gauge_epochs.default
    device: str = LockinTask.device.default
    window: int = LockinTask.window.default
    lag: int = LockinTask.lag.default
    threshold: float = LockinTask.threshold.default
    burn_in: int = LockinTask.burn_in.default
    floor: float = LockinTask.floor.default
    ridge: float = LockinTask.ridge.default
    store_every: int = LockinTask.store_every.default

    def __post_init__(self) -> None:
        LockinTask.check(self)
        require(
            self.epochs >= self.window + self.lag,
            "epochs",
            f"must be ≥ window + lag = {self.window + self.lag} (the detector's first slope); got {self.epochs}",
        )
        require(
            self.control_fraction < self.train_fraction,
            "control_fraction",
            f"must be below `train_fraction` = {self.train_fraction:g} (a control trains on fewer pairs, "
            f"below the grokking threshold); got {self.control_fraction:g}",
        )
        pairs = self.hidden_units * (self.hidden_units - 1) // 2
        require(
            self.sign_pairs <= pairs,
            "sign_pairs",
            f"must be ≤ K(K − 1)/2 = {pairs} (the pairs of {self.hidden_units} hidden units); got {self.sign_pairs}",
        )
        if self.device != "cpu":
            from gaugecli.core.samples.sample_draw import resolve_device  # torch: only when a GPU is asked for
            from gaugecli.experiments.declare import ConfigError

            try:
                resolve_device(self.device)
            except ValueError as err:
                raise ConfigError("device", str(err).removeprefix("cuda: ")) from None

    def points(self) -> list[TaskPoint]:
        """The runs, seed-major (an interrupted study has whole seeds): for each seed, each activation
        at ``train_fraction`` and, with controls, at ``control_fraction``. A point holds only what
        its training reads, so a study with more seeds, or another detector or threshold, reuses the
        cached runs."""
        fractions = [(self.train_fraction, False)] + ([(self.control_fraction, True)] if self.control_fraction else [])
        return [
            TaskPoint(
                modulus=self.modulus,
                hidden_units=self.hidden_units,
                activation=activation,
                fraction=fraction,
                control=control,
                seed=seed,
                optimizer=self.optimizer,
                eta=self.eta,
                weight_decay=self.weight_decay,
                epochs=self.epochs,
                refit=self.refit,
                test_pairs=self.test_pairs,
                window=self.window,
                sign_every=self.sign_every,
                sign_pairs=self.sign_pairs,
                ridge=self.ridge,
                device=self.device,
            )
            for seed in self.seeds
            for activation in self.activations
            for fraction, control in fractions
        ]


@dataclass(frozen=True)
class TaskPoint:
    """One run's training (:func:`gaugecli.core.tasks.training.train`): the network (``modulus``,
    ``hidden_units``, ``activation``), the training ``fraction`` (``control``: the non-grokking
    control's), ``seed``, the recipe and what is recorded during training (``window``, the sign rule)."""

    modulus: int
    hidden_units: int
    activation: str
    fraction: float
    control: bool
    seed: int
    optimizer: str
    eta: float
    weight_decay: float
    epochs: int
    refit: float
    test_pairs: int
    window: int
    sign_every: int
    sign_pairs: int
    ridge: float
    device: str
