"""The uncertainty of the exponent of a sample-size law ``n_q(d) ∝ d^s`` by a bootstrap over seeds.

A selection sweep (:mod:`gaugecli.experiments.perturb.selection`) trains every seed at every size
``n`` from one fixed start on a sample of its own, so the outcomes of the seeds of one cell (d, n)
are independent of every other cell's, and exchangeable within it. Resampling a cell's ``N`` seeds
with replacement therefore draws its success count from ``Binomial(N, k/N)``; a replicate redraws
every cell, refits each d's logistic threshold (by a vectorised Newton iteration, the same maximum
likelihood as :func:`~gaugecli.experiments.perturb.fits.fit_logistic`) and the power law through
them (:func:`~gaugecli.experiments.perturb.fits.power_law_through`, the same weights as the point
estimate). The interval is the percentile interval of the replicates' exponents. A replicate where
some d's counts do not locate a threshold (no size fails above one that succeeds) has no fit and is
left out; :attr:`ExponentBootstrap.kept` says how many remain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from gaugecli.experiments.perturb.fits import power_law_through

NEWTON_STEPS = 60
"""Newton iterations of the batched logistic fit: quadratic convergence from 0 takes ≲ 15 on these
counts; the rest is margin, and a replicate whose score is still above :data:`SCORE_TOL` is dropped."""
MAX_STEP = 2.0
"""Longest Newton step (in either coefficient): a damping that only the first steps from 0 meet."""
STEP_RIDGE = 1e-12
"""Added to the Fisher information before a step, so that a saturated replicate (information 0)
stays solvable; far below the information of any fit kept (≥ 1e-3 at these counts)."""
SCORE_TOL = 1e-8
"""Largest score entry (in counts: expected − observed successes) of a converged fit."""


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


def logistic_thresholds(ns: ArrayLike, successes: ArrayLike, trials: ArrayLike) -> dict[str, np.ndarray]:
    """Per row of ``successes`` (shape ``(B, len(ns))``): ``ln n_½``, ``ln n_0.9`` and their delta-method
    standard errors, the maximum-likelihood logistic in ``ln n`` of
    :func:`~gaugecli.experiments.perturb.fits.fit_logistic` (NaN where it has no fit)."""
    x = np.log(np.asarray(ns, float))
    k = np.atleast_2d(np.asarray(successes, float))
    N = np.broadcast_to(np.asarray(trials, float), k.shape)
    centre = float(np.mean(x))
    X = np.stack([np.ones_like(x), x - centre], axis=1)  # (n, 2), as fit_logistic
    b = np.zeros((k.shape[0], 2))
    for _ in range(NEWTON_STEPS):
        p = special.expit(b @ X.T)  # (B, n)
        score = (N * p - k) @ X  # (B, 2): the gradient of the negative log-likelihood
        info = np.einsum("bn,ni,nj->bij", N * p * (1.0 - p), X, X) + STEP_RIDGE * np.eye(2)
        step = np.linalg.solve(info, score[..., None])[..., 0]
        # a step at most MAX_STEP long: where the counts barely overlap the likelihood is flat far out
        b = b - step * np.minimum(1.0, MAX_STEP / np.maximum(np.max(np.abs(step), axis=1), 1e-300))[:, None]
    p = special.expit(b @ X.T)
    score = np.max(np.abs((N * p - k) @ X), axis=1)
    info = np.einsum("bn,ni,nj->bij", N * p * (1.0 - p), X, X)
    # the fit exists only where some size fails above one that succeeds (fit_logistic's condition)
    fails, passes = np.where(k < N, x, -np.inf).max(axis=1), np.where(k > 0, x, np.inf).min(axis=1)
    ok = (fails > passes) & (score < SCORE_TOL) & (b[:, 1] > 0)
    cov = np.linalg.inv(np.where(ok[:, None, None], info, np.eye(2)))
    out: dict[str, np.ndarray] = {}
    for name, q in (("half", 0.5), ("ninety", 0.9)):
        offset = (special.logit(q) - b[:, 0]) / b[:, 1]
        grad = np.stack([-1.0 / b[:, 1], -offset / b[:, 1]], axis=1)
        out[f"log_{name}"] = np.where(ok, centre + offset, np.nan)
        out[f"log_err_{name}"] = np.where(ok, np.sqrt(np.einsum("bi,bij,bj->b", grad, cov, grad)), np.nan)
    return out


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
    exps: dict[str, list[float]] = {"half": [], "ninety": []}
    kept = np.all([np.isfinite(f["log_half"]) for f in fits], axis=0)
    for r in np.nonzero(kept)[0]:
        for name in exps:
            size = np.exp([f[f"log_{name}"][r] for f in fits])
            err = [f[f"log_err_{name}"][r] for f in fits]
            exps[name].append(power_law_through(dims, size, err).slope)
    tail = 50.0 * (1.0 - confidence)

    def interval(values: list[float]) -> tuple[float, float]:
        if not values:
            return float("nan"), float("nan")
        low, high = np.percentile(values, [tail, 100.0 - tail])
        return float(low), float(high)

    return ExponentBootstrap(
        replicates, int(kept.sum()), confidence, seed, interval(exps["half"]), interval(exps["ninety"])
    )


__all__ = ["ExponentBootstrap", "bootstrap_exponents", "logistic_thresholds"]
