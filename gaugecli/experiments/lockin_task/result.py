"""What ``gaugecli lockin --task modular-addition`` returns: each run's training record
(:class:`TaskTrace`, cached per seed), its reading (:class:`TaskRun`), and the summary over seeds
per activation and condition (:func:`summarize`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from gaugecli.core.frames import Labelled, View
from gaugecli.core.types import Array
from gaugecli.experiments.lockin_task.gauge_check import GaugeAdamRun


@dataclass
class TaskTrace:
    """One run's per-epoch record (:class:`gaugecli.core.tasks.training.TaskTrajectory`, as stored)
    and its cost in CPU seconds (``seconds``: process time, the load of other processes aside)."""

    train_loss: Array
    test_loss: Array
    train_acc: Array
    test_acc: Array
    sv: Array
    effective_rank: Array
    gram: Array
    gradient_sv: Array
    gradient_gram: Array
    sign_epochs: Array
    sign_match: Array
    sign_negative: Array
    sign_similarity: Array
    magnitudes: Array
    seconds: float


@dataclass
class TaskRun:
    """One run read: whether and when it groks (test accuracy reaches the threshold), whether and
    when Xu's detector fires on the updates ΔW (raw, floored) and on the gradient (what plain GD
    would step along), the late stage (the last ``late_fraction`` of the epochs): the magnitude
    separation (top decile of ‖w_j‖‖v_j‖ over its median, at the end), the median effective rank
    of ΔW and the windowed-Gram ratios λ2/λ1, λ3/λ1; Tian's sign rule (range over its evaluations);
    ``sign_*``: the rule at its epochs; ``series``: every ``store_every``-th epoch."""

    VIEW: ClassVar[View] = View(dims={"series": ("epoch",)})
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

    activation: str
    fraction: float
    control: bool
    seed: int
    train_pairs: int
    groks: bool
    grok_epoch: int | None
    fire_raw: int | None
    fire_floored: int | None
    fire_gradient_raw: int | None
    fire_gradient_floored: int | None
    final_train_acc: float
    final_test_acc: float
    magnitude_separation: float
    effective_rank_late: float
    effective_rank_early: float
    lambda2_over_lambda1_late: float
    lambda3_over_lambda1_late: float
    sign_match_min: float
    sign_match_max: float
    sign_negative_min: float
    sign_negative_max: float
    seconds: float
    sign_epochs: list[float]
    sign_match: list[float | None]
    sign_negative: list[float | None]
    series: dict[str, list[float | None]]


@dataclass
class TaskLockinResult(Labelled):
    """Every run and the summary per activation and condition (grokking runs at ``train_fraction``,
    controls at ``control_fraction``); ``gauge_check``: the gauge model trained as the task is
    (:mod:`.gauge_check`); ``cost``: CPU seconds per run and epoch, measured."""

    VIEW: ClassVar[View] = View(records={"runs": "run"})
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

    runs: list[TaskRun]
    summary: list[dict[str, Any]]
    gauge_check: list[GaugeAdamRun]
    cost: dict[str, float]
    notes: list[str]


def _quartiles(values: list[int | None]) -> tuple[float | None, float | None, float | None]:
    xs = [float(v) for v in values if v is not None]
    if not xs:
        return None, None, None
    q1, med, q3 = np.percentile(xs, [25, 50, 75])
    return float(q1), float(med), float(q3)


def _range(values: list[float]) -> tuple[float | None, float | None]:
    xs = [v for v in values if np.isfinite(v)]
    return (float(min(xs)), float(max(xs))) if xs else (None, None)


def summarize(runs: list[TaskRun]) -> list[dict[str, Any]]:
    """Per activation and condition (``grokking``: the runs at the training fraction; ``control``):
    how many runs grok, how many fire (raw, floored; among the runs that grok and those that do not),
    the firing epoch's quartiles (raw), the firing epoch less the grokking epoch (median), the sign
    rule's ranges, the late effective rank and magnitude separation (medians)."""
    rows = []
    for activation in sorted({r.activation for r in runs}):
        for control in (False, True):
            group = [r for r in runs if r.activation == activation and r.control == control]
            if not group:
                continue
            grok = [r for r in group if r.groks]
            q1, med, q3 = _quartiles([r.fire_raw for r in group])
            lead = [r.fire_raw - r.grok_epoch for r in group if r.fire_raw is not None and r.grok_epoch is not None]
            match = _range([r.sign_match_min for r in group] + [r.sign_match_max for r in group])
            negative = _range([r.sign_negative_min for r in group] + [r.sign_negative_max for r in group])
            rows.append(
                {
                    "activation": activation,
                    "condition": "control" if control else "grokking",
                    "fraction": group[0].fraction,
                    "runs": len(group),
                    "groks": len(grok),
                    "grok_epoch_median": _quartiles([r.grok_epoch for r in grok])[1],
                    "fires_raw": sum(r.fire_raw is not None for r in group),
                    "fires_raw_grokking": sum(r.fire_raw is not None for r in grok),
                    "fires_raw_not_grokking": sum(r.fire_raw is not None for r in group if not r.groks),
                    "fires_floored": sum(r.fire_floored is not None for r in group),
                    "fires_gradient_raw": sum(r.fire_gradient_raw is not None for r in group),
                    "fire_epoch_q1": q1,
                    "fire_epoch_median": med,
                    "fire_epoch_q3": q3,
                    "fire_minus_grok_median": float(np.median(lead)) if lead else None,
                    "sign_match_min": match[0],
                    "sign_match_max": match[1],
                    "sign_negative_min": negative[0],
                    "sign_negative_max": negative[1],
                    "effective_rank_late_median": float(np.median([r.effective_rank_late for r in group])),
                    "lambda2_over_lambda1_late_median": float(np.median([r.lambda2_over_lambda1_late for r in group])),
                    "magnitude_separation_median": float(np.median([r.magnitude_separation for r in group])),
                    "seconds_median": float(np.median([r.seconds for r in group])),
                }
            )
    return rows
