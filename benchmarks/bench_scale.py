"""(h) sample size n, (i) neurons m, (j) input dimension d: time and peak memory of
``gaugecli simulate`` as each grows, this build and the previous implementation side by side.

Every point is one ``gaugecli simulate …`` command in a fresh process (BLAS/OpenMP and torch
on one thread, an empty cache in a temporary working directory), so its peak RSS is its own.
The probe imports numpy, scipy, torch and gaugecli before it starts the clock, so "time" is
the command's work (configuration, integration, observables, artifact), not the libraries'
import; "RSS" is the whole process's high-water mark (the interpreter with its libraries is
~0.3 GB of it). A point that runs past its time cap or its RSS cap is killed and reported as
such; larger sizes of the same build are then not tried (they only cost more).

The *previous implementation* is commit :data:`PREVIOUS_COMMIT` (the main branch before the
scale work), extracted with ``git archive`` into ``build/bench-previous/`` and run with the
same interpreter; where its command line lacks a mode (``sample-gd``: it called full-batch GD
on L_n ``--mode sample``) the equivalent is used and the row says so.

Growth exponents are least-squares slopes of ``log time`` (and ``log (RSS − RSS at the
smallest size)``) against ``log size`` over the completed points at or above the sweep's
``fit_from`` size, where the work dominates the command's fixed costs. The curves go to
``scaling.png`` and their numbers to ``scaling.json`` (:func:`write_curves`).
"""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from _common import REPO_ROOT, Row, blas_env, fmt_bytes, fmt_seconds, not_available, run_command

PREVIOUS_COMMIT = "60b31cd"
GiB = 1024**3
SWEEP_BUDGET_S = 90.0
"""Seconds one build's sweep may spend (wall, all points) before the larger sizes are skipped."""

# The probe: import everything heavy first, then time the command itself in-process.
_PROBE = """
import json, sys, time
argv = json.loads(sys.argv[1])
import numpy, scipy.integrate, scipy.linalg, scipy.optimize
try:
    import torch
    torch.set_num_threads(1)
except ImportError:
    pass
import gaugecli.experiments.simulate
from gaugecli.cli import main
sys.argv = ["gaugecli", *argv]
start = time.perf_counter()
code = 0
try:
    main()
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
print("@@PROBE@@" + json.dumps({"seconds": time.perf_counter() - start, "code": code}), flush=True)
sys.exit(code)
"""


@dataclass(frozen=True)
class Build:
    """A gaugecli source tree to run: ``root`` goes first on ``PYTHONPATH``."""

    name: str
    root: Path


@dataclass
class Point:
    """One command at one size: ``status`` ok | timeout | rss | error | skipped."""

    build: str
    size: float
    argv: list[str]
    status: str
    seconds: float | None = None
    wall: float | None = None
    rss: int | None = None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def this_build() -> Build:
    return Build("this build", REPO_ROOT)


def previous_build() -> Build | None:
    """Commit :data:`PREVIOUS_COMMIT` extracted under ``build/bench-previous/`` (once), or
    ``None`` where git or the commit is missing (a source archive, a shallow clone)."""
    target = REPO_ROOT / "build" / "bench-previous" / PREVIOUS_COMMIT
    if (target / "gaugecli" / "__init__.py").exists():
        return Build(f"previous ({PREVIOUS_COMMIT})", target)
    try:
        tar = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "archive", "--format=tar", PREVIOUS_COMMIT, "gaugecli"],
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        archive.extractall(target, filter="data")
    return Build(f"previous ({PREVIOUS_COMMIT})", target)


def has_option(build: Build, command: str, option: str) -> bool:
    """Whether ``gaugecli <command> --help`` of ``build`` lists ``option``."""
    with tempfile.TemporaryDirectory(prefix="gaugecli-bench-help-") as tmp:  # cwd is first on sys.path
        run = run_command(
            [sys.executable, "-m", "gaugecli", command, "--help"],
            env={"PYTHONPATH": str(build.root), "COLUMNS": "200", "TERM": "dumb", "NO_COLOR": "1"},
            cwd=tmp,
            timeout_s=60,
        )
    return run.returncode == 0 and option in run.stdout


