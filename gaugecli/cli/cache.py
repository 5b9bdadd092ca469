"""``gaugecli cache list|du|clear``: what the run cache holds, and removing part of it.

The cache's layout is ``<cache-dir>/<kind>/<config_hash>.json`` (:mod:`gaugecli.store.cache`),
each artifact with its rerun recipe ``<config_hash>.toml`` beside it. An *entry* is that pair. These
commands read and remove nothing else: a folder that is no artifact kind, a file whose name is not a
64-digit hash, a link and a subfolder are left alone (and not counted), so a ``--cache-dir`` pointed
at the wrong folder removes nothing. ``clear`` removes an entry's recipe first, then its artifact
(each ``unlink`` atomic): an interrupted clear leaves every entry whole or gone — at worst an artifact
without its recipe, which the next command that reads it writes again.
"""

from __future__ import annotations

import json as json_module
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli.errors import bad_parameter

app = typer.Typer(
    help="List the run cache's entries, total their sizes, or clear some of them.",
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    add_completion=False,
    no_args_is_help=True,
)

ENTRY = re.compile(r"^(?P<hash>[0-9a-f]{64})\.(?P<suffix>json|toml)$")
"""A file of the cache's layout: an artifact or its rerun recipe, named by the config's hash."""
DAY = 86400.0


@dataclass(frozen=True)
class Entry:
    """One cached run: its kind, config hash, files (artifact first, recipe if any), bytes, age in days."""

    kind: str
    hash: str
    files: tuple[Path, ...]
    bytes: int
    age_days: float

    @property
    def artifact(self) -> Path:
        return self.files[0]


def kinds() -> set[str]:
    """The artifact kinds a cache can hold: those with a schema and those an experiment writes."""
    from gaugecli.experiments.spec import experiments
    from gaugecli.store.schemas import kinds as schema_kinds

    return set(schema_kinds()) | {spec.name for spec in experiments()}


def entries(root: Path, kind: str | None = None, now: float | None = None) -> list[Entry]:
    """The entries under ``root`` (of ``kind`` only, if given), oldest first; nothing outside the layout."""
    now = time.time() if now is None else now
    if not root.is_dir():
        return []
    found: list[Entry] = []
    for folder in sorted(root.iterdir()):
        if folder.name not in kinds() or folder.is_symlink() or not folder.is_dir():
            continue
        if kind is not None and folder.name != kind:
            continue
        files: dict[str, dict[str, Path]] = {}
        for path in folder.iterdir():
            match = ENTRY.match(path.name)
            if match and not path.is_symlink() and path.is_file():
                files.setdefault(match["hash"], {})[match["suffix"]] = path
        for digest, by_suffix in files.items():
            if "json" not in by_suffix:  # a recipe without its artifact: the artifact was removed
                continue
            paths = (by_suffix["json"], *([by_suffix["toml"]] if "toml" in by_suffix else []))
            stats = [p.stat() for p in paths]
            age = (now - stats[0].st_mtime) / DAY
            found.append(Entry(folder.name, digest, paths, sum(s.st_size for s in stats), age))
    return sorted(found, key=lambda e: (-e.age_days, e.kind, e.hash))


def size_text(n: float) -> str:
    """Bytes as a reader writes them: ``812 B``, ``3.4 kB``, ``1.2 MB``, ``5.0 GB`` (powers of 1000)."""
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    raise AssertionError  # the loop returns at GB


def age_text(days: float) -> str:
    """An age as ``40 s``, ``12 min``, ``5.0 h`` or ``3.2 d``."""
    seconds = days * DAY
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < DAY:
        return f"{seconds / 3600:.1f} h"
    return f"{days:.1f} d"


def _check_kind(kind: str | None) -> None:
    if kind is not None and kind not in kinds():
        raise bad_parameter("--kind", f"must be one of {', '.join(sorted(kinds()))} (got {kind!r})")


def _config(entry: Entry) -> Any:
    """The config an entry's artifact records (``None`` if it cannot be read: it is listed all the same)."""
    try:
        return json_module.loads(entry.artifact.read_text(encoding="utf-8")).get("config")
    except (OSError, ValueError):
        return None


def _record(entry: Entry, with_config: bool) -> dict[str, Any]:
    record: dict[str, Any] = {
        "kind": entry.kind,
        "config_hash": entry.hash,
        "path": str(entry.artifact),
        "bytes": entry.bytes,
        "age_days": round(entry.age_days, 6),
    }
    if with_config:
        record["config"] = _config(entry)
    return record


def _echo_json(record: dict[str, Any]) -> None:
    typer.echo(json_module.dumps(record, allow_nan=True, ensure_ascii=False))


Kind = Annotated[
    str | None,
    typer.Option("--kind", metavar="KIND", help="Only this artifact kind (simulate, select, point, …)."),
]
OlderThan = Annotated[
    float | None,
    typer.Option(
        "--older-than",
        metavar="DAYS",
        help="Only entries written more than DAYS days ago; ≥ 0 (0.5: twelve hours).",
    ),
]


