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
import re
from enum import Enum
from pathlib import Path
from typing import Any

import typer

SKIPPED = frozenset({"config_file", "out", "figure", "help", "json", "quiet"})
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
    from gaugecli.cli.flags import former_flags

    try:
        data = tomllib.loads(Path(value).read_text(encoding="utf-8"))
    except OSError as err:
        raise bad_parameter("--config", f"cannot read {value}: {err.strerror or err}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise bad_parameter("--config", f"{value} is not TOML: {err}") from None
    params = {key_of(p): p for p in ctx.command.params if p.name not in SKIPPED and p.opts[0].startswith("-")}
    params.update({p.name: p for p in list(params.values())})  # underscores accepted as well
    former = {old.lstrip("-"): new.lstrip("-") for old, new in former_flags(ctx.command).items()}
    defaults: dict[str, Any] = {}
    for key, item in data.items():
        if key.replace("_", "-") in former:  # a recipe written before a rename still reruns
            new = former[key.replace("_", "-")]
            typer.echo(
                f"Warning: {value}: {key!r} is deprecated; use {new!r} (the old name goes in the next release).",
                err=True,
            )
            key = new
        target = params.get(key)
        if target is None:
            if key in ("out", "figure", "json"):
                raise bad_parameter("--config", f"{value}: {key!r} names an output; give --{key} on the command line")
            raise bad_parameter("--config", f"{value}: unknown option {key!r}; {_closest(key, params, ctx)}")
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


def _closest(key: str, params: dict[str, Any], ctx: typer.Context) -> str:
    """The valid keys nearest to an unknown ``key`` (difflib's ratio ≥ 0.6), or where to find them all."""
    import difflib

    keys = sorted(k for k in params if "_" not in k)
    close = difflib.get_close_matches(key.replace("_", "-"), keys, n=3)
    if close:
        return f"did you mean {' or '.join(repr(k) for k in close)}?"
    return f"`{ctx.command_path} --help` lists its {len(keys)} options"


RECIPE_HEADER = re.compile(r"^# Reruns .*?: gaugecli (?P<command>[a-z]+) --config ")
"""The first line of a rerun recipe, naming the command that reads it (:func:`write_beside`,
:func:`gaugecli.cli.rerun.write`)."""


def check_recipe(path: Path) -> str:
    """What ``gaugecli validate RUN.toml`` says of a rerun recipe: its command, once the file parses as
    TOML and the command accepts every option in it at its value (the options parsed as ``--config``
    parses them, nothing run). A :class:`~gaugecli.cli.errors.ClickException` of one line otherwise."""
    import typer.main

    from gaugecli.cli.app import app
    from gaugecli.cli.errors import ClickException, UsageError

    try:
        first = Path(path).read_text(encoding="utf-8").partition("\n")[0]
    except (OSError, UnicodeDecodeError) as err:
        raise ClickException(f"{path}: cannot read it ({getattr(err, 'strerror', None) or err})") from None
    match = RECIPE_HEADER.match(first)
    if match is None:
        raise ClickException(
            f"{path}: not a rerun recipe (its first line is not '# Reruns …: gaugecli COMMAND --config …'); "
            "give it to its command's --config"
        )
    name = match["command"]
    command = typer.main.get_group(app).get_command(None, name)  # type: ignore[arg-type]
    if command is None:
        raise ClickException(f"{path}: a recipe for 'gaugecli {name}', which is no gaugecli command")
    try:
        command.make_context(f"gaugecli {name}", ["--config", str(path)])
    except UsageError as err:
        raise ClickException(f"{path}: {err.format_message()}") from None
    return name


def write_beside(out: Path | None, ctx: typer.Context, overrides: dict[str, Any] | None = None) -> Path | None:
    """Write ``out.with_suffix('.toml')``: the options that rerun the artifact at ``out``."""
    if out is None:
        return None
    import shlex

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
    header = [  # the paths as given: the command works from where this one was run
        f"# Reruns {out.name}: {command} --config {shlex.quote(str(path))}",
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
