"""The public Python API: one function per subcommand, from a configuration or from keywords, and
:func:`load` of any artifact the command line writes.

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
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gaugecli.core.types import Progress
from gaugecli.experiments.keywords import build
from gaugecli.pipeline import Pipeline

if TYPE_CHECKING:
    from gaugecli.core.observables import RunObservables
    from gaugecli.experiments.lockin import LockinResult
    from gaugecli.experiments.perturb import PerturbResult
    from gaugecli.experiments.phase import PhaseResult
    from gaugecli.experiments.predict import PredictResult
    from gaugecli.experiments.prune import PruneResult
    from gaugecli.experiments.reln import RelnResult
    from gaugecli.experiments.select import OwnerSweepResult, SelectResult
    from gaugecli.verify import VerifyResult

CacheDir = Path | str | None


def _pipeline(cache_dir: CacheDir) -> Pipeline:
    # a damaged cache entry is recomputed; say so as the command line does, as a Python warning
    return Pipeline(cache_dir, warn=lambda message: warnings.warn(message, stacklevel=3), flag="cache_dir")


def _run(kind: str, configs: list[Any], cache_dir: CacheDir, progress: Progress | None) -> list[Any]:
    return [o.result for o in _pipeline(cache_dir).ensure_all(kind, configs, progress)]


def _config(config: Any, config_type: type, function: str, params: Mapping[str, Any]) -> Any:
    if config is not None and params:
        raise TypeError(f"{function}() takes a config or keywords, not both (got {', '.join(params)})")
    if config is None:
        return build(config_type, function, params)
    if not isinstance(config, config_type):
        raise TypeError(f"{function}() takes a {config_type.__name__} (got {type(config).__name__})")
    return config


# -- one function per subcommand ------------------------------------------------------------------


def simulate(
    config: Any = None, /, *, cache_dir: CacheDir = None, progress: Progress | None = None, **params: Any
) -> list[RunObservables]:
    """``gaugecli simulate``: one :class:`~gaugecli.core.observables.RunObservables` per run of
    ``config`` (one per gauge strength D, in order), each run integrated by itself."""
    from gaugecli.experiments.simulate import SimulateConfig

    config = _config(config, SimulateConfig, "simulate", params)
    return _run("simulate", config.runs(), cache_dir, progress)


def select(
    config: Any = None, /, *, cache_dir: CacheDir = None, progress: Progress | None = None, **params: Any
) -> SelectResult | OwnerSweepResult:
    """``gaugecli select``: which of m duplicates owns the teacher feature (a ``SelectResult``);
    with an ``OwnerSweepConfig`` (keywords: ``sweep=True, ms=(2, 3, …)``) the owner-success sweep
    ``gaugecli select --sweep`` (an ``OwnerSweepResult``)."""
    from gaugecli.experiments.select import OwnerSweepConfig, SelectConfig

    sweep = isinstance(config, OwnerSweepConfig) or bool(params.pop("sweep", False))
    config = _config(config, OwnerSweepConfig if sweep else SelectConfig, "select", params)
    result: SelectResult | OwnerSweepResult = _run(
        "select-sweep" if sweep else "select", [config], cache_dir, progress
    )[0]
    return result


def prune(
    config: Any = None, /, *, cache_dir: CacheDir = None, progress: Progress | None = None, **params: Any
) -> PruneResult:
    """``gaugecli prune``: the non-owners' function vanishes (claim C7), and when it does not."""
    from gaugecli.experiments.prune import PruneConfig

    result: PruneResult = _run("prune", [_config(config, PruneConfig, "prune", params)], cache_dir, progress)[0]
    return result


def perturb(
    config: Any = None, /, *, cache_dir: CacheDir = None, progress: Progress | None = None, **params: Any
) -> PerturbResult:
    """``gaugecli perturb``: robustness of selection (claim C8); ``kind="random"`` or ``"adversarial"``
    as on the command line (the config's ``adversarial``)."""
    from gaugecli.experiments import params as P
    from gaugecli.experiments.perturb import PerturbConfig

    if "kind" in params:
        P.Perturb.kind.check(params["kind"])
        params["adversarial"] = params.pop("kind") == "adversarial"
    result: PerturbResult = _run("perturb", [_config(config, PerturbConfig, "perturb", params)], cache_dir, progress)[0]
    return result


