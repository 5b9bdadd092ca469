"""Command-line options built from the parameters' one declaration (docs/development.md).

Nothing about a parameter is written here: :func:`option` turns a declared
:class:`~gaugecli.experiments.declare.Param` into a Typer option — its flags, the help with its
range, the default ``--help`` shows, its ``--help`` panel, a comma-separated parser for a list,
and a check at parse time that refuses a value out of range before any numerics are imported.
The options that are the command line's own (where results go, how work is run) are declared
below, once. :func:`flag` spells a parameter's name as its flag, for every message the CLI prints.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from gaugecli.cli.flags import message, renamed_args
from gaugecli.experiments import params as P
from gaugecli.experiments.declare import ConfigError, Param, number

OUTPUT, EXECUTION = "Output", "Execution"
PANELS = (P.MODEL, P.DYNAMICS, P.NUMERICS, P.EXPERIMENT, OUTPUT, EXECUTION)
"""The ``--help`` panels, in the order they are printed."""


class FloatList(tuple[float, ...]):
    """A comma-separated list of finite numbers."""


class IntList(tuple[int, ...]):
    """A comma-separated list of integers."""


class WordList(tuple[str, ...]):
    """A comma-separated list of words."""


def _split(text: str, skip: bool) -> list[str] | None:
    """The comma-separated parts of ``text`` (``none`` for no values, where a list may be empty)."""
    if skip and text.strip().lower() == "none":
        return []
    parts = [p.strip() for p in text.split(",")]
    return None if not text.strip() or any(not p for p in parts) else parts


def _list_parser(p: Param) -> Any:
    skip = p.min_items == 0
    none = " (or none)" if skip else ""

    def parse(text: str | tuple[Any, ...]) -> tuple[Any, ...]:
        if isinstance(text, tuple):  # a default from the declaration
            return _LIST[p.type](text)
        parts = _split(text, skip)
        try:
            if parts is None:
                raise ValueError
            return _LIST[p.type](p.type(x) if p.type is not float else float(x) for x in parts)
        except ValueError:
            kind = {int: "integers such as 0,1,2", float: "numbers such as 2,-1,0.5", str: "words such as a,b"}[p.type]
            raise typer.BadParameter(f"must be a comma-separated list of {kind}{none} (got {text!r})") from None

    return parse


_LIST: dict[type, type] = {float: FloatList, int: IntList, str: WordList}


def _scalar_parser(p: Param) -> Any:
    """One integer or number, refused with ``p``'s allowed range where it does not parse (``1e12`` for
    an integer): Typer's own message names the type only."""
    allowed = p.range_text() if p.type is int else f"a number {p.range_text()}".strip()  # "an integer ≥ 1"

    def parse(text: Any) -> Any:
        if not isinstance(text, str):  # a default from the declaration
            return text
        try:
            return p.type(text.strip())
        except ValueError:
            raise typer.BadParameter(f"must be {allowed} (got {text!r})") from None

    return parse


def _checker(p: Param, repeat: bool) -> Any:
    def check(ctx: typer.Context, param: typer.CallbackParam, value: Any) -> Any:
        if ctx.resilient_parsing:
            return value
        if repeat and value is not None:
            value = _repeated(p, value) if p.plural else tuple(value)
        if p.former_choices and value is not None:
            value = _renamed_words(p, value)
        try:
            for item in value if repeat and not p.plural and value is not None else [value]:
                p.check(plain(item))
        except ConfigError as err:
            raise typer.BadParameter(message(err.message)) from None
        return value

    return check


def _renamed_words(p: Param, value: Any) -> Any:
    """``value`` (a word or a sequence of them) with each former word of ``p`` spelled as its
    replacement, and one deprecation line on stderr for each."""
    words = list(value) if isinstance(value, (list, tuple)) else [value]
    out = []
    for word in words:
        new, line = p.current(word)
        if line is not None:
            print(f"Warning: {line}.", file=sys.stderr)
        out.append(new)
    return type(value)(out) if isinstance(value, (list, tuple)) else out[0]


def _repeated(p: Param, values: Any) -> tuple[Any, ...]:
    """A flag given several times, each time one value or a comma-separated list: ``-D 4 -D 16,64``."""
    out = []
    for text in values:
        for part in str(text).split(","):
            try:
                out.append(p.type(part.strip()))
            except ValueError:
                raise typer.BadParameter(f"must be numbers such as 4 or 4,16 (got {text!r})") from None
    return tuple(out)


def plain(value: Any) -> Any:
    """A parsed value as the config receives it (the Enum's word stays an Enum; lists as tuples)."""
    return tuple(value) if isinstance(value, list) else value


