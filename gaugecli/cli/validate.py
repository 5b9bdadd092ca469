"""``gaugecli validate``: check artifacts against their schema and their hashes."""

from __future__ import annotations

from json import dumps
from pathlib import Path
from typing import Annotated, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli.errors import Failure

app = opt.command_app()


@app.command(
    cls=opt.PanelCommand, epilog=opt.examples("validate runs/simulate/*.json", "validate --json run.json run.toml")
)
def validate(
    files: Annotated[list[Path], typer.Argument(help="Artifact files to check, or the .toml recipes that rerun them.")],
    json: opt.JsonTool = False,
    quiet: opt.QuietTool = False,
) -> None:
    """Check artifacts against their JSON Schema and hashes; print kind and schema version. A .toml rerun
    recipe is checked as its command reads it: every option valid, at a valid value. With --quiet only
    the invalid files are named."""
    from gaugecli.cli.config_file import check_recipe
    from gaugecli.cli.errors import ClickException
    from gaugecli.store.artifacts import read_artifact
    from gaugecli.store.errors import ArtifactError
    from gaugecli.store.schemas import parse_schema_name

    def say(record: dict[str, Any], text: str) -> None:
        if json:
            typer.echo(dumps(record, allow_nan=True, ensure_ascii=False))
        elif not (quiet and record["valid"]):
            typer.echo(text)

    bad = 0
    for path in files:
        if path.suffix.lower() == ".toml":
            try:
                command = check_recipe(path)
            except ClickException as exc:
                say(
                    {"path": str(path), "valid": False, "error": exc.format_message()},
                    f"INVALID {exc.format_message()}",
                )
                bad += 1
            else:
                record = {"path": str(path), "valid": True, "kind": "recipe", "command": command}
                say(record, f"valid   {path}: a rerun recipe of gaugecli {command}, every option valid")
            continue
        try:
            artifact = read_artifact(path)
        except ArtifactError as exc:
            say({"path": str(path), "valid": False, "error": str(exc)}, f"INVALID {exc}")
            bad += 1
            continue
        kind, version = parse_schema_name(artifact["schema"])
        record = {
            "path": str(path),
            "valid": True,
            "kind": kind,
            "schema_version": version,
            "config_hash": artifact.get("config_hash"),
            "config": artifact.get("config"),
        }
        say(record, f"valid   {path}: {kind} artifact, schema version {version}")
    if bad:
        raise Failure(f"{bad} of {len(files)} artifacts are invalid")
