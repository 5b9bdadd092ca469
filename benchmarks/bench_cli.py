"""(e) CLI start-up, (f) ``gaugecli plot all`` and (g) the CLI's cost over its computation
(the fig3 sweep), as subprocesses.

Each reports 'not available' (with the reason) until the command it measures
exists and exits 0, so the suite runs at every stage of the project.
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
from pathlib import Path

from _common import (
    REPO_ROOT,
    CommandRun,
    Row,
    best_command,
    best_of,
    blas_env,
    call_in_subprocess,
    fmt_bytes,
    fmt_ratio,
    fmt_seconds,
    gaugecli_command,
    not_available,
    run_command,
)
from bench_cost import cli_own_cost

STARTUP_GOAL_S = 0.3
HEAVY_MODULES = ("numpy", "scipy", "torch", "matplotlib", "dask")

_IMPORTS_PROBE = (
    "import sys, json\n"
    "sys.argv = ['gaugecli', '--help']\n"
    "from gaugecli.cli import main\n"
    "try:\n    main()\nexcept SystemExit:\n    pass\n"
    f"print('@@' + json.dumps([m for m in {HEAVY_MODULES!r} if m in sys.modules]))\n"
)


def _heavy_imports_on_help() -> list[str] | None:
    return _heavy_imports(["--help"])


def startup(quick: bool = False) -> list[Row]:
    """Rows e1 (``--help``) and e2 (``--version``) against bare ``python -c pass``, best of 5."""
    k = 3 if quick else 5
    goal = f"≤ python + {STARTUP_GOAL_S * 1e3:.0f} ms"
    exe = gaugecli_command()
    if exe is None:
        reason = "no `gaugecli` console script (pip install -e .)"
        return [
            not_available(f"e{i}", f"`gaugecli {flag}` start-up", goal, reason)
            for i, flag in ((1, "--help"), (2, "--version"))
        ]
    bare = best_command([sys.executable, "-c", "pass"], k)
    rows = []
    for i, flag in ((1, "--help"), (2, "--version")):
        label = f"`gaugecli {flag}` start-up vs bare `python -c pass`"
        run = best_command([*exe, flag], k, timeout_s=60)
        if run.returncode != 0:
            rows.append(not_available(f"e{i}", label, goal, f"`gaugecli {flag}` failed: {run.last_error_line()}"))
            continue
        extra = run.seconds - bare.seconds
        note = f"best of {k}; peak RSS {fmt_bytes(run.max_rss_bytes)} (python {fmt_bytes(bare.max_rss_bytes)})"
        data = {"seconds": run.seconds, "bare_seconds": bare.seconds, "max_rss_bytes": run.max_rss_bytes}
        if flag == "--help":
            module_run = best_command([sys.executable, "-m", "gaugecli", "--help"], k, timeout_s=60, cwd=REPO_ROOT)
            if module_run.returncode == 0:
                note += f"; `python -m gaugecli --help` {fmt_seconds(module_run.seconds)}"
                data["module_seconds"] = module_run.seconds
            else:
                note += f"; `python -m gaugecli --help` FAILED: {module_run.last_error_line()}"
            heavy = _heavy_imports_on_help()
            if heavy is not None:
                note += f"; heavy imports on --help: {', '.join(heavy) if heavy else 'none'}"
                data["heavy_imports"] = heavy
        rows.append(
            Row(
                f"e{i}",
                label,
                f"{fmt_seconds(run.seconds)} vs {fmt_seconds(bare.seconds)} (+{fmt_seconds(max(extra, 0.0))})",
                goal,
                extra <= STARTUP_GOAL_S,
                note,
                data,
            )
        )
    rows += fast_errors(exe, bare, k, goal)
    return rows


FAST_ERRORS = (
    ("e3", ["simulate", "--help"], 0, "`gaugecli simulate --help` (the longest option list)"),
    ("e4", ["simulate", "--c0", "-1"], 2, "a refused value, `gaugecli simulate --c0 -1` (exit 2, one line)"),
    ("e5", ["select", "--mode", "gd", "--eta", "0"], 2, "a refused value, `gaugecli select --mode gd --eta 0`"),
)
"""Answers that must come before the numerics are imported: a subcommand's help, a value out of its
declared range (checked at parse time from the parameter's one declaration)."""


def _best_with_code(argv: list[str], k: int, code: int) -> CommandRun:
    runs = [run_command(argv, timeout_s=60, cwd=REPO_ROOT) for _ in range(k)]
    wrong = [r for r in runs if r.returncode != code]
    return wrong[0] if wrong else min(runs, key=lambda r: r.seconds)


def _heavy_imports(args: list[str]) -> list[str] | None:
    """The heavy libraries ``gaugecli ARGS`` imported (``None`` if it could not be probed)."""
    probe = _IMPORTS_PROBE.replace("['gaugecli', '--help']", repr(["gaugecli", *args]))
    run = run_command([sys.executable, "-c", probe], timeout_s=60, cwd=REPO_ROOT)
    if "@@" not in run.stdout:
        return None
    return list(json.loads(run.stdout.rsplit("@@", 1)[-1]))


def fast_errors(exe: list[str], bare: CommandRun, k: int, goal: str) -> list[Row]:
    """Rows e3–e5: a subcommand's ``--help`` and two refused values against bare ``python -c pass``
    measured in the same run, best of ``k``; and which heavy libraries each imported (none, by design)."""
    rows = []
    for rid, args, code, label in FAST_ERRORS:
        run = _best_with_code([*exe, *args], k, code)
        if run.returncode != code:
            rows.append(not_available(rid, label, goal, f"exit {run.returncode}, not {code}: {run.last_error_line()}"))
            continue
        extra = run.seconds - bare.seconds
        heavy = _heavy_imports(args)
        note = f"best of {k}; heavy imports: {', '.join(heavy) if heavy else 'none'}"
        if code:
            note += f"; says: {run.last_error_line()[:90]}"
        rows.append(
            Row(
                rid,
                f"{label} vs bare `python -c pass`",
                f"{fmt_seconds(run.seconds)} vs {fmt_seconds(bare.seconds)} (+{fmt_seconds(max(extra, 0.0))})",
                goal,
                extra <= STARTUP_GOAL_S,
                note,
                {"seconds": run.seconds, "bare_seconds": bare.seconds, "heavy_imports": heavy},
            )
        )
    return rows


# ----------------------------------------------------------------------------------------


PLOT_QUICK_GOAL_S = 60.0
PLOT_FULL_TIMEOUT_S = 180.0  # a cap, not a goal: the full suite must stay under 10 minutes
QUICK_MODE_TIMEOUT_S = 15.0  # `run.py --quick` must stay under a minute overall
PEAK_RSS_GOAL = 2 * 1024**3
WARM_GOAL_FRACTION = 0.25


def _plot_run(exe: list[str], cache: Path, out: Path, quick: bool, timeout_s: float) -> CommandRun:
    argv = [*exe, "plot", "all", "--cache-dir", str(cache), "--out-dir", str(out)]
    if quick:
        argv.append("--quick")
    return run_command(argv, timeout_s=timeout_s, cwd=REPO_ROOT)


def plot_all(quick: bool = False) -> list[Row]:
    """Rows f1–f4: ``plot all`` (``--quick``; full too unless ``quick``) with an empty, then a warm cache."""
    exe = gaugecli_command()
    variants = [("--quick", True)] + ([] if quick else [("full", False)])
    labels = {
        True: ("f1", "f2"),
        False: ("f3", "f4"),
    }
    cold_goal = {
        True: f"< {PLOT_QUICK_GOAL_S:g} s, RSS < {fmt_bytes(PEAK_RSS_GOAL)}",
        False: f"≤ {PLOT_QUICK_GOAL_S:g} s on 2 cores",
    }
    warm_goal = f"≤ {WARM_GOAL_FRACTION:.0%} of empty-cache time"
    reason = None
    if exe is None:
        reason = "no `gaugecli` console script (pip install -e .)"
    else:
        probe = run_command([*exe, "plot", "all", "--help"], timeout_s=60, cwd=REPO_ROOT)
        if probe.returncode != 0:
            reason = f"`gaugecli plot all --help` failed: {probe.last_error_line()}"
    if reason is not None:
        rows = []
        for name, q in variants:
            cold_id, warm_id = labels[q]
            rows.append(not_available(cold_id, f"`gaugecli plot all {name}`, empty cache", cold_goal[q], reason))
            rows.append(not_available(warm_id, f"`gaugecli plot all {name}`, warm cache", warm_goal, reason))
        return rows

    assert exe is not None
    rows = []
    for name, q in variants:
        cold_id, warm_id = labels[q]
        timeout = QUICK_MODE_TIMEOUT_S if quick else (PLOT_QUICK_GOAL_S * 2 if q else PLOT_FULL_TIMEOUT_S)
        with tempfile.TemporaryDirectory(prefix="gaugecli-bench-") as tmp:
            cache, out = Path(tmp) / "cache", Path(tmp) / "figures"
            cold = _plot_run(exe, cache, out, q, timeout)
            label = f"`gaugecli plot all {name}`"
            goal_s = PLOT_QUICK_GOAL_S
            if cold.timed_out:
                capped = timeout < goal_s  # stopped by this suite's cap before the goal could be judged
                rows.append(
                    Row(
                        cold_id,
                        f"{label}, empty cache",
                        f"killed after {timeout:g} s",
                        cold_goal[q],
                        None if capped else False,
                        ("cap of `run.py --quick`; the full suite measures it" if quick else "cap of this suite")
                        if capped
                        else "",
                        {"seconds": cold.seconds, "timed_out": True},
                        met_text="? (capped)" if capped else None,
                    )
                )
                continue
            if cold.returncode != 0:
                why = f"failed: {cold.last_error_line()}"
                rows.append(
                    Row(cold_id, f"{label}, empty cache", why, cold_goal[q], False, "", {"seconds": cold.seconds})
                )
                continue
            files = sorted(p.name for p in out.rglob("*") if p.is_file()) if out.exists() else []
            met = cold.seconds < goal_s and (cold.max_rss_bytes < PEAK_RSS_GOAL if q else True)
            rows.append(
                Row(
                    cold_id,
                    f"{label}, empty cache",
                    f"{fmt_seconds(cold.seconds)}, peak RSS {fmt_bytes(cold.max_rss_bytes)}",
                    cold_goal[q],
                    met,
                    f"{len(files)} files written; RSS: largest process of the command tree",
                    {"seconds": cold.seconds, "max_rss_bytes": cold.max_rss_bytes, "files": files},
                )
            )
            # A warm run slower than twice the cold one has failed its goal anyway.
            warm = _plot_run(exe, cache, out, q, min(timeout, 2 * cold.seconds + 10))
            if warm.timed_out:
                rows.append(Row(warm_id, f"{label}, warm cache", "killed (slower than 2× cold)", warm_goal, False))
                continue
            if warm.returncode != 0:
                rows.append(Row(warm_id, f"{label}, warm cache", f"failed: {warm.last_error_line()}", warm_goal, False))
                continue
            frac = warm.seconds / cold.seconds
            rows.append(
                Row(
                    warm_id,
                    f"{label}, warm cache",
                    f"{fmt_seconds(warm.seconds)} ({fmt_ratio(frac)} of empty), peak RSS {fmt_bytes(warm.max_rss_bytes)}",
                    warm_goal,
                    frac <= WARM_GOAL_FRACTION,
                    "same cache and output folders, second run",
                    {"seconds": warm.seconds, "max_rss_bytes": warm.max_rss_bytes},
                )
            )
    return rows


# ----------------------------------------------------------------------------------------
# (g) the command line's cost over its computation: the fig3 sweep

FIG3_STRENGTHS = tuple(float(2**i) for i in range(11))
_COMPUTE_IMPORTS = "import numpy, scipy.integrate, scipy.optimize, gaugecli.experiments.simulate"
CLI_OVERHEAD_GOAL = 1.6


def measure_inprocess_sweep(k: int) -> dict[str, float]:
    """Best of ``k``: :func:`gaugecli.experiments.simulate.simulate_batch` on the configurations
    that ``gaugecli simulate --gauge G -D 1 … -D 1024`` builds, for both gauges (as two calls,
    like the two commands); imports done before the clock starts."""
    from gaugecli.experiments.simulate import SimulateConfig, simulate_batch

    def sweep() -> None:
        for gauge in ("favorable", "unfavorable"):
            simulate_batch(SimulateConfig(gauge=gauge, strengths=FIG3_STRENGTHS).runs())

    seconds, _ = best_of(sweep, k)
    return {"seconds": seconds}


def cli_overhead(quick: bool = False) -> list[Row]:
    """Row g1: ``gaugecli simulate --gauge favorable --gauge unfavorable -D 1 … -D 1024`` (one
    process, an empty cache) against the same compute in a warm interpreter, best of k each; and
    row g2 (:func:`cli_own_cost`)."""
    k = 1 if quick else 3
    goal = f"≤ {fmt_ratio(CLI_OVERHEAD_GOAL)} in-process"
    label = "CLI fig3 sweep (`simulate --gauge favorable --gauge unfavorable -D 1…1024`, empty cache) vs in-process `simulate_batch`"
    exe = gaugecli_command() or [sys.executable, "-m", "gaugecli"]
    strengths = [arg for D in FIG3_STRENGTHS for arg in ("-D", f"{D:g}")]
    best_cli = math.inf
    for _ in range(k):
        total = 0.0
        with tempfile.TemporaryDirectory(prefix="gaugecli-bench-cli-") as tmp:
            gauges = ["--gauge", "favorable", "--gauge", "unfavorable"]
            run = run_command([*exe, "simulate", *gauges, *strengths], timeout_s=300, cwd=tmp)
            if run.returncode != 0:
                return [Row("g1", label, f"failed: {run.last_error_line()}", goal, False)]
            total += run.seconds
            artifacts = len(list(Path(tmp).rglob("*.json")))
        best_cli = min(best_cli, total)
    try:
        inproc = call_in_subprocess("bench_cli", "measure_inprocess_sweep", {"k": k}, env=blas_env(1))
    except RuntimeError as err:
        return [Row("g1", label, "in-process run failed", goal, None, str(err))]
    bare = best_command([sys.executable, "-c", "pass"], 3)
    # what a process must load before it can compute anything (the floor of the CLI's overhead)
    imports = best_command([sys.executable, "-c", _COMPUTE_IMPORTS], 3, timeout_s=120)
    ratio = best_cli / inproc["seconds"]
    floor = imports.seconds + inproc["seconds"]
    data = {
        "cli_seconds": best_cli,
        "inprocess_seconds": inproc["seconds"],
        "ratio": ratio,
        "artifacts": artifacts,
        "import_seconds": imports.seconds,
        "bare_python_seconds": bare.seconds,
    }
    note = (
        f"best of {k}; one process (start-up, imports, pipeline, {artifacts} artifacts written and validated) "
        f"vs the same 22 runs in one warm interpreter; python + the compute's imports "
        f"{fmt_seconds(imports.seconds)} (bare python {fmt_seconds(bare.seconds)}), so imports + "
        f"compute = {fmt_seconds(floor)} ({fmt_ratio(floor / inproc['seconds'])}) is the floor; the rest, "
        f"{fmt_seconds(max(best_cli - floor, 0.0))}, is the CLI and pipeline"
    )
    return [
        Row(
            "g1",
            label,
            f"{fmt_seconds(best_cli)} vs {fmt_seconds(inproc['seconds'])} ({fmt_ratio(ratio)})",
            goal,
            ratio <= CLI_OVERHEAD_GOAL,
            note,
            data,
        ),
        *cli_own_cost(quick),  # row g2
    ]
