"""One run of the modular-addition study: train (:func:`train_point`, the cached unit, one per
seed, activation and condition) and read the record (:func:`read_run`)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from gaugecli.core.analyses import lockin as lk
from gaugecli.core.types import Array, Indices
from gaugecli.experiments.lockin_task.config import TaskLockinConfig, TaskPoint
from gaugecli.experiments.lockin_task.result import TaskRun, TaskTrace

if TYPE_CHECKING:  # the task's training is torch's, imported where a run trains or is read: the study's
    # config and the figures' declarations (``plot all``'s main process) do not need it
    from gaugecli.core.tasks.training import Recipe

TOP_DECILE = 0.9
"""The magnitude separation compares the units above this quantile of ‖w_j‖‖v_j‖ with the median."""


def recipe(point: TaskPoint) -> Recipe:
    """The training recipe of a point (``refit`` 0: off)."""
    from gaugecli.core.tasks.training import Recipe

    return Recipe(
        optimizer=point.optimizer,
        lr=point.eta,
        weight_decay=point.weight_decay,
        epochs=point.epochs,
        refit=point.refit or None,
        test_pairs=point.test_pairs,
        window=point.window,
        sign_every=point.sign_every,
        sign_pairs=point.sign_pairs,
        ridge=point.ridge,
        device=point.device,
    )


def train_point(point: TaskPoint) -> TaskTrace:
    """Train one run and keep its per-epoch record (module-level: the sweep runner caches it by point)."""
    from gaugecli.core.tasks.training import train

    start = time.process_time()
    t = train(point.modulus, point.hidden_units, point.activation, point.fraction, point.seed, recipe(point))
    return TaskTrace(**t._asdict(), seconds=time.process_time() - start)  # by name: the two field lists must agree


def first_epoch(values: Array, threshold: float) -> int | None:
    """The first epoch whose value reaches ``threshold`` (None: never)."""
    hits = np.flatnonzero(np.asarray(values, float) >= threshold)
    return int(hits[0]) if hits.size else None


def magnitude_separation(magnitudes: Array) -> float:
    """Mean of the units above the :data:`TOP_DECILE` quantile of ``‖w_j‖‖v_j‖`` over the median unit's:
    ≈ 1 for units of one size, large where a few units carry the function."""
    m = np.asarray(magnitudes, float)
    median = float(np.median(m))
    top = m[m >= np.quantile(m, TOP_DECILE)]
    return float(np.mean(top) / median) if median > 0 else float("nan")


def _ratio(num: Array, den: Array) -> Array:
    return np.divide(num, den, out=np.full(np.shape(num), np.nan), where=np.asarray(den) > 0)


def _stored(x: Array, keep: Indices) -> list[float | None]:
    return [None if not np.isfinite(v) else float(v) for v in np.asarray(x, float)[keep]]


def read_run(config: TaskLockinConfig, point: TaskPoint, trace: TaskTrace) -> TaskRun:
    """The reading of one run under the study's detector, grokking threshold and late stage."""
    from gaugecli.core.tasks import modular_addition as ma

    detect = {
        name: lk.xu_lockin(gram, config.lag, config.threshold, config.burn_in, floor)
        for name, gram, floor in (
            ("raw", trace.gram, None),
            ("floored", trace.gram, config.floor),
            ("gradient_raw", trace.gradient_gram, None),
            ("gradient_floored", trace.gradient_gram, config.floor),
        )
    }
    n = trace.test_acc.size
    late = slice(max(0, n - max(1, round(config.late_fraction * n))), n)
    early = slice(config.window - 1, config.window - 1 + max(1, round(config.late_fraction * n)))
    grok = first_epoch(trace.test_acc, config.grok_threshold)
    keep = np.arange(0, n, config.store_every)
    lam = trace.gram
    series: dict[str, list[float | None]] = {
        "epoch": [float(k) for k in keep],
        "train_acc": _stored(trace.train_acc, keep),
        "test_acc": _stored(trace.test_acc, keep),
        "train_loss": _stored(trace.train_loss, keep),
        "gap": _stored(detect["raw"].gap, keep),
        "slope": _stored(detect["raw"].slope, keep),
        "gradient_gap": _stored(detect["gradient_raw"].gap, keep),
        "lambda2_over_lambda1": _stored(_ratio(lam[:, 1], lam[:, 0]), keep),
        "sv2_over_sv1": _stored(_ratio(trace.sv[:, 1], trace.sv[:, 0]), keep),
        "effective_rank": _stored(trace.effective_rank, keep),
    }
    finite = np.isfinite(trace.sign_match)
    return TaskRun(
        activation=point.activation,
        fraction=point.fraction,
        control=point.control,
        seed=point.seed,
        train_pairs=ma.train_size(point.modulus, point.fraction),
        groks=grok is not None,
        grok_epoch=grok,
        fire_raw=detect["raw"].fire_epoch,
        fire_floored=detect["floored"].fire_epoch,
        fire_gradient_raw=detect["gradient_raw"].fire_epoch,
        fire_gradient_floored=detect["gradient_floored"].fire_epoch,
        final_train_acc=float(trace.train_acc[-1]),
        final_test_acc=float(trace.test_acc[-1]),
        magnitude_separation=magnitude_separation(trace.magnitudes),
        effective_rank_late=float(np.nanmedian(trace.effective_rank[late])),
        effective_rank_early=float(np.nanmedian(trace.effective_rank[early])),
        lambda2_over_lambda1_late=float(np.nanmedian(_ratio(lam[late, 1], lam[late, 0]))),
        lambda3_over_lambda1_late=float(np.nanmedian(_ratio(lam[late, 2], lam[late, 0]))),
        sign_match_min=float(np.min(trace.sign_match[finite])) if finite.any() else float("nan"),
        sign_match_max=float(np.max(trace.sign_match[finite])) if finite.any() else float("nan"),
        sign_negative_min=float(np.min(trace.sign_negative[finite])) if finite.any() else float("nan"),
        sign_negative_max=float(np.max(trace.sign_negative[finite])) if finite.any() else float("nan"),
        seconds=float(trace.seconds),
        sign_epochs=[float(x) for x in trace.sign_epochs],
        sign_match=_stored(trace.sign_match, np.arange(trace.sign_match.size)),
        sign_negative=_stored(trace.sign_negative, np.arange(trace.sign_negative.size)),
        series=series,
    )
