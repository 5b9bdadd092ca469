"""``gaugecli plot``: publication figures, computing (and caching) any run they need."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import session
from gaugecli.cli.errors import Failure, bad_parameter, errors
from gaugecli.plots import FIGURES, OUTSIDE_ALL

if TYPE_CHECKING:
    from gaugecli.plots.render import Rendered

app = opt.command_app()

WORKER_LOOPS = (
    "gaugecli.core.population.fused",
    "gaugecli.core.samples.empirical_fused",
    "gaugecli.core.integrate.odeint_flow",
    "gaugecli.core.population.fused_smooth",
)
"""The modules of numba's loops that a plot worker's warm-up loads (:func:`gaugecli.pipeline.warm_worker`)."""


@app.command(
    cls=opt.PanelCommand,
    epilog=opt.examples(
        "plot fig1 --quick --out-dir build/figures",
        "plot all --quick --format png --out-dir build/figures --json",
    ),
)
def plot(
    figure: Annotated[str, typer.Argument(help=f"{', '.join(FIGURES)}, or all (all but {', '.join(OUTSIDE_ALL)}).")],
    cache_dir: opt.CacheDir = opt.DEFAULT_CACHE,
    cache: opt.UseCache = True,
    out_dir: Annotated[Path, typer.Option("--out-dir", help="Where figures are written.")] = Path("figures"),
    format: Annotated[str, typer.Option("--format", help="Comma-separated: pdf, png, svg.")] = "pdf,png",
    quick: Annotated[bool, typer.Option("--quick", help="Coarser grids and fewer seeds (for tests).")] = False,
    venue: Annotated[
        str, typer.Option("--venue", help="Print sizes of neurips, iclr, icml or jmlr (text width and fonts).")
    ] = "neurips",
    width: Annotated[
        float | None,
        typer.Option("--width", help="Figure width in inches, in [1, 20] (default: the venue's text width)."),
    ] = None,
    workers: opt.PlotWorkers = None,
    compare: Annotated[
        Path | None,
        typer.Option("--compare", help="Folder of committed figN.json: fail if a regenerated series drifted."),
    ] = None,
    version: Annotated[
        str | None,
        typer.Option(
            "--layout",
            help="full: every panel (figN.pdf); main: the two or three panels of a paper's main text "
            "(figN_main.pdf; its numbers are in figN.json).",
            show_default="full; with all, both",
        ),
    ] = None,
    check_layout: Annotated[
        bool,
        typer.Option(
            "--check-layout",
            help="Hold every figure drawn (each version, at --venue or --width) to the layout check: no "
            "text clipped or colliding, no legend over data, no two colours of a panel alike; fail naming "
            "each offence.",
        ),
    ] = False,
    rewrite: Annotated[
        bool,
        typer.Option(
            "--rewrite",
            help="Rewrite a figure whose files in --out-dir already show it (same renderer and "
            "configuration, every number within its --compare tolerance); by default they are kept.",
        ),
    ] = False,
    json: opt.JsonTool = False,
    quiet: opt.QuietTool = False,
) -> None:
    """Render publication figures (computing and caching any run they need)."""
    from gaugecli.cli.report import console, escape

    ids = [f for f in FIGURES if f not in OUTSIDE_ALL] if figure == "all" else [figure]
    if any(i not in FIGURES for i in ids):
        raise bad_parameter("FIGURE", f"unknown figure {figure!r}; valid: {', '.join(FIGURES)}, all")
    formats = tuple(f.strip().lower() for f in format.split(",") if f.strip())
    if not formats or any(f not in ("pdf", "png", "svg") for f in formats):
        raise bad_parameter("--format", f"must be a list of pdf, png, svg (got {format!r})")
    if version not in (None, "full", "main"):
        raise bad_parameter("--layout", f"must be full or main (got {version!r})")
    versions = _versions(ids, figure == "all", version)
    ids = [i for i in ids if versions[i]]
    if not ids:
        raise bad_parameter("--layout", "no figure has a main-text version")
    with errors():
        session.check_folder(out_dir, "--out-dir")
    from gaugecli.plots.venue import VENUES, layout

    if venue not in VENUES:
        raise bad_parameter("--venue", f"must be one of {', '.join(VENUES)} (got {venue!r})")
    if width is not None and not 1.0 <= width <= 20.0:
        raise bad_parameter("--width", f"must be in [1, 20] inches (got {width!r})")
    sizes = layout(venue, width)
    from gaugecli.plots.render import figure_module

    too_narrow = [f"{i} (≥ {m:g} in)" for i in ids if sizes.width < (m := getattr(figure_module(i), "MIN_WIDTH", 0.0))]
    if too_narrow:
        raise bad_parameter("--width", f"{sizes.width:g} in is too narrow for {', '.join(too_narrow)}")
    if compare is not None and not compare.is_dir():
        raise bad_parameter("--compare", f"{compare} is not a folder of figN.json sidecars")
    drift: list[str] = []
    offences: list[str] = []
    jobs = workers if workers is not None else min(4, os.cpu_count() or 1)
    with errors(), session.pipeline(cache_dir, cache) as pipe:
        from gaugecli.plots.render import render
        from gaugecli.run.executors import make_executor

        started, finished = time.monotonic(), []

        def done(fig_id: str, paths: Rendered) -> None:
            for line in paths.warnings:  # the cache's, from a worker that read the figure's runs
                session.warn(line)
            files = ", ".join(str(p) for p in paths)
            if paths.kept:
                files = f"unchanged within tolerance, kept {files} (--rewrite to redraw)"
            finished.append(fig_id)
            count = f" [{len(finished)}/{len(ids)}, {session.elapsed_text(time.monotonic() - started)}]"
            if json:
                typer.echo(_json_line(fig_id, paths, out_dir))
            elif not quiet:
                console().print(f"{fig_id}: {files}" + (count if len(ids) > 1 else ""))
            if compare is not None:
                drift.extend(_compare(compare / f"{fig_id}.json", out_dir / f"{fig_id}.json"))
            offences.extend(f"{fig_id} {line}" for line in paths.offences)
            _write_reruns(fig_id, cache_dir, quick)

        for fig_id in ids:  # a study with committed runs: say where they are before computing it anew
            regenerate = getattr(figure_module(fig_id), "REGENERATE", None)
            if regenerate and not quick:
                study = list(figure_module(fig_id).needs(quick).values())
                if absent := pipe.missing(study):
                    session.warn(
                        f"{fig_id}: {len(absent)} of the {len(study)} runs it reads are not in {cache_dir}; computing "
                        f"them is its whole study, which takes long (--quick: a small one); its committed runs "
                        f"redraw it in seconds: {regenerate}"
                    )
        # one figure whose runs are all cached is drawn here: a pool would only start (and import)
        # its workers for it, ≈ 3× the draw (22 s against 8 s for a test's figure, 2026-12-06)
        pool = jobs > 1 and (len(ids) > 1 or bool(pipe.missing(list(figure_module(ids[0]).needs(quick).values()))))
        if pool:
            # the runs of every figure on `jobs` processes, `jobs` runs at a time; each figure is drawn
            # (≈ 2 s, mostly matplotlib's text layout) on the same processes as soon as its runs are
            # cached, before the runs not yet started
            from gaugecli.pipeline import warm_worker, worker_modules
            from gaugecli.plots.render import render_from_cache
            from gaugecli.store.artifacts import config_hash

            fresh: set[tuple[str, str]] = set()  # computed by this command: drawn without re-verifying
            drawing: dict[Any, str] = {}
            # every worker runs and draws: a forkserver imports all of it once and forks the workers
            # (LocalExecutor's preload), instead of each importing it anew
            drawing_modules = ["gaugecli.plots.render", *(f"gaugecli.plots.{i}" for i in ids)]
            # an empty cache: every run is to compute, so the forkserver imports what runs need (torch,
            # numba's loops: ~1.3 s) and the workers warm up while this process declares the runs
            # (~1 CPU-s). A cache holding runs may hold them all: then the workers only draw, and the
            # imports for computing would be a fifth of a warm `plot all --quick`; each worker makes
            # them once this process has found a run missing
            computing = pipe.cache is None or not pipe.reuse or not pipe.cache.holds_any()
            modules = worker_modules() if computing else [m for m in worker_modules() if m != "torch"]
            preload = [*modules, *(WORKER_LOOPS if computing else ()), *drawing_modules]
            with make_executor(None, jobs, preload=preload) as executor:
                warming = [executor.submit(warm_worker) for _ in range(jobs)] if computing else []
                needs = {i: list(figure_module(i).needs(quick).values()) for i in ids}
                if not computing and pipe.missing([n for ns in needs.values() for n in ns]):
                    warming = [executor.submit(warm_worker) for _ in range(jobs)]
                needed = {i: {(n.kind, config_hash(n.config)) for n in ns} for i, ns in needs.items()}
                waiting = {i: set(keys) for i, keys in needed.items()}
                reported: set[Any] = set()

                def drawn() -> None:
                    """Say each figure drawn so far, as soon as the main process looks (a run cached, an
                    interrupt): a log cut short by Ctrl-C still names every figure written."""
                    for handle, fig_id in list(drawing.items()):
                        written = handle.done() and not handle.cancelled() and handle.exception() is None
                        if handle not in reported and written:
                            reported.add(handle)
                            done(fig_id, handle.result())

                def cached(keys: set[tuple[str, str]], computed: bool) -> None:
                    if computed:
                        fresh.update(keys)
                    drawn()
                    for fig_id in ids:
                        waiting[fig_id] -= keys
                        if len(ids) > 1 and not waiting[fig_id] and fig_id not in drawing.values():
                            written = [key for key in needed[fig_id] if key in fresh]
                            args = (fig_id, str(cache_dir), out_dir, formats, quick, sizes, not rewrite, written)
                            drawing[executor.submit(render_from_cache, *args, versions[fig_id], check_layout)] = fig_id

                try:
                    with session.progress("runs") as bar:
                        pipe.prefetch([n for ns in needs.values() for n in ns], executor, bar, cached, window=jobs)
                    for handle in warming:  # long done; a failure to import or compile is raised here
                        handle.result()
                    for handle in executor.as_completed(list(drawing)):
                        if handle not in reported:
                            reported.add(handle)
                            done(drawing[handle], handle.result())
                except BaseException:  # an interrupt or a failure: first the figures that were written
                    drawn()
                    raise
        if jobs == 1 or len(ids) == 1:
            for fig_id in ids:
                with session.progress(fig_id) as bar:
                    paths = render(
                        fig_id,
                        pipe,
                        out_dir,
                        formats=formats,
                        quick=quick,
                        progress=bar,
                        layout=sizes,
                        keep_unchanged=not rewrite,
                        versions=versions[fig_id],
                        check_layout=check_layout,
                    )
                done(fig_id, paths)
    if check_layout:
        for line in offences:
            console().print(f"[red]layout:[/] {escape(line)}")
        if offences:
            raise Failure(f"{len(offences)} layout offences in the figures drawn (--check-layout)")
        if not (json or quiet):
            console().print("every figure drawn passes the layout check")
    if compare is not None:
        for line in drift:
            console().print(f"[red]drift:[/] {escape(line)}")
        if drift:
            raise Failure(f"{len(drift)} series drifted from the committed figures in {compare}")
        if not (json or quiet):
            console().print(f"every regenerated series matches {compare} within its stated tolerance")


def _json_line(fig_id: str, paths: Rendered, out_dir: Path) -> str:
    """``plot --json``'s line of one figure: its files, whether they were kept, and the config its
    sidecar (figN.json) records."""
    import json

    sidecar = out_dir / f"{fig_id}.json"
    config = json.loads(sidecar.read_text(encoding="utf-8")).get("config") if sidecar.is_file() else None
    record = {
        "figure": fig_id,
        "files": [str(p) for p in paths],
        "kept": bool(paths.kept),
        "layout_offences": list(paths.offences),
        "config": config,
    }
    return json.dumps(record, allow_nan=True, ensure_ascii=False)


def _versions(ids: list[str], every: bool, version: str | None) -> dict[str, tuple[str, ...]]:
    """The versions drawn of each figure: the one asked for; by default the full figure, and with
    ``all`` its main-text version too where it has one. ``--layout main`` of a figure without one is
    refused (``all --layout main`` draws those that have one)."""
    from gaugecli.plots.render import main_panels, with_main_version

    has_main = {i: main_panels(i) is not None for i in ids}
    if version == "main" and not every and not all(has_main.values()):
        raise bad_parameter(
            "--layout", f"{ids[0]} has no main-text version; figures with one: {', '.join(with_main_version())}"
        )
    if version is not None:
        return {i: (version,) if version == "full" or has_main[i] else () for i in ids}
    return {i: ("full", "main") if every and has_main[i] else ("full",) for i in ids}


def _write_reruns(fig_id: str, cache_dir: Path, quick: bool) -> None:
    """Beside each cached run the figure read, the TOML that reruns it from the command line."""
    from gaugecli.cli import rerun
    from gaugecli.plots.render import figure_module
    from gaugecli.store.artifacts import config_hash

    for need in figure_module(fig_id).needs(quick).values():
        path = cache_dir / need.kind / f"{config_hash(need.config)}.json"
        if path.exists():
            rerun.write(need.kind, need.config, path)


def _compare(committed: Path, regenerated: Path) -> list[str]:
    """The drift of the regenerated sidecar from the committed one; a committed sidecar that fails its
    checks (edited by hand, its hash missing or wrong) is itself a drift: its numbers are not the tool's."""
    from gaugecli.plots.sidecar import compare_sidecars
    from gaugecli.store.artifacts import read_artifact
    from gaugecli.store.errors import ArtifactError

    if not committed.exists():
        return [f"{committed.stem}: no committed sidecar {committed}"]
    try:
        reference = read_artifact(committed, "figure")
    except ArtifactError as exc:
        return [str(exc)]
    return compare_sidecars(reference, read_artifact(regenerated, "figure", verify=False))