def option(p: Param, *aliases: str, **override: Any) -> Any:
    """The Typer option of ``p`` (also spelled ``aliases``). ``p.repeat``: the flag may be given
    several times (``-D 4 -D 16``), each time with one value or a comma-separated list; otherwise
    a plural ``p`` takes one comma-separated list."""
    repeat = p.repeat
    names = [p.option, *aliases]
    if p.type is bool:
        names = [f"{p.option}/--no-{p.option[2:]}", *aliases]
    elif p.short:
        names = [p.short, p.option, *aliases]
    kwargs: dict[str, Any] = {
        "help": message(p.help_text()) + (" Repeat the flag for more." if repeat else ""),
        "rich_help_panel": p.panel,
        "callback": _checker(p, repeat),
    }
    if p.metavar:
        kwargs["metavar"] = p.metavar
    elif p.choices:
        kwargs["metavar"] = "|".join(p.choices)
    if p.plural and not repeat:
        kwargs["parser"] = _list_parser(p)
    elif p.type in (int, float) and not repeat and not p.choices:
        kwargs["parser"] = _scalar_parser(p)
    if p.choices:  # shell completion (`gaugecli --install-completion`) offers the declared words
        kwargs["autocompletion"] = _completer(p.choices)
    if p.default_text is not None:
        kwargs["show_default"] = p.default_text
    elif isinstance(p.default, tuple):
        kwargs["show_default"] = shown(p.default)
    return typer.Option(*names, **{**kwargs, **override})


def _completer(choices: tuple[str, ...]) -> Any:
    def complete(incomplete: str) -> list[str]:
        head, _, last = incomplete.rpartition(",")  # a list completes its last word
        return [(head + "," if head else "") + c for c in choices if c.startswith(last)]

    return complete


def shown(values: tuple[Any, ...]) -> str:
    """How a list default reads in ``--help``: ``0,0.2,0.4`` (``none`` for no values)."""
    return ",".join(number(v) if isinstance(v, float) else str(v) for v in values) or "none"


def given(ctx: typer.Context, *names: str) -> list[str]:
    """The flags (``--m``) of the parameters ``names`` that the user gave (on the command line or in
    a ``--config`` file), as opposed to left at their defaults — for options that another option
    makes meaningless."""
    from typer._click.core import ParameterSource  # typer ≥ 0.29 vendors click

    flags = {p.name: max(p.opts, key=len) for p in ctx.command.params}
    typed = (ParameterSource.COMMANDLINE, ParameterSource.DEFAULT_MAP)  # on the line, or in --config
    return [flags[n] for n in names if ctx.get_parameter_source(n) in typed]


class PanelCommand(TyperCommand):
    """A command whose ``--help`` lists its arguments, then its options in panels (Model, Dynamics,
    …, Output, Execution), in plain text (the Typer app runs without rich markup, so that help is
    fast), then its example block (:func:`examples`) as written. Every command's class, the tools'
    too. A former flag (``--ns``) is read as the one that replaced it (``--n-samples``), with a
    deprecation line on stderr; ``--help`` lists only the new one."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, renamed_args(self, args))

    def format_epilog(self, ctx: Any, formatter: Any) -> None:
        """The example block line by line, as written (click would rewrap it into one paragraph)."""
        if self.epilog:
            formatter.write_paragraph()
            for line in self.epilog.splitlines():
                formatter.write(f"{' ' * formatter.current_indent}{line}\n" if line else "\n")

    def format_options(self, ctx: Any, formatter: Any) -> None:
        groups: dict[str, list[tuple[str, str]]] = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None:
                default = "Arguments" if param.param_type_name == "argument" else "Options"
                groups.setdefault(getattr(param, "rich_help_panel", None) or default, []).append(record)
        order = ("Arguments", *PANELS, "Options")
        for panel in sorted(groups, key=lambda g: order.index(g) if g in order else len(order)):
            with formatter.section(panel if panel in ("Arguments", "Options") else f"{panel} options"):
                formatter.write_dl(groups[panel])


def examples(*commands: str) -> str:
    """The example block of a command's ``--help`` (its epilog): each line a command that runs as
    written (tests/test_cli_conventions.py parses every one), indented four spaces so that
    docs/cli.md shows the block as code; :meth:`PanelCommand.format_epilog` prints it as typed."""
    return "Examples:\n\n" + "\n".join(f"    gaugecli {c}" for c in commands)


def command_app() -> typer.Typer:
    """The Typer app of one subcommand, in the root app's plain-help, no-traceback style."""
    return typer.Typer(rich_markup_mode=None, pretty_exceptions_enable=False, add_completion=False)