def run_point(build: Build, argv: Sequence[str], size: float, timeout_s: float, rss_limit: int) -> Point:
    """``gaugecli <argv>`` of ``build`` in a fresh process and an empty working directory."""
    env = {**blas_env(1), "PYTHONPATH": str(build.root), "COLUMNS": "200", "NO_COLOR": "1"}
    with tempfile.TemporaryDirectory(prefix="gaugecli-bench-scale-") as tmp:
        run = run_command(
            [sys.executable, "-c", _PROBE, json.dumps(list(argv))],
            env=env,
            cwd=tmp,
            timeout_s=timeout_s,
            rss_limit_bytes=rss_limit,
        )
    point = Point(build.name, size, list(argv), "ok", wall=run.seconds, rss=run.max_rss_bytes)
    if run.over_rss:
        point.status, point.error = "rss", f"killed above {fmt_bytes(rss_limit)} RSS after {run.seconds:.1f} s"
    elif run.timed_out:
        point.status, point.error = "timeout", f"killed after {timeout_s:g} s"
    elif run.returncode != 0 or "@@PROBE@@" not in run.stdout:
        # the command's last words: stderr first (errors), else its own stdout (not the probe's line)
        err = [ln for ln in run.stderr.splitlines() if ln.strip()]
        out = [ln for ln in run.stdout.splitlines() if ln.strip() and "@@PROBE@@" not in ln]
        lines = err or out
        traceback = any(ln.startswith("Traceback") for ln in err)
        point.status = "error"
        point.error = ("traceback: " if traceback else "") + (lines[-1].strip() if lines else f"exit {run.returncode}")
    if "@@PROBE@@" in run.stdout:
        point.seconds = float(json.loads(run.stdout.rsplit("@@PROBE@@", 1)[-1].splitlines()[0])["seconds"])
    return point


def sweep(
    build: Build,
    sizes: Sequence[float],
    argv_of: Callable[[float], list[str]],
    timeout_s: float,
    rss_limit: int,
    budget_s: float = math.inf,
) -> list[Point]:
    """Each size in increasing order; after the first point that fails or hits a cap, the
    larger ones are recorded as skipped — also once the sweep has spent ``budget_s`` (which
    keeps ``make bench`` near ten minutes whatever the build)."""
    out: list[Point] = []
    stop = ""
    spent = 0.0
    for size in sizes:
        argv = argv_of(size)
        if not stop and spent > budget_s:
            stop = f"not run: the sweep's budget of {budget_s:g} s is spent"
        if stop:
            out.append(Point(build.name, size, argv, "skipped", error=stop))
            continue
        print(f"    {build.name}: gaugecli {' '.join(argv)}", file=sys.stderr, flush=True)
        point = run_point(build, argv, size, timeout_s, rss_limit)
        spent += point.wall or 0.0
        out.append(point)
        if not point.ok:
            stop = f"not run: size {size:g} already {point.status} ({point.error})"
    return out


def growth_exponent(points: Sequence[Point], fit_from: float, key: str = "seconds") -> float | None:
    """Least-squares slope of ``log key`` against ``log size`` over the completed points with
    ``size ≥ fit_from`` (``key="rss"``: of the RSS above the smallest completed point's,
    over the points at least 32 MiB above it); ``None`` with fewer than two points."""
    done = [p for p in points if p.ok and p.seconds is not None and p.rss is not None]
    if not done:
        return None
    if key == "rss":
        base = min(float(p.rss or 0) for p in done)
        xy = [(p.size, float(p.rss or 0) - base) for p in done if p.size >= fit_from]
        xy = [(x, y) for x, y in xy if y >= 32 * 2**20]
    else:
        xy = [(p.size, float(p.seconds or 0.0)) for p in done if p.size >= fit_from]
        xy = [(x, y) for x, y in xy if y > 0]
    if len(xy) < 2 or len({x for x, _ in xy}) < 2:
        return None
    lx = [math.log(x) for x, _ in xy]
    ly = [math.log(y) for _, y in xy]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    sxx = sum((x - mx) ** 2 for x in lx)
    return sum((x - mx) * (y - my) for x, y in zip(lx, ly, strict=True)) / sxx


