"""docs/data/phase-presets.json: the readings of ``gaugecli phase --preset outcomes | robustness |
sensitivity`` that docs/howto/phase-maps.md quotes (step 4), computed from the maps themselves.

    python tools/phase_presets.py    # runs the three presets serially, from no cache (≈ 50 CPU-s)
                                     # (tools/doc_numbers.py --run phase-presets), then `make docs`

Names (``tools/doc_numbers.py`` reads them flat; an outcome class by its name, ``symmetric start`` as
``symmetric``):

* ``outcomes.cells``, ``outcomes.{class}`` (cells of each outcome), ``outcomes.exclusive.others_max``
  (the largest δ of the others at which a cell is exclusive);
* ``robustness.{random,adversarial}.cells``, ``.{class}``, ``.owner_share_min``; for ``random``
  ``.exclusive_every_D.eps_max`` (the largest ε whose column is exclusive at every D),
  ``.exclusive_every_eps.D`` (the smallest D whose row is exclusive at every ε), and the strength
  D*(ε) above which a column is exclusive: ``.threshold.D_max`` at ``.threshold.eps_at_D_max`` (its
  largest), ``.threshold.D_min`` from ``.threshold.eps_from`` on (its smallest); for ``adversarial``
  ``.exclusive_every_eps.D`` and each cell not exclusive, ``.{class}.{i}.D``, ``.eps``, ``.owner_share``;
* ``robustness.seeds.runs`` (the random map with ``--seeds 0,…,7``), ``.owner_probability_min``,
  ``.wilson_low_min`` (the smallest lower end of its 95 % Wilson interval), ``.exclusive`` (cells whose
  most frequent class is exclusive);
* ``sensitivity.cells``, ``.runs``, ``.exponent_min``/``_max``, ``.constant_min``/``_max`` with the
  ``c0``/``theta0`` of each, ``.limit_distance_max`` (the largest relative distance of a cell's C from
  the reduced equations' D → ∞ limit unfavorable_limit(θ0)/favorable_limit(c0, θ0)), ``.ratio_min``/
  ``_max`` (T_spec(−4)/T_spec(+4)), ``.gap_min``/``_max``, ``.undefined`` (cells without C),
  ``.undefined_row_theta0`` (a θ0 undefined at every c0), ``.undefined_from.theta0`` undefined from
  ``.undefined_from.c0`` on, and ``.undefined_from.unfavorable_limit`` (lim T_spec(−D)/D there);
* ``{preset}.cpu_seconds``: the CPU time of its maps in this run (one process, no cache).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
OUT = ROOT / "docs" / "data" / "phase-presets.json"
COMMAND = "python tools/phase_presets.py"
SEEDS = tuple(range(8))
CLASS_NAMES = {"symmetric start": "symmetric", "no owner": "no_owner"}


def _maps(name: str, **given: Any) -> tuple[dict[str, Any], float]:
    """Every map of preset ``name`` by its label, run serially without a cache, and their CPU time."""
    from gaugecli.experiments.phase import phase, preset_configs

    start = time.process_time()
    maps = {label: phase(config) for label, config in preset_configs(name, **given)}
    return maps, time.process_time() - start


def _classes(prefix: str, outcome: np.ndarray, outcomes: list[str]) -> dict[str, float]:
    return {f"{prefix}.{CLASS_NAMES.get(c, c)}": float(np.sum(outcome == k)) for k, c in enumerate(outcomes)}


def _threshold(exclusive: np.ndarray) -> np.ndarray:
    """D*(ε) by column: the index of the smallest strength from which every larger one is exclusive
    (the row count where the largest is not)."""
    ny, nx = exclusive.shape
    out = np.full(nx, ny)
    for j in range(nx):
        i = ny
        while i > 0 and exclusive[i - 1, j]:
            i -= 1
        out[j] = i
    return out


def outcomes() -> dict[str, float]:
    maps, seconds = _maps("outcomes")
    r = maps["outcomes"]
    outcome, others = np.asarray(r.maps["outcome"]), np.asarray(r.y.values)
    exclusive = outcome == r.outcomes.index("exclusive")
    return {
        "outcomes.cells": float(outcome.size),
        **_classes("outcomes", outcome, r.outcomes),
        "outcomes.exclusive.others_max": float(others[np.nonzero(exclusive.any(axis=1))[0]].max()),
        "outcomes.cpu_seconds": seconds,
    }


def robustness() -> dict[str, float]:
    maps, seconds = _maps("robustness")
    out: dict[str, float] = {"robustness.cpu_seconds": seconds}
    for label, r in maps.items():
        p = f"robustness.{label}"
        outcome, share = np.asarray(r.maps["outcome"]), np.asarray(r.maps["owner-share"])
        eps, D = np.asarray(r.x.values), np.asarray(r.y.values)  # ε across, D up
        exclusive = outcome == r.outcomes.index("exclusive")
        rows = np.nonzero(np.array([exclusive[i:].all() for i in range(len(D))]))[0]
        out |= {f"{p}.cells": float(outcome.size), **_classes(p, outcome, r.outcomes)}
        out |= {f"{p}.owner_share_min": float(np.nanmin(share)), f"{p}.exclusive_every_eps.D": float(D[rows.min()])}
        if label == "random":
            columns = np.nonzero(exclusive.all(axis=0))[0]
            star = _threshold(exclusive)
            partial = np.nonzero(star > 0)[0]  # the columns not exclusive at every D
            top = partial[np.argmax(star[partial])]
            low = star[partial].min()
            tail = next(j for j in partial if (star[j:] == low).all())
            out |= {
                f"{p}.exclusive_every_D.eps_max": float(eps[columns[columns < partial.min()].max()]),
                f"{p}.threshold.D_max": float(D[star[top]]),
                f"{p}.threshold.eps_at_D_max": float(eps[top]),
                f"{p}.threshold.D_min": float(D[low]),
                f"{p}.threshold.eps_from": float(eps[tail]),
            }
        else:
            for k, c in enumerate(r.outcomes):
                for n, (i, j) in enumerate(np.argwhere(outcome == k) if c != "exclusive" else []):
                    q = f"{p}.{CLASS_NAMES.get(c, c)}.{n}"
                    out |= {f"{q}.D": float(D[i]), f"{q}.eps": float(eps[j]), f"{q}.owner_share": float(share[i, j])}
    seeded, seconds = _maps("robustness", seeds=SEEDS)
    r = seeded["random"]
    outcome = np.asarray(r.maps["outcome"])
    return out | {
        "robustness.seeds.runs": float(outcome.size * len(SEEDS)),
        "robustness.seeds.owner_probability_min": float(np.nanmin(r.maps["owner-probability"])),
        "robustness.seeds.wilson_low_min": float(np.nanmin(r.maps["owner-probability-low"])),
        "robustness.seeds.exclusive": float(np.sum(outcome == r.outcomes.index("exclusive"))),
        "robustness.seeds.cpu_seconds": seconds,
    }


def sensitivity() -> dict[str, float]:
    from gaugecli.core.reduced.limits import favorable_limit, unfavorable_limit

    maps, seconds = _maps("sensitivity")
    r = maps["sensitivity"]
    c0, theta0 = np.asarray(r.x.values), np.asarray(r.y.values)  # c0 across, θ0 up
    C, exponent = np.asarray(r.maps["constant"], float), np.asarray(r.maps["exponent"], float)
    defined = np.isfinite(C)
    limit = np.array([[unfavorable_limit(t) / favorable_limit(c, t) for c in c0] for t in theta0])
    lo, hi = np.unravel_index(np.nanargmin(C), C.shape), np.unravel_index(np.nanargmax(C), C.shape)
    full = [i for i in range(len(theta0)) if not defined[i].any()]
    part = [i for i in range(len(theta0)) if defined[i].any() and not defined[i].all()]
    out = {
        "sensitivity.cells": float(C.size),
        "sensitivity.runs": float(C.size * 2 * (1 + len(r.limit_strengths))),
        "sensitivity.exponent_min": float(np.nanmin(exponent)),
        "sensitivity.exponent_max": float(np.nanmax(exponent)),
        "sensitivity.constant_min": float(C[lo]),
        "sensitivity.constant_min.c0": float(c0[lo[1]]),
        "sensitivity.constant_min.theta0": float(theta0[lo[0]]),
        "sensitivity.constant_max": float(C[hi]),
        "sensitivity.constant_max.c0": float(c0[hi[1]]),
        "sensitivity.constant_max.theta0": float(theta0[hi[0]]),
        "sensitivity.limit_distance_max": float(np.max(np.abs(C[defined] / limit[defined] - 1))),
        "sensitivity.ratio_min": float(np.nanmin(r.maps["ratio"])),
        "sensitivity.ratio_max": float(np.nanmax(r.maps["ratio"])),
        "sensitivity.gap_min": float(np.nanmin(r.maps["gap"])),
        "sensitivity.gap_max": float(np.nanmax(r.maps["gap"])),
        "sensitivity.undefined": float(np.sum(~defined)),
        "sensitivity.cpu_seconds": seconds,
    }
    if full:
        out["sensitivity.undefined_row_theta0"] = float(theta0[full[0]])
    if part:
        i = part[0]
        out |= {
            "sensitivity.undefined_from.theta0": float(theta0[i]),
            "sensitivity.undefined_from.c0": float(c0[np.nonzero(~defined[i])[0].min()]),
            "sensitivity.undefined_from.unfavorable_limit": float(unfavorable_limit(theta0[i])),
        }
    return out


def main() -> int:
    from doc_numbers import write_tool_numbers

    write_tool_numbers(OUT, COMMAND, outcomes() | robustness() | sensitivity())
    print(OUT.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
