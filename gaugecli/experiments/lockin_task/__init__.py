"""``gaugecli lockin --task modular-addition``: Xu's lock-in detector and Tian's sign rule on the
task they were made for (RELATED.md §2; the choices: :mod:`.config`).

For each seed, activation (σ = x², ReLU) and condition (grokking runs at ``train_fraction``,
non-grokking controls at ``control_fraction``), the network of :mod:`gaugecli.core.tasks` is trained
full-batch and its record read: does it grok and when, does the detector fire and when (on the
updates ΔW, raw and floored, and on the gradient), the late effective rank of ΔW and the
magnitude separation, the sign rule's range. Each run is cached as it finishes
(:func:`train_point` through the sweep runner), so an interrupted study resumes per seed and a
study with more seeds, or another detector setting, reuses the runs it has.

Layout: :mod:`.config` (:class:`TaskLockinConfig`, :class:`TaskPoint`), :mod:`.runs` (train and read
one run), :mod:`.result` (:class:`TaskRun`, :class:`TaskLockinResult`, :func:`summarize`).
"""

from __future__ import annotations

import numpy as np

from gaugecli.core.types import PointRunner, Progress
from gaugecli.experiments import budget
from gaugecli.experiments.budget import MemoryEstimate
from gaugecli.experiments.common import run_serially
from gaugecli.experiments.lockin_task.config import TaskLockinConfig, TaskPoint
from gaugecli.experiments.lockin_task.gauge_check import GaugeAdamRun, gauge_adam_run
from gaugecli.experiments.lockin_task.result import TaskLockinResult, TaskRun, TaskTrace, summarize
from gaugecli.experiments.lockin_task.runs import read_run, train_point

__all__ = [
    "GaugeAdamRun",
    "TaskLockinConfig",
    "TaskLockinResult",
    "TaskPoint",
    "TaskRun",
    "TaskTrace",
    "check_memory_budget",
    "cpu_seconds",
    "lockin_task",
    "memory_estimate",
]

SECONDS_PER_MAC = 1.0e-10
"""CPU seconds per multiply-add of the run's products, for the time estimate. Measured on the
development machine (one thread, K = 2048, M = 71): the float32 step (3 products of n·K·M) 0.064 s
for 660 M, the test pass 0.015 s for 145 M (≈ 1e-10 s each); the float64 sign rule (F̃ᵀF̃ and an
inverse, n·K² + K³) 2.0 s for 15 G (1.4e-10 s). Against the study: 393 CPU-s measured for its first
12 runs and the cross-check, 709 estimated at 1.5e-10; 1e-10 still errs on the slow side (≈ 480)."""
EPOCH_OVERHEAD_SECONDS = 3e-3
"""CPU seconds an epoch costs beyond its products (the Python loop, torch's dispatch, the small
eigenproblems): the quick profile (M = 23, K = 256) measured 2.5 CPU-s for 600 epochs, 0.6 of them products."""
GAUGE_SAMPLES = 10_000
"""Sample size of the cross-check's gauge-model runs (lockin's own default n)."""
GAUGE_STEP_SECONDS = 4e-4
"""CPU seconds per Adam step of a cross-check run (m = 5, d = 16, n = 10⁴): measured 0.9–1.0 s for 3000."""
BASE_BYTES = 450 * 2**20
"""Peak RSS of torch with the package loaded and a small run (measured ≈ 400 MB)."""


def _macs_per_epoch(config: TaskLockinConfig, fraction: float) -> float:
    M, K = config.modulus, config.hidden_units
    n = round(fraction * M * M)
    tests = min(config.test_pairs, M * M - n)
    step = 3.0 * n * K * M + tests * K * M
    diagnostics = 2.0 * K * (2 * M) ** 2 + 2.0 * config.window * K * 2 * M
    sign = (n * K * K + K**3) / config.sign_every
    refit = 2.0 * n * n * K if config.refit else 0.0  # the thin SVD of the n × K activations
    return step + diagnostics + sign + refit


