"""``gaugecli numbers``: the numbers each figure quotes, read from its sidecar, as LaTeX macros,
JSON or Markdown — each with its JSON path, the sidecar's config hash and the commit that made it,
so a paper cites the regenerated values instead of copies (:mod:`gaugecli.plots.readings`)."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli.errors import bad_parameter, errors

app = opt.command_app()


class Format(str, Enum):
    """What ``--format`` prints."""

    tex = "tex"
    json = "json"
    md = "md"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _short(text: str | None) -> str:
    return (text or "unknown")[:12]


def _sidecars(figures: list[str], figures_dir: Path) -> list[tuple[str, dict[str, Any]]]:
    """``(figure, sidecar)`` of each named figure (default: every figure with readings whose sidecar exists)."""
    from gaugecli.plots import FIGURES
    from gaugecli.plots.readings import declared
    from gaugecli.store.artifacts import read_artifact
    from gaugecli.store.errors import ArtifactError

    for name in figures:
        if name not in FIGURES:
            raise bad_parameter("FIGURE", f"unknown figure {name!r}; valid: {', '.join(FIGURES)}")
    if not figures_dir.is_dir():
        raise bad_parameter("--figures-dir", f"{figures_dir} is not a directory (the figures' sidecars, figN.json)")
    # a figure named twice is read once: its macros defined twice would stop LaTeX ("already defined")
    named = list(dict.fromkeys(figures)) or [
        f for f in FIGURES if declared(f) and (figures_dir / f"{f}.json").is_file()
    ]
    out = []
    for name in named:
        path = figures_dir / f"{name}.json"
        if not path.is_file():
            raise bad_parameter(
                "--figures-dir",
                f"{figures_dir} has no {name}.json; `gaugecli plot {name} --out-dir {figures_dir}` makes it",
            )
        # its schema and hashes checked as every reader checks them (validate, export, load): a
        # hand-edited sidecar is refused rather than quoted
        try:
            out.append((name, read_artifact(path, "figure")))
        except ArtifactError as exc:
            raise bad_parameter("--figures-dir", str(exc)) from None
    return out


def _rows(quoted: list[Any]) -> list[dict[str, Any]]:
    """Each quoted number with where it comes from: ``--format json``'s entries, ``--json``'s lines."""
    return [
        {
            "figure": q.figure,
            "name": q.reading.name,
            "macro": "\\" + q.macro,
            "value": q.value,
            "text": q.text,
            "format": q.reading.format,
            "meaning": q.reading.meaning,
            "path": q.reading.pointer,
            "config_hash": q.config_hash,
            "git_commit": q.git_commit,
        }
        for q in quoted
    ]


@app.command(
    cls=opt.PanelCommand, epilog=opt.examples("numbers fig3 --format md", "numbers --json --figures-dir figures")
)
def numbers(
    figures: Annotated[
        list[str] | None,
        typer.Argument(metavar="[FIGURE]...", help="Figures to read (default: every figure that declares readings)."),
    ] = None,
    format: Annotated[
        Format, typer.Option("--format", help="tex: \\newcommand macros; json or md: with path, config hash, commit.")
    ] = Format.tex,
    figures_dir: Annotated[
        Path, typer.Option("--figures-dir", metavar="DIR", help="Where the sidecars (figN.json) are.")
    ] = Path("figures"),
    json_lines: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print one JSON object per number on stdout (figure, macro, value, its path, config hash, "
            "commit, and the sidecar's config), for scripts.",
        ),
    ] = False,
    quiet: opt.QuietTool = False,
) -> None:
    """Every number a figure quotes, from its sidecar: LaTeX macros, JSON or Markdown."""
    with errors():
        from gaugecli.plots.readings import Quoted, declared, resolve, tex

        quoted: list[Quoted] = []
        configs: dict[str, Any] = {}
        for name, sidecar in _sidecars(list(figures or []), figures_dir):
            configs[name] = sidecar.get("config")
            if not declared(name) and not quiet:  # not an error: the figure quotes no numbers yet
                typer.echo(f"Note: {name} declares no quoted numbers (READINGS in gaugecli/plots/{name}.py)", err=True)
            try:
                quoted += resolve(name, sidecar)
            except (KeyError, IndexError, ValueError) as exc:
                raise bad_parameter("--figures-dir", f"{figures_dir / (name + '.json')}: {exc}") from None
        if json_lines:
            for row in _rows(quoted):
                typer.echo(json.dumps({**row, "config": configs.get(row["figure"])}, ensure_ascii=False))
        elif format is Format.json:
            typer.echo(json.dumps(_rows(quoted), indent=2, ensure_ascii=False))
        elif format is Format.md:
            typer.echo("| figure | macro | printed | value | meaning | sidecar path | config | commit |")
            typer.echo("|---|---|---|---|---|---|---|---|")
            for q in quoted:
                typer.echo(
                    f"| {q.figure} | `\\{q.macro}` | {q.text} | `{q.value!r}` | {_cell(q.reading.meaning)} | "
                    f"`{q.reading.pointer}` | `{_short(q.config_hash)}` | `{_short(q.git_commit)}` |"
                )
        else:
            figure = None
            for q in quoted:
                if q.figure != figure:
                    figure = q.figure
                    typer.echo(f"% {figure}: config {_short(q.config_hash)}, commit {_short(q.git_commit)}")
                typer.echo(f"{tex(q)}  % {q.reading.pointer}")