def _fmt_exp(p: float | None) -> str:
    return "—" if p is None else f"{p:.2f}"


def _fmt_size(x: float) -> str:
    if x >= 1000 and math.log10(x).is_integer():
        return f"10^{int(math.log10(x))}"
    return f"{x:g}"


def _largest(points: Sequence[Point]) -> Point | None:
    done = [p for p in points if p.ok]
    return max(done, key=lambda p: p.size) if done else None


def _summary(points: Sequence[Point], fit_from: float, symbol: str) -> str:
    """``time ∝ n^0.98, RSS +1.2 GiB ∝ n^1.00; largest n=10^7: 12.3 s, 1.6 GiB`` (or why not)."""
    big = _largest(points)
    failed = [p for p in points if p.status not in ("ok", "skipped")]
    parts = [f"time ∝ {symbol}^{_fmt_exp(growth_exponent(points, fit_from))}"]
    parts.append(f"RSS−base ∝ {symbol}^{_fmt_exp(growth_exponent(points, fit_from, 'rss'))}")
    if big is not None:
        parts.append(f"at {symbol}={_fmt_size(big.size)}: {fmt_seconds(big.seconds or 0.0)}, {fmt_bytes(big.rss or 0)}")
    if failed:
        f = failed[0]
        parts.append(f"{symbol}={_fmt_size(f.size)}: {f.status} ({f.error})")
    return "; ".join(parts)


def _comparison_row(
    id_: str,
    label: str,
    curves: dict[str, list[Point]],
    fit_from: float,
    symbol: str,
    note: str,
) -> Row:
    measured = " | ".join(f"{name}: {_summary(pts, fit_from, symbol)}" for name, pts in curves.items())
    data = {
        "symbol": symbol,
        "fit_from": fit_from,
        "curves": {name: [asdict(p) for p in pts] for name, pts in curves.items()},
        "exponents": {
            name: {"time": growth_exponent(pts, fit_from), "rss": growth_exponent(pts, fit_from, "rss")}
            for name, pts in curves.items()
        },
    }
    return Row(id_, label, measured, "information", None, note, data)


def _point_text(p: Point) -> str:
    if p.ok:
        return f"{fmt_seconds(p.seconds or 0.0)}, peak RSS {fmt_bytes(p.rss or 0)}"
    return f"{p.status}: {p.error}"


# ----------------------------------------------------------------------------------------
# (h) sample size n

N_SAMPLE_GOAL_BYTES = 3 * GiB
GD_STEPS_ETA, GD_STEPS_T = 0.01, 0.1  # ten full-batch GD steps on L_n


