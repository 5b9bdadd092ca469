"""``gaugecli phase`` against the same cells run one by one, side by side in one run.

    python benchmarks/phase.py             # 33 × 33 grid, one by one on every cell (~2 min on 2 cores)
    python benchmarks/phase.py --every 4   # one by one on every 4th cell only, extrapolated

Rows: the 33 × 33 population ``simulate`` grid (m = 1, T_spec) from an empty cache, serially and on
two local workers; the same cells one by one through the Python API (``simulate``); their ratio and
the cells' agreement; the cost against the number of cells (33 × 9, 33 × 17, 33 × 33: linear, one
ensemble per row) and at shorter rows (9², 17²). Every ratio compares two measurements of this run;
no time is compared with a fixed number.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=33, help="cells per axis of the main grid")
    parser.add_argument("--every", type=int, default=1, help="run every k-th cell one by one (extrapolated)")
    args = parser.parse_args()
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
    for rows_y in (9, 17, 33):  # more rows of the same length: the cost is linear in the cells
        seconds, _ = batched(grid(args.n, rows_y), 1)
        n_cells = args.n * rows_y
        rows.append(
            (
                f"{args.n}×{rows_y} grid ({n_cells} cells), 1 worker",
                f"{seconds:.1f} s, {seconds / n_cells * 1e3:.2f} ms/cell",
            )
        )
    for n in (9, 17):  # shorter rows: fewer cells share each ensemble, so each costs more
        seconds, _ = batched(grid(n), 1)
        rows.append((f"{n}×{n} grid ({n * n} cells), 1 worker", f"{seconds:.1f} s, {seconds / n**2 * 1e3:.2f} ms/cell"))
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