@app.command("list", cls=opt.PanelCommand, epilog=opt.examples("cache list", "cache list --kind simulate --json"))
def list_entries(
    kind: Kind = None,
    cache_dir: opt.CacheDir = opt.DEFAULT_CACHE,
    json: opt.JsonTool = False,
    quiet: opt.QuietTool = False,
) -> None:
    """The entries of each kind, with their sizes and ages: one line per kind, or with --kind one per
    entry (its config hash, size, age); --json gives one line per entry with its config."""
    _check_kind(kind)
    found = entries(cache_dir, kind)
    if json:
        for entry in found:
            _echo_json(_record(entry, with_config=True))
        return
    if quiet:
        return
    if not found:
        typer.echo(f"no cached runs in {cache_dir}" + (f" of kind {kind}" if kind else ""))
        return
    if kind is not None:
        for entry in found:
            typer.echo(
                f"{entry.hash[:16]}  {size_text(entry.bytes):>9}  {age_text(entry.age_days):>8} old  {entry.artifact}"
            )
        return
    for name, group in _by_kind(found).items():
        ages = [e.age_days for e in group]
        typer.echo(
            f"{name:<18} {_entries(len(group)):>12}  {size_text(sum(e.bytes for e in group)):>9}  "
            f"newest {age_text(min(ages))}, oldest {age_text(max(ages))}"
        )


@app.command("du", cls=opt.PanelCommand, epilog=opt.examples("cache du", "cache du --json"))
def disk_usage(
    cache_dir: opt.CacheDir = opt.DEFAULT_CACHE,
    json: opt.JsonTool = False,
    quiet: opt.QuietTool = False,
) -> None:
    """The bytes the cache's entries take, per kind and in all (files outside the layout not counted)."""
    found = entries(cache_dir)
    groups = _by_kind(found)
    total = sum(e.bytes for e in found)
    if json:
        for name, group in groups.items():
            _echo_json({"kind": name, "entries": len(group), "bytes": sum(e.bytes for e in group)})
        _echo_json({"kind": None, "entries": len(found), "bytes": total, "path": str(cache_dir)})
        return
    if quiet:
        return
    for name, group in groups.items():
        typer.echo(f"{size_text(sum(e.bytes for e in group)):>9}  {len(group):>6}  {name}")
    typer.echo(f"{size_text(total):>9}  {len(found):>6}  total in {cache_dir}")


@app.command(
    "clear",
    cls=opt.PanelCommand,
    epilog=opt.examples("cache clear --kind point --older-than 30 --yes", "cache clear --yes --json"),
)
def clear(
    kind: Kind = None,
    older_than: OlderThan = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Remove without asking for a confirmation.")] = False,
    cache_dir: opt.CacheDir = opt.DEFAULT_CACHE,
    json: opt.JsonTool = False,
    quiet: opt.QuietTool = False,
) -> None:
    """Remove cached entries (every one, or of --kind, or older than --older-than days), each artifact
    with its rerun recipe, after a confirmation unless --yes; nothing outside the cache's layout."""
    _check_kind(kind)
    if older_than is not None and not (older_than >= 0 and older_than < float("inf")):
        raise bad_parameter("--older-than", f"must be a finite number of days ≥ 0 (got {older_than!r})")
    found = [e for e in entries(cache_dir, kind) if older_than is None or e.age_days > older_than]
    if not found:
        if not (json or quiet):
            typer.echo(f"nothing to clear in {cache_dir}")
        return
    total = sum(e.bytes for e in found)
    what = f"{_entries(len(found))} ({size_text(total)}) from {cache_dir}"
    if not yes:
        if not sys.stdin.isatty():
            raise bad_parameter("--yes", f"clearing {what} needs a confirmation and stdin is no terminal; give --yes")
        if not typer.confirm(f"Remove {what}?", default=False, err=True):
            typer.echo("nothing removed", err=True)
            return
    from gaugecli.store.atomic import sweep_leftovers

    removed = 0
    for entry in found:
        for path in reversed(entry.files):  # the recipe first: an artifact alone is still an entry
            path.unlink(missing_ok=True)
        removed += 1
        if json:
            _echo_json({**_record(entry, with_config=False), "removed": True})
    for folder in {e.artifact.parent for e in found}:
        sweep_leftovers(folder)  # temporaries a killed writer left (old enough not to be a live one's)
    if not (json or quiet):
        typer.echo(f"removed {_entries(removed)} ({size_text(total)}) from {cache_dir}")


def _entries(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"


def _by_kind(found: list[Entry]) -> dict[str, list[Entry]]:
    groups: dict[str, list[Entry]] = {}
    for entry in sorted(found, key=lambda e: e.kind):
        groups.setdefault(entry.kind, []).append(entry)
    return groups
