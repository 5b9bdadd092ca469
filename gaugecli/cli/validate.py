"""``gaugecli validate``: check artifacts against their schema and their hashes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gaugecli.cli import options as opt
from gaugecli.cli.errors import Failure

app = opt.command_app()


@app.command()
def validate(
    files: Annotated[list[Path], typer.Argument(help="Artifact files to check, or the .toml recipes that rerun them.")],
) -> None:
    """Check artifacts against their JSON Schema and hashes; print kind and schema version. A .toml rerun
    recipe is checked as its command reads it: every option valid, at a valid value."""
    from gaugecli.cli.config_file import check_recipe
    from gaugecli.cli.errors import ClickException
    from gaugecli.store.artifacts import read_artifact
    from gaugecli.store.errors import ArtifactError
    from gaugecli.store.schemas import parse_schema_name

    bad = 0
    for path in files:
        if path.suffix.lower() == ".toml":
            try:
                command = check_recipe(path)
            except ClickException as exc:
                typer.echo(f"INVALID {exc.format_message()}")
                bad += 1
            else:
                typer.echo(f"valid   {path}: a rerun recipe of gaugecli {command}, every option valid")
            continue
        try:
            artifact = read_artifact(path)
        except ArtifactError as exc:
            typer.echo(f"INVALID {exc}")
            bad += 1
            continue
        kind, version = parse_schema_name(artifact["schema"])
        typer.echo(f"valid   {path}: {kind} artifact, schema version {version}")
    if bad:
        raise Failure(f"{bad} of {len(files)} artifacts are invalid")
