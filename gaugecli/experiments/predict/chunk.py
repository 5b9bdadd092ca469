"""One chunk of ``gaugecli predict`` (:class:`PredictChunk`): consecutive seeds of one cell, drawn,
integrated as one ensemble of population flows in the invariant subspace, and read — the realised
owner of every feature against the neuron each predictor names."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaugecli.core.gauge import function_coordinates
from gaugecli.core.ownership import feature_alignment, feature_owners
from gaugecli.core.symmetry import equal_groups
from gaugecli.experiments.common import integrate_ensemble
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.params import PREDICTORS
from gaugecli.experiments.predict.predictors import NONE, predictions
from gaugecli.experiments.predict.starts import draw

GRID_POINTS = 3
"""Saved times of each flow: only the state at the horizon is read (the owners), and the flow's
adaptive steps do not depend on the saved grid."""


@dataclass(frozen=True)
class PredictChunk:
    """Seeds ``seeds`` of the cell ``(k, m, spread)`` (``spread``: ρ, ``None`` for δ as drawn) at input
    dimension ``d``, scales ``σ_a, σ_w``, alignment threshold ``eps_align``, solver ``rtol`` and horizon ``t_max``."""

    k: int
    m: int
    spread: float | None
    seeds: tuple[int, ...]
    d: int
    scale_a: float
    scale_w: float
    eps_align: float
    rtol: float
    t_max: float


@dataclass
class ChunkResult:
    """Per seed and feature (``[run][feature]``): the realised owner (:data:`NONE` where there is none),
    whether it is tied, and each predictor's pick; the sums of the draws that give the measured
    spread ratio (δ over every neuron, ``c α`` over every neuron and feature)."""

    owners: list[list[int]]
    tied: list[list[bool]]
    picks: dict[str, list[list[int]]]
    delta_moments: list[float]
    visible_moments: list[float]
    gradient_evals: int


def _moments(x: np.ndarray) -> list[float]:
    return [float(x.size), float(np.sum(x)), float(np.sum(x**2))]


def predict_chunk(job: PredictChunk) -> ChunkResult:
    """Draw, integrate and read the chunk's runs (module docstring)."""
    seeds = list(job.seeds)
    a0, W0, delta = draw(seeds, job.k, job.m, job.d, job.scale_a, job.scale_w, job.spread)
    r = W0.shape[-1]
    model = ModelConfig(d=r, k=job.k, eps_align=job.eps_align)
    net = model.build()
    dynamics = DynamicsConfig(rtol=job.rtol, t_max=job.t_max, grid_points=GRID_POINTS)
    traj, full = integrate_ensemble(model, dynamics, a0, W0)
    W_end = traj.input_weights()[:, -1]
    c_end, _ = function_coordinates(traj.a[:, -1], W_end)
    alpha_end = feature_alignment(W_end, full)
    owners, tied = [], []
    for b in range(len(seeds)):
        end = feature_owners(c_end[b], alpha_end[b], job.eps_align, equal_groups(a0[b], W0[b]))
        owners.append([NONE if o is None else o for o in end.owners])
        tied.append(list(end.tied))
    picks = predictions(a0, W0, net, job.eps_align, job.rtol, job.t_max)
    c0, _ = function_coordinates(a0, W0)
    visible = c0[..., None] * feature_alignment(W0, net)
    return ChunkResult(
        owners=owners,
        tied=tied,
        picks={name: picks[name].tolist() for name in PREDICTORS},
        delta_moments=_moments(delta),
        visible_moments=_moments(visible),
        gradient_evals=int(traj.stats.n_gradient_evals),
    )
