"""Running a sweep's points on an executor, with every finished point stored.

Each point (a frozen config dataclass, evaluated by a module-level function) is
written as its own artifact ``<store>/<kind>/<hash>.json`` the moment it finishes,
atomically. Running the same command again loads the finished points and computes
only the rest, so an interrupted sweep resumes where it stopped.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gaugecli.store.artifacts import ArtifactError, build_artifact, config_hash, now, read_artifact, write_artifact
from gaugecli.run.executors import Executor, SerialExecutor, run_ordered
from gaugecli.core.integrate import Progress


def from_jsonable(tp: Any, data: Any) -> Any:
    """Rebuild a value of type ``tp`` (dataclasses, lists, arrays, optionals) from JSON data;
    the inverse of :func:`gaugecli.store.artifacts.to_jsonable` (``null`` in an array → NaN)."""
    if data is None:
        return None
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        return from_jsonable(options[0], data)
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return tp(
            **{f.name: from_jsonable(hints[f.name], data[f.name]) for f in dataclasses.fields(tp) if f.name in data}
        )
    if tp is np.ndarray or origin is np.ndarray or getattr(tp, "__name__", "") == "NDArray":
        return np.array(data, dtype=float)
    if origin in (list, tuple):
        (item, *_) = typing.get_args(tp) or (Any,)
        return [from_jsonable(item, x) for x in data]
    if tp is float:
        return float(data)
    return data


class PointStore:
    """Finished points of one kind of job, keyed by the hash of the point's config."""

    def __init__(self, root: Path, kind: str, warn: Callable[[str], None] | None = None) -> None:
        self.folder = Path(root) / kind
        self.kind = kind
        self.warn = warn

    def path(self, point: Any) -> Path:
        return self.folder / f"{config_hash(point)[:20]}.json"

    def load(self, point: Any, result_type: Any) -> Any | None:
        path = self.path(point)
        if not path.exists():
            return None
        try:
            artifact = read_artifact(path, "point")
        except ArtifactError as exc:
            if self.warn is not None:
                self.warn(f"{exc}; recomputing that point")
            return None
        return from_jsonable(result_type, artifact["result"])

    def save(self, point: Any, result: Any, started: Any) -> None:
        artifact = build_artifact("point", {"job": self.kind, "point": point}, result, seed=None, started=started)
        write_artifact(self.path(point), artifact)


def make_runner(
    executor: Executor | None = None,
    store_root: Path | None = None,
    warn: Callable[[str], None] | None = None,
    *,
    reuse: bool = True,
) -> Callable[[Callable[[Any], Any], Sequence[Any], Progress | None], list[Any]]:
    """A :data:`gaugecli.experiments.common.PointRunner` that runs points on ``executor``
    (serial by default), storing each under ``store_root`` as it finishes and — with
    ``reuse`` — skipping those already stored."""

    def runner(fn: Callable[[Any], Any], points: Sequence[Any], progress: Progress | None) -> list[Any]:
        result_type = typing.get_type_hints(fn)["return"]
        store = None if store_root is None else PointStore(store_root, f"{fn.__module__}.{fn.__name__}", warn)
        results: list[Any] = [None] * len(points)
        todo: list[int] = []
        for i, point in enumerate(points):
            cached = None if store is None or not reuse else store.load(point, result_type)
            if cached is None:
                todo.append(i)
            else:
                results[i] = cached
        done = len(points) - len(todo)
        if progress is not None and points:
            progress(done / len(points))
        started = now()

        def on_done(k: int, result: Any) -> None:
            nonlocal done
            if store is not None:
                store.save(points[todo[k]], result, started)
            done += 1
            if progress is not None:
                progress(done / len(points))

        fresh = run_ordered(executor or SerialExecutor(), fn, [(points[i],) for i in todo], on_done=on_done)
        for i, result in zip(todo, fresh, strict=True):
            results[i] = result
        return results

    return runner
