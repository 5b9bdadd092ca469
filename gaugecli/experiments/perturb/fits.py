"""Fits with uncertainties shared by the sweeps: weighted power laws over seeds, and binomial
rates with Wilson intervals."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats


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
    lx = np.log([r[0] for r in rows])
    mean = np.array([np.mean(r[1]) for r in rows])
    sem = np.array([np.std(r[1], ddof=1) / np.sqrt(r[1].size) for r in rows])
    sigma = np.maximum(sem / mean, 1e-12)
    (slope, icept), cov = np.polyfit(lx, np.log(mean), 1, w=1.0 / sigma, cov="unscaled")
    resid = (np.log(mean) - (slope * lx + icept)) / sigma
    dof = len(rows) - 2
    chi2_dof = float(np.sum(resid**2) / dof) if dof > 0 else float("nan")
    scale = max(1.0, chi2_dof) if dof > 0 else 1.0
    return PowerLawFit(float(slope), float(np.sqrt(cov[0, 0] * scale)), float(np.exp(icept)), chi2_dof)


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
