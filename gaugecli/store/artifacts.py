"""JSON artifacts: ``schema``, ``config``, ``config_hash``, ``provenance``, ``result``,
``result_hash`` — built, written and read here only.

* Written atomically (:mod:`gaugecli.store.atomic`) after validation against the kind's schema.
* Read strictly: standard JSON only (a bare ``NaN`` or ``Infinity`` is refused), the schema is
  checked, ``config_hash`` is recomputed from ``config`` and ``result_hash`` from ``result``,
  so an artifact edited by hand is reported instead of silently used.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import threading
import uuid
from datetime import UTC, datetime
from functools import cache
from importlib import import_module, metadata
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from gaugecli.store.atomic import atomic_write_text
from gaugecli.store.codec import acyclic, canonical_json, to_jsonable
from gaugecli.store.errors import ArtifactError
from gaugecli.store.schemas import SCHEMA_VERSION, schema_name, validate

__all__ = [
    "SCHEMA_VERSION",
    "ArtifactError",
    "build_artifact",
    "check_hashes",
    "config_hash",
    "dumps",
    "encode_artifact",
    "now",
    "package_version",
    "read_artifact",
    "result_hash",
    "save_artifact",
    "schema_name",
    "stable_provenance",
    "write_artifact",
]

CACHE_LAYOUT = 5
"""Part of every config hash: bumped when the meaning of a cached result changes for reasons
the package version does not capture (layout 2: one ``<kind>/<hash>.json`` cache for all;
3: finite-sample flows, symmetric starts and the dissipation budget in every run; 4: flows stored
on declared grids over their whole horizon, each simulate run integrated by itself; 5: every run
records the function its unaligned neurons carry together, ``unaligned_norm``, and every run of
``perturb``'s ε grid its favorable share and end P)."""


@cache
def package_version() -> str:
    try:
        return metadata.version("gaugecli")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0+unknown"


def _sha256(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, allow_nan=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def config_hash(config: Any, version: str | None = None) -> str:
    """SHA-256 of the canonical JSON of ``config``, the package ``version`` (default: this one)
    and :data:`CACHE_LAYOUT`: the cache key, so a new version recomputes rather than reuses. The text is
    ``_sha256``'s of ``{"config": to_jsonable(config), "layout": …, "version": …}``, its keys in order,
    written by :func:`~gaugecli.store.codec.canonical_json` (each frozen part's text kept by identity)."""
    text = f'{{"config":{canonical_json(config)},"layout":{CACHE_LAYOUT},"version":{canonical_json(version or package_version())}}}'
    return hashlib.sha256(text.encode()).hexdigest()


def result_hash(result: Any) -> str:
    """SHA-256 of the canonical JSON of ``result`` (a check against silent edits)."""
    return _sha256(to_jsonable(result))


_PROJECT_NAME = re.compile(r"""^\s*name\s*=\s*["']gaugecli["']\s*$""", re.MULTILINE)


def _git(checkout: Path, *args: str) -> str | None:
    """stdout of ``git -C checkout args`` (stripped), or None when git is absent or fails."""
    # GIT_DIR, GIT_WORK_TREE and the like (set inside hooks, for instance) would point git at
    # another repository than the one this package lies in
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    try:
        out = subprocess.run(
            ["git", "-C", str(checkout), *args], capture_output=True, text=True, timeout=5, check=False, env=env
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _own_checkout() -> Path | None:
    """The folder holding ``gaugecli/`` when it is the top of a git work tree whose
    ``pyproject.toml`` declares this project; None otherwise. An installed copy inside someone
    else's work tree (a ``.venv`` in another repository) must not report that repository's commit."""
    root = Path(__file__).resolve().parents[2]  # .../<checkout>/gaugecli/store/artifacts.py
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != root:
        return None
    try:
        declared = _PROJECT_NAME.search((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None
    return root if declared else None


def _stamped() -> tuple[str | None, bool | None]:
    """The commit a build stamped into ``gaugecli/_build_info.py``, if it did.

    The module is not in the repository: a build that wants wheels to know their commit writes it
    before packaging, e.g. ``printf 'COMMIT = "%s"\\nDIRTY = False\\n' "$(git rev-parse HEAD)" >
    gaugecli/_build_info.py`` (``DIRTY`` from ``git status --porcelain --untracked-files=no``)."""
    try:
        info = import_module("gaugecli._build_info")
    except ImportError:
        return None, None
    commit, dirty = getattr(info, "COMMIT", None), getattr(info, "DIRTY", None)
    if not isinstance(commit, str) or not commit:
        return None, None
    return commit, dirty if isinstance(dirty, bool) else None


@cache  # two git processes: once per process
def _git_source() -> tuple[str | None, bool | None]:
    """``(commit, dirty)`` of gaugecli's own source: its git checkout's HEAD and whether tracked
    files differ from it; else the commit stamped at build time; else ``(None, None)``."""
    checkout = _own_checkout()
    commit = _git(checkout, "rev-parse", "HEAD") if checkout is not None else None
    if checkout is None or not commit:
        return _stamped()
    status = _git(checkout, "status", "--porcelain", "--untracked-files=no")
    return commit, None if status is None else bool(status)


@cache  # reading a distribution's metadata parses its METADATA file: once per process
def _version_of(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


@cache
def _platform() -> str:
    return platform.platform()


_SOURCE_LOCK = threading.Lock()  # one reading of git even when warm_provenance's thread is at it


def warm_provenance() -> None:
    """Start reading gaugecli's commit (two ``git`` processes, ≈ 20 ms) on a thread, so that it
    runs beside the computation whose artifacts will carry it instead of after it."""
    threading.Thread(target=stable_provenance, name="provenance", daemon=True).start()


def stable_provenance() -> dict[str, Any]:
    """What made a file, without when: gaugecli's version and commit, the command line, the
    versions it ran on. The same for every file one command writes, so a figure's sidecar can
    carry it and still be rewritten byte for byte by a rerun of that command."""
    with _SOURCE_LOCK:
        commit, dirty = _git_source()
    return {
        "gaugecli": package_version(),
        "git_commit": commit,
        "git_dirty": dirty,
        "command_line": [str(arg) for arg in sys.argv],
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": _version_of("scipy"),
        "torch": _version_of("torch"),
        "matplotlib": _version_of("matplotlib"),  # from its metadata: a run never imports matplotlib
        "tueplots": _version_of("tueplots"),
        "platform": _platform(),
    }


def provenance(seed: int | None, started: datetime) -> dict[str, Any]:
    """Who made the artifact, from what, when. Only ``timestamps`` vary between reruns of one command."""
    return {
        **stable_provenance(),
        "seed": seed,
        "timestamps": {"started": started.isoformat(), "finished": datetime.now(UTC).isoformat()},
    }


def now() -> datetime:
    return datetime.now(UTC)


def _assembled(
    kind: str, config: Any, result_json: Any, result_digest: str, seed: int | None, started: datetime
) -> dict[str, Any]:
    return {
        "schema": schema_name(kind),
        "config": to_jsonable(config),
        "config_hash": config_hash(config),
        "provenance": provenance(seed, started),
        "result": result_json,
        "result_hash": result_digest,
    }


def build_artifact(kind: str, config: Any, result: Any, *, seed: int | None, started: datetime) -> dict[str, Any]:
    """The artifact dict of one computation (plain JSON values throughout)."""
    result_json = to_jsonable(result)
    return _assembled(kind, config, result_json, _sha256(result_json), seed, started)


_NUMBER_TYPES = frozenset({float, int, type(None)})


def _numeric(value: Any) -> bool:
    """A list of numbers (or null), or a list of such lists: written on one line."""
    if not isinstance(value, list) or not value:
        return False
    kinds = set(map(type, value))  # built in C: no Python loop per number
    if kinds <= _NUMBER_TYPES:
        return True
    return kinds == {list} and set(map(type, chain.from_iterable(value))) <= _NUMBER_TYPES


def _hoisted(value: Any, arrays: list[str], nonce: str) -> Any:
    """``value`` with each numeric array replaced by a placeholder; the array's compact JSON text
    is appended to ``arrays``. The compact text of an array is the same wherever it is written
    (indented or not, keys sorted or not), so one encoding serves the file and the hash."""
    if isinstance(value, dict):
        return {k: _hoisted(x, arrays, nonce) for k, x in value.items()}
    if isinstance(value, list) and value and _numeric(value):
        arrays.append(json.dumps(value, allow_nan=False, separators=(",", ":")))
        return f"@{nonce}:{len(arrays) - 1}@"
    if isinstance(value, list):
        return [_hoisted(x, arrays, nonce) for x in value]
    return value


_PLACEHOLDER = re.compile(r'"@([0-9a-f]{32}):(\d+)@"')
"""A placeholder of :func:`_hoisted` (``uuid4().hex`` is 32 hex digits): compiled once, where a
pattern with the nonce in it was compiled anew for every artifact (≈ 1 ms each)."""


def _filled(text: str, arrays: list[str], nonce: str) -> str:
    def fill(match: re.Match[str]) -> str:
        return arrays[int(match.group(2))] if match.group(1) == nonce else match.group(0)

    return _PLACEHOLDER.sub(fill, text)


def dumps(value: Any) -> str:
    """Artifacts as text: standard JSON (no NaN), one space of indent, each numeric array (or
    matrix) on one line, a final newline. Readable, and encoded by json's C encoder: an indented
    dump of every number would go through its pure-Python encoder, several times slower."""
    arrays: list[str] = []
    nonce = uuid.uuid4().hex  # placeholders no user string can contain
    return _filled(json.dumps(_hoisted(value, arrays, nonce), indent=1, allow_nan=False), arrays, nonce) + "\n"


def encode_artifact(
    kind: str, config: Any, result: Any, *, seed: int | None, started: datetime
) -> tuple[dict[str, Any], str]:
    """:func:`build_artifact` and :func:`dumps` of it in one pass: each number of the result is
    encoded once, for both its ``result_hash`` and the file (most of the cost of an artifact)."""
    with acyclic():
        result_json = to_jsonable(result)
        arrays: list[str] = []
        nonce = uuid.uuid4().hex
        skeleton = _hoisted(result_json, arrays, nonce)
        compact = json.dumps(skeleton, sort_keys=True, allow_nan=False, separators=(",", ":"))
        digest = hashlib.sha256(_filled(compact, arrays, nonce).encode()).hexdigest()
        artifact = _assembled(kind, config, result_json, digest, seed, started)
        outline = {k: skeleton if k == "result" else _hoisted(v, arrays, nonce) for k, v in artifact.items()}
        return artifact, _filled(json.dumps(outline, indent=1, allow_nan=False), arrays, nonce) + "\n"


def save_artifact(
    path: Path,
    kind: str,
    config: Any,
    result: Any,
    *,
    seed: int | None,
    started: datetime,
    flag: str = "--out",
    durable: bool = True,
) -> dict[str, Any]:
    """Build the artifact of ``result``, validate it against its schema and write it atomically
    (fsynced unless ``durable=False``: :mod:`gaugecli.store.atomic`)."""
    artifact, text = encode_artifact(kind, config, result, seed=seed, started=started)
    validate(artifact)
    atomic_write_text(Path(path), text, flag, durable=durable)
    return artifact


def write_artifact(path: Path, artifact: dict[str, Any], flag: str = "--out") -> Path:
    """Validate ``artifact`` against its JSON Schema and write it atomically."""
    validate(artifact)
    atomic_write_text(Path(path), dumps(artifact), flag)
    return Path(path)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load_json(path: Path) -> Any:
    """Standard JSON from ``path``; ``NaN``/``Infinity`` and other non-JSON are an :class:`ArtifactError`."""
    path = Path(path)
    if path.exists() and not path.is_file() and not path.is_dir():  # reading a pipe could block for ever
        raise ArtifactError(f"{path}: a device or pipe, not an artifact file")
    try:
        with acyclic():
            return json.loads(path.read_text(encoding="utf-8"), parse_constant=_refuse_constant)
    except FileNotFoundError:
        raise ArtifactError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ArtifactError(f"{path}: is a directory, not an artifact") from None
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
        raise ArtifactError(f"{path}: not valid JSON ({exc}); delete it or rerun the command that made it") from None


def read_artifact(path: Path, kind: str | None = None, *, verify: bool = True) -> dict[str, Any]:
    """Load, validate and check an artifact; ``kind`` (e.g. ``"simulate"``) is required to match.

    ``config_hash`` is recomputed from ``config`` with the version that made the artifact, and
    ``result_hash`` from ``result`` (:func:`check_hashes`): an edited configuration or result, or a
    missing hash, is an :class:`ArtifactError`.
    ``verify=False`` skips the schema and the result hash (re-encoding the result: most of a read), for
    an artifact the reading command itself has just written and validated (``plot``'s figures).
    """
    path = Path(path)
    artifact = load_json(path)
    if not isinstance(artifact, dict) or "schema" not in artifact:
        raise ArtifactError(f"{path}: not a gaugecli artifact (no 'schema' key)")
    if kind is not None and artifact["schema"] != schema_name(kind):
        raise ArtifactError(
            f"{path}: schema {artifact['schema']!r}, expected {schema_name(kind)!r}; rerun to regenerate it"
        )
    if verify:
        validate(artifact, source=str(path))
    check_hashes(artifact, path, result=verify)
    return artifact


def check_hashes(artifact: dict[str, Any], path: Path | str, *, result: bool = True) -> None:
    """The one decision whether a stored artifact is trusted: ``config_hash`` recomputed from
    ``config`` (with the version that made it) and — with ``result`` — ``result_hash`` from
    ``result`` must both be present and equal to the stored ones. A missing hash is a mismatch,
    with the same message: deleting the hash of an edited artifact must not bypass the check."""
    version = (artifact.get("provenance") or {}).get("gaugecli")
    if artifact.get("config_hash") != config_hash(artifact.get("config"), version):
        raise ArtifactError(
            f"{path}: its config does not match its config_hash (edited by hand?); rerun the command that made it"
        )
    if result and artifact.get("result_hash") != _sha256(artifact.get("result")):
        raise ArtifactError(
            f"{path}: its result does not match its result_hash (edited by hand?); rerun the command that made it"
        )
