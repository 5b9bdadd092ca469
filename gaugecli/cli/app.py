"""The ``gaugecli`` Typer app: its subcommands, loaded lazily, and one-line errors.

Each subcommand lives in its own module (``gaugecli/cli/<command>.py``) and is imported only
when it runs, so ``gaugecli --help`` and ``--version`` start without numpy, scipy or torch.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Annotated, Any

import typer
from typer import Abort
from typer._click.exceptions import NoArgsIsHelpError
from typer.core import TyperGroup

from gaugecli.cli.errors import ClickException, UsageError
from gaugecli.experiments.spec import Live, experiments
from gaugecli.run.executors import THREAD_ENV_VARS  # stdlib only: --help stays numpy-free

TOOLS: dict[str, str] = {
    "plot": "Render publication figures (computing and caching any run they need).",
    "validate": "Check artifacts against their JSON Schema and their hashes.",
    "export": "Export an artifact: a long-form CSV or Parquet table, or netCDF mirroring to_xarray().",
    "verify": "Check every claim at the paper's settings: measured, expected, verdict.",
    "numbers": "Every number a figure quotes, from its sidecar: LaTeX macros, JSON or Markdown.",
    "cache": "List the run cache's entries, total their sizes, or clear some of them.",
}
"""The subcommands that run no experiment of their own (they read or draw artifacts) → one-line help."""

COMMANDS: Mapping[str, str] = Live(lambda: {spec.name: spec.help for spec in experiments() if spec.is_command} | TOOLS)
"""Subcommand → one-line help (shown by ``gaugecli --help`` without importing the command): each
experiment's spec that is a command of its own, then the :data:`TOOLS`."""


class _LazyOneLineGroup(TyperGroup):
    """The root group: subcommands imported on first use; usage and runtime errors as a single
    ``Error: …`` line on stderr, no traceback. Exit codes: 2 usage, 1 runtime, 130 interrupt."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in COMMANDS:
            return None
        spec = next((spec for spec in experiments() if spec.name == cmd_name), None)
        module = import_module(spec.cli if spec is not None and spec.cli else f"gaugecli.cli.{cmd_name}")
        command = typer.main.get_command(module.app)
        command.name = cmd_name
        return command

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        with formatter.section("Commands"):
            formatter.write_dl(list(COMMANDS.items()))

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        try:
            rv = super().main(*args, standalone_mode=False, **kwargs)  # type: ignore[misc]
        except NoArgsIsHelpError as exc:  # bare `gaugecli`: the help, as it would print
            typer.echo(exc.ctx.get_help() if exc.ctx is not None else exc.format_message(), err=True)
            code = 2
        except UsageError as exc:  # BadParameter's message already names the parameter
            typer.echo(f"Error: {exc.format_message()}".replace("\n", " "), err=True)
            code = 2
        except ClickException as exc:
            typer.echo(f"Error: {exc.format_message()}".replace("\n", " "), err=True)
            code = exc.exit_code
        except Abort:
            typer.echo("Aborted.", err=True)
            code = 130
        else:
            code = rv if isinstance(rv, int) else 0
        if not standalone_mode:
            return code
        sys.exit(code)


app = typer.Typer(
    name="gaugecli",
    cls=_LazyOneLineGroup,
    help="Reproduce 'Hidden Gauge Controls Feature Specialization in ReLU Networks'.",
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    add_completion=True,
    # `-h` as well: the first thing a newcomer types; every subcommand inherits it (none uses -h itself)
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version_callback(value: bool) -> None:
    if value:
        from importlib import metadata

        typer.echo(f"gaugecli {metadata.version('gaugecli')}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """Gauge-controlled feature specialization in a Gaussian teacher–student ReLU model."""


def _one_line_warning(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
    """Warnings (a long run ahead, a library's numerical note) as one line on stderr, no source line,
    the parameters they mention spelled as flags."""
    from gaugecli.cli.flags import message as spelled

    print(f"Warning: {spelled(str(message))}", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    """Console entry point. BLAS/OpenMP default to one thread unless the user set them: our
    matrices are small (a dense LU of ≤ a few hundred unknowns, sample gradients of a few neurons),
    and on 2 shared cores threaded BLAS was measured 4-10× slower (README, Benchmarks)."""
    for var in THREAD_ENV_VARS:
        os.environ.setdefault(var, "1")
    for stream in (sys.stdout, sys.stderr):
        # redirected to a file or a pipe, Python buffers by blocks: `make figures > log` showed
        # nothing for minutes. A line is the unit of every message here
        if not stream.isatty() and hasattr(stream, "reconfigure"):
            stream.reconfigure(line_buffering=True)
    warnings.showwarning = _one_line_warning
    command: Callable[..., Any] = app
    command(args=argv)
