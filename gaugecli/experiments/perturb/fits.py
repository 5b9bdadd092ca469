"""Fits with uncertainties shared by the sweeps: weighted power laws over seeds, binomial rates
with Wilson intervals, and logistic thresholds of a success rate against a size by Firth's penalised
likelihood.

Firth's penalty: Biometrika 80 (1993) 27–38."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats


@dataclass
class PowerLawFit:
    """``y ≈ prefactor · x^slope`` by weighted least squares on log–log axes.

    ``slope_err``: one standard error, from the weighted fit's covariance scaled by
    ``max(1, χ²/dof)`` (so scatter beyond the error bars widens it, never narrows it).
    """

    slope: float
    slope_err: float
    prefactor: float
    chi2_dof: float


def fit_power_law(x: list[float], per_seed: list[list[float]]) -> PowerLawFit | None:
    """Fit the seed means of ``per_seed[k]`` (values at ``x[k]``) against ``x``; the weight of
    each mean is its relative standard error (delta method: ``σ_log = SE/mean``)."""
    rows = [(xi, np.asarray(v, float)) for xi, v in zip(x, per_seed, strict=True)]
    rows = [(xi, v[np.isfinite(v)]) for xi, v in rows]
    rows = [(xi, v) for xi, v in rows if v.size >= 2 and np.mean(v) > 0 and xi > 0]
    if len(rows) < 3:
        return None
    mean = np.array([np.mean(r[1]) for r in rows])
    sem = np.array([np.std(r[1], ddof=1) / np.sqrt(r[1].size) for r in rows])
    return power_law_through([r[0] for r in rows], mean, sem / mean)


def power_law_through(x: ArrayLike, y: ArrayLike, log_err: ArrayLike) -> PowerLawFit:
    """``y ≈ prefactor · x^slope`` by least squares of ``ln y`` on ``ln x``, each point weighted by
    ``1/log_err`` (its standard error on the log scale, floored at 1e-12); needs ≥ 2 points."""
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    sigma = np.maximum(np.asarray(log_err, float), 1e-12)
    (slope, icept), cov = np.polyfit(lx, ly, 1, w=1.0 / sigma, cov="unscaled")
    resid = (ly - (slope * lx + icept)) / sigma
    dof = lx.size - 2
    chi2_dof = float(np.sum(resid**2) / dof) if dof > 0 else float("nan")
    scale = max(1.0, chi2_dof) if dof > 0 else 1.0
    return PowerLawFit(float(slope), float(np.sqrt(cov[0, 0] * scale)), float(np.exp(icept)), chi2_dof)


NEWTON_STEPS = 60
"""Newton iterations of :func:`logistic_thresholds`: quadratic convergence from 0 takes ≲ 15 on the
sweeps' counts; the rest is margin, and a row whose score is still above :data:`SCORE_TOL` has no fit."""
MAX_STEP = 2.0
"""Longest Newton step (in either coefficient): a damping that only the first steps from 0 meet."""
RIDGE = 1e-12
"""Added to the Fisher information, so that a row whose rates saturate (information → 0) stays
solvable; far below the information of any fit kept (≳ 1e-2 counts at the sweeps' sizes)."""
SCORE_TOL = 1e-8
"""Largest entry of a converged fit's (penalised) score, in counts: expected − observed successes."""


@dataclass
class LogisticFit:
    """A success rate against a size, ``P(n) = 1/(1 + (n/n_half)^{−steepness})`` — logistic in
    ``ln n`` — by Firth's penalised maximum likelihood over binomial counts (module function).

    ``n_half``: the size at which half the runs succeed; ``n_ninety``: nine in ten
    (``n_half · 9^{1/steepness}``); ``log_err_half``, ``log_err_ninety``: their standard errors on the
    log scale, by the delta method from the inverse Fisher information (so ``n · e^{±err}`` is a
    one-standard-error band)."""

    n_half: float
    n_ninety: float
    steepness: float
    log_err_half: float
    log_err_ninety: float

    def rate(self, n: ArrayLike) -> np.ndarray:
        """The fitted success rate at ``n``."""
        return np.asarray(special.expit(self.steepness * (np.log(np.asarray(n, float)) - np.log(self.n_half))))


