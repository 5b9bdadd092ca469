"""The numbers of fig8's sidecar ``key`` that the README and docs/theory.md §12 cite: per activation the
local slopes at the largest D, the scaled times' limits where they exist (Richardson in ``1/D``), the
``A ln D + B`` law of ``T(−D)/D`` where it diverges instead (the linear network and erf), and the selection."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from gaugecli.plots import style

if TYPE_CHECKING:
    from gaugecli.experiments.limits import LimitConstants

GAUGES = ("favorable", "unfavorable")


def constants(D: np.ndarray, times: dict[str, np.ndarray], p: int, which: tuple[str, ...] | None = None) -> dict[str, Any]:  # fmt: skip
    """The scaled times ``D^{1/p} T(+D)``, ``T(−D)/D`` and ``(T(−D)/T(+D))/D^{1+1/p}`` at the largest D, and
    their Richardson extrapolation in ``1/D`` (first order: the corrections are O(1/D)) from the last pair,
    with the spread between the last two pairwise extrapolations as its error estimate. ``which`` keeps
    only those that have a limit (the linear network's ``T(−D)/D`` grows like ln D: no extrapolation)."""
    from gaugecli.core.reduced.limits import richardson_limit

    scaled = {
        "favorable": times["favorable"] * D ** (1.0 / p),
        "unfavorable": times["unfavorable"] / D,
        "separation": times["unfavorable"] / times["favorable"] / D ** (1.0 + 1.0 / p),
    }
    out: dict[str, Any] = {}
    for name, values in scaled.items():
        if which is not None and name not in which:
            continue
        limit, table = richardson_limit(D, values, order=1.0)
        out[name] = {
            "at_largest_D": float(values[-1]),
            "extrapolated": limit,
            "spread": float(abs(table[-1] - table[-2])) if table.size > 1 else None,
        }
    return out


def _law_record(law: Any) -> dict[str, Any]:
    return {
        "form": "T_spec(-D)/D = A ln D + B (least squares)",
        "coefficient": law.coefficient,
        "constant": law.constant,
        "fitted_D": style.tolist(law.fitted),
        "increments_per_unit_ln_D": style.series(law.mid, law.increments),
    }


def key_numbers(
    panels: dict[str, Any],
    D: np.ndarray,
    times: dict[str, dict[str, np.ndarray]],
    laws: dict[str, Any],
    model: Any,
    rows: list[tuple[str, int | None, float | None]],
    relu_limits: LimitConstants,
) -> dict[str, Any]:
    """The numbers the README cites: per activation (``rows``: label, degree p and the expected slope
    ``1 + 1/p``), the separation's local slope at the largest D, the components' slopes there, the
    constants (or the ln D law), and the selection; relu's exact ``D → ∞`` constants from
    ``relu_limits`` (a cached ``limit-constants`` run)."""
    from gaugecli.core.analyses.separation import local_slopes
    from gaugecli.core.reduced.linear import unfavorable_log_law

    out: dict[str, Any] = {}
    for label, p, expected in rows:
        e = panels["e"][label]
        slopes = {g: float(local_slopes(D, times[label][g])[1][-1]) for g in GAUGES}
        out[label] = {
            "degree": p,
            "expected_separation_slope": expected,
            "separation_slope_at_largest_D": panels["c"][label]["y"][-1],
            "favorable_slope_at_largest_D": slopes["favorable"],
            "unfavorable_slope_at_largest_D": slopes["unfavorable"],
            "constants": None
            if p is None
            else constants(D, times[label], p, ("favorable",) if label in laws else None),
            "selected": e["success"],
            "pruned": e["pruned"],
            "P_end": e["P_end"],
        }
    for label, law in laws.items():
        out[label]["law"] = _law_record(law)
    A, B = unfavorable_log_law(model.c0, model.eps_align)
    out["linear"]["law"]["derived"] = {"coefficient": A, "constant": B, "source": "gate-v ReLN at twice its speed"}
    # erf at −D is a sign neuron (‖w‖² ≈ D): the slow-manifold argument of theory §12 gives 3π²/4
    out["erf"]["law"]["derived"] = {"coefficient": 0.75 * math.pi**2, "constant": None, "source": "D → ∞ only"}
    out["relu"]["exact_limits"] = {"favorable": relu_limits.favorable, "unfavorable": relu_limits.unfavorable}
    out["erf"]["final_imbalance_ratio"] = {k: v["y"][-1] for k, v in panels["f"].items()}
    aligned = panels["a"]["aligned"]
    out["linear"]["aligned_time_at_smallest_and_largest_D"] = [aligned["y"][0], aligned["y"][-1]]
    return out
