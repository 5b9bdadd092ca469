"""The run cache: one content-addressed layout, ``<root>/<kind>/<config_hash>.json``, shared by
the commands, the figures and the sweeps' points.

An entry is a full artifact (:mod:`gaugecli.store.artifacts`). A damaged entry — not JSON, failing
its schema, of another schema version, or whose config or result no longer matches its hash, or
lacks it (:func:`~gaugecli.store.artifacts.check_hashes`) — is reported through ``warn`` and treated
as missing, so it is recomputed and overwritten.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from gaugecli.store.artifacts import config_hash, read_artifact, save_artifact
from gaugecli.store.atomic import check_folder, sweep_leftovers
from gaugecli.store.codec import from_jsonable
from gaugecli.store.errors import ArtifactError

Warn = Callable[[str], None]


def _frozen(config: Any) -> bool:
    """A frozen dataclass, whose hash cannot change under the same object (a dict's could)."""
    params = getattr(type(config), "__dataclass_params__", None)
    return bool(params is not None and params.frozen)


class Cache:
    """Artifacts under ``root``, keyed by kind and configuration hash."""

    def __init__(self, root: Path | str, *, warn: Warn | None = None, flag: str = "--cache-dir") -> None:
        self.root = Path(root)
        self.warn = warn
        self.flag = flag
        self._swept: set[Path] = set()
        self._paths: dict[tuple[str, int], tuple[Any, Path]] = {}

    def path(self, kind: str, config: Any) -> Path:
        """``<root>/<kind>/<config_hash>.json``; the hash of the same config object is taken once
        (a command asks for each run's path three times: whether it is cached, where to save it,
        where it was saved). By identity, and the object kept: equal is not enough (``-0.0 == 0.0``)."""
        known = self._paths.get((kind, id(config)))
        if known is not None and known[0] is config:
            return known[1]
        path = self.root / kind / f"{config_hash(config)}.json"
        if _frozen(config):
            self._paths[kind, id(config)] = (config, path)
        return path

    def holds_any(self) -> bool:
        """Whether any artifact is under ``root`` (``<root>/<kind>/<hash>.json``): a look at the first
        entries only, not a listing of the cache."""
        if not self.root.is_dir():
            return False
        return any(next(kind.glob("*.json"), None) is not None for kind in self.root.iterdir() if kind.is_dir())

    def load(self, kind: str, config: Any, *, verify: bool = True) -> dict[str, Any] | None:
        """The cached artifact of ``(kind, config)``, or ``None`` if absent or damaged (``verify=False``:
        without re-checking its schema and result hash, :func:`~gaugecli.store.artifacts.read_artifact`)."""
        path = self.path(kind, config)
        if path.parent not in self._swept:  # leftovers of a killed writer, once per folder
            sweep_leftovers(path.parent)
            self._swept.add(path.parent)
        if not path.exists():
            return None
        try:
            artifact = read_artifact(path, kind, verify=verify)
        except ArtifactError as exc:
            if self.warn is not None:
                self.warn(f"{exc} — recomputing it")
            return None
        if artifact.get("config_hash") != config_hash(config):
            if self.warn is not None:
                self.warn(f"{path}: made from another configuration or version — recomputing it")
            return None
        return artifact

    def typed(self, kind: str, config: Any, result_type: Any, artifact: dict[str, Any]) -> Any | None:
        """The artifact's result rebuilt as ``result_type``; ``None`` (reported, so it is recomputed)
        when the stored result lacks what this version's result type needs."""
        try:
            return from_jsonable(result_type, artifact["result"])
        except (TypeError, KeyError, ValueError) as exc:
            if self.warn is not None:
                self.warn(f"{self.path(kind, config)}: made by an older gaugecli ({exc}) — recomputing it")
            return None

    def check_writable(self, kind: str) -> None:
        """Refuse, before a run is computed, one that could not be stored: ``<root>/<kind>`` must be
        (or become) a writable folder. Only a write asks this: a read-only cache — a colleague's,
        shared — serves the runs it holds."""
        check_folder(self.root / kind, self.flag)

    def save(self, kind: str, config: Any, result: Any, *, seed: int | None, started: datetime) -> dict[str, Any]:
        """Build the artifact of ``result`` and store it atomically; return it.

        Not fsynced: an entry is trusted only once read back whole, with its schema and both hashes
        (:meth:`load`), so a power loss can cost an entry its recomputation, never a wrong result."""
        path = self.path(kind, config)
        return save_artifact(path, kind, config, result, seed=seed, started=started, flag=self.flag, durable=False)
