"""What every computing command does around its experiment: a pipeline over the run cache
(with a sweep runner where asked), a progress bar, the ``--out`` copy and the ``--figure``."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gaugecli.cli.errors import bad_parameter
from gaugecli.cli.heartbeat import elapsed_text as elapsed_text
from gaugecli.store.atomic import check_writable

if TYPE_CHECKING:
    from gaugecli.pipeline import Outcome, Pipeline

FIGURE_FORMATS = (".pdf", ".png", ".svg")


def check_folder(path: Path, flag: str) -> None:
    """A usage error if ``path`` is a file; a runtime error if it cannot become a folder."""
    from gaugecli.store.atomic import check_folder as check
    from gaugecli.store.atomic import check_names

    check_names(path, flag)  # names within the filesystem's limits first: only then can the OS be asked
    if path.exists() and not path.is_dir():  # a file, or a device such as /dev/null
        raise bad_parameter(flag, f"{path} is a file, not a folder")
    check(path, flag)


def check_figure(figure: Path | None) -> None:
    if figure is None:
        return
    if figure.suffix.lower() not in FIGURE_FORMATS:
        raise bad_parameter("--figure", f"{figure} must end in .pdf, .png or .svg")
    check_writable(figure, "--figure")


def check_out(out: Path | None) -> None:
    if out is not None:
        check_writable(out, "--out")


@contextlib.contextmanager
def pipeline(cache_dir: Path, use_cache: bool, workers: int = 1, scheduler: str | None = None) -> Iterator[Pipeline]:
    """A :class:`Pipeline` over ``cache_dir``; sweeps run their points on local processes or Dask."""
    from gaugecli.pipeline import Pipeline
    from gaugecli.run.executors import make_executor
    from gaugecli.run.sweep import make_runner
    from gaugecli.store.atomic import check_names

    check_names(cache_dir, "--cache-dir")  # first: only then can the OS be asked about the folder
    if not cache_dir.is_dir():  # an existing folder is read, and only checked for writing when a run is missing
        check_folder(cache_dir, "--cache-dir")
    pipe = Pipeline(cache_dir, reuse=use_cache, warn=warn)
    with make_executor(scheduler, workers) as executor:
        pipe.runner = make_runner(executor, pipe.cache, reuse=use_cache)
        yield pipe


def warn(message: str) -> None:
    """A warning of the pipeline, on stderr (stdout carries the summary, or ``--json``)."""
    from gaugecli.cli.report import errors_console, escape

    errors_console().print(f"[yellow]warning:[/] {escape(message)}")


@contextlib.contextmanager
def progress(label: str) -> Iterator[Callable[[float], None] | None]:
    """A rich progress bar (with the time left) on an interactive stderr; off a terminal (a log
    file, CI), a heartbeat of flushed lines (:mod:`gaugecli.cli.heartbeat`): the first within 10 s,
    then at least every 30 s, with the time left at the rate the work went lately."""
    if not sys.stderr.isatty():
        from gaugecli.cli.heartbeat import ProgressLines, Ticker

        lines = ProgressLines(label)
        ticker = Ticker(lines)
        try:
            yield lines
        finally:
            ticker.stop()
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=1.0)
        last = [0.0]

        def update(fraction: float) -> None:
            if fraction - last[0] >= 1e-3 or fraction >= 1.0:
                last[0] = fraction
                bar.update(task, completed=fraction)

        yield update


def export(outcome: Outcome, out: Path | None) -> Path | None:
    """Write the outcome's artifact to ``--out`` as well; return where the artifact can be read."""
    if out is None:
        return outcome.path
    from gaugecli.store.artifacts import write_artifact

    return write_artifact(out, outcome.artifact, "--out")


def draw(outcome: Outcome, figure: Path | None) -> None:
    """Draw the artifact's own figure to ``--figure`` (from the artifact as written)."""
    if figure is None:
        return
    from gaugecli.cli.report import errors_console
    from gaugecli.plots.overview import render_outcome

    render_outcome(outcome, figure)
    errors_console().print(f"drew {figure}")


def check_duration(dynamics: Any, d: int, m: int, members: int, max_time: float) -> None:
    """Refuse, before it starts, a finite-sample flow whose sample is regenerated at every pass and
    whose estimated time (:func:`gaugecli.experiments.budget.streamed_flow_seconds`) exceeds ``--max-time``."""
    if dynamics.sample_size is None or dynamics.batch_source == "resampled":  # kept in memory
        return
    from gaugecli.core.samples import sample_draw
    from gaugecli.experiments import budget

    n, limit = dynamics.sample_size, sample_draw.STORE_LIMIT_BYTES
    seconds = budget.streamed_flow_seconds(n, d, m, members, limit)
    if seconds > max_time:
        raise bad_parameter(
            "--n-samples",
            f"{n:.3g} points do not fit in memory, so they are regenerated from the seed at every pass: "
            f"≈ {budget.duration(seconds)} for a flow of ~{budget.FLOW_GRADIENTS} gradients, beyond "
            f"--max-time {max_time:g} s; --n-samples ≤ {limit // (8 * (d + 1)):.3g} stays in memory, "
            "or raise --max-time to accept the run",
        )