def samples(quick: bool = False) -> list[Row]:
    """h1: full-batch GD on L_n (10 steps) for n = 10³…10⁷, both builds; h2: the goal,
    ``--mode sample --n-samples 10⁷`` (the flow on L_n) peak RSS ≤ 3 GB."""
    sizes = [1e3, 1e4] if quick else [1e3, 1e4, 1e5, 1e6, 1e7]
    fit_from = sizes[0] if quick else 1e5
    timeout, rss_limit = (20.0, 4 * GiB) if quick else (120.0, 6 * GiB)
    gd = ["--eta", f"{GD_STEPS_ETA:g}", "--t-max", f"{GD_STEPS_T:g}"]
    curves = {}
    this = this_build()
    curves[this.name] = sweep(
        this,
        sizes,
        lambda n: ["simulate", "--mode", "sample-gd", "--n-samples", str(int(n)), *gd],
        timeout,
        rss_limit,
        budget_s=SWEEP_BUDGET_S,
    )
    prev = None if quick else previous_build()  # --quick: this build only
    if prev is not None:
        curves[prev.name] = sweep(
            prev,
            sizes,
            lambda n: ["simulate", "--mode", "sample", "--n-samples", str(int(n)), *gd],
            timeout,
            rss_limit,
            budget_s=SWEEP_BUDGET_S,
        )
    note = (
        f"`simulate --mode sample-gd --eta {GD_STEPS_ETA:g} --t-max {GD_STEPS_T:g}` (10 GD steps on L_n; its "
        "η/2 step-error pilot is opt-in, --step-error; the previous build's `--mode sample` was this GD); "
        f"d=16, m=1, D=4; exponents fitted over n ≥ {_fmt_size(fit_from)}; caps {timeout:g} s, {fmt_bytes(rss_limit)}"
    )
    rows = [_comparison_row("h1", "sample size n = 10³…10⁷: full-batch GD on L_n", curves, fit_from, "n", note)]
    rows.append(_sample_goal(quick, curves))
    rows.append(_gradient_row(quick, prev))
    return rows


# One gradient of L_n, in-process, in either build (the oracle moved from gaugecli.sample to
# gaugecli.core.samples.sample); best of 3 after one warm-up call.
_GRADIENT_PROBE = """
import json, sys, time
import numpy as np
import torch
torch.set_num_threads(1)
try:
    from gaugecli.core.samples.sample import draw_sample, empirical_oracle
    from gaugecli.core.model.gauge import duplicate_initial_condition
    from gaugecli.core.model.model import standard_model
except ImportError:
    from gaugecli.sample import draw_sample, empirical_oracle
    from gaugecli.gauge import duplicate_initial_condition
    from gaugecli.teacher import standard_teacher as standard_model
n, ms = int(sys.argv[1]), json.loads(sys.argv[2])
teacher = standard_model(16)
X, y = draw_sample(teacher, n, 0)
oracle = empirical_oracle(X, y)
out = {}
for m in ms:
    a, W = duplicate_initial_condition(teacher, np.full(m, 4.0))
    oracle(a, W)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        oracle(a, W)
        best = min(best, time.perf_counter() - start)
    out[str(m)] = best
print("@@GRAD@@" + json.dumps(out))
"""


def _gradient_row(quick: bool, prev: Build | None) -> Row:
    """h3: one gradient of L_n at the largest n, m = 1 and 8, both builds."""
    n, ms = (10**5, [1, 8]) if quick else (10**7, [1, 8])
    label = f"one gradient of L_n, n={_fmt_size(n)}, d=16, m=1 and 8 (in-process, best of 3)"
    builds = [this_build()] + ([prev] if prev is not None else [])
    results: dict[str, Any] = {}
    for build in builds:
        # an empty working directory: `python -c` puts it first on sys.path, ahead of PYTHONPATH
        with tempfile.TemporaryDirectory(prefix="gaugecli-bench-grad-") as tmp:
            run = run_command(
                [sys.executable, "-c", _GRADIENT_PROBE, str(n), json.dumps(ms)],
                env={**blas_env(1), "PYTHONPATH": str(build.root)},
                cwd=tmp,
                timeout_s=300,
                rss_limit_bytes=8 * GiB,
            )
        if run.returncode != 0 or "@@GRAD@@" not in run.stdout:
            results[build.name] = {"error": run.last_error_line()}
            continue
        times = json.loads(run.stdout.rsplit("@@GRAD@@", 1)[-1])
        results[build.name] = {"seconds": times, "max_rss_bytes": run.max_rss_bytes}
    parts = []
    for name, res in results.items():
        if "error" in res:
            parts.append(f"{name}: failed ({res['error']})")
            continue
        times = " / ".join(fmt_seconds(res["seconds"][str(m)]) for m in ms)
        parts.append(f"{name}: {times}, peak RSS {fmt_bytes(res['max_rss_bytes'])}")
    note = (
        "`empirical_oracle(X, y)(a, W)`: this build sums over chunks of rows (2 MiB intermediates), the previous one "
        "forms Z = X Wᵀ and G (n × m) whole; RSS includes the sample (1.2 GiB at n = 10^7)"
    )
    return Row("h3", label, " | ".join(parts), "information", None, note, {"n": n, "m": ms, "builds": results})


