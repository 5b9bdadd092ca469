"""Who the owners are, apart from which feature each owns: with ``k`` features, whether the ``k``
neurons a score ranks highest at the start are exactly the neurons that end up owning the features.

A rule can fail to name the owner of feature ``k`` for two reasons: it picks the wrong neurons, or
it picks the right ones and pairs them with the wrong features. This separates the two. For a run
whose every feature has an owner (none tied), the **owner set** ``{o_1 … o_k}`` is compared with the
top ``k`` of a per-neuron score:

* ``delta`` — ``δ_j`` (the gauge);
* ``c-alpha`` — ``max_l c_j α_jl(0)`` (the visible score of the neuron's best feature).

By chance a set of ``k`` among ``m`` is the owner set with probability ``1/C(m, k)``. The starts are
drawn again from the seeds (:func:`~gaugecli.experiments.predict.starts.draw`, deterministic), so
the measure needs no run beyond the study's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gaugecli.core.model.gauge import function_coordinates
from gaugecli.core.model.state import Network
from gaugecli.experiments.config import ModelConfig
from gaugecli.experiments.perturb.fits import wilson_interval
from gaugecli.experiments.predict.config import PredictConfig
from gaugecli.experiments.predict.predictors import DELTA_TIE, NONE, alignments
from gaugecli.experiments.predict.result import PredictResult
from gaugecli.experiments.predict.starts import draw

SCORES = ("delta", "c-alpha")
"""The per-neuron scores whose top ``k`` is compared with the owner set."""


@dataclass(frozen=True)
class OwnerSets:
    """Of ``runs`` runs with every feature owned, ``correct[s]`` had the top ``k`` of score ``s`` as
    their owner set; ``low``/``high``: the 95 % Wilson interval; ``chance``: ``1/C(m, k)``."""

    runs: int
    correct: dict[str, int]
    low: dict[str, float]
    high: dict[str, float]
    chance: float

    def share(self, score: str) -> float | None:
        return self.correct[score] / self.runs if self.runs else None


def _scores(a0: np.ndarray, W0: np.ndarray, delta: np.ndarray, k: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each score ``(B, m)`` and the margin ``(B, 1)`` within which two of its values tie: for δ, the
    round-off of rebuilding ``(a, w)`` from ``(c, u, δ)`` (:data:`DELTA_TIE`), so that at ρ = 0,
    where every δ is 0 up to it, the δ ranking names no set; none for the visible score."""
    model = ModelConfig(d=W0.shape[-1], k=k).build()
    c, _ = function_coordinates(Network(a0, W0))
    size = np.max(a0**2 + np.sum(W0**2, axis=-1), axis=-1, keepdims=True)
    visible = np.max(c[..., None] * alignments(W0, model), axis=-1)
    return {"delta": (delta, DELTA_TIE * size), "c-alpha": (visible, np.zeros_like(size))}


def owner_sets(result: PredictResult, config: PredictConfig) -> list[OwnerSets]:
    """One :class:`OwnerSets` per row of a ``predict`` result, in its order (``config``: the study's)."""
    out = []
    for row in result.rows:
        a0, W0, delta = draw(
            list(result.seeds), row.k, row.m, config.model.d, config.init_scale_a, config.init_scale_w, row.spread
        )
        owners = np.asarray(row.owners, int)
        full = np.all(owners != NONE, axis=1) & (np.array([len(set(o)) for o in row.owners]) == row.k)
        correct = {}
        for name, (score, tie) in _scores(a0, W0, delta, row.k).items():
            ranked = np.sort(score, axis=1)[:, ::-1]
            named = ranked[:, row.k - 1] - ranked[:, row.k] > tie[:, 0] if row.k < row.m else np.ones(len(score), bool)
            top = np.argsort(-score, axis=1, kind="stable")[:, : row.k]
            correct[name] = int(sum(named[b] and set(top[b]) == set(owners[b]) for b in np.nonzero(full)[0]))
        runs = int(np.sum(full))
        bounds = {name: wilson_interval(correct[name], runs) for name in SCORES}
        out.append(
            OwnerSets(
                runs=runs,
                correct=correct,
                low={n: b[0] for n, b in bounds.items()},
                high={n: b[1] for n, b in bounds.items()},
                chance=1.0 / math.comb(row.m, row.k),
            )
        )
    return out


__all__ = ["SCORES", "OwnerSets", "owner_sets"]
