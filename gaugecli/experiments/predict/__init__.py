"""``gaugecli predict``: which neuron learns each teacher feature from a random start, against what
each predictor names — the gauge (δ), the geometry (alignment, c·α), the transport (angular speed)
and a race of the reduced equations — as the spread of δ grows against the visible spread.

Every cell (k features, m neurons, a δ spread) runs ``runs`` Gaussian starts
(:mod:`~gaugecli.experiments.predict.starts`); its seeds are integrated in chunks of a partition
fixed by the configuration (:mod:`~gaugecli.experiments.predict.config`), each chunk one ensemble of
population flows in the invariant subspace, cached as a sweep point as it finishes and reused by a
rerun (:mod:`~gaugecli.experiments.predict.chunk`); the rules are
:mod:`~gaugecli.experiments.predict.predictors`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gaugecli.core.types import PointRunner, Progress
from gaugecli.experiments.common import run_serially
from gaugecli.experiments.perturb.fits import wilson_interval
from gaugecli.experiments.predict.chunk import ChunkResult, PredictChunk, predict_chunk
from gaugecli.experiments.predict.config import CHUNK_RUNS, Cell, PredictConfig
from gaugecli.experiments.predict.predictors import NONE
from gaugecli.experiments.predict.result import PredictResult, PredictRow

__all__ = [
    "CONFIDENCE",
    "Cell",
    "PredictChunk",
    "PredictConfig",
    "PredictResult",
    "PredictRow",
    "chunk_key",
    "chunks",
    "predict",
]

CONFIDENCE = 0.95
"""The confidence of every accuracy's Wilson score interval."""

NOTES = {
    "owner": "final owner of feature k: the neuron with α_jk = u_j·v̂_k ≥ 1 − eps_align carrying the largest c "
    "at the horizon; none where no neuron is aligned with v_k or the owner started tied",
    "accuracy": "share of the (run, feature) pairs with an owner where the predictor names it; Wilson score "
    "interval at `confidence`",
    "ratio": "ρ = σ_δ/σ_vis: δ_j ~ N(0, ρ² σ_vis²) set apart from the visible draw, σ_vis = σ_a σ_w/√d the "
    "standard deviation of c_j α_jk(0); natural rows keep δ_j = a_j² − ‖w_j‖², expected ratio √(2σ_a⁴ + 2σ_w⁴/d)/σ_vis",
    "start": "a_j = |ã_j|, ã_j ~ N(0, σ_a²); w_j ~ N(0, σ_w² I/d); teacher v_l = e_l, a*_l = 1; population flow, ReLU",
    "n": "rows with n: gradient flow on L_n of n Gaussian inputs (a sample per seed, RK45 at rtol 1e-4) from the same "
    "starts as the population row; the predictors read the start alone",
    "sgd": "rows with batch: minibatch SGD on the same L_n samples, batches of `batch` rows resampled every epoch "
    "(seeded by the run's seed), step `eta`, to the same horizon",
    "delta": "argmax_j δ_j",
    "alignment": "argmax_j α_jk(0)",
    "c-alpha": "argmax_j c_j α_jk(0)",
    "angular-speed": "argmax_j of the initial angular speed toward v_k, (u̇_j·v̂_k)/√(1 − α_jk²), u̇_j = −M^u_j grad_u L, "
    "M^u = 1/‖w‖²",
    "race": "argmin_j of T_jk, the time neuron j alone aligns with v_k in the m = 1 reduced (c, θ) equations "
    "(derived while the student's function is small; neglects the other features and the competition)",
}

Key = Callable[[Any], str]


def chunk_key(chunk: PredictChunk) -> dict[str, Any]:
    """The cache key of a chunk as the sweep runner stores it (:func:`gaugecli.run.sweep.point_key`)."""
    return {"job": f"{predict_chunk.__module__}.{predict_chunk.__qualname__}", "point": chunk}


