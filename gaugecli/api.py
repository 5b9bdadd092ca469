"""The public Python API: one function per subcommand, from a configuration or from keywords, and
:func:`load` of any artifact the command line writes.

The run functions (``simulate``, ``select``, …) are made from the experiments' specs
(:func:`run_function`, one per :func:`gaugecli.experiments.spec.experiments` with an ``api_name``)
and looked up as attributes of this module.

Each run function takes the config dataclass of its kind, or the command's parameters as keywords
(their names are the :class:`~gaugecli.experiments.declare.Param` names, i.e. the flags without
dashes: ``gaugecli.simulate(gauge="unfavorable", gauge_strength=16, d=8)``); the keywords build the
config exactly as the command line does, with the same checks and one-line
:class:`~gaugecli.experiments.declare.ConfigError` messages. ``cache_dir`` runs through the same
:class:`~gaugecli.pipeline.Pipeline` and cache layout as the commands (``cache_dir="runs"``
reuses what ``gaugecli simulate …`` computed); by default nothing is cached.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gaugecli.core.types import Progress
from gaugecli.experiments.keywords import build
from gaugecli.experiments.spec import Experiment, resolve
from gaugecli.pipeline import Pipeline

if TYPE_CHECKING:
    from gaugecli.verify import VerifyConfig, VerifyResult

CacheDir = Path | str | None
Reporting = bool | Progress | None
"""``progress=``: ``True`` prints the fraction done on stderr, a function is told it (0..1)."""


def _pipeline(cache_dir: CacheDir) -> Pipeline:
    # a damaged cache entry is recomputed; say so as the command line does, as a Python warning
    return Pipeline(cache_dir, warn=lambda message: warnings.warn(message, stacklevel=3), flag="cache_dir")


def stderr_progress(name: str) -> Progress:
    """A progress report on stderr, ``simulate:  42%``, rewritten in place at each higher percent and
    ended by a newline at 100 % (plain text: no terminal library, no thread)."""
    shown = [-1]

    def report(fraction: float) -> None:
        percent = int(100 * min(max(fraction, 0.0), 1.0))
        if percent > shown[0]:  # the parts of a batch may report out of order: the furthest
            shown[0] = percent
            sys.stderr.write(f"\r{name}: {percent:3d}%" + ("\n" if percent == 100 else ""))
            sys.stderr.flush()

    return report


def _reporter(progress: Reporting, name: str) -> Progress | None:
    if progress is True:
        return stderr_progress(name)
    if progress is False or progress is None:
        return None
    if not callable(progress):
        raise TypeError(f"{name}() takes progress=True, False or a function of the fraction done (got {progress!r})")
    return progress


def _run(kind: str, configs: list[Any], cache_dir: CacheDir, progress: Progress | None) -> list[Any]:
    from gaugecli.core.frames import Labelled

    outcomes = _pipeline(cache_dir).ensure_all(kind, configs, progress)
    for outcome in outcomes:  # each result says what made it: its config (its repr, its to_xarray())
        if isinstance(outcome.result, Labelled):
            outcome.result.config = outcome.config
    return [o.result for o in outcomes]


def _config(config: Any, config_type: type, function: str, params: Mapping[str, Any]) -> Any:
    if config is not None and params:
        raise TypeError(f"{function}() takes a config or keywords, not both (got {', '.join(params)})")
    if config is None:
        return build(config_type, function, params)
    if not isinstance(config, config_type):
        raise TypeError(f"{function}() takes a {config_type.__name__} (got {type(config).__name__})")
    return config


# -- one function per subcommand ------------------------------------------------------------------


def run_function(spec: Experiment) -> Callable[..., Any]:
    """The API function of ``spec``'s command: ``(config=None, /, *, cache_dir=None, progress=False,
    **params)`` → the result (or, where its spec says ``many``, the list of results), its keywords
    built into the config as the command line builds it (or by the spec's own ``api_configs``). Its
    ``__signature__`` lists every keyword with its default (:func:`gaugecli.signatures.signature`,
    from the parameter declarations), as ``help()`` and IDEs show it."""
    from gaugecli.signatures import signature

    name = spec.api_name
    assert name is not None, spec.name

    def run(config: Any = None, /, *, cache_dir: CacheDir = None, progress: Reporting = False, **params: Any) -> Any:
        if spec.api_configs is not None:
            kind, configs, many = spec.api_configs(config, params, _config)
        else:
            kind, configs, many = spec.name, [_config(config, resolve(spec.config), name, params)], False
        results = _run(kind, configs, cache_dir, _reporter(progress, name))
        return results if many else results[0]

    run.__name__ = run.__qualname__ = name
    run.__module__ = __name__
    run.__doc__ = inspect.cleandoc(spec.api_doc) + KEYWORDS_NOTE
    run.__signature__ = signature(spec)  # type: ignore[attr-defined]
    return run


KEYWORDS_NOTE = """

Give a config, or the keywords: the command's options without dashes (``gauge_strength`` for
``--gauge-strength``), a tuple's as one value or several, each default the config's. ``cache_dir``
reads and writes the run cache of the command line; ``progress=True`` reports on stderr."""


def run_functions() -> dict[str, Experiment]:
    """The experiments with an API function, by the function's name."""
    from gaugecli.signatures import run_specs

    return run_specs()


