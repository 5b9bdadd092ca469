"""Running a sweep's points on an executor, with every finished point cached.

Each point (a frozen config dataclass, evaluated by a module-level function) is stored in the
run cache as kind ``point`` (``<cache>/point/<hash>.json``, the hash of the function's name and
the point) the moment it finishes, atomically. Running the same command again loads the
finished points and computes only the rest, so an interrupted sweep resumes where it stopped.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Sequence
from typing import Any

from gaugecli.core.types import PointRunner, Progress
from gaugecli.run.executors import Executor, SerialExecutor, run_ordered
from gaugecli.store.artifacts import now
from gaugecli.store.cache import Cache


def point_key(fn: Callable[[Any], Any], point: Any) -> dict[str, Any]:
    """What identifies a point in the cache: the job function and its argument."""
    return {"job": f"{fn.__module__}.{fn.__qualname__}", "point": point}


def make_runner(executor: Executor | None = None, cache: Cache | None = None, *, reuse: bool = True) -> PointRunner:
    """A runner ``runner(fn, points, progress) -> [fn(p) for p in points]`` on ``executor``
    (serial by default), caching each result as it finishes and — with ``reuse`` — skipping
    points already cached."""

    def runner(fn: Callable[[Any], Any], points: Sequence[Any], progress: Progress | None) -> list[Any]:
        result_type = typing.get_type_hints(fn)["return"]
        results: list[Any] = [None] * len(points)
        todo: list[int] = []
        for i, point in enumerate(points):
            key = point_key(fn, point)
            cached = cache.load("point", key) if cache is not None and reuse else None
            value = None if cached is None or cache is None else cache.typed("point", key, result_type, cached)
            if value is None:
                todo.append(i)
            else:
                results[i] = value
        done = len(points) - len(todo)
        if progress is not None and points:
            progress(done / len(points))
        started = now()

        def on_done(k: int, result: Any) -> None:
            nonlocal done
            if cache is not None:
                cache.save("point", point_key(fn, points[todo[k]]), result, seed=None, started=started)
            done += 1
            if progress is not None:
                progress(done / len(points))

        fresh = run_ordered(executor or SerialExecutor(), fn, [(points[i],) for i in todo], on_done=on_done)
        for i, result in zip(todo, fresh, strict=True):
            results[i] = result
        return results

    return runner
