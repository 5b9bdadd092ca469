"""The quick profile's figure runs, computed once per test session for every test file and every
``pytest -n`` worker: one cache folder per figure under the session's shared temporary folder, filled
under a lock per figure (the first file to ask computes, the others — on this worker or another —
wait and read it back). Before, test_figN.py, test_layout.py and the CLI tests of test_layout.py each
computed the same figure's runs in a fresh cache of their own (fig12's ≈ 8 s three times).

A test that must see a figure's runs computed (not read back) keeps a fresh cache of its own
(tests/test_figure_runs.py): reading them back from here is what this saves."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from gaugecli.pipeline import Pipeline


class QuickRuns:
    """The shared caches: ``locked(fig_id)`` holds that figure's lock and yields a pipeline on its cache."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    @contextlib.contextmanager
    def locked(self, fig_id: str) -> Iterator[Pipeline]:
        """A pipeline on ``fig_id``'s cache, that figure's lock held (POSIX ``flock``: released when
        the file closes or the process ends; without it, as on Windows, two workers may both compute
        a figure's runs, each artifact written atomically: only time is lost)."""
        from gaugecli.pipeline import Pipeline  # here: importing the test helpers imports no package module

        with open(self.root / f"{fig_id}.lock", "a+b") as handle:
            with contextlib.suppress(ImportError, OSError):
                import fcntl

                fcntl.flock(handle, fcntl.LOCK_EX)
            yield Pipeline(self.root / fig_id)

    @contextlib.contextmanager
    def publishing(self, fig_ids: tuple[str, ...], cache: Path) -> Iterator[None]:
        """Hold the locks of ``fig_ids`` (in sorted order: a test holding one lock never waits for
        another, so no two can deadlock) while the caller computes these figures' runs afresh into
        ``cache``; then hand ``cache`` over as each one's shared cache where none is filled yet, so
        the files that ask for them next read these (tests/test_figure_runs.py runs first for it)."""
        with contextlib.ExitStack() as held:
            for fig_id in sorted(fig_ids):
                held.enter_context(self.locked(fig_id))
            yield
            for fig_id in fig_ids:
                if not (self.root / fig_id).exists():
                    shutil.copytree(cache, self.root / fig_id)

    def inputs(self, fig_id: str) -> tuple[Any, dict[str, str]]:
        """``figure_inputs`` of ``fig_id`` on the quick profile (needs, then followups), from its cache."""
        from gaugecli.plots.render import figure_inputs, figure_module

        with self.locked(fig_id) as pipeline:
            return figure_inputs(figure_module(fig_id), True, pipeline)

    def copy(self, fig_id: str, dest: Path) -> Path:
        """A copy of ``fig_id``'s filled cache at ``dest``, for a command that writes beside the runs
        it reads (``plot`` writes each run's rerun recipe)."""
        self.inputs(fig_id)
        with self.locked(fig_id):
            shutil.copytree(self.root / fig_id, dest)
        return dest


def session_root(factory: pytest.TempPathFactory) -> Path:
    """The session's temporary folder that every ``pytest -n`` worker shares (each worker's own
    base folder, ``popen-gwN``, lies in it), or the base folder itself without xdist."""
    base = factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "quick-runs"
