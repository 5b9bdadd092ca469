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
from typing import Any

from gaugecli.store.errors import ArtifactError

SCHEMA_VERSION = 1
"""The version of every artifact kind's schema (``gaugecli.KIND/1``)."""

_NAME = re.compile(r"^gaugecli\.(?P<kind>[a-z-]+)/(?P<version>\d+)$")


def schema_name(kind: str) -> str:
    return f"gaugecli.{kind}/{SCHEMA_VERSION}"


def kinds() -> list[str]:
    return sorted(p.name[:-5] for p in resources.files(__name__).iterdir() if p.name.endswith(".json"))


@cache
def load_schema(kind: str) -> dict[str, Any]:
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


def validate(artifact: dict[str, Any], source: str | None = None) -> tuple[str, int]:
    """Check ``artifact`` against its schema; return ``(kind, version)``."""
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
    errors = _validator(kind).iter_errors(artifact)
    error = next(iter(sorted(errors, key=lambda e: [str(p) for p in e.path])), None)
    if error is not None:
        path = "/".join(str(p) for p in error.path) or "(top level)"
        raise ArtifactError(f"{where}invalid {kind} artifact at {path}: {error.message}")
    return kind, version
