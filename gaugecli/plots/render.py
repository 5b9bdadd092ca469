"""Drawing a figure: its runs through the pipeline, its panels, its files.

* a figure module declares the runs it needs (``needs(quick) -> {name: Need}``; ``quick`` is a
  coarser profile for tests) and draws them (``build(inputs, layout)``);
* a figure may also declare ``followups(inputs, quick) -> {name: Need}``: runs configured from
  the first ones' results (resolved after them), or a tuple of such stages, each configured from
  the results of the stages before it;
* every ODE a figure shows is such a run (a figure module only draws: ``tests/test_architecture.py``);
* :func:`gaugecli.pipeline.resolve` gives their typed results by name, from the cache or computed
  (one :class:`gaugecli.pipeline.Pipeline` for all figures, so figures share runs);
* :func:`render` — ``figN.pdf``/``.png``/``.svg`` and the sidecar ``figN.json`` with the
  numbers plotted, and for a figure that declares ``MAIN_PANELS`` (the two or three panels a
  paper's main text carries) its main-text version ``figN_main.pdf``/… beside them, whose numbers
  are the full figure's sidecar's. Every file is written atomically.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from importlib import import_module
from pathlib import Path
from typing import Any, overload

from gaugecli.core.types import Progress
from gaugecli.pipeline import Inputs, Need, Pipeline, resolve
from gaugecli.plots import FIGURES
from gaugecli.plots.venue import Layout
from gaugecli.plots.venue import layout as default_layout

FORMATS = ("pdf", "png", "svg")
VERSIONS = ("full", "main")
"""The versions of a figure: ``full`` (every panel, the appendix version) and ``main`` (its
``MAIN_PANELS``, lettered anew, for a paper's main text)."""

__all__ = [
    "FORMATS",
    "VERSIONS",
    "Inputs",
    "Need",
    "Rendered",
    "UnknownFigureError",
    "figure_inputs",
    "figure_module",
    "main_panels",
    "render",
    "render_from_cache",
    "renderer_fingerprint",
    "resolve",
    "version_path",
]

Warn = Callable[[str], None]


class UnknownFigureError(ValueError):
    """A figure id that is not one of :data:`FIGURES`; the message lists the valid ids."""

    def __init__(self, fig_id: str) -> None:
        super().__init__(f"unknown figure {fig_id!r}; choose one of {', '.join(FIGURES)} (or 'all')")
        self.fig_id = fig_id


def figure_module(fig_id: str) -> Any:
    if fig_id not in FIGURES:
        raise UnknownFigureError(fig_id)
    return import_module(f"gaugecli.plots.{fig_id}")


def main_panels(fig_id: str) -> tuple[str, ...] | None:
    """The panels of ``fig_id``'s main-text version (its ``MAIN_PANELS``), or ``None`` if it has none."""
    panels = getattr(figure_module(fig_id), "MAIN_PANELS", None)
    return tuple(panels) if panels else None


def version_path(out_dir: Path, fig_id: str, version: str, fmt: str) -> Path:
    """Where a version of a figure is written: ``figN.<fmt>`` (full) or ``figN_main.<fmt>`` (main)."""
    return out_dir / (f"{fig_id}.{fmt}" if version == "full" else f"{fig_id}_{version}.{fmt}")


def figure_inputs(
    module: Any, quick: bool, pipeline: Pipeline, progress: Progress | None = None
) -> tuple[Inputs, dict[str, str]]:
    """A figure's typed inputs and their config hashes: its ``needs``, then its ``followups``
    (runs whose configuration reads a number of the first ones — a state at a time another run
    located, taken from that run's dense output rather than interpolated between samples)."""
    inputs, hashes = resolve(module.needs(quick), pipeline, progress)
    stages = getattr(module, "followups", ())
    for stage in stages if isinstance(stages, tuple) else (stages,):  # each stage reads the ones before
        more, more_hashes = resolve(stage(inputs, quick), pipeline)
        inputs = Inputs({**inputs.results, **more.results}, {**inputs.configs, **more.configs})
        hashes = {**hashes, **more_hashes}
    return inputs, hashes


def check_versions(fig_id: str, versions: Iterable[str]) -> tuple[str, ...]:
    """``versions`` in :data:`VERSIONS`' order, each known, ``"main"`` only for a figure with ``MAIN_PANELS``."""
    asked = set(versions)
    if not asked or asked - set(VERSIONS):
        raise ValueError(
            f"unknown figure version {', '.join(sorted(asked)) or '(none)'}; choose from {', '.join(VERSIONS)}"
        )
    if "main" in asked and main_panels(fig_id) is None:
        raise ValueError(f"{fig_id} has no main-text version; figures with one: {', '.join(with_main_version())}")
    return tuple(v for v in VERSIONS if v in asked)


def with_main_version() -> tuple[str, ...]:
    """The figures that declare ``MAIN_PANELS``, in :data:`FIGURES`' order."""
    return tuple(f for f in FIGURES if main_panels(f) is not None)


def check_formats(formats: Iterable[str]) -> tuple[str, ...]:
    out = tuple(dict.fromkeys(f.strip().lower().lstrip(".") for f in formats))
    bad = [f for f in out if f not in FORMATS]
    if not out or bad:
        raise ValueError(f"unsupported figure format {', '.join(bad) or '(none)'}; choose from {', '.join(FORMATS)}")
    return out


def render(
    fig_id: str,
    pipeline: Pipeline,
    out_dir: Path | str,
    formats: Sequence[str] = ("pdf", "png"),
    quick: bool = False,
    progress: Progress | None = None,
    layout: Layout | None = None,
    keep_unchanged: bool = False,
    versions: Sequence[str] = ("full",),
    check_layout: bool = False,
) -> Rendered:
    """Write ``out_dir/figN.<fmt>`` for each format and the sidecar ``out_dir/figN.json``;
    ``versions`` (of :data:`VERSIONS`) with ``"main"`` writes the main-text version
    ``out_dir/figN_main.<fmt>`` too (``("main",)``: only it, and the sidecar).

    PDF and SVG are vector with embedded TrueType fonts; PNG is 300 dpi. The sidecar holds the
    plotted numbers, the runs' config hashes and a provenance without time or command line, so an
    unchanged figure regenerates byte for byte on one machine. Returns the paths (sidecar last).

    ``keep_unchanged``: when ``out_dir`` already holds this figure drawn by the same renderer
    (:func:`renderer_fingerprint`) at the same configuration, and every regenerated number is within
    its stated ``--compare`` tolerance of the existing sidecar's, the existing files are kept, byte
    for byte, and nothing is written (``Rendered.kept``). Another CPU moves the last digits of
    the numbers, hence of the PDF's coordinates and the PNG's anti-aliasing: without this,
    regenerating committed figures on another machine would rewrite every file although no
    figure changed. The main-text version draws the same numbers, so it is kept exactly when the
    full figure is (its files must be there too) and redrawn with it otherwise.

    ``check_layout``: each version asked for is also held to :func:`gaugecli.plots.layout_check.offences`
    as drawn (a kept figure's versions are drawn for it), and its offences, one line each, are
    returned in ``Rendered.offences`` — checked after saving, so the files are those ``plot`` writes
    without the check.
    """
    from gaugecli.plots import style
    from gaugecli.store.artifacts import config_hash, dumps, package_version
    from gaugecli.store.atomic import atomic_write_text, check_writable

    module = figure_module(fig_id)
    formats = check_formats(formats)
    versions = check_versions(fig_id, versions)
    out_dir = Path(out_dir)
    files = {v: [version_path(out_dir, fig_id, v, fmt) for fmt in formats] for v in versions}
    images = [path for paths in files.values() for path in paths]
    sidecar_path = out_dir / f"{fig_id}.json"
    for target in [*images, sidecar_path]:
        check_writable(target, "--out-dir")  # before any computation
    layout = layout or default_layout()
    narrowest = getattr(module, "MIN_WIDTH", 0.0)
    if layout.width < narrowest:
        from gaugecli.experiments.declare import ConfigError

        raise ConfigError("width", f"{fig_id} needs at least {narrowest:g} in to stay legible (got {layout.width:g})")
    inputs, hashes = figure_inputs(module, quick, pipeline, progress)

    # the runs the figure declares; the hashes of all it read (followups included: those are
    # configured from numbers, so their hashes move with the last digits) are in the result
    declared = {name: config_hash(need.config) for name, need in module.needs(quick).items()}
    config: dict[str, Any] = {"figure": fig_id, "quick": quick, "requirements": declared}
    config["layout"] = {"venue": layout.venue, "width": layout.width}
    config["renderer"] = renderer_fingerprint()
    subject = "config hashes: " + (", ".join(f"{k}={v[:16]}" for k, v in hashes.items()) or "none (closed form)")
    with style.context(layout):
        fig, panels = module.build(inputs, layout)
        sidecar = sidecar_document(fig_id, config, hashes, panels)
        letters = tuple(k for k in panels if len(k) == 1)

        def drawn(version: str) -> Any:
            """The figure of ``version``: the main one is drawn from the same inputs, fewer panels
            (unless they are all of the full figure's)."""
            if version == "main" and main_panels(fig_id) != letters:
                return module.build(inputs, replace(layout, panels=main_panels(fig_id)))[0]
            return fig

        if keep_unchanged and _unchanged(sidecar_path, sidecar, images):
            offences = _offences({v: drawn(v) for v in files}) if check_layout else []
            return Rendered(images + [sidecar_path], kept=True, offences=offences)
        shown = {}
        for version, paths in files.items():
            shown[version] = drawn(version)
            title = f"gaugecli {fig_id}" + (" (main text)" if version == "main" else "")
            freeze_layout(shown[version])
            for path in paths:
                save_figure(shown[version], path, title=title, subject=subject, version=package_version())
        offences = _offences(shown) if check_layout else []
    atomic_write_text(sidecar_path, dumps(sidecar), "--out-dir")
    return Rendered(images + [sidecar_path], kept=False, offences=offences)


def _offences(figures: dict[str, Any]) -> list[str]:
    """Every layout offence of each version's figure, ``"<version>: <offence>"``."""
    from gaugecli.plots.layout_check import offences

    return [f"{version}: {line}" for version, fig in figures.items() for line in offences(fig)]


class Rendered(Sequence[Path]):
    """The paths of one rendered figure (images in the order asked, sidecar last); ``kept`` is
    true when the existing files were left as they were (:func:`render`'s ``keep_unchanged``);
    ``offences``: the layout check's findings where it was asked for (``check_layout``); ``warnings``:
    what the cache said while a worker read the figure's runs (:func:`render_from_cache`: a damaged
    artifact, recomputed), for the calling command to say."""

    def __init__(self, paths: list[Path], kept: bool, offences: Sequence[str] = ()) -> None:
        self.paths, self.kept, self.offences = list(paths), kept, list(offences)
        self.warnings: list[str] = []

    @overload
    def __getitem__(self, i: int) -> Path: ...
    @overload
    def __getitem__(self, i: slice) -> list[Path]: ...
    def __getitem__(self, i: int | slice) -> Path | list[Path]:
        return self.paths[i]

    def __len__(self) -> int:
        return len(self.paths)

    def __repr__(self) -> str:
        return f"Rendered({self.paths!r}, kept={self.kept})"


def renderer_fingerprint() -> str:
    """What draws a figure from its numbers: the source of the plotting package (apart from the
    ``--compare`` rules) and the matplotlib and tueplots versions, hashed (16 hex digits). Files
    drawn by another fingerprint are redrawn even when their numbers are unchanged."""
    import hashlib
    from importlib.metadata import PackageNotFoundError, version

    def installed(dist: str) -> str:
        try:
            return version(dist)
        except PackageNotFoundError:
            return "absent"

    digest = hashlib.sha256()
    for source in sorted(Path(__file__).parent.glob("*.py")):
        if source.name not in ("sidecar.py", "layout_check.py"):  # they check figures, they draw nothing
            digest.update(source.name.encode() + b"\0" + source.read_bytes().replace(b"\r\n", b"\n"))
    digest.update(f"matplotlib {installed('matplotlib')} tueplots {installed('tueplots')}".encode())
    return digest.hexdigest()[:16]


def _unchanged(sidecar_path: Path, sidecar: dict[str, Any], images: list[Path]) -> bool:
    """Whether the files at hand already show this figure: same configuration and renderer, every
    number within its ``--compare`` tolerance, every image present."""
    from gaugecli.plots.sidecar import compare_sidecars

    if not sidecar_path.is_file() or not all(p.is_file() for p in images):
        return False
    from gaugecli.store.artifacts import read_artifact
    from gaugecli.store.errors import ArtifactError

    try:  # an edited sidecar, or one without its hashes, is redrawn: kept, it would pass as generated
        existing = read_artifact(sidecar_path, "figure")
    except ArtifactError:
        return False
    if existing.get("config") != sidecar["config"]:
        return False
    return not compare_sidecars(existing, sidecar)


def render_from_cache(
    fig_id: str,
    cache_root: str,
    out_dir: Path | str,
    formats: Sequence[str],
    quick: bool,
    layout: Layout,
    keep_unchanged: bool = False,
    written: Sequence[tuple[str, str]] = (),
    versions: Sequence[str] = ("full",),
    check_layout: bool = False,
) -> Rendered:
    """:func:`render` in a worker process, from a cache that already holds the figure's runs
    (``plot`` prefetches them first, so nothing is computed twice); ``written``: the ``(kind, hash)``
    of those the calling command has just computed itself (read without re-verifying them). The
    others are verified here, once (the calling command looked for their files only): a damaged one is
    recomputed, and the cache's warning comes back in ``Rendered.warnings``."""
    warnings: list[str] = []
    pipeline = Pipeline(cache_root, written=set(written), warn=warnings.append)
    rendered = render(
        fig_id,
        pipeline,
        out_dir,
        formats=formats,
        quick=quick,
        layout=layout,
        keep_unchanged=keep_unchanged,
        versions=versions,
        check_layout=check_layout,
    )
    rendered.warnings = warnings
    return rendered


def freeze_layout(fig: Any) -> None:
    """Lay ``fig`` out once (constrained layout, text measured without rasterising), then freeze it:
    every format gets the same geometry, whatever was saved before.

    The layout is what ``Figure.draw`` does before it draws anything — fixed aspects applied, then
    the engine run — without the draw that follows it in ``draw_without_rendering`` (a quarter of its
    time, redone by every save anyway): the files are byte for byte those of the full draw
    (``tests/test_freeze_layout.py``). The engine is removed, not replaced by ``"none"``'s placeholder:
    ``savefig`` lays text out once more before each save whenever an engine is set (a third of a
    PDF's time). ``set_layout_engine(None)`` removes it because the house style turns
    ``figure.constrained_layout.use`` off (otherwise it would install a new constrained engine, and
    each later save would lay the figure out again at its dpi)."""
    engine = fig.get_layout_engine()
    if fig.axes and engine is not None:
        renderer = fig.canvas.get_renderer()
        for ax in fig.axes:  # Figure._get_draw_artists: the aspects first, as a draw does
            for target in (ax, *(c for c in ax.get_children() if hasattr(c, "apply_aspect"))):
                locator = target.get_axes_locator()
                target.apply_aspect(locator(target, renderer) if locator else None)
        engine.execute(fig)
    fig.set_layout_engine(None)
    if fig.get_layout_engine() is not None:
        raise RuntimeError("freeze_layout needs the house style's rcParams (figure.constrained_layout.use off)")


def save_figure(fig: Any, path: Path, *, title: str, subject: str, version: str, flag: str = "--out-dir") -> Path:
    """Save ``fig`` atomically in the format of ``path``'s suffix, with reproducible metadata."""
    from gaugecli.store.atomic import atomic_target

    fmt = check_formats([path.suffix or ".pdf"])[0]
    creator = f"gaugecli {version}"
    metadata: dict[str, Any]
    if fmt == "pdf":
        metadata = {"Creator": creator, "Subject": subject, "Title": title, "CreationDate": None, "Producer": None}
    elif fmt == "png":
        metadata = {"Software": creator, "Description": subject, "Title": title}
    else:  # svg (Dublin Core keys)
        metadata = {"Creator": creator, "Description": subject, "Title": title, "Date": None}
    with atomic_target(path, flag) as tmp:
        fig.savefig(tmp, format=fmt, dpi=300 if fmt == "png" else "figure", metadata=metadata)
    return path


def sidecar_document(
    fig_id: str, config: dict[str, Any], hashes: dict[str, str], panels: dict[str, Any]
) -> dict[str, Any]:
    """``figN.json``: a ``figure`` artifact whose provenance has no seed and no timestamps — what
    made it (version, commit, packages), nothing of when and not the command line, so any command
    that draws the figure rewrites it byte for byte unless a number moved. ``--compare`` checks its
    hashes as every reader does, then compares its ``result`` only."""
    from gaugecli.store.artifacts import config_hash, result_hash, schema_name, stable_provenance
    from gaugecli.store.schemas import validate

    config = json.loads(json.dumps(config))  # as read back: tuples become lists
    result = {"figure": fig_id, "config_hashes": hashes, "panels": json.loads(json.dumps(panels))}
    sidecar = {
        "schema": schema_name("figure"),
        "config": config,
        "config_hash": config_hash(config),
        # what made it, nothing of when or of how it was asked for: `plot fig3` and `plot all` write
        # the same bytes (the runs' artifacts record the command line)
        "provenance": {k: v for k, v in stable_provenance().items() if k != "command_line"},
        "result": result,
        # checked by every reader (`--compare`, `validate`, `load`): a hand-edited committed figure is refused
        "result_hash": result_hash(result),
    }
    validate(sidecar)
    return sidecar


def write_sidecar(
    path: Path, fig_id: str, config: dict[str, Any], hashes: dict[str, str], panels: dict[str, Any]
) -> Path:
    """Write :func:`sidecar_document` to ``path`` atomically."""
    from gaugecli.store.artifacts import dumps
    from gaugecli.store.atomic import atomic_write_text

    atomic_write_text(path, dumps(sidecar_document(fig_id, config, hashes, panels)), "--out-dir")
    return path
