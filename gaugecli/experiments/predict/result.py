"""What ``gaugecli predict`` returns (:class:`PredictResult`, the ``gaugecli.predict/1`` artifact's
``result``): one :class:`PredictRow` per cell, each predictor's accuracy with its Wilson interval."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from gaugecli.core.frames import Labelled


@dataclass
class PredictRow:
    """One cell: ``k`` features, ``m`` neurons, δ-spread ratio ``spread`` (declared; ``None`` for δ as
    drawn, whose expected ratio is ``ratio``) and ``measured_ratio`` (the pooled standard deviation of
    the δ draws over that of ``c_j α_jk(0)``). ``pairs`` = runs × k (run, feature) pairs, ``owned`` of
    them with a realised owner (``no_owner`` none aligned, ``tied`` owner tied); ``correct[p]`` of the
    owned pairs where predictor ``p`` names the owner; ``accuracy[p]`` = correct/owned with its Wilson
    interval ``[low[p], high[p]]``. ``owners[run][feature]`` and ``picks[p][run][feature]`` (−1: none)
    for every seed of ``seeds``. ``n``: the sample size of ``L_n`` the cell was trained on (``None``:
    the population loss); ``failed``: runs whose solver failed on it (counted in ``no_owner``);
    ``batch``, ``eta``: the minibatch and step of an SGD row (``None``: gradient flow)."""

    k: int
    m: int
    spread: float | None
    ratio: float
    measured_ratio: float
    horizon: float
    pairs: int
    owned: int
    no_owner: int
    tied: int
    correct: dict[str, int]
    accuracy: dict[str, float | None]
    low: dict[str, float | None]
    high: dict[str, float | None]
    owners: list[list[int]] = field(default_factory=list)
    picks: dict[str, list[list[int]]] = field(default_factory=dict)
    n: int | None = None
    failed: int = 0
    batch: int | None = None
    eta: float | None = None


@dataclass
class PredictResult(Labelled):
    """Every cell of the study (``rows``), the predictors compared, the seeds, the confidence of the
    intervals, the definitions (``notes``), the chunks' hashes and gradient evaluations."""

    HEADLINE: ClassVar[tuple[str, ...]] = ("predictors", "confidence", "visible_scale")

    predictors: list[str]
    rows: list[PredictRow]
    seeds: list[int]
    confidence: float
    visible_scale: float
    notes: dict[str, str]
    chunk_hashes: list[str] = field(default_factory=list)
    gradient_evals: int = 0