_GENERATED: dict[str, tuple[Experiment, Callable[..., Any]]] = {}
"""Each run function made so far, by name, with the spec it was made from (made on first use: its
signature reads the config types, which imports the numerics; made anew for a spec registered later)."""

if TYPE_CHECKING:  # the run functions as type checkers see them: a stub generated from the specs
    from gaugecli._run_functions import *  # noqa: F403
else:

    def __getattr__(name: str) -> Any:
        spec = run_functions().get(name)
        if spec is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        made = _GENERATED.get(name)
        if made is None or made[0] is not spec:
            made = _GENERATED[name] = (spec, run_function(spec))
        return made[1]


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(run_functions()))


def verify(
    config: VerifyConfig | None = None,
    /,
    *,
    cache_dir: CacheDir = None,
    progress: Reporting = False,
    quick: bool = False,
    only: str | Sequence[str] = (),
) -> VerifyResult:
    """``gaugecli verify``: every claim measured at the paper's settings and judged (``quick=True``:
    the CI profile; ``only=("C4", …)``: those claims). Minutes at full settings: give a ``cache_dir``.
    (:func:`gaugecli.verify.run`: the package ``gaugecli.verify`` is callable as this function.)"""
    from gaugecli.verify import run

    given = {name: value for name, value in (("quick", quick), ("only", only)) if value}  # a config, or these
    return run(config, cache_dir=cache_dir, progress=_reporter(progress, "verify"), **given)


# -- artifacts back ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Artifact:
    """An artifact read back: its ``kind`` (``simulate``, ``select-sweep``, …), typed ``config`` and
    ``result`` (plain JSON values for a figure's sidecar or a sweep point), its ``config_hash`` and
    ``provenance``, and the ``path`` it was read from."""

    kind: str
    config: Any
    result: Any
    config_hash: str | None
    provenance: Mapping[str, Any]
    path: Path

    def to_xarray(self) -> Any:
        """The result as an ``xarray.Dataset`` or ``DataTree`` with the configuration as attributes."""
        from gaugecli.core.frames import to_xarray

        if not dataclasses.is_dataclass(self.result):
            raise TypeError(f"{self.path}: a {self.kind} artifact has no labelled view (its result is plain JSON)")
        extra = {
            "kind": self.kind,
            "config_hash": self.config_hash or "",
            "gaugecli": self.provenance.get("gaugecli", ""),
        }
        return to_xarray(self.result, self.config, extra)

    def to_dataframe(self) -> Any:
        """The long form of :meth:`to_xarray`: one row per number. A plain-JSON result (a figure's
        sidecar, a sweep point) has no labelled view: its rows are ``path``, ``index``, ``value``
        (:func:`gaugecli.core.frames.plain_long_form`)."""
        from gaugecli.core.frames import long_form, plain_long_form

        if not dataclasses.is_dataclass(self.result):
            return plain_long_form(self.result)
        return long_form(self.to_xarray())


def _types(kind: str) -> tuple[type, Any] | None:
    """``(config type, result type)`` of an artifact kind; ``None`` for the untyped ones (figure, point)."""
    from gaugecli.pipeline import KINDS
    from gaugecli.pipeline import kind as experiment_kind

    if kind in KINDS:
        k = experiment_kind(kind)
        return k.config_type, k.result_type
    if kind == "verify":
        from gaugecli.verify import VerifyConfig, VerifyResult

        return VerifyConfig, VerifyResult
    return None


def load(path: Path | str) -> Artifact:
    """The artifact at ``path`` with its typed config and result, checked as ``gaugecli validate``
    checks it (schema, ``config_hash``, ``result_hash``) and the config rebuilt to the same hash;
    anything else is an :class:`~gaugecli.store.errors.ArtifactError` of one line."""
    from gaugecli.experiments.declare import ConfigError
    from gaugecli.store.artifacts import config_hash, read_artifact
    from gaugecli.store.codec import from_jsonable
    from gaugecli.store.errors import ArtifactError
    from gaugecli.store.schemas import parse_schema_name

    path = Path(path)
    artifact = read_artifact(path)
    kind, _ = parse_schema_name(artifact["schema"], str(path))
    provenance = artifact.get("provenance") or {}
    types = _types(kind)
    config, result = artifact["config"], artifact["result"]
    if types is not None:
        try:
            config, result = from_jsonable(types[0], config), from_jsonable(types[1], result)
        except (TypeError, KeyError, ValueError, ConfigError) as exc:
            raise ArtifactError(
                f"{path}: this gaugecli cannot rebuild its {kind} result ({exc}); rerun the command that made it"
            ) from None
        if config_hash(config, provenance.get("gaugecli")) != artifact["config_hash"]:  # read_artifact: present
            raise ArtifactError(
                f"{path}: its config, rebuilt by this gaugecli, no longer has its config_hash; rerun the command that made it"
            )
    from gaugecli.core.frames import Labelled

    if isinstance(result, Labelled):  # the result read back says what made it, as a run function's does
        result.config, result.path, result.config_hash = config, path, artifact.get("config_hash")
    return Artifact(kind, config, result, artifact.get("config_hash"), provenance, path)
