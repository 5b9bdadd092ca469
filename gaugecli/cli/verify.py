"""``gaugecli verify``: every claim checked at the paper's settings, in one command."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.errors import Failure, errors

app = opt.command_app()


@app.command(
    cls=opt.PanelCommand, epilog=opt.examples("verify --quick --claims C1", "verify --quick --json --report verify.md")
)
def verify(
    quick: Annotated[bool, typer.Option("--quick", help="The CI profile: fewer strengths, widths and seeds.")] = False,
    claims: Annotated[
        str | None, typer.Option("--claims", help="Only these claim ids, e.g. C4,C6 (the others: not run).")
    ] = None,
    report_path: Annotated[
        Path | None,
        typer.Option(
            "--report", parser=opt.file_path, metavar="PATH.md", help="Also write a Markdown report with the figures."
        ),
    ] = None,
    figures_dir: Annotated[
        Path, typer.Option("--figures-dir", help="Where the report finds figN.png (gaugecli plot all writes them).")
    ] = Path("figures"),
    out: opt.Out = None,
    cache_dir: opt.CacheDir = opt.DEFAULT_CACHE,
    cache: opt.UseCache = True,
    json: opt.JsonTool = False,
    quiet: opt.QuietTool = False,
) -> None:
    """Measure every claim (C1–C8 and the later findings) and judge it; exit 1 if any fails."""
    with errors():
        from gaugecli.store.artifacts import now
        from gaugecli.verify import VerifyConfig, all_claims, profile_needs
        from gaugecli.verify import verify as run

        known = [c.id for c in all_claims()]
        only = tuple(c.strip() for c in claims.split(",") if c.strip()) if claims else ()
        unknown = [c for c in only if c not in known]
        if claims is not None and (not only or unknown):
            raise session.bad_parameter("--claims", f"must be claim ids among {', '.join(known)} (got {claims!r})")
        session.check_out(out)
        if report_path is not None:
            session.check_writable(report_path, "--report")
        config = VerifyConfig(quick=quick, only=only)
        started = now()
        with session.pipeline(cache_dir, cache) as pipe, session.progress("verify") as bar:
            full = VerifyConfig(quick=False, only=only)
            if quick and pipe.cache is not None and cache:
                missing_quick, missing_full = _missing(pipe, profile_needs(config)), _missing(pipe, profile_needs(full))
                if missing_full < missing_quick:  # after `make figures` the full runs are there, the quick ones not
                    config = full
                    report.errors_console().print(
                        f"verify --quick: {missing_full} run(s) of the full profile are not cached, against "
                        f"{missing_quick} of the quick one; judging the claims on the full (stricter) profile"
                    )
            result = run(config, pipe, bar)
            artifact = pipe.cache.save("verify", config, result, seed=None, started=started) if pipe.cache else None
            path = pipe.cache.path("verify", config) if pipe.cache else None
        if out is not None and artifact is not None:
            from gaugecli.store.artifacts import write_artifact

            path = write_artifact(out, artifact, "--out")
        if report_path is not None:
            from gaugecli.store.atomic import atomic_write_text
            from gaugecli.verify.report import markdown

            atomic_write_text(report_path, markdown(result, figures_dir, report_path.parent), "--report")
    if json:
        _json_lines(result, path, config)
    elif not quiet:
        report.verify(result, path, report_path)
    if result.failed:
        raise Failure(f"{len(result.failed)} claim(s) failed: {', '.join(c.id for c in result.failed)}")


def _json_lines(result: Any, path: Path | None, config: Any) -> None:
    """One JSON object per claim: its row of the artifact, the artifact's path and the profile judged."""
    import dataclasses
    import json

    profile = dataclasses.asdict(config)
    for claim in result.claims:
        record = {"kind": "verify", "path": None if path is None else str(path), **dataclasses.asdict(claim)}
        typer.echo(json.dumps({**record, "config": profile}, allow_nan=True, ensure_ascii=False, default=str))


def _missing(pipe: Any, needs: dict[str, Any]) -> int:
    """How many of ``needs`` would be computed (the cheaper profile is the one with fewer)."""
    return sum(not pipe.cache.path(need.kind, need.config).exists() for need in needs.values())
