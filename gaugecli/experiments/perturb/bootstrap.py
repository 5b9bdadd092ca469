"""The uncertainty of the exponent of a sample-size law ``n_q(d) ∝ d^s`` by a bootstrap over seeds.

A selection sweep (:mod:`gaugecli.experiments.perturb.selection`) trains every seed at every size
``n`` from one fixed start on a sample of its own, so the outcomes of the seeds of one cell (d, n)
are independent of every other cell's, and exchangeable within it. Resampling a cell's ``N`` seeds
with replacement therefore draws its success count from ``Binomial(N, k/N)``; a replicate redraws
every cell, refits each d's logistic threshold (all replicates at once,
:func:`~gaugecli.experiments.perturb.fits.logistic_thresholds`: the fit of
:func:`~gaugecli.experiments.perturb.fits.fit_logistic`) and the power law through them
(the slope of :func:`~gaugecli.experiments.perturb.fits.power_law_through`, the same weights as the
point estimate, in closed form for all replicates at once). The interval is the percentile interval of the replicates' exponents. Firth's penalised
fit exists wherever a d has a success and a failure, also where a replicate's counts separate (the
plain maximum likelihood does not: at 20 seeds per cell it failed in 45 % of the replicates, those
of the sharpest thresholds); a replicate without a fit at some d is left out, and
:attr:`ExponentBootstrap.kept` says how many remain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from gaugecli.experiments.perturb.fits import logistic_thresholds


@dataclass(frozen=True)
class ExponentBootstrap:
    """Percentile intervals of the exponents of ``n_½ ∝ d^s`` and ``n_0.9 ∝ d^s``.

    ``replicates``: B; ``kept``: replicates in which every d's threshold exists; ``confidence``: the
    interval's coverage; ``half``/``ninety``: the (low, high) percentiles of the exponent;
    ``seed``: the generator's seed (the interval is reproducible)."""

    replicates: int
    kept: int
    confidence: float
    seed: int
    half: tuple[float, float]
    ninety: tuple[float, float]


def weighted_slopes(lx: np.ndarray, ly: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per row of ``ly``: the slope of the least-squares line through ``(lx, ly)`` with weights ``w``
    (``1/σ²``) — the slope of :func:`~gaugecli.experiments.perturb.fits.power_law_through`, for all
    replicates at once (closed form of the 2 × 2 normal equations)."""
    sw, sx, sy = w.sum(axis=1), (w * lx).sum(axis=1), (w * ly).sum(axis=1)
    sxx, sxy = (w * lx * lx).sum(axis=1), (w * lx * ly).sum(axis=1)
    return np.asarray((sw * sxy - sx * sy) / (sw * sxx - sx * sx))


def bootstrap_exponents(
    dims: ArrayLike,
    cells: Sequence[tuple[Sequence[int], Sequence[int], Sequence[int]]],
    replicates: int,
    seed: int,
    confidence: float = 0.95,
) -> ExponentBootstrap:
    """The bootstrap (module docstring) of the exponents over ``dims``; ``cells[i]`` holds
    ``(ns, successes, trials)`` of dimension ``dims[i]``."""
    rng = np.random.default_rng(seed)
    fits = []
    for ns, k, N in cells:
        N_arr = np.asarray(N, int)
        rate = np.divide(np.asarray(k, float), N_arr, out=np.zeros(len(N_arr)), where=N_arr > 0)
        drawn = rng.binomial(N_arr, rate, size=(replicates, len(N_arr)))
        fits.append(logistic_thresholds(ns, drawn, N_arr))
    kept = np.all([np.isfinite(f["log_half"]) for f in fits], axis=0)
    lx = np.log(np.asarray(dims, float))
    exps: dict[str, np.ndarray] = {}
    for name in ("half", "ninety"):
        ly = np.stack([f[f"log_{name}"][kept] for f in fits], axis=1)  # (kept, dims)
        w = 1.0 / np.maximum(np.stack([f[f"log_err_{name}"][kept] for f in fits], axis=1), 1e-12) ** 2
        exps[name] = weighted_slopes(lx, ly, w)
    tail = 50.0 * (1.0 - confidence)

    def interval(values: np.ndarray) -> tuple[float, float]:
        if not values.size:
            return float("nan"), float("nan")
        low, high = np.percentile(values, [tail, 100.0 - tail])
        return float(low), float(high)

    return ExponentBootstrap(
        replicates, int(kept.sum()), confidence, seed, interval(exps["half"]), interval(exps["ninety"])
    )


__all__ = ["ExponentBootstrap", "bootstrap_exponents", "weighted_slopes"]
