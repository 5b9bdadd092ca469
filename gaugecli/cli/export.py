"""``gaugecli export``: an artifact as a table or labelled arrays — long-form CSV or Parquet
(``to_dataframe()``), or netCDF mirroring ``to_xarray()`` — through pandas, pyarrow and xarray."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from gaugecli.cli import options as opt
from gaugecli.cli.errors import Failure, bad_parameter, errors

app = opt.command_app()


class Format(str, Enum):
    """What ``--format`` writes: the long-form table (``csv``, ``parquet``) or the labelled arrays (``netcdf``)."""

    csv = "csv"
    parquet = "parquet"
    netcdf = "netcdf"


SUFFIX = {Format.csv: ".csv", Format.parquet: ".parquet", Format.netcdf: ".nc"}
"""The file an export writes beside its artifact when ``--out`` is not given."""

SUFFIXES = {Format.csv: (".csv",), Format.parquet: (".parquet", ".pq"), Format.netcdf: (".nc", ".nc4", ".netcdf")}
"""The suffixes that name each format: an ``--out`` ending in another format's is refused (a Parquet
file named ``.csv`` would mislead whoever opens it); any other suffix is the user's to choose."""


def check_suffix(out: Path, format: Format) -> None:
    """Refuse ``--out`` whose suffix names another format than ``--format``."""
    suffix = out.suffix.lower()
    named = next((f for f, suffixes in SUFFIXES.items() if suffix in suffixes), None)
    if named is not None and named is not format:
        raise bad_parameter(
            "--out",
            f"{out} ends in {suffix}, a {named.value} name, but --format is {format.value}; "
            f"give --out {out.with_suffix(SUFFIX[format])} or --format {named.value}",
        )


@app.command(
    cls=opt.PanelCommand,
    epilog=opt.examples(
        "export run.json --format csv",
        "export run.json --format netcdf --out run.nc --json",
    ),
)
def export(
    artifact: Annotated[Path, typer.Argument(help="An artifact written by a gaugecli command (run.json).")],
    format: Annotated[
        Format, typer.Option("--format", help="csv or parquet: the long-form table; netcdf: the labelled arrays.")
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            parser=opt.file_path,
            metavar="PATH",
            help="Where to write (default: the artifact's name, .csv/.parquet/.nc); a suffix of another "
            "format is refused.",
        ),
    ] = None,
    json: opt.JsonTool = False,
    quiet: opt.QuietTool = False,
) -> None:
    """Export an artifact: a long-form CSV or Parquet table, or netCDF mirroring to_xarray()."""
    with errors():
        from gaugecli.api import load
        from gaugecli.store.atomic import atomic_target, check_writable

        if artifact.suffix.lower() == ".toml":  # the rerun recipe beside an artifact: the usual slip
            raise bad_parameter(
                "ARTIFACT",
                f"{artifact} is a rerun recipe, not an artifact; export the artifact beside it, "
                f"{artifact.with_suffix('.json')}",
            )
        target = out if out is not None else artifact.with_suffix(SUFFIX[format])
        if target.resolve() == artifact.resolve():
            raise bad_parameter("--out", f"{target} is the artifact itself; give another path")
        check_writable(target, "--out")
        check_suffix(target, format)
        loaded = load(artifact)
        try:
            data = loaded.to_xarray() if format is Format.netcdf else None
            table = None if format is Format.netcdf else loaded.to_dataframe()
        except ImportError as exc:
            raise Failure(str(exc)) from None
        except TypeError as exc:  # a plain-JSON result (a figure's sidecar) has rows but no labelled arrays
            raise bad_parameter("ARTIFACT", f"{exc}; export it with --format csv or parquet") from None
        with atomic_target(target, "--out") as tmp:
            if table is not None and format is Format.csv:
                table.to_csv(tmp, index=False)
            elif table is not None:
                table.to_parquet(tmp, index=False)
            elif data is not None:
                data.to_netcdf(tmp, engine="h5netcdf")
    if json:
        from json import dumps

        record = {
            "path": str(target),
            "artifact": str(artifact),
            "kind": loaded.kind,
            "format": format.value,
            "config": _config(artifact),
        }
        typer.echo(dumps(record, allow_nan=True, ensure_ascii=False))
    elif not quiet:
        typer.echo(f"wrote {target}: {loaded.kind} artifact as {format.value}")


def _config(artifact: Path) -> object:
    """The config an artifact records (``None`` for one without, such as a figure's sidecar)."""
    import json

    return json.loads(artifact.read_text(encoding="utf-8")).get("config")