def chunks(config: PredictConfig) -> tuple[list[PredictChunk], list[int]]:
    """The chunks of ``config`` and, for each, the index of its cell in ``config.cells()``."""
    seeds = config.seeds()
    jobs, owner = [], []
    for i, cell in enumerate(config.cells()):
        for s in range(0, len(seeds), CHUNK_RUNS):
            jobs.append(
                PredictChunk(
                    cell.k,
                    cell.m,
                    cell.spread,
                    tuple(seeds[s : s + CHUNK_RUNS]),
                    config.model.d,
                    config.init_scale_a,
                    config.init_scale_w,
                    config.model.eps_align,
                    config.rtol,
                    config.horizon(cell),
                    cell.n,
                    config.sgd_batch if cell.sgd else None,
                    config.sgd_eta if cell.sgd else (config.optimizer_eta if cell.n is None else None),
                    config.mixed_signs,
                    config.rules,
                    config.optimizer if cell.n is None else None,
                )
            )
            owner.append(i)
    return jobs, owner


def _ratio(delta: list[float], visible: list[float]) -> float:
    def std(moments: list[float]) -> float:
        n, s, q = moments
        return max(q / n - (s / n) ** 2, 0.0) ** 0.5

    return std(delta) / std(visible)


def _row(config: PredictConfig, cell: Cell, parts: list[ChunkResult]) -> PredictRow:
    owners = [row for p in parts for row in p.owners]
    tied = sum(t for p in parts for row in p.tied for t in row)
    picks = {name: [row for p in parts for row in p.picks[name]] for name in config.rules}
    owned = sum(o != NONE for row in owners for o in row)
    correct = {
        name: sum(
            o != NONE and q == o
            for row, qs in zip(owners, picks[name], strict=True)
            for o, q in zip(row, qs, strict=True)
        )
        for name in config.rules
    }
    bounds = {
        name: wilson_interval(correct[name], owned, CONFIDENCE) if owned else (None, None) for name in config.rules
    }
    moments = [
        [sum(p.delta_moments[i] for p in parts) for i in range(3)],
        [sum(p.visible_moments[i] for p in parts) for i in range(3)],
    ]
    return PredictRow(
        k=cell.k,
        m=cell.m,
        spread=cell.spread,
        ratio=config.natural_spread if cell.spread is None else cell.spread,
        measured_ratio=_ratio(*moments),
        horizon=config.horizon(cell),
        pairs=len(owners) * cell.k,
        owned=owned,
        no_owner=len(owners) * cell.k - owned - tied,
        tied=tied,
        correct=correct,
        accuracy={name: correct[name] / owned if owned else None for name in config.rules},
        low={name: bounds[name][0] for name in config.rules},
        high={name: bounds[name][1] for name in config.rules},
        owners=owners,
        picks=picks,
        n=cell.n,
        failed=sum(p.failed for p in parts),
        batch=config.sgd_batch if cell.sgd else None,
        eta=config.sgd_eta if cell.sgd else None,
    )


def predict(
    config: PredictConfig, progress: Progress | None = None, runner: PointRunner = run_serially, key: Key | None = None
) -> PredictResult:
    """The study of ``config``: its chunks run through ``runner`` (each cached as it finishes, when the
    runner caches) and assembled into one row per cell; ``key`` hashes the chunks (none without it)."""
    jobs, owner = chunks(config)
    results: list[ChunkResult] = runner(predict_chunk, jobs, progress)
    cells = config.cells()
    rows = [
        _row(config, cell, [r for r, o in zip(results, owner, strict=True) if o == i]) for i, cell in enumerate(cells)
    ]
    return PredictResult(
        predictors=list(config.rules),
        rows=rows,
        seeds=config.seeds(),
        confidence=CONFIDENCE,
        visible_scale=config.visible_scale,
        notes=dict(NOTES),
        chunk_hashes=[key(chunk_key(j)) for j in jobs] if key else [],
        gradient_evals=sum(r.gradient_evals for r in results),
    )
