"""(g2) One CLI call of the fig3 sweep split into python's start-up, the imports, the compute and
the CLI's own cost: building, hashing, validating and writing the artifacts, the rerun files, the
progress reports and the summary.

The own cost is measured in one process, after a first call has done the imports (and numba's
loading of its compiled loops): the call again, into an empty cache and with the store's per-process
caches cleared (the git commit, the versions, the schema validators: it pays them again), less the
compute inside it, timed on the same clock (``simulate_batch``, with the progress reports the flows
make to the CLI's heartbeat); best of ``k`` calls. Beside it, alternately, the same compute through
the Python API. The cold call (a fresh process) is measured beside bare ``python -c pass``; what it
costs beyond the compute and the own cost is the start-up and the imports.
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
import time
from typing import Any

from _common import (
    CommandRun,
    Row,
    best_command,
    blas_env,
    call_in_subprocess,
    fmt_ratio,
    fmt_seconds,
    gaugecli_command,
    run_command,
)

CLI_OWN_COST_GOAL_S = 0.15
STRENGTHS = tuple(float(2**i) for i in range(11))  # the fig3 sweep's D = 2^0 … 2^10
CALL_GAUGE = "unfavorable"  # of fig3's two calls, the one with the longer flows
CALL_ARGS = ["simulate", "--gauge", CALL_GAUGE, *[arg for D in STRENGTHS for arg in ("-D", f"{D:g}")]]


def _call_in_this_process(main: Any, folder: str) -> None:
    """``gaugecli simulate …`` through the console entry point, in ``folder`` (its cache there)."""
    here, argv = os.getcwd(), sys.argv
    os.chdir(folder)
    sys.argv = ["gaugecli", *CALL_ARGS]
    try:
        main()
    except SystemExit as exit_:
        if exit_.code not in (0, None):
            raise RuntimeError(f"gaugecli {' '.join(CALL_ARGS)} exited with {exit_.code}") from None
    finally:
        sys.argv = argv
        os.chdir(here)


def _clear_process_caches() -> None:
    """What the store reads once per process, read again by the next call: the git commit (two
    processes), the packages' versions, the schemas and their compiled validators."""
    import gaugecli.store.artifacts as artifacts
    import gaugecli.store.schemas as schemas

    for cached in (
        artifacts._git_source,
        artifacts._version_of,
        artifacts.package_version,
        artifacts._platform,
        schemas.load_schema,
        schemas._validator,
    ):
        cached.cache_clear()


def measure_warm_calls(k: int) -> dict[str, Any]:
    """In this process: a first call (imports, numba's loading), then ``k`` times the call (its parts
    timed) and the compute alone through the API, alternately. The own cost of a call is its wall time
    less the compute inside it, both on one clock in one call (the machine's load moves a compute
    by more than the whole own cost from one run to the next); the best of ``k`` calls is kept."""
    from _common import timed_calls

    import gaugecli.cli.rerun as rerun
    import gaugecli.cli.session as session
    import gaugecli.experiments.simulate as simulate
    import gaugecli.store.artifacts as artifacts
    import gaugecli.store.cache as cache
    from gaugecli.cli import main

    targets = {
        "compute": (simulate, "simulate_batch"),
        "artifacts": (cache.Cache, "save"),
        "encode": (artifacts, "encode_artifact"),
        "validate": (artifacts, "validate"),
        "rerun files": (rerun, "write"),
        "summary": (session, "summarize"),
    }
    runs = simulate.SimulateConfig(gauge=CALL_GAUGE, strengths=STRENGTHS).runs()
    best: dict[str, Any] = {"own": math.inf}
    api_s = math.inf
    with tempfile.TemporaryDirectory(prefix="gaugecli-bench-own-") as tmp:
        _call_in_this_process(main, tmp)
    simulate.simulate_batch(runs)
    for _ in range(k):
        _clear_process_caches()
        with tempfile.TemporaryDirectory(prefix="gaugecli-bench-own-") as tmp, timed_calls(targets) as times:
            start = time.perf_counter()  # an empty folder made before, removed after the clock
            _call_in_this_process(main, tmp)
            call_s = time.perf_counter() - start
        own = call_s - times.seconds("compute")
        if own < best["own"]:
            best = {"own": own, "call": call_s, "spans": {name: times.seconds(name) for name in targets}}
        start = time.perf_counter()
        simulate.simulate_batch(runs)
        api_s = min(api_s, time.perf_counter() - start)
    return {**best, "api_compute": api_s}


def cli_own_cost(quick: bool = False) -> list[Row]:
    """Row g2 (see the module's docstring)."""
    k = 2 if quick else 5
    goal = f"≤ {fmt_seconds(CLI_OWN_COST_GOAL_S)}"
    label = f"one CLI call of the fig3 sweep (`simulate --gauge {CALL_GAUGE} -D 1…1024`, empty cache): its own cost"
    exe = gaugecli_command() or [sys.executable, "-m", "gaugecli"]
    try:
        warm = call_in_subprocess("bench_cost", "measure_warm_calls", {"k": k}, env=blas_env(1), timeout_s=300)
    except RuntimeError as err:
        return [Row("g2", label, "failed", goal, False, str(err))]
    cold: CommandRun | None = None
    for _ in range(k):
        with tempfile.TemporaryDirectory(prefix="gaugecli-bench-cold-") as cwd:  # an empty cache each time
            run = run_command([*exe, *CALL_ARGS], timeout_s=300, cwd=cwd, env=blas_env(1))
        if run.returncode != 0:
            return [Row("g2", label, f"failed: {run.last_error_line()}", goal, False)]
        cold = run if cold is None or run.seconds < cold.seconds else cold
    assert cold is not None
    bare = best_command([sys.executable, "-c", "pass"], k)
    own, spans = warm["own"], warm["spans"]
    compute = min(spans["compute"], warm["api_compute"])
    imports = cold.seconds - bare.seconds - compute - own
    data = {
        "cold_call_seconds": cold.seconds,
        "bare_python_seconds": bare.seconds,
        "imports_seconds": imports,
        "warm_call_seconds": warm["call"],
        "compute_seconds": compute,
        "api_compute_seconds": warm["api_compute"],
        "own_seconds": own,
        "spans": spans,
    }
    note = (
        f"best of {k}; a fresh call {fmt_seconds(cold.seconds)} = python {fmt_seconds(bare.seconds)} + imports and "
        f"first-call loading {fmt_seconds(imports)} + compute {fmt_seconds(compute)} + own {fmt_seconds(own)} (a call "
        f"again in one process, less the compute inside it; the same compute through the API there, alternately: "
        f"{fmt_seconds(warm['api_compute'])}); inside that call: 11 artifacts {fmt_seconds(spans['artifacts'])} (encoding and hashes {fmt_seconds(spans['encode'])}, "
        f"schema {fmt_seconds(spans['validate'])}), rerun files {fmt_seconds(spans['rerun files'])}, summary "
        f"{fmt_seconds(spans['summary'])}"
    )
    return [
        Row(
            "g2",
            label,
            f"{fmt_seconds(own)} beside a compute of {fmt_seconds(compute)} ({fmt_ratio(own / compute)})",
            goal,
            own <= CLI_OWN_COST_GOAL_S,
            note,
            data,
        )
    ]