def logistic_thresholds(ns: ArrayLike, successes: ArrayLike, trials: ArrayLike) -> dict[str, np.ndarray]:
    """Per row of ``successes`` (``(B, len(ns))``, or one row): the fit of :func:`fit_logistic` as
    arrays — ``ln n_½``, ``ln n_0.9``, their standard errors and the steepness — NaN where a row has
    no fit. All rows are solved at once (a bootstrap refits thousands).

    Firth's penalised likelihood ``ℓ(b) + ½ ln det I(b)`` (the Jeffreys prior) is maximised by
    Newton's method on its score ``Xᵀ(k − N p + h (½ − p))``, ``h`` the hat values
    ``N p (1 − p) xᵀ I⁻¹ x``. Unlike the plain maximum likelihood it exists for every count vector
    that has a success and a failure — also where the counts separate between two sizes or around
    one mixed size, where the plain estimate's steepness is infinite — and its O(1/N) bias is removed."""
    x = np.log(np.asarray(ns, float))
    k = np.atleast_2d(np.asarray(successes, float))
    N = np.broadcast_to(np.asarray(trials, float), k.shape)
    centre = float(np.mean(x))  # logit p = b0 + b1 (ln n − centre): a well-conditioned Fisher matrix
    X = np.stack([np.ones_like(x), x - centre], axis=1)

    def state(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = special.expit(b @ X.T)  # (B, n)
        info = np.einsum("bn,ni,nj->bij", N * p * (1.0 - p), X, X) + RIDGE * np.eye(2)
        hat = N * p * (1.0 - p) * np.einsum("ni,bij,nj->bn", X, np.linalg.inv(info), X)
        return (k - N * p + hat * (0.5 - p)) @ X, info

    bounded = np.any(k > 0, axis=1) & np.any(k < N, axis=1)  # a success and a failure: a threshold between
    b = np.zeros((k.shape[0], 2))
    for _ in range(NEWTON_STEPS):
        score, info = state(b)
        if np.all((np.max(np.abs(score), axis=1) < SCORE_TOL) | ~bounded):
            break
        step = np.linalg.solve(info, score[..., None])[..., 0]
        b = b + step * np.minimum(1.0, MAX_STEP / np.maximum(np.max(np.abs(step), axis=1), 1e-300))[:, None]
    score, info = state(b)
    ok = bounded & (np.max(np.abs(score), axis=1) < SCORE_TOL) & (b[:, 1] > 0)
    cov = np.linalg.inv(info)
    out: dict[str, np.ndarray] = {"steepness": np.where(ok, b[:, 1], np.nan)}
    steep = np.where(ok, b[:, 1], 1.0)  # rows without a fit: any finite value, masked below
    for name, q in (("half", 0.5), ("ninety", 0.9)):
        offset = (special.logit(q) - b[:, 0]) / steep  # ln n − centre at which P = q
        grad = np.stack([-1.0 / steep, -offset / steep], axis=1)
        out[f"log_{name}"] = np.where(ok, centre + offset, np.nan)
        out[f"log_err_{name}"] = np.where(ok, np.sqrt(np.einsum("bi,bij,bj->b", grad, cov, grad)), np.nan)
    return out


def fit_logistic(ns: list[int], successes: list[int], trials: list[int]) -> LogisticFit | None:
    """The :class:`LogisticFit` of ``successes[i]`` out of ``trials[i]`` runs at size ``ns[i]``
    (:func:`logistic_thresholds`); ``None`` where no size has a success, or none a failure: then
    the counts do not bound the threshold from both sides."""
    N = np.asarray(trials, float)
    keep = N > 0
    fit = logistic_thresholds(np.asarray(ns, float)[keep], np.asarray(successes, float)[keep][None], N[keep])
    if not np.isfinite(fit["log_half"][0]):
        return None
    return LogisticFit(
        float(np.exp(fit["log_half"][0])),
        float(np.exp(fit["log_ninety"][0])),
        float(fit["steepness"][0]),
        float(fit["log_err_half"][0]),
        float(fit["log_err_ninety"][0]),
    )


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a binomial rate (scipy); ``(0, 1)`` without trials."""
    if trials == 0:
        return 0.0, 1.0
    ci = stats.binomtest(successes, trials).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def mean_sem(rows: list[list[float]]) -> tuple[list[float], list[float]]:
    """Per row: the mean and standard error of the finite values (NaN where there are too few)."""
    means, sems = [], []
    for row in rows:
        v = np.asarray(row, float)
        v = v[np.isfinite(v)]
        means.append(float(np.mean(v)) if v.size else float("nan"))
        sems.append(float(np.std(v, ddof=1) / np.sqrt(v.size)) if v.size >= 2 else float("nan"))
    return means, sems
