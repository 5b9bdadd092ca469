"""Shared helpers for the benchmarks: a result row, best-of-k timing, peak memory.

Timings on a small shared machine are noisy, so every benchmark compares two
things measured side by side in the same run, and reports ratios; the best of
``k`` repeats is the estimate of each (the least disturbed run).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent


@dataclass
class Row:
    """One line of the results table.

    ``met`` is ``True``/``False`` against ``goal``, or ``None`` when there is no
    goal or the measurement could not decide it (``met_text`` then says why).
    """

    id: str
    benchmark: str
    measured: str
    goal: str
    met: bool | None
    note: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    met_text: str | None = None

    @property
    def met_label(self) -> str:
        if self.met_text is not None:
            return self.met_text
        return {True: "yes", False: "NO", None: "n/a"}[self.met]


def not_available(id_: str, benchmark: str, goal: str, reason: str) -> Row:
    """A row for a benchmark whose subject does not exist yet."""
    return Row(id_, benchmark, "not available", goal, None, reason, {"available": False, "reason": reason})


def best_of(fn: Callable[[], Any], k: int) -> tuple[float, Any]:
    """Run ``fn()`` ``k`` times; return the smallest wall time (``perf_counter``) and the last result."""
    best, result = float("inf"), None
    for _ in range(max(1, k)):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def traced_peak(fn: Callable[[], Any]) -> tuple[int, Any]:
    """Peak Python-heap bytes (``tracemalloc``: numpy buffers included, C libraries' own
    allocations not) while running ``fn()``. Slows ``fn`` down: never time it at once."""
    tracemalloc.start()
    try:
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, result


@dataclass(frozen=True)
class CommandRun:
    """A finished (or killed) subprocess: wall time, exit code, peak RSS, output."""

    argv: tuple[str, ...]
    seconds: float
    returncode: int
    max_rss_bytes: int
    stdout: str
    stderr: str
    timed_out: bool
    over_rss: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.over_rss

    def last_error_line(self) -> str:
        lines = [ln.strip() for ln in (self.stderr or self.stdout).splitlines() if ln.strip()]
        return lines[-1] if lines else f"exit code {self.returncode}"


# Runs the command given as argv[2:] from this small interpreter, so that the peak RSS
# it reports is the command's own: a child forked straight from a big benchmark process
# inherits that process's high-water mark (Linux keeps ru_maxrss across fork and exec).
# The wait is a blocking waitpid with a timer thread for the timeout: Popen.wait(timeout)
# polls with sleeps of up to 50 ms, which would quantize every measured time.
# The launcher is a child subreaper (Linux): a process of the tree that outlives its parent — the
# forkserver of plot's pool, which has reaped its workers — is reaped here too, so that the peak RSS
# counts it and its workers.
# With an RSS limit, a watcher thread reads the child's resident set from /proc every 20 ms and
# kills it above the limit (a run that would swap or exhaust a shared machine is stopped, and
# reported as such, rather than measured to the end).
_WRAPPER = """
import ctypes, json, os, resource, signal, subprocess, sys, threading, time
out, timeout, rss_limit, argv = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
if sys.platform == "linux":
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
killed = threading.Event()
over = threading.Event()
start = time.perf_counter()
proc = subprocess.Popen(argv, start_new_session=True)  # its own group: a kill reaches its workers too
def kill_group():
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
def kill():
    killed.set()
    kill_group()
