"""``gaugecli phase`` against the same cells run one by one, side by side in one run.

    python benchmarks/phase.py             # 33 × 33 grid, one by one on every cell (~2 min on 2 cores)
    python benchmarks/phase.py --every 4   # one by one on every 4th cell only, extrapolated
    python benchmarks/phase.py --scaling   # only the cost against the number of cells (~1 min)

Rows: the 33 × 33 population ``simulate`` grid (m = 1, T_spec) from an empty cache, serially and on
two local workers; the same cells one by one through the Python API (``simulate``); their ratio and
the cells' agreement; the cost against the number of cells (33 × 9, 33 × 17, 33 × 33: linear, one
ensemble per row) and at shorter rows (9², 17²). Every ratio compares two measurements of this run;
no time is compared with a fixed number.

The scaling sweep (:func:`scaling`, also ``--scaling`` alone) times, side by side in one run, the
square grids 4², 8², 16², 33² and the 33-cell rows × 4, 8, 16, 33, each from an empty cache on one
worker, fits the slope of ``log time`` against ``log cells`` per family, and writes
``benchmarks/phase_scaling.json``, which ``bench_scale.plot_curves`` draws as the last column of
``scaling.png`` (redrawn here, from the saved n, m, d sweeps: none is rerun).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from gaugecli.experiments.phase import PhaseConfig, parse_axis  # noqa: E402
from gaugecli.experiments.simulate import SimulateConfig, simulate  # noqa: E402
from gaugecli.pipeline import Pipeline  # noqa: E402
from gaugecli.run.executors import make_executor  # noqa: E402
from gaugecli.run.sweep import make_runner  # noqa: E402


def grid(n: int, rows: int | None = None) -> PhaseConfig:
    """``n`` values of D (a row: one ensemble) × ``rows`` (default ``n``) values of c0."""
    return PhaseConfig(
        "simulate",
        parse_axis(f"gauge-strength=1:64:{n}:log", "simulate"),
        parse_axis(f"c0=0.02:0.5:{rows or n}:log", "simulate", "y"),
        ("t-spec",),
    )


def batched(config: PhaseConfig, workers: int) -> tuple[float, np.ndarray]:
    """Seconds for the map from an empty cache, and its T_spec map."""
    with tempfile.TemporaryDirectory() as cache, make_executor(None, workers) as executor:
        pipe = Pipeline(cache)
        pipe.runner = make_runner(executor, pipe.cache)
        started = time.perf_counter()
        outcome = pipe.ensure("phase", config)
        return time.perf_counter() - started, outcome.result.map("t-spec")


def one_by_one(config: PhaseConfig, every: int) -> tuple[float, dict[tuple[int, int], float]]:
    """Seconds per cell run alone (``simulate``), over every ``every``-th cell, and their T_spec."""
    cells = [(iy, ix, c) for iy, row in enumerate(config.cells()) for ix, c in enumerate(row)][::every]
    t_spec = {}
    started = time.perf_counter()
    for iy, ix, cell in cells:
        assert isinstance(cell, SimulateConfig)
        (run,) = simulate(cell)
        t_spec[(iy, ix)] = float("nan") if run.t_spec is None else run.t_spec
    return (time.perf_counter() - started) / len(cells), t_spec


SQUARE = (4, 8, 16, 33)
"""The square grids n × n of the scaling sweep (n rows of n cells: n ensembles)."""
ROWS = (4, 8, 16, 33)
"""The row counts of the scaling sweep's 33-cell rows (33 × k: k ensembles of 33 cells)."""


def scaling(out: Path = Path(__file__).resolve().parent / "phase_scaling.json") -> list[tuple[str, str]]:
    """Time against cells for :data:`SQUARE` grids and 33-cell rows × :data:`ROWS`, one worker, empty
    cache, side by side in this run; writes ``out`` and redraws ``scaling.png``. Returns table rows."""
    import numpy as np

    families: dict[str, dict] = {}
    for name, shapes in (("n × n", [(n, n) for n in SQUARE]), ("33 × k rows", [(33, k) for k in ROWS])):
        points = []
        for nx, ny in shapes:
            seconds, _ = batched(grid(nx, ny), 1)
            points.append({"label": f"{nx}×{ny}", "cells": nx * ny, "seconds": seconds})
        cells = np.array([p["cells"] for p in points], float)
        times = np.array([p["seconds"] for p in points], float)
        slope = float(np.polyfit(np.log(cells), np.log(times), 1)[0])
        families[name] = {"points": points, "slope": slope}
    payload = {
        "benchmark": "gaugecli phase: population simulate cells (m = 1, T_spec), 1 worker, empty cache",
        "note": "rows of the grid are ensembles (one integrate_ensemble per row of ≤ 64 cells); "
        "slope: least squares of log time against log cells over the family",
        "families": families,
    }
    out.write_text(json.dumps(payload, indent=1, allow_nan=False) + "\n")
    sys.path.insert(0, str(out.parent))
    import bench_scale

    bench_scale.plot_curves(out.parent)
    rows = []
    for name, family in families.items():
        for p in family["points"]:
            per = 1e3 * p["seconds"] / p["cells"]
            rows.append(
                (f"{name}: {p['label']} ({p['cells']} cells), 1 worker", f"{p['seconds']:.2f} s, {per:.2f} ms/cell")
            )
        rows.append((f"{name}: slope of log time against log cells", f"{family['slope']:.2f}"))
    return rows


def _print(rows: list[tuple[str, str]]) -> None:
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=33, help="cells per axis of the main grid")
    parser.add_argument("--every", type=int, default=1, help="run every k-th cell one by one (extrapolated)")
    parser.add_argument("--scaling", action="store_true", help="only the cost against the number of cells")
    args = parser.parse_args()
    if args.scaling:
        _print(scaling())
        return
    config = grid(args.n)
    cells = args.n**2
    serial, t_grid = batched(config, 1)
    parallel, t_parallel = batched(config, 2)
    per_cell, alone = one_by_one(config, args.every)
    serial_cells = per_cell * cells
    worst = max(abs(t_grid[k] - v) / v for k, v in alone.items())
    rows = [
        (f"{args.n}×{args.n} grid, empty cache, 1 worker", f"{serial:.1f} s"),
        (f"{args.n}×{args.n} grid, empty cache, 2 workers", f"{parallel:.1f} s"),
        (
            f"same cells one by one (simulate), {len(alone)} measured",
            f"{per_cell * 1e3:.1f} ms/cell → {serial_cells:.1f} s for {cells}",
        ),
        ("one by one / grid (1 worker)", f"×{serial_cells / serial:.1f}"),
        ("one by one / grid (2 workers)", f"×{serial_cells / parallel:.1f}"),
        ("max |T_spec(grid) − T_spec(alone)| / T_spec", f"{worst:.2e} (rtol 1e-10)"),
        ("2 workers store the same numbers", str(bool(np.array_equal(t_grid, t_parallel, equal_nan=True)))),
    ]
    rows.extend(scaling())  # the cost against the number of cells, drawn in scaling.png
    _print(rows)


if __name__ == "__main__":
    main()
