"""(r) A phase map's cells each on its own compiled steps — DOP853, handed to the compiled BDF where a cell turns
stiff (:mod:`gaugecli.core.integrate.dop853_flow`) — the rows of one-neuron cells observed at once
(:mod:`gaugecli.experiments.phase.lean`), against the compiled BDF alone, today's LSODA rows and main's path,
side by side in one run, alternating (issue 52).

* r1, r2 — a cold ``phase`` map of T_spec over (D = 1…64, c0 = 0.01…1), 33 × 33, m = 1, one gauge each, from an
  empty cache on one worker, end to end: the command as it is now (every chunk on ``dop853-bdf``:
  :func:`gaugecli.experiments.phase.chunk.flow_method`; each row observed at once) against every chunk on
  the compiled BDF alone (``bdf``, observed at once), against
  every chunk on ``solve_ivp``'s LSODA rows with each cell observed alone (issue 52's "today's LSODA rows")
  and main's path (+D on LSODA rows, −D on ``odeint`` rows, each cell observed alone); and every chunk on
  ``odeint`` rows (observed at once). Best of :data:`REPEATS`, and the largest relative difference of the
  T_spec maps;
* r3 — the same maps at 129 × 129 (the command as it is now): time, and cost per cell against r1/r2's;
* r4 — the compiled solvers' cold compile: a fresh process with an empty numba cache compiling
  ``bdf_flow.compile_loops`` (after ``fused``'s), then ``dop853_flow.compile_loops``, and loading them from
  the cache after;
* r5 — the compiled solver alone (``dop853_flow._solve``, the command's) on the chunks of r1's and r2's maps
  (their arguments recorded while the map is made), against ``bdf_flow._solve`` on the same chunks,
  alternating: CPU seconds per map and per cell, best of :data:`REPEATS`, steps, gradients and Hessians per
  cell, the cells handed to BDF, and its share of the map's time in r1/r2.
* v1, v2 (suite ``v``) — r1's and r2's cold maps with the one-neuron flows on the torch DOP853
  (:mod:`gaugecli.core.integrate.dop853_torch`, ``phase --device``): on ``cuda`` (v1; skipped, saying so, where
  torch sees no CUDA device) and on torch's CPU device (v2), against the command's ``dop853-bdf``
  (:func:`device_rows`).

With ``GAUGECLI_BENCH_BASE`` naming another checkout of gaugecli with its own ``.venv`` (an earlier build:
``git worktree add ../base COMMIT && make -C ../base .venv/.installed``), r1 and r2 also time that build's
LSODA rows (its ``bench_odeint.chunk_method("auto")``), each map in a fresh process of its own, alternating
with the others, and judge the ×6 against them: the in-tree "LSODA rows" share today's work outside the ODE
(configs, hashes, starts, metrics, made chunk-wise since), so they are not the issue's baseline once that
work is cheaper.

``--quick`` shrinks the maps to 9 × 9 and 17 × 17. Times are this process's CPU seconds (every solve here
runs on one thread), the machine being shared; the wall seconds are in each row's data.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
from _common import REPO_ROOT, Row, fmt_ratio, fmt_seconds
from bench_odeint import GOAL_AGREE, GOAL_RATIO, _agreement, chunk_method, grid

import gaugecli.core.integrate.bdf_flow as bdf_flow
import gaugecli.core.integrate.dop853_flow as dop853_flow
import gaugecli.experiments.phase.chunk as chunk
import gaugecli.experiments.phase.lean as lean
from gaugecli.core.model.gauge import imbalance
from gaugecli.core.model.state import Network
from gaugecli.experiments.phase import PhaseConfig
from gaugecli.pipeline import Pipeline

REPEATS = 2
BASE_ENV = "GAUGECLI_BENCH_BASE"
"""A checkout of an earlier build, with its ``.venv``, whose LSODA rows r1 and r2 are judged against."""
_AT_BASE = (
    "import sys, tempfile, time; import numpy as np; sys.path.insert(0, 'benchmarks'); "
    "from bench_odeint import chunk_method, grid; from gaugecli.pipeline import Pipeline; "
    "gauge, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]\n"
    "with chunk_method('auto'):\n"
    "    with tempfile.TemporaryDirectory() as c: Pipeline(c).ensure('phase', grid(3, gauge))\n"
    "    with tempfile.TemporaryDirectory() as c:\n"
    "        t = time.process_time(); w = time.perf_counter(); o = Pipeline(c).ensure('phase', grid(n, gauge))\n"
    "        print(time.process_time() - t, time.perf_counter() - w); np.save(out, o.result.map('t-spec'))\n"
)
"""The base build's cold map on its LSODA rows (numba's loops loaded outside the timing, as here)."""
GOAL_CELLS = 15.0
"""Issue 52: a 129 × 129 map in under 15 s."""


@contextlib.contextmanager
def each_cell_observed() -> Iterator[None]:
    """Every run observed alone by ``observe`` (main's path before the rows were observed at once)."""
    saved = lean.applies
    lean.applies = lambda trajectory: False  # type: ignore[assignment]
    try:
        yield
    finally:
        lean.applies = saved  # type: ignore[assignment]


@contextlib.contextmanager
def main_methods() -> Iterator[None]:
    """main's choice of method: +D chunks on solve_ivp's LSODA rows, −D chunks on odeint rows."""
    saved = chunk.flow_method

    def main(theta0: Network) -> str:
        return "odeint" if bool(np.any(imbalance(theta0) < 0.0)) else "auto"

    chunk.flow_method = main  # type: ignore[assignment]
    try:
        yield
    finally:
        chunk.flow_method = saved  # type: ignore[assignment]


VARIANTS = {
    "now": contextlib.nullcontext,
    "bdf_all": lambda: chunk_method("bdf"),
    "lsoda_rows": lambda: _both(chunk_method("auto"), each_cell_observed()),
    "main": lambda: _both(main_methods(), each_cell_observed()),
    "odeint_all": lambda: chunk_method("odeint"),
}
"""The maps timed side by side: the command now (every chunk on dop853-bdf); every chunk on the compiled BDF
alone; today's LSODA rows (issue 52's base);
main's path; every chunk on odeint's rows (with the rows observed at once)."""


@contextlib.contextmanager
def _both(first: contextlib.AbstractContextManager, second: contextlib.AbstractContextManager) -> Iterator[None]:
    with first, second:
        yield


def cold(config: PhaseConfig, variant: str) -> tuple[float, float, np.ndarray]:
    """CPU and wall seconds of ``config``'s map from an empty cache (one worker) under ``variant``, and
    its T_spec map."""
    with tempfile.TemporaryDirectory() as cache, VARIANTS[variant]():
        cpu, wall = time.process_time(), time.perf_counter()
        outcome = Pipeline(cache).ensure("phase", config)
        return time.process_time() - cpu, time.perf_counter() - wall, outcome.result.map("t-spec")


def cold_at_base(base: str, n: int, gauge: str) -> tuple[float, float, np.ndarray]:
    """CPU and wall seconds of the ``n × n`` map in ``gauge`` on the LSODA rows of the build checked out at
    ``base`` (a process of its own), and its T_spec map."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t_spec.npy")
        cpu, wall = subprocess.run(
            [os.path.join(base, ".venv", "bin", "python"), "-c", _AT_BASE, gauge, str(n), out],
            cwd=base, capture_output=True, text=True, check=True,
        ).stdout.split()  # fmt: skip
        return float(cpu), float(wall), np.load(out)


def _commit(tree: str) -> str:
    """The short commit checked out at ``tree``."""
    done = subprocess.run(["git", "-C", tree, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip()


def compile_cost() -> dict[str, float]:
    """Seconds (CPU of the child) to compile ``fused``, ``bdf_flow`` and ``dop853_flow`` into an empty numba
    cache, and to load them from it after."""
    code = (
        "import time; t = time.process_time(); from gaugecli.core.population import fused; fused.compile_loops(); "
        "u = time.process_time(); from gaugecli.core.integrate import bdf_flow; bdf_flow.compile_loops(); "
        "v = time.process_time(); from gaugecli.core.integrate import dop853_flow; dop853_flow.compile_loops(); "
        "print(u - t, v - u, time.process_time() - v)"
    )
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = os.environ | {"NUMBA_CACHE_DIR": cache}
        for label in ("cold", "cached"):
            fused_s, bdf_s, dop_s = subprocess.run(
                [sys.executable, "-c", code], env=env, cwd=REPO_ROOT, capture_output=True, text=True, check=True
            ).stdout.split()
            out |= {f"{label}_fused": float(fused_s), f"{label}_bdf": float(bdf_s), f"{label}_dop853": float(dop_s)}
    return out


def solver_alone(config: PhaseConfig) -> tuple[float, float, np.ndarray, np.ndarray]:
    """Best CPU seconds of ``dop853_flow._solve`` and of ``bdf_flow._solve`` on the chunks of ``config``'s map
    (their arguments recorded while a cold map is made), alternating, and their per-cell ``(steps, gradients,
    Hessians, failed, …)``."""
    recorded: list[tuple] = []
    solve = dop853_flow._solve

    def record(*args: object) -> tuple:
        recorded.append(args)
        return solve(*args)

    dop853_flow._solve = record
    try:
        cold(config, "now")
    finally:
        dop853_flow._solve = solve
    best = {"dop853": np.inf, "bdf": np.inf}
    stats: dict[str, list[np.ndarray]] = {}
    for _ in range(REPEATS):
        for name, run in (("dop853", lambda a: solve(*a)), ("bdf", lambda a: bdf_flow._solve(*a[:10]))):
            cpu = time.process_time()
            stats[name] = [run(args)[-1] for args in recorded]
            best[name] = min(best[name], time.process_time() - cpu)
    return best["dop853"], best["bdf"], np.concatenate(stats["dop853"]), np.concatenate(stats["bdf"])


def solver_row(n: int, map_seconds: dict[str, float]) -> Row:
    """r5: the compiled solver alone on the chunks of the ``n × n`` maps of both gauges (module docstring)."""
    data: dict[str, float] = {}
    for gauge in ("favorable", "unfavorable"):
        seconds, bdf_seconds, stats, bdf_stats = solver_alone(grid(n, gauge))
        per_cell, bdf_per_cell = stats[:, :3].mean(axis=0), bdf_stats[:, :3].mean(axis=0)
        data |= {
            f"{gauge}_cpu_seconds": seconds,
            f"{gauge}_us_per_cell": 1e6 * seconds / (n * n),
            f"{gauge}_share_of_map": seconds / map_seconds[gauge],
            f"{gauge}_steps_per_cell": float(per_cell[0]),
            f"{gauge}_dop853_steps_per_cell": float(stats[:, 4].mean()),
            f"{gauge}_gradients_per_cell": float(per_cell[1]),
            f"{gauge}_hessians_per_cell": float(per_cell[2]),
            f"{gauge}_handed_to_bdf": float(np.mean(stats[:, 0] > stats[:, 4])),
            f"{gauge}_bdf_cpu_seconds": bdf_seconds,
            f"{gauge}_bdf_ratio": bdf_seconds / seconds,
            f"{gauge}_bdf_steps_per_cell": float(bdf_per_cell[0]),
            f"{gauge}_bdf_gradients_per_cell": float(bdf_per_cell[1]),
        }
    return Row(
        "r5",
        f"the compiled per-cell DOP853 handing stiff cells to BDF alone (dop853_flow._solve, the command's) vs the "
        f"compiled BDF alone (bdf_flow._solve) on the chunks of r1's and r2's {n}×{n} maps, per gauge",
        "; ".join(
            f"{g}: {fmt_seconds(data[f'{g}_cpu_seconds'])} vs {fmt_seconds(data[f'{g}_bdf_cpu_seconds'])} CPU "
            f"({fmt_ratio(data[f'{g}_bdf_ratio'])}; {data[f'{g}_us_per_cell']:.0f} µs a cell, "
            f"{data[f'{g}_share_of_map']:.0%} of the map), {data[f'{g}_gradients_per_cell']:.0f} gradients over "
            f"{data[f'{g}_steps_per_cell']:.0f} steps a cell ({data[f'{g}_dop853_steps_per_cell']:.0f} DOP853's; "
            f"{data[f'{g}_handed_to_bdf']:.0%} of cells handed to BDF) vs {data[f'{g}_bdf_gradients_per_cell']:.0f} "
            f"over {data[f'{g}_bdf_steps_per_cell']:.0f}"
            for g in ("favorable", "unfavorable")
        ),
        "",
        None,
        f"best of {REPEATS}, alternating; the rest of the map is outside the ODE (configs, hashes, starts, "
        "observables)",
        data,
    )


def percell_rows(quick: bool) -> list[Row]:
    n, big = (9, 17) if quick else (33, 129)
    base = os.environ.get(BASE_ENV)
    rows: list[Row] = []
    for variant in VARIANTS:  # numba's compiled functions loaded (or compiled) outside every timing
        cold(grid(3, "favorable"), variant)
        cold(grid(3, "unfavorable"), variant)
    per_cell: dict[str, float] = {}
    map_seconds: dict[str, float] = {}
    for k, gauge in enumerate(("favorable", "unfavorable")):
        config = grid(n, gauge)
        runs: dict[str, list[tuple[float, float, np.ndarray]]] = {v: [] for v in VARIANTS}
        for _ in range(REPEATS):  # alternating, so that a change of the machine's load hits every variant
            for variant in VARIANTS:
                runs[variant].append(cold(config, variant))
            if base:
                runs.setdefault("base_lsoda_rows", []).append(cold_at_base(base, n, gauge))
        best = {v: min(r, key=lambda x: x[0]) for v, r in runs.items()}
        t = {v: b[0] for v, b in best.items()}
        reference = "base_lsoda_rows" if base else "lsoda_rows"
        worst, unmatched = _agreement(best["now"][2], best[reference][2])
        worst_odeint, unmatched_odeint = _agreement(best["odeint_all"][2], best["lsoda_rows"][2])
        worst_bdf, unmatched_bdf = _agreement(best["now"][2], best["bdf_all"][2])
        ratio = t[reference] / t["now"]
        against = f"the LSODA rows at {_commit(base)}" if base else "today's LSODA rows"
        in_tree = f"; the LSODA rows in this tree {fmt_seconds(t['lsoda_rows'])}" if base else ""
        per_cell[gauge] = t["now"] / (n * n)
        map_seconds[gauge] = t["now"]
        rows.append(
            Row(
                f"r{k + 1}",
                f"cold `phase` T_spec map {n}×{n} over D = 1…64, c0 = 0.01…1, {gauge} gauge (m = 1, one worker): "
                f"the command now (dop853-bdf per cell) vs {against}, main's path, all on bdf per cell and all on odeint rows",
                f"{fmt_seconds(t['now'])} vs {fmt_seconds(t[reference])} CPU: {fmt_ratio(ratio)} "
                f"(vs main {fmt_seconds(t['main'])}: {fmt_ratio(t['main'] / t['now'])}; all on bdf "
                f"{fmt_seconds(t['bdf_all'])}: {fmt_ratio(t['bdf_all'] / t['now'])}; all on odeint rows "
                f"{fmt_seconds(t['odeint_all'])}{in_tree})",
                f"≥ ×{GOAL_RATIO:g}; T_spec within {GOAL_AGREE:g} relative",
                ratio >= GOAL_RATIO and worst <= GOAL_AGREE and unmatched == 0,
                f"max relative T_spec difference from {against} {worst:.1e} (all on odeint rows from the LSODA rows "
                f"{worst_odeint:.1e}; all on bdf from the command now {worst_bdf:.1e}; "
                f"{unmatched + unmatched_odeint + unmatched_bdf} cells crossing in one map only); best of "
                f"{REPEATS}, alternating; end to end (flows, observables, metrics, configs, hashes, artifact)"
                + (f"; {against}: that build, each map in a process of its own ({BASE_ENV})" if base else ""),
                {f"cpu_seconds_{v}": s for v, s in t.items()}
                | {f"wall_seconds_{v}": b[1] for v, b in best.items()}
                | {"max_rel_t_spec": worst, "max_rel_t_spec_odeint_all": worst_odeint, "cells": n * n}
                | {"max_rel_t_spec_bdf_all": worst_bdf, "cells_crossing_in_one_map_bdf_all": unmatched_bdf}
                | ({"base_commit": _commit(base)} if base else {}),
            )
        )
    data: dict[str, float] = {}
    for gauge in ("favorable", "unfavorable"):
        cpu, wall, _ = cold(grid(big, gauge), "now")
        data |= {f"{gauge}_cpu_seconds": cpu, f"{gauge}_wall_seconds": wall}
        data[f"{gauge}_per_cell_ratio"] = cpu / (big * big) / per_cell[gauge]
    rows.append(
        Row(
            "r3",
            f"cold `phase` T_spec map {big}×{big} (as r1, r2; the command now), per gauge: time, and its cost per "
            f"cell against the {n}×{n} map's",
            "; ".join(
                f"{g}: {fmt_seconds(data[f'{g}_cpu_seconds'])} CPU, per cell ×{data[f'{g}_per_cell_ratio']:.2f}"
                for g in ("favorable", "unfavorable")
            ),
            f"< {GOAL_CELLS:g} s",
            all(data[f"{g}_cpu_seconds"] < GOAL_CELLS for g in ("favorable", "unfavorable")),
            "cost per cell flat in the number of cells when the ratio is ≈ 1",
            data,
        )
    )
    costs = compile_cost()
    rows.append(
        Row(
            "r4",
            "the compiled solvers' cold compile: a fresh process, empty numba cache (fused's loops, then bdf_flow's "
            "solver, then dop853_flow's), and the same loaded from the cache",
            f"dop853_flow {fmt_seconds(costs['cold_dop853'])} cold, {fmt_seconds(costs['cached_dop853'])} cached; "
            f"bdf_flow {fmt_seconds(costs['cold_bdf'])}, {fmt_seconds(costs['cached_bdf'])} (fused "
            f"{fmt_seconds(costs['cold_fused'])}, {fmt_seconds(costs['cached_fused'])})",
            "",
            None,
            "CPU seconds of the child process; once per machine (numba's cache=True, as fused's loops)",
            costs,
        )
    )
    rows.append(solver_row(n, map_seconds))
    return rows


def _device_map(config: PhaseConfig, device: str | None) -> tuple[float, float, np.ndarray]:
    """:func:`cold` of ``config`` with its one-neuron flows on ``device`` (``phase --device``; ``None``: the
    command's compiled CPU solver), torch on one thread as every solve here."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return cold(replace(config, device=device), "now")
    finally:
        torch.set_num_threads(threads)


def device_rows(quick: bool) -> list[Row]:
    """v1, v2 — the cold ``n × n`` T_spec maps of r1 and r2 (both gauges) with every chunk's one-neuron flows on
    the torch DOP853 (:mod:`gaugecli.core.integrate.dop853_torch`, ``phase --device``): on ``cuda`` (v1; skipped,
    with the reason, where torch sees no CUDA device) and on torch's CPU device (v2), side by side with the
    command's ``dop853-bdf``, alternating, best of :data:`REPEATS`: seconds (CPU and wall; on cuda the wall's are
    the ones that count, the device's time is not this process's CPU), the ratio, and the largest relative T_spec
    difference."""
    import torch

    n = 9 if quick else 33
    cuda = torch.cuda.is_available()
    devices = {"compiled": None, "cpu": "cpu"} | ({"cuda": "cuda"} if cuda else {})
    for device in devices.values():  # numba's loops loaded, torch (and CUDA) started outside every timing
        _device_map(grid(3, "favorable"), device)
        _device_map(grid(3, "unfavorable"), device)
    data: dict[str, float] = {"cells": n * n}
    for gauge in ("favorable", "unfavorable"):
        runs: dict[str, list[tuple[float, float, np.ndarray]]] = {d: [] for d in devices}
        for _ in range(REPEATS):
            for name, device in devices.items():
                runs[name].append(_device_map(grid(n, gauge), device))
        for name in devices:
            cpu, wall, t_spec = min(runs[name], key=lambda x: x[1])
            data |= {f"{gauge}_{name}_cpu_seconds": cpu, f"{gauge}_{name}_wall_seconds": wall}
            if name != "compiled":
                worst, unmatched = _agreement(t_spec, min(runs["compiled"], key=lambda x: x[1])[2])
                data |= {f"{gauge}_{name}_max_rel_t_spec": worst, f"{gauge}_{name}_unmatched": unmatched}
                data[f"{gauge}_{name}_ratio"] = wall / data[f"{gauge}_compiled_wall_seconds"]

    def measured(name: str) -> str:
        return "; ".join(
            f"{g}: {fmt_seconds(data[f'{g}_{name}_wall_seconds'])} vs {fmt_seconds(data[f'{g}_compiled_wall_seconds'])}"
            f" wall ({fmt_ratio(data[f'{g}_{name}_ratio'])} the compiled CPU's time), T_spec within "
            f"{data[f'{g}_{name}_max_rel_t_spec']:.1e}"
            for g in ("favorable", "unfavorable")
        )

    what = f"cold `phase` T_spec map {n}×{n} as r1/r2, both gauges, one-neuron flows on the torch DOP853 "
    against = "vs the command's dop853-bdf (compiled, CPU), alternating"
    note = f"best of {REPEATS} by wall seconds; torch on one thread; stiff cells on the CPU BDF in every variant"
    reason = "skipped: no CUDA device" + (
        ""
        if cuda
        else f" (torch {torch.__version__}, {'CPU-only build' if torch.version.cuda is None else 'no GPU seen'})"
    )
    v1 = Row("v1", what + "on cuda (`phase --device cuda`) " + against, measured("cuda") if cuda else reason,
             f"T_spec within {GOAL_AGREE:g} relative", None if not cuda else all(
                 data[f"{g}_cuda_max_rel_t_spec"] <= GOAL_AGREE and data[f"{g}_cuda_unmatched"] == 0
                 for g in ("favorable", "unfavorable")), note + ("" if cuda else "; run it on a machine with CUDA"),
             data | {"cuda": cuda})  # fmt: skip
    v2 = Row("v2", what + "on torch's CPU device (`phase --device cpu`) " + against, measured("cpu"),
             f"T_spec within {GOAL_AGREE:g} relative", all(
                 data[f"{g}_cpu_max_rel_t_spec"] <= GOAL_AGREE and data[f"{g}_cpu_unmatched"] == 0
                 for g in ("favorable", "unfavorable")), note + "; the device path's overhead where there is no GPU",
             data)  # fmt: skip
    return [v1, v2]
