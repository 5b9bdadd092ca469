"""Run every gaugecli benchmark and print one table of side-by-side measurements.

    python benchmarks/run.py            # full run (< 10 min): writes results.json, results.md
    python benchmarks/run.py --quick    # every row shrunk (< 1 min): writes results_quick.json/.md
    python benchmarks/run.py --only ab  # a subset of rows (by letter), merged into the results file

Rows (one function each):

    a  bench_flow.fig3_sweep         fig3 sweep: gaugecli flow vs RK45 vs GD step count
    b  bench_selection.selection     m=8 selection to P ≤ 1e-6: gaugecli vs RK45 (+ BLAS pinned)
    c  bench_ensemble.ensemble       256 configurations batched vs one by one
    d  bench_sample.finite_sample    finite-sample GD step vs its two matrix products; numpy vs torch gradient;
                                     the compiled L_n gradient vs the numpy sums (d4)
    e  bench_cli.startup             `gaugecli --help/--version` vs bare python
    f  bench_cli.plot_all            `gaugecli plot all` with an empty and a warm cache
    g  bench_cli.cli_overhead        CLI fig3 sweep vs its in-process compute; one call's own cost (g2)
    h  bench_scale.samples           time and peak RSS against n (10³…10⁷), this build vs previous
    i  bench_scale.neurons           time and peak RSS against m (1…1000), this build vs previous
    j  bench_scale.dimension         time and peak RSS against d (16…10⁵), this build vs previous
    k  bench_activations.activations population flow ±D per activation vs relu
    l  bench_fused.compiled          population gradient/Hessian: compiled loops vs numpy closed forms
    m  bench_optimizers.optimizers   population-GD steps per optimizer vs plain GD; the compiled momentum loop
    n  bench_gd_cost.gd_cost         `simulate --mode sample-gd --eta` on Kunin et al.'s cell vs its training alone
    r  bench_percell.percell_rows    phase maps on per-cell compiled DOP853 (BDF where stiff) vs BDF alone and LSODA rows; 129×129; compile cost
    v  bench_percell.device_rows     phase maps with the one-neuron flows on the torch DOP853: cuda (skipped without one), torch's CPU

Rows h–j also write scaling.png (their curves) and scaling.json (every point).

A run of some rows (``--only``) replaces those rows of results.json and keeps the others; every
row carries the date, machine and commit of the run that measured it (``_results``), and
docs/benchmarks.md prints its table from that file (``make docs``).

Every ratio compares two measurements taken in this run, on this machine; absolute
times are reported but never compared with fixed thresholds except where a row's
goal says so. ``--blas-threads N`` re-runs the whole suite with BLAS/OpenMP thread
pools capped at N (they are sized when the libraries load, hence the re-exec).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
if str(BENCH_DIR) not in sys.path:  # `python benchmarks/run.py` already does this; `-m` does not
    sys.path.insert(0, str(BENCH_DIR))

import _results  # noqa: E402
from _common import REPO_ROOT, Row, blas_env  # noqa: E402
from _results import COLUMNS  # noqa: E402


def _suites() -> dict[str, Callable[[bool], list[Row]]]:
    # Imported here so that `--help` and a failed import of one suite stay cheap and local.
    import bench_activations
    import bench_cli
    import bench_ensemble
    import bench_flow
    import bench_fused
    import bench_gd_cost
    import bench_odeint
    import bench_optimizers
    import bench_percell
    import bench_sample
    import bench_scale
    import bench_selection

    return {
        "a": bench_flow.fig3_sweep,
        "b": bench_selection.selection,
        "c": bench_ensemble.ensemble,
        "d": bench_sample.finite_sample,
        "e": bench_cli.startup,
        "f": bench_cli.plot_all,
        "g": bench_cli.cli_overhead,
        "h": bench_scale.samples,
        "i": bench_scale.neurons,
        "j": bench_scale.dimension,
        "k": bench_activations.activations,
        "l": bench_fused.compiled,
        "m": bench_optimizers.optimizers,
        "n": bench_gd_cost.gd_cost,
        "o": bench_odeint.odeint_rows,
        "r": bench_percell.percell_rows,
        "v": bench_percell.device_rows,
    }


def _cells(row: Row) -> list[str]:
    return [row.id, row.benchmark, row.measured, row.goal, row.met_label, row.note]


def markdown_table(rows: list[Row]) -> str:
    return _results.markdown_table(
        [dict(zip(COLUMNS, _cells(r), strict=True)) | {"met_label": r.met_label} for r in rows]
    )


def print_table(rows: list[Row], title: str) -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # pragma: no cover - rich is a dependency of gaugecli
        print(title)
        print(markdown_table(rows))
        return
    console = Console(width=None if sys.stdout.isatty() else 220)
    table = Table(title=title, show_lines=True)
    for name in COLUMNS:
        table.add_column(name, overflow="fold", ratio={"benchmark": 3, "measured": 3, "note": 5}.get(name))
    style = {"yes": "green", "NO": "bold red"}
    for row in rows:
        cells = _cells(row)
        cells[4] = f"[{style[cells[4]]}]{cells[4]}[/]" if cells[4] in style else cells[4]
        table.add_row(*cells)
    console.print(table)


def _environment() -> dict[str, object]:
    import numpy
    import scipy

    try:
        import torch

        torch_version = torch.__version__
    except ImportError:  # pragma: no cover
        torch_version = None
    return {
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "torch": torch_version,
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "blas_env": {k: os.environ[k] for k in blas_env(1) if k in os.environ},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="shrink every row so the suite runs in under a minute")
    parser.add_argument(
        "--only", default=None, help="letters of the rows to run, merged into the results (default: all)"
    )
    parser.add_argument("--out-dir", type=Path, default=BENCH_DIR, help="where results*.json/.md go")
    parser.add_argument("--blas-threads", type=int, default=None, help="cap BLAS/OpenMP threads (re-executes)")
    args = parser.parse_args(argv)

    if args.blas_threads is not None and os.environ.get("GAUGECLI_BENCH_BLAS") != str(args.blas_threads):
        env = {**os.environ, **blas_env(args.blas_threads), "GAUGECLI_BENCH_BLAS": str(args.blas_threads)}
        os.execve(sys.executable, [sys.executable, str(Path(__file__).resolve()), *sys.argv[1:]], env)

    suites = _suites()
    only = "".join(suites) if args.only is None else args.only
    unknown = set(only) - set(suites)
    if unknown:
        parser.error(f"--only: unknown rows {''.join(sorted(unknown))}; choose from {''.join(suites)}")

    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    rows: list[Row] = []
    failed: dict[str, str] = {}
    timings: dict[str, float] = {}
    for letter, suite in suites.items():
        if letter not in only:
            continue
        t0 = time.perf_counter()
        print(f"[{letter}] {suite.__module__}.{suite.__name__} ...", file=sys.stderr, flush=True)
        try:
            rows += suite(args.quick)
        except Exception as err:  # one broken row must not hide the others
            rows.append(Row(f"{letter}?", f"{suite.__module__}.{suite.__name__}", "error", "—", False, repr(err)))
            failed[letter] = repr(err)
            traceback.print_exc()
        timings[letter] = time.perf_counter() - t0
        print(f"[{letter}] done in {timings[letter]:.1f} s", file=sys.stderr, flush=True)
    total = time.perf_counter() - started

    mode = "quick" if args.quick else "full"
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    env = _environment()
    title = f"gaugecli benchmarks ({mode}, {stamp}, {env['cpus']} CPUs, {total:.0f} s)"
    print_table(rows, title)

    suffix = "" if mode == "full" else "_quick"
    args.out_dir.mkdir(parents=True, exist_ok=True)
    path = args.out_dir / f"results{suffix}.json"
    stamp_of = {
        "measured_at": stamp,
        "machine": _results.machine_line(env),
        "commit": _results.commit(REPO_ROOT),
        "load": [load_before, os.getloadavg()[0]],
    }
    fresh = [
        {
            "id": r.id,
            "benchmark": r.benchmark,
            "measured": r.measured,
            "goal": r.goal,
            "met": r.met,
            "met_label": r.met_label,
            "note": r.note,
            **stamp_of,
            "data": r.data,
        }
        for r in rows
        if _results.letter(r.id) not in failed
    ]
    previous = _results.load(path)
    # a suite that failed keeps its previous rows in the file (the table printed above shows the error)
    rerun = "".join(c for c in only if c not in failed)
    merged = _results.merge(_results.legacy(previous) if previous else [], fresh, rerun)
    # the attempts that failed, until a later run of that suite succeeds
    errors = [e for e in (previous or {}).get("errors", []) if e["suite"] not in rerun]
    errors += [{"suite": c, "error": e, "measured_at": stamp} for c, e in failed.items()]
    payload = {
        "schema": "gaugecli.benchmarks/2",
        "mode": mode,
        "created": stamp,
        "total_seconds": total,
        "suite_seconds": {**(previous or {}).get("suite_seconds", {}), **timings},
        "environment": env,
        "rows": merged,
        "errors": errors,
    }
    text = json.dumps(_finite(payload), indent=1, default=_jsonable, allow_nan=False)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(text + "\n")
    tmp.replace(path)  # atomic: a run killed while writing leaves the previous results whole
    header = f"Benchmarks ({mode}). Regenerate with `python benchmarks/run.py` (`--only X` reruns rows X)."
    (args.out_dir / f"results{suffix}.md").write_text(header + "\n\n" + _results.block(merged) + "\n")
    import bench_scale

    for path in bench_scale.write_curves(rows, args.out_dir, suffix):
        print(f"wrote {path}", file=sys.stderr)
    return 0


def _finite(obj: object) -> object:
    """NaN and ±inf (not JSON) as null, recursively."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _jsonable(obj: object) -> object:
    """numpy scalars and arrays, and anything else, as JSON."""
    if hasattr(obj, "tolist"):
        return obj.tolist()  # type: ignore[no-any-return, attr-defined]
    if hasattr(obj, "item"):
        return obj.item()  # type: ignore[no-any-return, attr-defined]
    return str(obj)


if __name__ == "__main__":
    sys.exit(main())