def _sample_goal(quick: bool, curves: dict[str, list[Point]]) -> Row:
    goal = f"peak RSS ≤ {N_SAMPLE_GOAL_BYTES / GiB:.0f} GiB"
    label = "`simulate --mode sample --n-samples 10000000` (flow on L_n, d=16, m=1)"
    if quick:
        return Row("h2", label, "not run in --quick (~1 min)", goal, None, "", {}, met_text="? (quick)")
    horizon = 0.05
    argv = ["simulate", "--mode", "sample", "--n-samples", "10000000", "--t-max", f"{horizon:g}"]
    print(f"    this build: gaugecli {' '.join(argv)}", file=sys.stderr, flush=True)
    point = run_point(this_build(), argv, 1e7, 300.0, 2 * N_SAMPLE_GOAL_BYTES)
    estimate = _memory_estimate(10**7, 16, 1)
    data = {"point": asdict(point), "estimate_bytes": estimate, "horizon": horizon}
    if not point.ok:
        return Row("h2", label, f"{point.status}: {point.error}", goal, False, "", data)
    met = (point.rss or 0) <= N_SAMPLE_GOAL_BYTES
    note = (
        f"--t-max {horizon:g} to keep the suite short, with every phase of the full run (draw, LSODA with "
        "Hessians, L_n at 400 saved times, artifact); the default horizon (to ‖∇L_n‖ ≤ 1e-10, T_spec = 0.436) "
        "takes ~400 gradient evaluations: 60 s and 1.58 GiB when measured once on this machine (151 s before the neurons × points layout); "
        f"sample kept in memory (8n(d+1) = 1.27 GiB), every sum over chunks of rows; "
        f"sample_memory_estimate {fmt_bytes(estimate)} + ~0.3 GiB interpreter"
    )
    return Row("h2", label, _point_text(point), goal, met, note, data)


def _memory_estimate(n: int, d: int, m: int) -> int:
    sys.path.insert(0, str(REPO_ROOT))
    try:
        from gaugecli.core.samples.sample import sample_memory_estimate

        return int(sample_memory_estimate(n, d, m))
    except ImportError:  # pragma: no cover - a build without the estimate
        return 0


# ----------------------------------------------------------------------------------------
# (i) neurons m

M_200_GOAL_BYTES = 2 * GiB
REFUSE_AT_ONCE_S = 10.0


