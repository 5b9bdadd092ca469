"""JSON Schemas (Draft 7) of every artifact kind, shipped with the package.

``validate(artifact)`` picks the schema from the artifact's ``schema`` field
(``gaugecli.KIND/VERSION``) and raises :class:`gaugecli.store.errors.ArtifactError`
with the first violation's location.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from itertools import chain
from typing import Any

from gaugecli.store.errors import ArtifactError

SCHEMA_VERSION = 1
"""The version of every artifact kind's schema (``gaugecli.KIND/1``)."""

_NAME = re.compile(r"^gaugecli\.(?P<kind>[a-z-]+)/(?P<version>\d+)$")


def schema_name(kind: str) -> str:
    return f"gaugecli.{kind}/{SCHEMA_VERSION}"


_REGISTERED: dict[str, dict[str, Any]] = {}
"""Schemas of kinds declared outside this folder (an experiment spec's own ``schema``), by kind."""


def register(kind: str, schema: dict[str, Any]) -> None:
    """Add the schema of an artifact kind that ships none here (see :func:`kinds`)."""
    _REGISTERED[kind] = schema


def kinds() -> list[str]:
    shipped = {p.name[:-5] for p in resources.files(__name__).iterdir() if p.name.endswith(".json")}
    return sorted(shipped | set(_REGISTERED))


@cache
def load_schema(kind: str) -> dict[str, Any]:
    if kind in _REGISTERED:
        return _REGISTERED[kind]
    return json.loads(resources.files(__name__).joinpath(f"{kind}.json").read_text(encoding="utf-8"))


@cache
def _validator(kind: str) -> Any:
    import jsonschema

    return jsonschema.Draft7Validator(load_schema(kind))


def parse_schema_name(name: Any, source: str | None = None) -> tuple[str, int]:
    match = _NAME.match(name) if isinstance(name, str) else None
    if match is None:
        where = f"{source}: " if source else ""
        raise ArtifactError(f"{where}unrecognised schema name {name!r}; expected 'gaugecli.KIND/VERSION'")
    return match["kind"], int(match["version"])


_NUMBER_TYPES = frozenset({float, int, type(None)})
"""What a numeric array may hold: JSON numbers and null (not bool: JSON Schema's "number" excludes it)."""


def _is_number(x: Any) -> bool:
    return type(x) in _NUMBER_TYPES


def _numbers(values: list[Any]) -> bool:
    """Every entry a number or null (the type set is built in C: no Python loop per entry)."""
    return bool(values) and set(map(type, values)) <= _NUMBER_TYPES


_HASHES = re.compile(r"[0-9a-f]{64}(?:\n[0-9a-f]{64})*")
"""Lines of config hashes (SHA-256 hex digests), the only form any schema here gives a hash."""


def _hashes(values: list[Any]) -> bool:
    """Every entry a config hash, checked by one regex over their lines (not one schema visit per entry: a 129 × 129
    phase map holds 16,641 cell hashes). A schema asks nothing else of a hash array's entries than that form (type
    string, pattern ``^[0-9a-f]{64}$``), so its first entries stand for the rest; an array with an entry of
    another form is validated whole, and its violation reported where it is."""
    return bool(values) and set(map(type, values)) == {str} and _HASHES.fullmatch("\n".join(values)) is not None


def _skeleton(value: Any) -> Any:
    """``value`` with every numeric array and every array of hashes cut to its first two entries, once each entry
    has been checked to be a number (or null), or a hash (:func:`_hashes`). The schema then checks the shape of the artifact without
    visiting every number of every series — the cost of validation no longer grows with the data."""
    if isinstance(value, dict):
        return {k: _skeleton(v) for k, v in value.items()}
    if isinstance(value, list):
        if _numbers(value) or _hashes(value):
            return value[:2]
        if (
            value
            and set(map(type, value)) == {list}
            and all(value)
            and set(map(type, chain.from_iterable(value))) <= _NUMBER_TYPES
        ):
            return [row[:2] for row in value[:2]]
        return [_skeleton(v) for v in value]
    return value


def validate(artifact: dict[str, Any], source: str | None = None) -> tuple[str, int]:
    """Check ``artifact`` against its schema; return ``(kind, version)``.

    Numeric arrays are checked entry by entry in Python and by the schema on their first entries
    (:func:`_skeleton`), which finds the same violations at a fraction of the cost."""
    where = f"{source}: " if source else ""
    kind, version = parse_schema_name(artifact.get("schema"), source)
    if kind not in kinds():
        raise ArtifactError(f"{where}unknown artifact kind {kind!r}; known: {', '.join(kinds())}")
    if version != SCHEMA_VERSION:
        age = "newer" if version > SCHEMA_VERSION else "older"
        raise ArtifactError(
            f"{where}schema version {version} is {age} than this gaugecli's {SCHEMA_VERSION}; "
            "rerun the command to regenerate it"
        )
    errors = _validator(kind).iter_errors(_skeleton(artifact))
    error = next(iter(sorted(errors, key=lambda e: [str(p) for p in e.path])), None)
    if error is not None:
        path = "/".join(str(p) for p in error.path) or "(top level)"
        raise ArtifactError(f"{where}invalid {kind} artifact at {path}: {error.message}")
    return kind, version
