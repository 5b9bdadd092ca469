"""docs/cli.md, the command reference, written from the Typer app as ``--help`` prints it: each
command's help, its usage, its options under the panels ``--help`` shows (Model, Dynamics, Numerics,
Experiment, Output, Execution, in that order), and its examples (the example block that ends its
``--help``) as a shell block. ``make docs`` runs ``python tools/cli_docs.py > docs/cli.md``;
tests/test_docs.py checks the page is current and grouped as ``--help`` is.

Only click's public interface is read (the commands' ``list_commands``/``get_command``, each
parameter's ``get_help_record``, its ``rich_help_panel``, the command's ``epilog``), so the page says
what ``--help`` says, and a panel or an example added to a command appears here with no change to
this file."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

EXAMPLE_PREFIX = "gaugecli "
"""How an example line of an epilog starts (after its indentation)."""


def _paragraphs(text: str) -> str:
    """A help text as Markdown paragraphs: click's ``\\b`` (no rewrap) markers dropped, ``\\f`` and
    what follows it (not for ``--help``) cut."""
    text = text.split("\f", 1)[0]
    return "\n".join(line for line in text.strip().splitlines() if line.strip() != "\b").strip()


def _examples(epilog: str | None) -> tuple[list[str], str]:
    """The example commands of an epilog and its other prose."""
    if not epilog:
        return [], ""
    lines = [line.strip() for line in epilog.splitlines()]
    commands = [line for line in lines if line.startswith(EXAMPLE_PREFIX)]
    prose = [line for line in lines if line and line not in ("\b", "Examples:") and line not in commands]
    return commands, "\n".join(prose)


class _Sections:
    """A stand-in for click's ``HelpFormatter`` that keeps what a command's ``format_options`` writes
    — each section's title and its (term, description) rows — instead of laying it out: the
    sections, their order and their rows are the command's own ``--help``, whichever formatter class
    the command has (the panels of the computing commands, Typer's Arguments/Options of the others,
    a group's Commands)."""

    width = 10_000  # no short help is cut to a terminal's width
    current_indent = 0

    def __init__(self) -> None:
        self.sections: list[tuple[str, list[tuple[str, str]]]] = []

    @contextmanager
    def section(self, name: str) -> Iterator[None]:
        self.sections.append((name, []))
        yield

    @contextmanager
    def indentation(self) -> Iterator[None]:
        yield

    def write_dl(self, rows: Any, col_max: int = 30, col_spacing: int = 2) -> None:
        if not self.sections:  # rows outside any section
            self.sections.append(("Options", []))
        self.sections[-1][1].extend((term, text or "") for term, text in rows)

    def write_paragraph(self) -> None:
        pass

    def write_text(self, text: str) -> None:
        pass

    def write(self, text: str) -> None:
        pass


def page(command: Any, path: str, parent: Any = None, depth: int = 1) -> list[str]:
    """The Markdown of ``command`` (called ``path``) and of its subcommands, depth-first."""
    ctx = command.context_class(command, info_name=path.split()[-1], parent=parent, **command.context_settings)
    out = [f"{'#' * depth} `{path}`", ""]
    if command.help:
        out += [_paragraphs(command.help), ""]
    usage = " ".join(command.collect_usage_pieces(ctx))
    out += ["**Usage**:", "", "```console", f"$ {path} {usage}".rstrip(), "```", ""]
    sections = _Sections()
    command.format_options(ctx, sections)  # what --help prints after its usage and help, as data
    for title, rows in sections.sections:
        out += [f"**{title.rstrip(':')}**:", ""]
        out += [f"* `{term}`: {' '.join(text.split())}".rstrip(": ") for term, text in rows]
        out.append("")
    subcommands = command.list_commands(ctx) if hasattr(command, "list_commands") else []
    examples, prose = _examples(command.epilog)
    if examples:
        out += ["**Examples**:", "", "```bash", *examples, "```", ""]
    if prose:
        out += [prose, ""]
    for name in subcommands:
        out += page(command.get_command(ctx, name), f"{path} {name}", ctx, depth + 1)
    return out


def main() -> None:
    import typer

    from gaugecli.cli import app

    text = "\n".join(page(typer.main.get_command(app), "gaugecli")).rstrip() + "\n"
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