def neurons(quick: bool = False) -> list[Row]:
    """i1: ``simulate --m M`` (duplicates, d = 16, default horizon) for m = 1…1000, both
    builds; i2: the goal ``--m 200`` ≤ 2 GB; i3: ``--m 1000 --init random --d 32`` completes or
    refuses at once."""
    sizes = [1, 4] if quick else [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
    fit_from = sizes[0] if quick else 10
    timeout, rss_limit = (8.0, 3 * GiB) if quick else (30.0, 4 * GiB)
    curves = {}
    this = this_build()
    curves[this.name] = sweep(
        this, sizes, lambda m: ["simulate", "--m", str(int(m))], timeout, rss_limit, budget_s=SWEEP_BUDGET_S
    )
    prev = None if quick else previous_build()  # --quick: this build only
    if prev is not None:
        curves[prev.name] = sweep(
            prev, sizes, lambda m: ["simulate", "--m", str(int(m))], timeout, rss_limit, budget_s=SWEEP_BUDGET_S
        )
    note = (
        f"`simulate --m M` (m duplicates, favorable D=4, d=16, to the default horizon); exponents fitted over "
        f"m ≥ {fit_from:g}; caps {timeout:g} s, {fmt_bytes(rss_limit)}"
    )
    rows = [_comparison_row("i1", "neurons m = 1…1000 (population flow, duplicates)", curves, fit_from, "m", note)]

    goal = f"peak RSS ≤ {M_200_GOAL_BYTES / GiB:.0f} GiB, completes"
    label = "`simulate --m 200` duplicates (d=16, default horizon)"
    if quick:
        rows.append(Row("i2", label, "not run in --quick", goal, None, "", {}, met_text="? (quick)"))
    else:
        p200 = next(p for p in curves[this.name] if p.size == 200)
        met = p200.ok and (p200.rss or 0) <= M_200_GOAL_BYTES
        rows.append(Row("i2", label, _point_text(p200), goal, met, "", {"point": asdict(p200)}))
    rows.append(_random_init_goal(quick))
    return rows


def _random_init_goal(quick: bool) -> Row:
    argv = ["simulate", "--m", "1000", "--init", "random", "--d", "32"]
    label = "`simulate --m 1000 --init random --d 32`"
    goal = f"completes, or refuses within {REFUSE_AT_ONCE_S:g} s in one line (no traceback)"
    this = this_build()
    if not has_option(this, "simulate", "--init"):
        return not_available("i3", label, goal, "not available in this build: `simulate` has no --init option")
    if quick:
        return Row("i3", label, "not run in --quick", goal, None, "", {}, met_text="? (quick)")
    print(f"    this build: gaugecli {' '.join(argv)}", file=sys.stderr, flush=True)
    point = run_point(this, argv, 1000, 120.0, 8 * GiB)
    data = {"point": asdict(point)}
    if point.ok:
        return Row("i3", label, f"completed: {_point_text(point)}", goal, True, "", data)
    refused = (
        point.status == "error" and not point.error.startswith("traceback") and (point.wall or 1e9) <= REFUSE_AT_ONCE_S
    )
    text = f"{'refused' if refused else point.status} after {point.wall or 0:.1f} s: {point.error}"
    return Row("i3", label, text, goal, refused, "", data)


# ----------------------------------------------------------------------------------------
# (j) input dimension d

D_TIME_GOAL, D_RSS_GOAL = 2.0, 1 * GiB


def dimension(quick: bool = False) -> list[Row]:
    """j1: ``simulate --m 5 --d D`` for d = 16…10⁵, both builds; j2: the goal d = 10⁵ within
    2× the time of d = 16, peak RSS ≤ 1 GB."""
    sizes = [16, 32] if quick else [16, 100, 1000, 10_000, 100_000]
    fit_from = sizes[0] if quick else 100
    timeout, rss_limit = (8.0, 3 * GiB) if quick else (30.0, 4 * GiB)
    curves = {}
    this = this_build()
    curves[this.name] = sweep(
        this, sizes, lambda d: ["simulate", "--m", "5", "--d", str(int(d))], timeout, rss_limit, budget_s=SWEEP_BUDGET_S
    )
    prev = None if quick else previous_build()  # --quick: this build only
    if prev is not None:
        curves[prev.name] = sweep(
            prev,
            sizes,
            lambda d: ["simulate", "--m", "5", "--d", str(int(d))],
            timeout,
            rss_limit,
            budget_s=SWEEP_BUDGET_S,
        )
    note = (
        f"`simulate --m 5 --d D` (5 duplicates, favorable D=4, default horizon); exponents fitted over "
        f"d ≥ {fit_from:g}; caps {timeout:g} s, {fmt_bytes(rss_limit)}"
    )
    rows = [_comparison_row("j1", "input dimension d = 16…10⁵ (population flow, m=5)", curves, fit_from, "d", note)]
    goal = f"time ≤ {D_TIME_GOAL:g}× that of d=16, peak RSS ≤ {D_RSS_GOAL / GiB:.0f} GiB"
    label = "`simulate --m 5 --d 100000` vs `--d 16`"
    if quick:
        rows.append(Row("j2", label, "not run in --quick", goal, None, "", {}, met_text="? (quick)"))
        return rows
    pts = {p.size: p for p in curves[this.name]}
    small, big = pts[16], pts[100_000]
    if not (small.ok and big.ok):
        rows.append(Row("j2", label, f"d=10^5 {_point_text(big)}", goal, False, "", {"point": asdict(big)}))
        return rows
    ratio = (big.seconds or 0.0) / max(small.seconds or 1e-9, 1e-9)
    met = ratio <= D_TIME_GOAL and (big.rss or 0) <= D_RSS_GOAL
    measured = f"{fmt_seconds(big.seconds or 0.0)} vs {fmt_seconds(small.seconds or 0.0)} (×{ratio:.2f}), peak RSS {fmt_bytes(big.rss or 0)}"
    rows.append(Row("j2", label, measured, goal, met, "", {"d16": asdict(small), "d1e5": asdict(big)}))
    return rows


# ----------------------------------------------------------------------------------------
# the curves


PHASE_SCALING = "phase_scaling{suffix}.json"
"""Written by ``benchmarks/phase.py``: the cost of ``gaugecli phase`` against its number of cells,
drawn as the last column of ``scaling.png`` when present (:func:`plot_curves`)."""


def write_curves(rows: Sequence[Row], out_dir: Path, suffix: str = "") -> list[Path]:
    """``scaling{suffix}.json`` (every point of rows h1, i1, j1) and ``scaling{suffix}.png``
    (time and peak RSS against n, m, d; log–log; both builds; capped points marked), with the
    phase column of :data:`PHASE_SCALING` where that file exists."""
    panels = [r for r in rows if r.id in ("h1", "i1", "j1") and "curves" in r.data]
    if not panels:
        return []
    payload = {r.id: {"benchmark": r.benchmark, "note": r.note, **r.data} for r in panels}
    json_path = out_dir / f"scaling{suffix}.json"
    json_path.write_text(json.dumps(payload, indent=1, allow_nan=False) + "\n")
    return [json_path, plot_curves(out_dir, suffix)]


def plot_curves(out_dir: Path, suffix: str = "") -> Path:
    """Draw ``scaling{suffix}.png`` from ``scaling{suffix}.json`` (the n, m, d sweeps) and, where it
    exists, :data:`PHASE_SCALING` (phase's time and time per cell against the number of cells): a
    replot needs no sweep rerun (``python benchmarks/bench_scale.py --replot``)."""
    payload = json.loads((out_dir / f"scaling{suffix}.json").read_text())
    phase_path = out_dir / PHASE_SCALING.format(suffix=suffix)
    phase = json.loads(phase_path.read_text()) if phase_path.exists() else None
    panels = [Row(k, v["benchmark"], "", "information", None, v.get("note", ""), v) for k, v in payload.items()]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    plain = FuncFormatter(lambda v, _: f"{v:g}")
    powers = FuncFormatter(lambda v, _: f"$10^{{{math.log10(v):.0f}}}$" if v >= 1e4 else f"{v:g}")

    columns = len(panels) + (phase is not None)
    fig, axes = plt.subplots(2, columns, figsize=(4.2 * columns, 6.4), squeeze=False, constrained_layout=True)
    styles = {0: ("C0", "o", "-"), 1: ("C3", "s", "--")}
    for col, row in enumerate(panels):
        symbol = row.data["symbol"]
        for k, (name, pts) in enumerate(row.data["curves"].items()):
            color, marker, line = styles[k % 2]
            exps = row.data["exponents"][name]
            for r_, key, scale, exp in ((0, "seconds", 1.0, exps["time"]), (1, "rss", GiB, exps["rss"])):
                ax = axes[r_][col]
                done = [(p["size"], p[key] / scale) for p in pts if p["status"] == "ok" and p[key] is not None]
                label = f"{name} (slope {_fmt_exp(exp)})" if r_ == 0 else name
                if done:
                    xs, ys = zip(*done, strict=True)
                    ax.plot(xs, ys, line, marker=marker, color=color, label=label)
                capped = [p for p in pts if p["status"] in ("timeout", "rss", "error")]
                for p in capped:
                    y = (p["wall"] if key == "seconds" else p["rss"]) or 0
                    if y:
                        ax.plot(p["size"], y / scale, marker="x", color=color, ms=9, ls="none")
                        ax.annotate(
                            p["status"],
                            (p["size"], y / scale),
                            fontsize=7,
                            color=color,
                            textcoords="offset points",
                            xytext=(-6, -12),
                            ha="right",
                        )
        for r_, ylabel in ((0, "time of the command [s]"), (1, "peak RSS [GiB]")):
            ax = axes[r_][col]
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0,)))
            ax.xaxis.set_major_formatter(powers)
            ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(plain)
            for axis in (ax.xaxis, ax.yaxis):
                axis.set_minor_formatter(NullFormatter())
            ax.set_xlabel(symbol)
            ax.set_ylabel(ylabel)
            ax.grid(True, which="both", alpha=0.3)
        axes[0][col].set_title(row.benchmark, fontsize=9)
        axes[0][col].legend(fontsize=7)
    title = "gaugecli simulate: cost against n, m, d (× = killed at a cap or failed)"
    if phase is not None:
        _phase_panel(axes[0][-1], axes[1][-1], phase)
        title += "; gaugecli phase: cost against the number of cells"
    fig.suptitle(title, fontsize=10)
    png_path = out_dir / f"scaling{suffix}.png"
    fig.savefig(png_path, dpi=110)
    plt.close(fig)
    return png_path


