"""What ``gaugecli lockin`` returns: one :class:`LockinRun` per run, the scans, and the
select-vs-control summary (:func:`summarize`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from gaugecli.core.frames import Labelled, View


@dataclass
class LockinRun:
    """One run: its condition, scalars and the series a figure needs (every 'store_every'-th epoch).

    Times are in ``t_unit``. ``detector_fire_*``: first firing of Xu's detector (None: never).
    ``frac_neg_given_similar``: ``frac(B_jl < 0 | S_jl > 0)`` pooled over stored epochs and pairs.
    ``Lambda_total``: the separation exponent ``Λ`` of the first equal group at the horizon
    (population flow only). ``owner``: the final owner, None for symmetric starts (tied top δ).
    """

    VIEW: ClassVar[View] = View(dims={"series": ("t",)})
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

    assign: str
    mode: str
    D: float
    seed: int | None
    activation: str
    control: bool
    theta0: float
    t_unit: float
    t_spec: float | None
    owner: int | None
    epoch: float
    eta: float | None
    rank2_peak: float
    rank2_t_peak: float
    rank_max: int
    gauge_classes: int
    detector_fire_raw: float | None
    detector_fire_floored: float | None
    roundoff_fraction: float
    frac_neg_given_similar: float | None
    sign_identity_residual: float
    direct_sign_match: float
    owner_overshoot_deg: float
    Lambda_total: float | None
    series: dict[str, list[float | None]]


@dataclass
class LockinResult(Labelled):
    """Every run, the scans (:mod:`.scans`) and the summary; times in units of each run's ``t_unit``."""

    VIEW: ClassVar[View] = View(records={"runs": "run"})
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""

    runs: list[LockinRun]
    summary: list[dict[str, Any]]
    rank2_collapse: list[dict[str, float]]
    resolution_scan: list[dict[str, Any]]
    tspec_vs_eps: list[dict[str, Any]]
    owner_overshoot: dict[str, float]
    roundoff_exponent: float
    roundoff_level: float
    notes: list[str]


def _median(values: list[float | None]) -> float | None:
    xs = [v for v in values if v is not None]
    return float(np.median(xs)) if xs else None


def summarize(runs: list[LockinRun]) -> list[dict[str, Any]]:
    """Select vs aligned control, per (mode, activation, D): how often and when each detector fires,
    the rank-2 share's peak (× D), the B-sign rate."""
    rows = []
    keys = sorted({(r.mode, r.activation, r.D) for r in runs if r.assign == "select"})
    for mode, activation, D in keys:
        for control in (False, True):
            group = [
                r
                for r in runs
                if (r.mode, r.activation, r.D, r.control) == (mode, activation, D, control) and r.assign == "select"
            ]
            if not group:
                continue
            rows.append(
                {
                    "condition": "control" if control else "select",
                    "mode": mode,
                    "activation": activation,
                    "D": D,
                    "runs": len(group),
                    "fires_raw": sum(r.detector_fire_raw is not None for r in group),
                    "fires_floored": sum(r.detector_fire_floored is not None for r in group),
                    "fire_raw_median": _median([r.detector_fire_raw for r in group]),
                    "fire_floored_median": _median([r.detector_fire_floored for r in group]),
                    "t_spec_median": _median([r.t_spec for r in group]),
                    "rank2_peak_times_D_median": _median([r.rank2_peak * r.D for r in group]),
                    "rank2_t_peak_median": _median([r.rank2_t_peak for r in group]),
                    "roundoff_fraction_median": _median([r.roundoff_fraction for r in group]),
                    "frac_neg_given_similar_median": _median([r.frac_neg_given_similar for r in group]),
                }
            )
    return rows