def file_path(text: str | Path) -> Path:
    """A path that names a file: ``newdir/`` (a folder) is refused rather than written as a file."""
    if isinstance(text, Path):
        return text
    if not text.strip():
        raise typer.BadParameter("give a file path such as run.json")
    if text.endswith(("/", "\\")):
        raise typer.BadParameter(f"{text} names a folder; give a file path such as {text}run.json")
    return Path(text)


def identifier(p: Param) -> str:
    """The name of ``p``'s option in a command's signature (click's parameter name): its flag without
    the dashes (``--limit-d`` → ``limit_d``), the name :func:`given` and ``--config`` know it by."""
    return p.option.removeprefix("--").replace("-", "_")


def declared(p: Param, *aliases: str) -> tuple[Any, Any]:
    """The annotation and default of ``p``'s option in a command's signature, from its declaration
    alone: a repeatable flag collects words (its check parses them), a list is its tuple class, an
    Enum a word, and a parameter without a default (``None``) optional."""
    if p.repeat:
        return Annotated[list[str], option(p, *aliases)], list(p.default) if p.plural else [p.default]
    kind: Any = _LIST[p.type] if p.plural else str if issubclass(p.type, Enum) else p.type
    default = p.default.value if isinstance(p.default, Enum) else p.default
    return Annotated[kind if default is not None else kind | None, option(p, *aliases)], default


# -- the command line's own options: where results go, how the work runs ------------------------
MAX_TIME = Param(
    "max_time",
    "Refuse a run estimated to take longer than this before it starts (a finite sample too large to "
    "keep in memory); raise it to accept a long run on purpose",
    EXECUTION,
    3600.0,
    low=0.0,
    metavar="SECONDS",
)
WORKERS = Param("workers", "Local worker processes for the sweep's points", EXECUTION, 1, int, low=1)
PLOT_WORKERS = WORKERS.but(
    help="Processes computing the figures' runs at once (before drawing)",
    default=None,
    default_text="the CPUs, at most 4",
)
"""``plot --workers``: the sweeps' ``--workers``, for the figures' runs, and by default as many as the CPUs allow."""
PlotWorkers = declared(PLOT_WORKERS)[0]
Scheduler = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        help="Run the sweep's points on a Dask cluster: tcp://HOST:PORT.",
        rich_help_panel=EXECUTION,
    ),
]
Out = Annotated[
    Path | None,
    typer.Option(
        "--out",
        parser=file_path,
        metavar="PATH",
        help="Also write the artifact to PATH (it is always cached in --cache-dir), and beside it PATH.toml, "
        "which reruns it with --config.",
        rich_help_panel=OUTPUT,
    ),
]
FigurePath = Annotated[
    Path | None,
    typer.Option(
        "--figure",
        parser=file_path,
        metavar="PATH",
        help="Also draw this artifact's figure to PATH (.pdf, .png or .svg).",
        rich_help_panel=OUTPUT,
    ),
]
CACHE_ENV = "GAUGECLI_CACHE_DIR"
"""The environment variable naming the run cache where ``--cache-dir`` is not given."""
CacheDir = Annotated[
    Path,
    typer.Option(
        "--cache-dir",
        envvar=CACHE_ENV,
        show_envvar=True,
        help="The run cache: runs and sweep points by config hash; reruns reuse them.",
        rich_help_panel=OUTPUT,
    ),
]
UseCache = Annotated[
    bool,
    typer.Option(
        "--cache/--no-cache", help="Reuse cached runs and points (--no-cache recomputes them).", rich_help_panel=OUTPUT
    ),
]
Json = Annotated[
    bool,
    typer.Option(
        "--json",
        help="Print one JSON object per artifact on stdout (kind, path, config hash, the config, computed or "
        "reused, the result's numbers) instead of the summary, for scripts.",
        rich_help_panel=OUTPUT,
    ),
]
Quiet = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="Print no summary (--json lines still print; warnings and errors still go to stderr).",
        rich_help_panel=OUTPUT,
    ),
]


JsonTool = Annotated[
    bool,
    typer.Option(
        "--json",
        help="Print one JSON object per line on stdout (per file, figure, claim or cache entry, with its "
        "config where it has one) instead of the text, for scripts.",
    ),
]


QuietTool = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="Print nothing on success (errors still go to stderr, with the exit code)."),
]
DEFAULT_CACHE = Path("runs")


def _load_config(ctx: typer.Context, param: typer.CallbackParam, value: Path | None) -> Path | None:
    from gaugecli.cli.config_file import load

    return load(ctx, param, value)


ConfigFile = Annotated[
    Path | None,
    typer.Option(
        "--config",
        metavar="RUN.TOML",
        is_eager=True,
        callback=_load_config,
        help="Read options from a TOML file (keys: the flags without dashes, e.g. gauge-strength = [4.0]); "
        "options on the command line override it.",
        rich_help_panel=OUTPUT,
    ),
]
