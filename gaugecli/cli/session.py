"""What every computing command does around its experiment: a pipeline over the run cache
(with a sweep runner where asked), a progress bar, the ``--out`` copy and the ``--figure``."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from gaugecli.cli.errors import bad_parameter
from gaugecli.pipeline import Outcome, Pipeline
from gaugecli.store.atomic import check_writable

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
    from gaugecli.run.executors import make_executor
    from gaugecli.run.sweep import make_runner

    check_folder(cache_dir, "--cache-dir")
    pipe = Pipeline(cache_dir, reuse=use_cache, warn=warn)
    with make_executor(scheduler, workers) as executor:
        pipe.runner = make_runner(executor, pipe.cache, reuse=use_cache)
        yield pipe


def warn(message: str) -> None:
    from gaugecli.cli.report import console, escape

    console().print(f"[yellow]warning:[/] {escape(message)}")


@contextlib.contextmanager
def progress(label: str) -> Iterator[Callable[[float], None] | None]:
    """A rich progress bar (with the time left) on an interactive stderr; nothing otherwise."""
    if not sys.stderr.isatty():
        yield None
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
    from gaugecli.cli.report import console
    from gaugecli.plots.overview import render_outcome

    render_outcome(outcome, figure)
    console().print(f"drew {figure}")


def indexed(path: Path | None, label: str, n_runs: int) -> Path | None:
    """``path`` itself for one run; ``stem-<label>.suffix`` when a command writes several."""
    if path is None or n_runs == 1:
        return path
    return path.with_name(f"{path.stem}-{label}{path.suffix or '.json'}")


def run(pipe: Pipeline, kind: str, configs: list[Any], label: str) -> list[Outcome]:
    """``pipe.ensure_all`` under a progress bar."""
    with progress(label) as bar:
        return pipe.ensure_all(kind, configs, bar)
