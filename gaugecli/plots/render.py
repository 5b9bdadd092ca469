"""Drawing a figure: its runs through the pipeline, its panels, its files.

* :func:`requirements` — the runs a figure needs (``quick`` = a coarser profile for tests);
* :func:`figure_data` — those runs' results by name, from the cache or computed (one
  :class:`gaugecli.pipeline.Pipeline` for all figures, so figures share runs);
* :func:`render` — ``figN.pdf``/``.png``/``.svg`` and the sidecar ``figN.json`` with the
  numbers plotted. Every file is written atomically.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

from gaugecli.pipeline import Inputs, Need, Pipeline, resolve
from gaugecli.plots import FIGURES
from gaugecli.plots.venue import Layout
from gaugecli.plots.venue import layout as default_layout

FORMATS = ("pdf", "png", "svg")

__all__ = ["FORMATS", "Inputs", "Need", "Requirement", "UnknownFigureError", "render", "requirements", "resolve"]

Warn = Callable[[str], None]
Progress = Callable[[float], None]


class UnknownFigureError(ValueError):
    """A figure id that is not one of :data:`FIGURES`; the message lists the valid ids."""

    def __init__(self, fig_id: str) -> None:
        super().__init__(f"unknown figure {fig_id!r}; choose one of {', '.join(FIGURES)} (or 'all')")
        self.fig_id = fig_id


@dataclass(frozen=True)
class Requirement:
    """One run a figure reads: experiment ``kind``, a ``name`` the figure knows it by, its ``config``."""

    kind: str
    name: str
    config: Any


def figure_module(fig_id: str) -> Any:
    if fig_id not in FIGURES:
        raise UnknownFigureError(fig_id)
    return import_module(f"gaugecli.plots.{fig_id}")


def requirements(fig_id: str, quick: bool = False) -> list[Requirement]:
    """The runs figure ``fig_id`` needs, in the order it reads them."""
    return list(figure_module(fig_id).requirements(quick))


def _part(progress: Progress | None, i: int, n: int) -> Progress | None:
    return None if progress is None else (lambda f: progress(min(1.0, (i + min(max(f, 0.0), 1.0)) / n)))


def figure_data(
    fig_id: str, pipeline: Pipeline, *, quick: bool = False, progress: Progress | None = None
) -> tuple[dict[str, Any], dict[str, str], dict[str, Any]]:
    """``(data, config_hashes, parameters)`` for ``figN.build``: each requirement's result by
    name (and every configuration, by name, under ``data["_configs"]``), the hash of each, and
    any closed-form parameters (fig1). Runs of one kind are ensured together (simulate batches)."""
    module = figure_module(fig_id)
    reqs = requirements(fig_id, quick)
    data: dict[str, Any] = {"_configs": {}}
    hashes: dict[str, str] = {}
    kinds = list(dict.fromkeys(r.kind for r in reqs))
    for i, kind in enumerate(kinds):
        same = [r for r in reqs if r.kind == kind]
        outcomes = pipeline.ensure_all(kind, [r.config for r in same], _part(progress, i, len(kinds)))
        for req, outcome in zip(same, outcomes, strict=True):
            data[req.name] = outcome.artifact["result"]
            data["_configs"][req.name] = outcome.artifact["config"]
            hashes[req.name] = outcome.artifact["config_hash"]
    parameters: dict[str, Any] = {}
    if hasattr(module, "closed_form_data"):  # fig1: closed forms, no integration
        closed = module.closed_form_data(quick)
        data.update(closed)
        parameters = closed.get("parameters", {})
    if progress is not None:
        progress(1.0)
    return data, hashes, parameters


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
) -> list[Path]:
    """Write ``out_dir/figN.<fmt>`` for each format and the sidecar ``out_dir/figN.json``.

    PDF and SVG are vector with embedded TrueType fonts; PNG is 300 dpi. The sidecar holds the
    plotted numbers and the runs' config hashes — no timestamps, so an unchanged figure
    regenerates byte for byte. Returns the paths written (sidecar last).
    """
    from gaugecli.plots import style
    from gaugecli.store.artifacts import package_version
    from gaugecli.store.atomic import check_writable

    module = figure_module(fig_id)
    formats = check_formats(formats)
    out_dir = Path(out_dir)
    for target in [out_dir / f"{fig_id}.{fmt}" for fmt in formats] + [out_dir / f"{fig_id}.json"]:
        check_writable(target, "--out-dir")  # before any computation
    layout = layout or default_layout()
    narrowest = getattr(module, "MIN_WIDTH", 0.0)
    if layout.width < narrowest:
        from gaugecli.experiments.common import ConfigError

        raise ConfigError("width", f"{fig_id} needs at least {narrowest:g} in to stay legible (got {layout.width:g})")
    if hasattr(module, "needs"):
        inputs, hashes = resolve(module.needs(quick), pipeline, progress)
        parameters: dict[str, Any] = {}
    else:  # a figure still on the first protocol: results as JSON by name
        data, hashes, parameters = figure_data(fig_id, pipeline, quick=quick, progress=progress)

    written: list[Path] = []
    subject = "config hashes: " + (", ".join(f"{k}={v[:16]}" for k, v in hashes.items()) or "none (closed form)")
    with style.context(layout if hasattr(module, "needs") else None):
        fig, panels = module.build(inputs, layout) if hasattr(module, "needs") else module.build(data)
        # lay out once, then freeze: every format gets the same geometry, whatever was saved before
        fig.canvas.draw()
        fig.set_layout_engine("none")
        for fmt in formats:
            path = out_dir / f"{fig_id}.{fmt}"
            save_figure(fig, path, title=f"gaugecli {fig_id}", subject=subject, version=package_version())
            written.append(path)
    config: dict[str, Any] = {"figure": fig_id, "quick": quick, "requirements": hashes}
    if hasattr(module, "needs"):
        config["layout"] = {"venue": layout.venue, "width": layout.width}
    if parameters:
        config["parameters"] = parameters
    written.append(write_sidecar(out_dir / f"{fig_id}.json", fig_id, config, hashes, panels))
    return written


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


def write_sidecar(
    path: Path, fig_id: str, config: dict[str, Any], hashes: dict[str, str], panels: dict[str, Any]
) -> Path:
    """``figN.json``: a ``figure`` artifact without provenance (nothing in it changes unless a number does)."""
    from gaugecli.store.artifacts import config_hash, dumps, schema_name
    from gaugecli.store.atomic import atomic_write_text
    from gaugecli.store.schemas import validate

    sidecar = {
        "schema": schema_name("figure"),
        "config": config,
        "config_hash": config_hash(config),
        "result": {"figure": fig_id, "config_hashes": hashes, "panels": json.loads(json.dumps(panels))},
    }
    validate(sidecar)
    atomic_write_text(path, dumps(sidecar), "--out-dir")
    return path