def indexed(path: Path | None, label: str, n_runs: int) -> Path | None:
    """``path`` itself for one run; ``stem-<label>.suffix`` when a command writes several."""
    if path is None or n_runs == 1:
        return path
    return path.with_name(f"{path.stem}-{label}{path.suffix or '.json'}")


@dataclass(frozen=True)
class Outputs:
    """Where a computing command's results go and how its work runs: ``--out``, ``--figure``,
    ``--cache-dir``, ``--cache``, ``--workers``, ``--scheduler``, ``--json``, ``--quiet``."""

    out: Path | None = None
    figure: Path | None = None
    cache_dir: Path = Path("runs")
    cache: bool = True
    workers: int = 1
    scheduler: str | None = None
    json: bool = False
    quiet: bool = False


def execute(
    ctx: Any,
    kind: str,
    configs: list[Any],
    outputs: Outputs,
    *,
    labels: list[str] | None = None,
    rerun: Callable[[Any], dict[str, Any]] | None = None,
) -> tuple[list[Outcome], list[Path | None]]:
    """The ending every computing command shares: check the output paths, run ``configs`` through
    the cache under a progress bar, write each artifact to ``--out`` (``stem-<label>`` for one of
    several) with its rerun TOML beside it, draw ``--figure``. Returns the outcomes and where each
    artifact can be read."""
    from gaugecli.cli.config_file import write_beside

    labels = labels or [str(i) for i in range(len(configs))]
    outs = [indexed(outputs.out, label, len(configs)) for label in labels]
    figures = [indexed(outputs.figure, label, len(configs)) for label in labels]
    for out, figure in zip(outs, figures, strict=True):
        check_out(out)
        check_figure(figure)
    with pipeline(outputs.cache_dir, outputs.cache, outputs.workers, outputs.scheduler) as pipe:
        _explain_misses(pipe, kind, configs, outputs)
        from gaugecli.store.artifacts import warm_provenance

        warm_provenance()  # its git processes run while the computation does
        outcomes = run(pipe, kind, configs, kind)
    paths: list[Path | None] = []
    for outcome, out, figure in zip(outcomes, outs, figures, strict=True):
        if outcome.path is not None:
            from gaugecli.cli import rerun as rerun_file

            rerun_file.write(kind, outcome.config, outcome.path)
        paths.append(export(outcome, out))
        write_beside(out, ctx, rerun(outcome.config) if rerun else None)
        draw(outcome, figure)
    return outcomes, paths


def _explain_misses(pipe: Pipeline, kind: str, configs: list[Any], outputs: Outputs) -> None:
    """A run about to be computed although a nearby one is cached: say which options differ."""
    if not outputs.cache or pipe.cache is None or len(configs) != 1:
        return
    if pipe.cache.path(kind, configs[0]).exists():
        return
    from gaugecli.cli.nearest import hint
    from gaugecli.cli.report import errors_console, escape

    line = hint(outputs.cache_dir, kind, configs[0])
    if line is not None:
        errors_console().print(escape(line))


def summarize(
    outcomes: list[Outcome],
    paths: list[Path | None],
    summary: Callable[..., None],
    json: bool,
    *,
    each: bool = True,
    quiet: bool = False,
) -> None:
    """The summary on the terminal (none with ``--quiet``), or with ``--json`` one JSON object per
    artifact on stdout: its kind, path, config hash, config, whether it was computed now, and the
    result's scalar numbers."""
    if quiet and not json:
        return
    if not json:
        if each:
            for outcome, path in zip(outcomes, paths, strict=True):
                summary(outcome, path)
        else:
            summary(outcomes, paths)
        return
    import json as json_module

    for outcome, path in zip(outcomes, paths, strict=True):
        result = outcome.artifact.get("result", {})
        numbers = {k: v for k, v in result.items() if v is None or isinstance(v, (bool, int, float, str))}
        record = {
            "kind": outcome.kind,
            "path": None if path is None else str(path),
            "config_hash": outcome.artifact.get("config_hash"),
            "config": outcome.artifact.get("config"),
            "computed": outcome.computed,
            "result": numbers,
        }
        print(json_module.dumps(record, allow_nan=True, ensure_ascii=False))


def run(pipe: Pipeline, kind: str, configs: list[Any], label: str) -> list[Outcome]:
    """``pipe.ensure_all`` under a progress bar."""
    with progress(label) as bar:
        return pipe.ensure_all(kind, configs, bar)