def reln(
    config: Any = None, /, *, cache_dir: CacheDir = None, progress: Progress | None = None, **params: Any
) -> RelnResult:
    """``gaugecli reln``: the gated-linear (ReLN) view of gauge selection, where it holds and fails."""
    from gaugecli.experiments.reln import RelnConfig

    result: RelnResult = _run("reln", [_config(config, RelnConfig, "reln", params)], cache_dir, progress)[0]
    return result


def lockin(
    config: Any = None, /, *, cache_dir: CacheDir = None, progress: Progress | None = None, **params: Any
) -> LockinResult:
    """``gaugecli lockin``: feature repulsion and spectral lock-in diagnostics, select vs aligned control."""
    from gaugecli.experiments.lockin import LockinConfig

    result: LockinResult = _run("lockin", [_config(config, LockinConfig, "lockin", params)], cache_dir, progress)[0]
    return result


def phase(
    config: Any = None, /, *, cache_dir: CacheDir = None, progress: Progress | None = None, **params: Any
) -> PhaseResult:
    """``gaugecli phase``: a map of simulate or select over two parameters. Keywords: ``kind``,
    ``x`` and ``y`` (``"NAME=START:STOP:NUM[:log]"``), ``metric`` (or ``metrics``), and any
    parameter of the base run (``m``, ``d``, ``gauge``, ``rtol``, …) — or ``base=`` a config."""
    from gaugecli.experiments.phase import PhaseConfig, parse_axis

    if config is None:
        kind = params.pop("kind", "simulate")
        axes: dict[str, Any] = {
            name: parse_axis(params.pop(name), kind, name) if isinstance(params.get(name), str) else params.pop(name)
            for name in ("x", "y")
            if name in params
        }
        metrics = params.pop("metrics", params.pop("metric", None))
        base = params.pop("base", None)
        if params:
            from gaugecli.experiments.select import SelectConfig
            from gaugecli.experiments.simulate import SimulateConfig

            base_type: type = SimulateConfig if kind == "simulate" else SelectConfig
            base = _config(base, base_type, "phase", params)
        given: dict[str, Any] = (
            {"metrics": (metrics,) if isinstance(metrics, str) else tuple(metrics)} if metrics is not None else {}
        )
        config = PhaseConfig(kind=kind, base=base, **axes, **given)
    config = _config(config, PhaseConfig, "phase", {})
    result: PhaseResult = _run("phase", [config], cache_dir, progress)[0]
    return result


def predict(
    config: Any = None, /, *, cache_dir: CacheDir = None, progress: Progress | None = None, **params: Any
) -> PredictResult:
    """``gaugecli predict``: the owner of each feature from Gaussian starts against each predictor, with
    Wilson intervals (keywords: ``ks``, ``widths``, ``spreads``, ``runs``, ``init_scale_a``, ``d``, …)."""
    from gaugecli.experiments.predict import PredictConfig

    result: PredictResult = _run("predict", [_config(config, PredictConfig, "predict", params)], cache_dir, progress)[0]
    return result


def verify(
    config: Any = None, /, *, cache_dir: CacheDir = None, progress: Progress | None = None, **params: Any
) -> VerifyResult:
    """``gaugecli verify``: every claim measured at the paper's settings and judged (``quick=True``:
    the CI profile; ``only=("C4", …)``: those claims). Minutes at full settings: give a ``cache_dir``.
    (:func:`gaugecli.verify.run`: the package ``gaugecli.verify`` is callable as this function.)"""
    from gaugecli.verify import run

    return run(config, cache_dir=cache_dir, progress=progress, **params)


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
    from gaugecli.pipeline import kind as experiment

    if kind in KINDS:
        k = experiment(kind)
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
    return Artifact(kind, config, result, artifact.get("config_hash"), provenance, path)
