"""Fits with uncertainties shared by the sweeps: weighted power laws over seeds, binomial rates
with Wilson intervals, and logistic thresholds of a success rate against a size."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special, stats


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


SCORE_TOL = 1e-6
"""A logistic fit whose score (expected − observed successes, in counts) is below this is at its
optimum, whatever the optimiser's status: at ≥ 1 count of information per unit of a coefficient,
the coefficients are then within ~1e-6 of the maximum."""


@dataclass
class LogisticFit:
    """A success rate against a size, ``P(n) = 1/(1 + (n/n_half)^{−steepness})`` — logistic in
    ``ln n`` — by maximum likelihood over binomial counts.

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


def fit_logistic(ns: list[int], successes: list[int], trials: list[int]) -> LogisticFit | None:
    """The :class:`LogisticFit` of ``successes[i]`` out of ``trials[i]`` runs at size ``ns[i]``.

    ``None`` where the maximum-likelihood fit does not exist: unless some run fails at a larger
    ``n`` than another succeeds (the outcomes overlap), the likelihood grows without bound as the
    step sharpens — the counts locate the threshold only between two grid sizes."""
    x = np.log(np.asarray(ns, float))
    k, N = np.asarray(successes, float), np.asarray(trials, float)
    keep = N > 0
    x, k, N = x[keep], k[keep], N[keep]
    failing, passing = x[k < N], x[k > 0]
    if failing.size == 0 or passing.size == 0 or failing.max() <= passing.min():
        return None
    centre = float(np.mean(x))  # logit p = b0 + b1 (ln n − centre): a well-conditioned Fisher matrix
    X = np.stack([np.ones_like(x), x - centre], axis=1)

    def nll(b: np.ndarray) -> float:
        z = X @ b  # log p = −log(1 + e^{−z}), log(1 − p) = −log(1 + e^{z})
        return float(np.sum(k * np.logaddexp(0.0, -z) + (N - k) * np.logaddexp(0.0, z)))

    def grad(b: np.ndarray) -> np.ndarray:
        return np.asarray(X.T @ (N * special.expit(X @ b) - k))

    def fisher(b: np.ndarray) -> np.ndarray:
        p = special.expit(X @ b)
        return np.asarray((X * (N * p * (1.0 - p))[:, None]).T @ X)

    # gtol in counts: the score's entries are sums of (expected − observed) successes
    fit = optimize.minimize(nll, np.zeros(2), jac=grad, hess=fisher, method="trust-exact", options={"gtol": 1e-9})
    b0, b1 = fit.x
    # trust-exact reports failure when the last predicted improvement is below the likelihood's
    # round-off (measured: score 6e-9 counts, "a bad approximation"); the optimum is reached all the same
    converged = fit.success or float(np.max(np.abs(grad(fit.x)))) < SCORE_TOL
    if not converged or b1 <= 0:
        return None
    cov = np.linalg.inv(fisher(fit.x))

    def log_size(q: float) -> tuple[float, float]:
        offset = (special.logit(q) - b0) / b1  # ln n − centre at which P = q
        gradient = np.array([-1.0 / b1, -offset / b1])
        return float(centre + offset), float(np.sqrt(gradient @ cov @ gradient))

    (half, err_half), (ninety, err_ninety) = log_size(0.5), log_size(0.9)
    return LogisticFit(float(np.exp(half)), float(np.exp(ninety)), float(b1), err_half, err_ninety)


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