def cpu_seconds(config: TaskLockinConfig) -> float:
    """Estimated CPU seconds of the whole study on the CPU (:data:`SECONDS_PER_MAC`)."""
    total = 0.0
    for point in config.points():
        total += config.epochs * (_macs_per_epoch(config, point.fraction) + EPOCH_OVERHEAD_SECONDS / SECONDS_PER_MAC)
    return SECONDS_PER_MAC * total + GAUGE_STEP_SECONDS * config.gauge_epochs * 2 * len(config.gauge_seeds)


def memory_estimate(config: TaskLockinConfig, hidden_units: int | None = None) -> MemoryEstimate:
    """Peak memory of one run (the runs are sequential, or one per worker): the float32 weights with
    Adam's two moments, the float64 copies of W (before, ΔW, gradient), the two rolling windows of
    ``window`` updates, the activations of the training and test sets, and the sign rule's K × K
    float64 matrices (G, B, G − GBG, the similarity)."""
    M = config.modulus
    K = config.hidden_units if hidden_units is None else hidden_units
    n = round(config.train_fraction * M * M)
    weights = 4.0 * 3 * (K * 2 * M + M * K) + 8.0 * 3 * K * 2 * M
    windows = 8.0 * 2 * config.window * K * 2 * M
    activations = 4.0 * 4 * (n + min(config.test_pairs, M * M)) * K
    gram = 8.0 * (4 * K * K + n * K)
    terms = {
        "the weights and their copies": weights,
        "the rolling windows of updates": windows,
        "the activations": activations,
        "the sign rule's K × K matrices": gram,
    }
    what = max(terms, key=lambda k: terms[k])
    return MemoryEstimate(int(BASE_BYTES + sum(terms.values())), int(terms[what]), what)


def check_memory_budget(config: TaskLockinConfig) -> None:
    """Refuse a study whose runs would not fit, before it starts, naming ``hidden_units`` with the
    largest K that fits."""
    budget.check_memory(
        memory_estimate(config),
        "hidden_units",
        2.0,
        config.hidden_units,
        estimate_at=lambda k: memory_estimate(config, hidden_units=k),
    )


def lockin_task(
    config: TaskLockinConfig, progress: Progress | None = None, runner: PointRunner = run_serially
) -> TaskLockinResult:
    """Every run of the study (each cached as it finishes, when the runner caches), read and summarised."""
    check_memory_budget(config)
    points = config.points()
    traces: list[TaskTrace] = runner(train_point, points, progress)
    runs: list[TaskRun] = [read_run(config, p, t) for p, t in zip(points, traces, strict=True)]
    epochs = [config.epochs * 1.0 for _ in runs]
    per_epoch = [r.seconds / e for r, e in zip(runs, epochs, strict=True)]
    notes = (
        [
            f"{sum(r.groks for r in runs if r.control)} of {sum(r.control for r in runs)} controls "
            f"(training fraction {config.control_fraction:g}) grok: a control that groks is no control"
        ]
        if config.control_fraction
        else []
    )
    check = [
        gauge_adam_run(
            control,
            seed,
            eta=config.eta,
            weight_decay=config.weight_decay,
            epochs=config.gauge_epochs,
            n_samples=GAUGE_SAMPLES,
            window=config.window,
            lag=config.lag,
            threshold=config.threshold,
            burn_in=config.burn_in,
            floor=config.floor,
        )
        for seed in config.gauge_seeds
        for control in (False, True)
    ]
    return TaskLockinResult(
        runs=runs,
        summary=summarize(runs),
        gauge_check=check,
        cost={
            "cpu_seconds_total": float(sum(r.seconds for r in runs)),
            "cpu_seconds_per_epoch_median": float(np.median(per_epoch)) if per_epoch else float("nan"),
            "estimated_cpu_seconds": cpu_seconds(config),
        },
        notes=notes,
    )
