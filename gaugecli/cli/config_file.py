"""``--config run.toml``: a command's options from a TOML file, and the file that reruns a run.

The file holds the options by their flag names without the dashes (``gauge-strength = [4.0]``,
``n-samples = 10000``, ``mode = "sample"``); options given on the command line override it. A
list option is a TOML array (``deltas = [2.0, -1.0]``), a repeatable one too (``gauge = ["favorable",
"unfavorable"]``). The file becomes click's ``default_map`` before any other option is read, so its
values go through the same parsing and validation as typed ones, and count as *given* for the
rules that refuse an option without effect.

:func:`write_beside` writes, next to an artifact written with ``--out run.json``, the file
``run.toml`` that reruns it: every option set on the command line or in a config file, and, as
comments, the defaults that applied (so the file documents the whole configuration while a later
default change stays visible).
"""

from __future__ import annotations

import math
from enum import Enum
from pathlib import Path
from typing import Any

import typer

SKIPPED = frozenset({"config_file", "out", "figure", "help", "json"})
"""Parameters a rerun file leaves out: where this run's outputs went, how it printed, and the file itself."""


def key_of(param: Any) -> str:
    """The TOML key of a click parameter: its longest ``--flag`` without the dashes."""
    longs = [o for o in param.opts if o.startswith("--")]
    return (max(longs, key=len) if longs else param.opts[0]).lstrip("-")


def load(ctx: typer.Context, param: Any, value: Path | None) -> Path | None:
    """Eager callback of ``--config``: read the TOML into ``ctx.default_map``."""
    if value is None:
        return None
    import tomllib

    from gaugecli.cli.errors import bad_parameter

    try:
        data = tomllib.loads(Path(value).read_text(encoding="utf-8"))
    except OSError as err:
        raise bad_parameter("--config", f"cannot read {value}: {err.strerror or err}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise bad_parameter("--config", f"{value} is not TOML: {err}") from None
    params = {key_of(p): p for p in ctx.command.params if p.name not in SKIPPED and p.opts[0].startswith("-")}
    params.update({p.name: p for p in list(params.values())})  # underscores accepted as well
    defaults: dict[str, Any] = {}
    for key, item in data.items():
        target = params.get(key)
        if target is None:
            if key in ("out", "figure", "json"):
                raise bad_parameter("--config", f"{value}: {key!r} names an output; give --{key} on the command line")
            valid = ", ".join(sorted(k for k in params if "_" not in k))
            raise bad_parameter("--config", f"{value}: unknown option {key!r}; valid: {valid}")
        if isinstance(item, dict):
            raise bad_parameter("--config", f"{value}: {key!r} must be a value or an array, not a table")
        if isinstance(item, list) and not target.multiple:
            item = ",".join(_text(v) for v in item) or "none"  # a list option parses its comma-separated form
        elif target.multiple and not isinstance(item, list):
            item = [item]
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            item = _text(item)  # as typed on the command line: a list option's parser reads `seeds = 2` too
        defaults[target.name] = item
    ctx.default_map = {**(ctx.default_map or {}), **defaults}
    return value


def write_beside(out: Path | None, ctx: typer.Context, overrides: dict[str, Any] | None = None) -> Path | None:
    """Write ``out.with_suffix('.toml')``: the options that rerun the artifact at ``out``."""
    if out is None:
        return None
    from typer._click.core import ParameterSource

    from gaugecli.store.atomic import atomic_write_text

    overrides = overrides or {}
    given, defaults = [], []
    for param in ctx.command.params:
        if param.name in SKIPPED or not param.opts[0].startswith("-"):
            continue
        value = overrides.get(param.name, ctx.params.get(param.name))
        source = ctx.get_parameter_source(param.name)
        line = _line(key_of(param), value)
        if line is None:
            continue
        if param.name in overrides or source in (ParameterSource.COMMANDLINE, ParameterSource.DEFAULT_MAP):
            given.append(line)
        else:
            defaults.append(f"# {line}")
    command = ctx.command_path  # "gaugecli simulate"
    path = out.with_suffix(".toml")
    header = [
        f"# Reruns {out.name}: {command} --config {path.name}",
        "# Options given; commented lines are the defaults that applied.",
    ]
    atomic_write_text(path, "\n".join(header + given + defaults) + "\n", "--out")
    return path


def toml_lines(values: dict[str, Any]) -> list[str]:
    """``key = value`` lines for ``values`` (``None`` left out)."""
    return [line for key, value in values.items() if (line := _line(key, value)) is not None]


def _line(key: str, value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return f"{key} = [{', '.join(_toml(v) for v in value)}]"
    return f"{key} = {_toml(value)}"


def _toml(value: Any) -> str:
    """A TOML scalar: booleans, integers, floats (``inf``, ``nan`` and exponents as TOML spells
    them), and strings as basic strings (JSON's escapes are TOML's)."""
    import json

    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)  # shortest repr that round-trips; always has '.', 'e' or is integral-looking
    return json.dumps(str(value), ensure_ascii=False)


def _text(value: Any) -> str:
    """An array entry as the comma-separated form of a list option spells it."""
    return repr(value) if isinstance(value, float) else str(value)
