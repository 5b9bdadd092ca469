"""JSON artifacts: ``schema``, ``config``, ``provenance``, ``result`` — serialised here only.

Files are written atomically (temporary file in the target folder, fsync, rename),
so a reader never sees a partial artifact, also when a run is interrupted.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import math
import os
import platform
import subprocess
import tempfile
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

SCHEMA_VERSION = 1


class ArtifactError(RuntimeError):
    """An artifact that cannot be written or read; the message names the file and the remedy."""


def schema_name(kind: str) -> str:
    return f"gaugecli.{kind}/{SCHEMA_VERSION}"


def to_jsonable(obj: Any) -> Any:
    """Dataclasses, numpy arrays and scalars, enums and tuples → JSON values; NaN/inf → null."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer, int)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        x = float(obj)
        return x if math.isfinite(x) else None
    return obj


def package_version() -> str:
    try:
        return metadata.version("gaugecli")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0+unknown"


def config_hash(config: Any) -> str:
    """SHA-256 of the canonical JSON of ``config`` and the package version (cache key)."""
    blob = json.dumps({"config": to_jsonable(config), "version": package_version()}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _git_commit() -> str | None:
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def _version_of(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def provenance(seed: int | None, started: datetime) -> dict[str, Any]:
    """Who made the artifact, from what, when. Only ``timestamps`` vary between reruns."""
    return {
        "gaugecli": package_version(),
        "git_commit": _git_commit(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": _version_of("scipy"),
        "torch": _version_of("torch"),
        "platform": platform.platform(),
        "seed": seed,
        "timestamps": {"started": started.isoformat(), "finished": datetime.now(UTC).isoformat()},
    }


def now() -> datetime:
    return datetime.now(UTC)


def check_writable(path: Path) -> None:
    """Fail early — before any computation, and without creating anything — if ``path``
    cannot become a file: it is a folder, or its nearest existing ancestor is not a
    writable folder (missing folders are created only when the file is written)."""
    path = Path(path)
    if path.is_dir():
        raise ArtifactError(f"--out: {path} is a directory; give a file path such as {path / 'run.json'}")
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise ArtifactError(f"--out: cannot write {path}: {ancestor} is a file, not a folder; choose another path")
    try:
        with tempfile.NamedTemporaryFile(dir=ancestor, prefix=".probe-", delete=True):
            pass
    except OSError as exc:
        raise ArtifactError(
            f"--out: cannot write to {ancestor} ({exc.strerror or exc}); choose a writable folder"
        ) from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder, fsync and rename."""
    path = Path(path)
    check_writable(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    try:  # make the rename itself durable
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:  # pragma: no cover - some filesystems refuse directory fsync
        pass


def build_artifact(kind: str, config: Any, result: Any, *, seed: int | None, started: datetime) -> dict[str, Any]:
    return {
        "schema": schema_name(kind),
        "config": to_jsonable(config),
        "config_hash": config_hash(config),
        "provenance": provenance(seed, started),
        "result": to_jsonable(result),
    }


def write_artifact(path: Path, artifact: dict[str, Any]) -> Path:
    """Validate ``artifact`` against its JSON Schema and write it atomically."""
    from gaugecli.store.schemas import validate

    validate(artifact)
    atomic_write_text(Path(path), json.dumps(artifact, indent=1, allow_nan=False) + "\n")
    return Path(path)


def read_artifact(path: Path, kind: str | None = None) -> dict[str, Any]:
    """Load and validate an artifact; ``kind`` (e.g. ``"simulate"``) is required to match."""
    from gaugecli.store.schemas import validate

    path = Path(path)
    try:
        artifact = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ArtifactError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ArtifactError(f"{path}: is a directory, not an artifact") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ArtifactError(f"{path}: not valid JSON ({exc}); delete it or rerun the command that made it") from None
    if not isinstance(artifact, dict) or "schema" not in artifact:
        raise ArtifactError(f"{path}: not a gaugecli artifact (no 'schema' key)")
    if kind is not None and artifact["schema"] != schema_name(kind):
        raise ArtifactError(
            f"{path}: schema {artifact['schema']!r}, expected {schema_name(kind)!r}; rerun to regenerate it"
        )
    validate(artifact, source=str(path))
    return artifact