def _phase_panel(top: Any, bottom: Any, phase: dict[str, Any]) -> None:
    """Phase's grids, each family a line: total time (top, with its fitted slope against the number
    of cells and a slope-1 guide) and time per cell (bottom) against the number of cells."""
    from matplotlib.ticker import FuncFormatter

    plain = FuncFormatter(lambda v, _: f"{v:g}")
    for k, (name, family) in enumerate(phase["families"].items()):
        cells = [p["cells"] for p in family["points"]]
        seconds = [p["seconds"] for p in family["points"]]
        color, marker = (("C0", "o"), ("C2", "^"), ("C3", "s"))[k % 3]
        top.plot(cells, seconds, "-", marker=marker, color=color, label=f"{name} (slope {family['slope']:.2f})")
        bottom.plot(cells, [1e3 * t / c for t, c in zip(seconds, cells, strict=True)], "-", marker=marker, color=color)
        for c, t, label in zip(cells, seconds, (p["label"] for p in family["points"]), strict=True):
            bottom.annotate(label, (c, 1e3 * t / c), fontsize=6, color=color, textcoords="offset points", xytext=(3, 3))
    first = next(iter(phase["families"].values()))["points"]
    c0, t0 = first[-1]["cells"], first[-1]["seconds"]
    guide = [min(p["cells"] for f in phase["families"].values() for p in f["points"]), c0]
    top.plot(guide, [t0 * g / c0 for g in guide], ":", color="0.5", label="∝ cells (slope 1)")
    for ax, ylabel in ((top, "time of the map [s]"), (bottom, "time per cell [ms]")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_major_formatter(plain)
        ax.yaxis.set_major_formatter(plain)
        ax.set_xlabel("cells")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    top.set_title(phase["benchmark"], fontsize=9)
    top.legend(fontsize=7)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Redraw scaling.png from scaling.json and phase_scaling.json")
    parser.add_argument("--replot", action="store_true", help="redraw only (the default and only action)")
    parser.add_argument("--suffix", default="", help="`_quick` for the quick suite's files")
    args = parser.parse_args()
    print(plot_curves(Path(__file__).resolve().parent, args.suffix))
