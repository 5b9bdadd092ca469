"""The type names shared by every layer: :data:`Array`, :data:`Indices`, :data:`Progress`, :data:`PointRunner`.

Defined once here (a leaf module: it imports nothing of ours) and imported everywhere else, so
that a change of meaning happens in one place. Typing only; no numerics.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = ["Array", "Indices", "PointRunner", "Progress"]

Array = NDArray[np.floating[Any]]
"""A real array. At run time every array of the package is float64 (STYLE: float64 throughout);
the alias says ``floating[Any]`` rather than ``float64`` because numpy's stubs type many results
that are float64 at run time as ``floating[Any]`` (``np.linspace``, ``np.logspace``,
``np.asarray(x, float)``, reductions, arithmetic mixing float64 with ``floating``), so a
``float64`` alias would need a cast at each of them. ``ndarray`` is covariant in its dtype, so an
``NDArray[np.float64]`` still passes wherever an ``Array`` is expected."""

Indices = NDArray[np.intp]
"""Integer positions into an array (members of an ensemble, off-diagonal pairs): what
``np.arange``, ``np.argsort``, ``np.lexsort`` and ``np.triu_indices`` return."""

Progress = Callable[[float], None]
"""Called with the fraction of work done (0..1); the CLI turns it into a progress bar."""

P = TypeVar("P")
R = TypeVar("R")

PointRunner = Callable[[Callable[[P], R], Sequence[P], Progress | None], list[R]]
"""How a sweep evaluates its independent points: ``runner(fn, points, progress)`` returns
``[fn(p) for p in points]`` in order. :func:`gaugecli.experiments.common.run_serially` is the
default; the CLI passes one that uses a process pool or a Dask cluster and stores each finished
point so that an interrupted sweep resumes (:mod:`gaugecli.run.sweep`). ``fn`` is a module-level
function and each point a frozen dataclass, so both pickle. Written bare (``PointRunner``), the
point and result types are ``Any``."""


LATER_FIELD = "gaugecli_later_field"
"""Metadata key of a configuration field added after its dataclass was first hashed: while it holds
its default it is left out of the configuration's JSON (``gaugecli.store.codec.to_jsonable``), so
every configuration written before it existed keeps its content hash, and its cached runs
(``field(default=None, metadata={LATER_FIELD: True})``)."""

UNKEYED_FIELD = "gaugecli_unkeyed_field"
"""Metadata key of a configuration field that says where a result is computed, never what it is (a torch
device): always left out of the configuration's JSON and hence its content hash, so that a result computed
one way is the cached result of the other (``gaugecli.store.codec.to_jsonable``)."""