def rss_bytes():
    try:
        with open(f"/proc/{proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0
def watch():
    while proc.poll() is None:
        if rss_bytes() > rss_limit:
            over.set()
            kill_group()
            return
        time.sleep(0.02)
timer = threading.Timer(timeout, kill)
timer.start()
if rss_limit > 0:
    threading.Thread(target=watch, daemon=True).start()
try:
    rc = proc.wait()
except BaseException:  # interrupted: its own session gets no SIGINT from the terminal
    kill_group()
    raise
seconds = time.perf_counter() - start
while True:  # the tree's orphans, reparented here
    try:
        os.wait()
    except ChildProcessError:
        break
timer.cancel()
timed_out = killed.is_set()
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
with open(out, "w") as f:
    json.dump({"rc": rc, "seconds": seconds, "rss": rss, "timed_out": timed_out, "over_rss": over.is_set()}, f)
"""


def run_command(
    argv: Sequence[str],
    *,
    timeout_s: float = 600.0,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    rss_limit_bytes: int = 0,
) -> CommandRun:
    """Run ``argv``: its wall time (measured next to it, without the launcher's start-up)
    and peak resident set size (``getrusage(RUSAGE_CHILDREN)`` in a small launcher: the
    largest single process of the command's tree that was waited for).

    A run past ``timeout_s`` is killed and reported with ``timed_out=True``; with
    ``rss_limit_bytes > 0``, a run whose resident set exceeds it is killed and reported with
    ``over_rss=True``.
    """
    full_env = {**os.environ, **(env or {})}
    with tempfile.TemporaryDirectory(prefix="gaugecli-bench-run-") as tmp:
        report = Path(tmp) / "report.json"
        launcher = [sys.executable, "-c", _WRAPPER, str(report), str(timeout_s), str(int(rss_limit_bytes)), *argv]
        proc = subprocess.run(launcher, capture_output=True, env=full_env, cwd=cwd, timeout=timeout_s + 60)
        stdout, stderr = proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")
        if not report.exists():
            raise RuntimeError(f"benchmark launcher failed for {argv!r}: {stderr.strip()[-300:]}")
        info = json.loads(report.read_text())
    return CommandRun(
        argv=tuple(argv),
        seconds=float(info["seconds"]),
        returncode=int(info["rc"]),
        max_rss_bytes=int(info["rss"]),
        stdout=stdout,
        stderr=stderr,
        timed_out=bool(info["timed_out"]),
        over_rss=bool(info.get("over_rss", False)),
    )


def best_command(argv: Sequence[str], k: int, **kwargs: Any) -> CommandRun:
    """The fastest of ``k`` runs of ``argv`` (stops early at the first failure)."""
    best: CommandRun | None = None
    for _ in range(max(1, k)):
        run = run_command(argv, **kwargs)
        if run.returncode != 0:
            return run
        if best is None or run.seconds < best.seconds:
            best = run
    assert best is not None
    return best


def call_in_subprocess(
    module: str, function: str, kwargs: Mapping[str, Any], *, env: Mapping[str, str], timeout_s: float = 600.0
) -> dict[str, Any]:
    """Call ``benchmarks/<module>.py:<function>(**kwargs)`` in a fresh interpreter with
    extra environment ``env`` (e.g. BLAS thread limits, read when a library loads);
    the function must return a JSON-serialisable dict."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); "
        f"from {module} import {function} as f; "
        "print('@@RESULT@@' + json.dumps(f(**json.loads(sys.argv[2]))))"
    )
    run = run_command(
        [sys.executable, "-c", code, str(BENCH_DIR), json.dumps(dict(kwargs))], env=env, timeout_s=timeout_s
    )
    if run.returncode != 0:
        raise RuntimeError(f"{module}.{function} failed in a subprocess: {run.last_error_line()}")
    payload = run.stdout.rsplit("@@RESULT@@", 1)[-1]
    return dict(json.loads(payload))


def gaugecli_command() -> list[str] | None:
    """The ``gaugecli`` console script next to this interpreter (or on PATH), if any."""
    local = Path(sys.executable).with_name("gaugecli")
    if local.exists():
        return [str(local)]
    found = shutil.which("gaugecli")
    return [found] if found else None


def fmt_ratio(x: float) -> str:
    """``×12`` / ``×1.3`` / ``×0.041``."""
    if not x == x:  # NaN
        return "—"
    if x >= 100:
        return f"×{x:,.0f}"
    if x >= 10:
        return f"×{x:.1f}"
    return f"×{x:.2g}" if x < 1 else f"×{x:.2f}"


def fmt_speedup(ratio: float) -> str:
    """``time_other / time_this`` as ``×3.1 faster`` or ``×2.0 slower``."""
    return f"{fmt_ratio(ratio)} faster" if ratio >= 1 else f"{fmt_ratio(1 / ratio)} slower"


def fmt_seconds(s: float) -> str:
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1.0:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def fmt_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"  # pragma: no cover


def blas_env(threads: int) -> dict[str, str]:
    """Environment variables that cap every BLAS/OpenMP pool at ``threads``."""
    value = str(threads)
    return {
        "OPENBLAS_NUM_THREADS": value,
        "OMP_NUM_THREADS": value,
        "MKL_NUM_THREADS": value,
    }


class _CallTimes(dict[str, dict[str, float]]):
    """``{name: {"calls": n, "seconds": s}}`` filled by :func:`timed_calls`."""

    def seconds(self, name: str) -> float:
        return float(self.get(name, {}).get("seconds", 0.0))

    def calls(self, name: str) -> int:
        return int(self.get(name, {}).get("calls", 0))


@contextlib.contextmanager
def timed_calls(targets: Mapping[str, tuple[object, str]]) -> Iterator[_CallTimes]:
    """Count and time calls of module-level functions while the block runs.

    ``targets`` maps a label to ``(module, attribute)``; the attribute is replaced by a
    timing wrapper (callers that look it up at call time see it) and restored on exit.
    A wrapped ``scipy.sparse.linalg.splu`` also times the ``solve`` of the LU it returns
    (label ``<label>.solve``), since Radau's sparse solves go through that method.
    """
    acc = _CallTimes({label: {"calls": 0, "seconds": 0.0} for label in targets})
    originals = {label: getattr(mod, attr) for label, (mod, attr) in targets.items()}

    def record(label: str, start: float) -> None:
        entry = acc.setdefault(label, {"calls": 0, "seconds": 0.0})
        entry["calls"] += 1
        entry["seconds"] += time.perf_counter() - start

    class _TimedLU:
        def __init__(self, lu: Any, label: str) -> None:
            self._lu, self._label = lu, label

        def solve(self, *args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return self._lu.solve(*args, **kwargs)
            finally:
                record(self._label + ".solve", start)

    def wrap(label: str, inner: Callable[..., Any], attr: str) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                result = inner(*args, **kwargs)
            finally:
                record(label, start)
            return _TimedLU(result, label) if attr == "splu" else result

        return wrapper

    for label, (mod, attr) in targets.items():
        setattr(mod, attr, wrap(label, originals[label], attr))
    try:
        yield acc
    finally:
        for label, (mod, attr) in targets.items():
            setattr(mod, attr, originals[label])


def flow_call_timer() -> contextlib.AbstractContextManager[_CallTimes]:
    """:func:`timed_calls` on what gaugecli's Radau flow spends its time in: gradients and
    Hessians (labels ``gradient``, ``hessian``), dense and sparse LU factorizations
    (``lu_factor``, ``splu``) and solves (``lu_solve``, ``splu.solve``)."""
    from scipy.integrate._ivp import radau

    import gaugecli.core.population.objective as objective  # the population objective calls these by module name

    return timed_calls(
        {
            "gradient": (objective, "population_gradient"),
            "hessian": (objective, "population_hessian"),
            "lu_factor": (radau, "lu_factor"),
            "lu_solve": (radau, "lu_solve"),
            "splu": (radau, "splu"),
        }
    )
