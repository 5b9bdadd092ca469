"""Why a run is not in the cache: the cached run of the same kind nearest to it, and the options
that differ, so that "made the figures, now this is instant" fails with a reason, not silently.

``make figures`` caches every run a figure needs; a command at its defaults may differ from those
in a parameter or two (a smaller sample for a figure, a skipped contrast). Before such a run is
computed, one line names the nearest cached configuration and the flags that would reuse it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MAX_SCANNED = 64
"""Cached artifacts of the kind read, newest first: a hint must cost far less than the run."""
MAX_DIFFERENCES = 3
"""A cached run differing in more parameters than this is not "nearby": no hint."""


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(_flat(item, f"{prefix}{key}."))
        return out
    return {prefix.rstrip("."): value}


def _config_of(path: Path) -> dict[str, Any] | None:
    try:
        with path.open(encoding="utf-8") as handle:
            config = json.load(handle).get("config")
    except (OSError, ValueError, AttributeError):
        return None
    return config if isinstance(config, dict) else None


def differences(cache_dir: Path, kind: str, config: Any) -> tuple[Path, list[tuple[str, Any, Any]]] | None:
    """The nearest cached ``kind`` run to ``config``: its path and each differing parameter as
    ``(name, cached value, this value)``; ``None`` when nothing cached is within
    :data:`MAX_DIFFERENCES` parameters."""
    from gaugecli.store.codec import to_jsonable

    here = _flat(to_jsonable(config))
    folder = Path(cache_dir) / kind
    if not folder.is_dir():
        return None
    files = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)[:MAX_SCANNED]
    best: tuple[Path, list[tuple[str, Any, Any]]] | None = None
    for path in files:
        cached = _config_of(path)
        if cached is None:
            continue
        there = _flat(cached)
        diff = [(k, there.get(k), here.get(k)) for k in sorted(set(here) | set(there)) if there.get(k) != here.get(k)]
        if diff and len(diff) <= MAX_DIFFERENCES and (best is None or len(diff) < len(best[1])):
            best = (path, diff)
    return best


def hint(cache_dir: Path, kind: str, config: Any) -> str | None:
    """One line: which options would have reused the nearest cached run, or ``None``."""
    from gaugecli.cli.flags import field_flag

    found = differences(cache_dir, kind, config)
    if found is None:
        return None
    path, diff = found
    parts = [
        f"{field_flag(name.rsplit('.', 1)[-1])} {_shown(cached)} there, {_shown(here)} here"
        for name, cached, here in diff
    ]
    return f"{kind}: not in the cache; the nearest cached run ({path.name[:12]}…) differs in " + "; ".join(parts)


def _shown(value: Any) -> str:
    if value is None:
        return "not given"
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value).lower() if isinstance(value, bool) else str(value)
