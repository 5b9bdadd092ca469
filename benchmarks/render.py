"""What ``plot all`` costs once every run is cached: drawing, per figure and per phase, in CPU-seconds;
and the file formats' options side by side.

    python benchmarks/render.py --cache-dir build/runs              # every figure of plot all, both versions
    python benchmarks/render.py --cache-dir build/runs fig3 fig8    # these figures only
    python benchmarks/render.py --cache-dir build/runs --options    # + the formats' options, alternating

The runs must be cached (a ``plot all`` into that cache first); files go to a temporary folder.

Phases, each figure version drawn as :func:`gaugecli.plots.render.render` draws it: ``inputs``
(reading its runs), ``build``, ``layout`` (:func:`~gaugecli.plots.render.freeze_layout`), ``pdf``
(of it ``pdf.subset``: fontTools' subsetting of each embedded font), ``png`` (of it ``png.agg``: the
Agg draw at 300 dpi, and ``png.encode``: Pillow's zlib encoding), ``sidecar``, ``check`` (``plot
--check-layout``). The three sub-phases are timed by wrapping, for this measurement only, the public
methods that do them (``fontTools.subset.Subsetter.subset``, ``FigureCanvasAgg.draw``,
``PIL.Image.Image.save``).

``--options`` saves every version, built and laid out once, under each option in turn, alternating
over ``--rounds`` rounds (the machine's load moves every time; compare within a round): the PDF with
its fonts embedded as TrueType (``pdf.fonttype`` 42, the house style) or as Type 3 glyph procedures
(``pdf.fonttype`` 3 — matplotlib 3.11 sizes the PDF's glyph subsets by ``ps.fonttype``, so both are
set); the PNG at Pillow's zlib levels 6 (its default, the house style's), 3 and 1. CPU-s and bytes
of all files of each.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import functools
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

SPENT: collections.defaultdict[str, float] = collections.defaultdict(float)
"""CPU-s of each phase so far."""

OPTIONS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "pdf TrueType (42)": ("pdf", {"pdf.fonttype": 42, "ps.fonttype": 42}, {}),
    "pdf Type 3": ("pdf", {"pdf.fonttype": 3, "ps.fonttype": 3}, {}),
    "png zlib 6": ("png", {}, {}),
    "png zlib 3": ("png", {}, {"compress_level": 3}),
    "png zlib 1": ("png", {}, {"compress_level": 1}),
}
"""name: (format, rcParams, Pillow's keywords) of each option ``--options`` compares."""


def timed(owner: Any, name: str, phase: str) -> None:
    """Add the CPU time of ``owner.name``'s calls to ``SPENT[phase]`` (the method wrapped in place)."""
    method = getattr(owner, name)

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return method(*args, **kwargs)
        finally:
            SPENT[phase] += time.process_time() - started

    setattr(owner, name, wrapper)


@contextlib.contextmanager
def clock(phase: str) -> Iterator[None]:
    """Add the CPU time inside to ``SPENT[phase]``."""
    started = time.process_time()
    try:
        yield
    finally:
        SPENT[phase] += time.process_time() - started


def draw(fig_ids: list[str], cache_dir: str, out: Path, check: bool) -> dict[str, Any]:
    """Every version of each figure drawn as ``render`` does; the figures (for ``--options``)."""
    import fontTools.subset
    import PIL.Image
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from gaugecli.pipeline import Pipeline
    from gaugecli.plots import render as R
    from gaugecli.plots import style
    from gaugecli.plots.venue import layout
    from gaugecli.store.artifacts import dumps, package_version
    from gaugecli.store.atomic import atomic_write_text

    timed(fontTools.subset.Subsetter, "subset", "pdf.subset")
    timed(FigureCanvasAgg, "draw", "png.agg")
    timed(PIL.Image.Image, "save", "png.encode")
    pipe, sizes, figures = Pipeline(cache_dir), layout(), {}
    mains = set(R.with_main_version())
    print(f"{'figure':<14}" + "".join(f"{p:>11}" for p in PHASES) + f"{'total':>9}")
    for fig_id in fig_ids:
        before, started = SPENT.copy(), time.process_time()
        module = R.figure_module(fig_id)
        with clock("inputs"):
            inputs, hashes = R.figure_inputs(module, False, pipe)
        with style.context(sizes):
            with clock("build"):
                fig, panels = module.build(inputs, sizes)
            with clock("sidecar"):
                sidecar = R.sidecar_document(fig_id, {"figure": fig_id}, hashes, panels)
                atomic_write_text(out / f"{fig_id}.json", dumps(sidecar), "--out-dir")
            versions = {"full": fig}
            wanted = R.main_panels(fig_id) if fig_id in mains else None
            if wanted is not None:
                with clock("build"):  # the main version is built anew unless it has every panel
                    same = wanted == tuple(k for k in panels if len(k) == 1)
                    versions["main"] = fig if same else module.build(inputs, replace(sizes, panels=wanted))[0]
            for version, shown in versions.items():
                with clock("layout"):
                    R.freeze_layout(shown)
                for fmt in ("pdf", "png"):
                    with clock(fmt):
                        path = R.version_path(out, fig_id, version, fmt)
                        R.save_figure(shown, path, title=fig_id, subject="", version=package_version())
                figures[f"{fig_id} {version}"] = shown
            if check:
                with clock("check"):
                    R._offences(versions)
        spent = {p: SPENT[p] - before.get(p, 0.0) for p in PHASES}
        total = time.process_time() - started
        print(f"{fig_id:<14}" + "".join(f"{spent[p]:>11.2f}" for p in PHASES) + f"{total:>9.2f}")
    print(f"{'all':<14}" + "".join(f"{SPENT[p]:>11.2f}" for p in PHASES))
    return figures


PHASES = ("inputs", "build", "layout", "pdf", "pdf.subset", "png", "png.agg", "png.encode", "sidecar", "check")


def compare_options(figures: dict[str, Any], out: Path, rounds: int) -> None:
    """Each :data:`OPTIONS` on every version, alternating, ``rounds`` times: CPU-s and bytes."""
    import matplotlib

    from gaugecli.plots import style
    from gaugecli.plots.venue import layout

    spent: dict[str, list[float]] = collections.defaultdict(list)
    size: dict[str, int] = {}
    with style.context(layout()):  # the house style the figures were drawn in
        for _ in range(rounds):
            for name, (fmt, rc, pil) in OPTIONS.items():
                folder = out / name.replace(" ", "_")
                folder.mkdir(exist_ok=True)
                extra = {"pil_kwargs": pil} if pil else {}
                started = time.process_time()
                with matplotlib.rc_context(rc):  # type: ignore[arg-type]  # stubs key it by a Literal of every name
                    for key, fig in figures.items():
                        fig.savefig(
                            folder / f"{key.replace(' ', '_')}.{fmt}",
                            format=fmt,
                            dpi=300 if fmt == "png" else "figure",
                            **extra,
                        )
                spent[name].append(time.process_time() - started)
                size[name] = sum(p.stat().st_size for p in folder.iterdir())
    print(f"\n{'option':<20}{'CPU-s, each round':>28}{'MB':>8}   ({len(figures)} files each)")
    for name in OPTIONS:
        print(f"{name:<20}{', '.join(f'{s:.2f}' for s in spent[name]):>28}{size[name] / 1e6:>8.3f}")


def main() -> None:
    from gaugecli.plots import FIGURES, OUTSIDE_ALL

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("figures", nargs="*", help="figure ids (default: those of plot all)")
    parser.add_argument("--cache-dir", default="build/runs", help="a cache holding the figures' runs")
    parser.add_argument("--no-check", action="store_true", help="without the layout check (plot's default)")
    parser.add_argument("--options", action="store_true", help="also compare the formats' options")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of --options (default 2)")
    args = parser.parse_args()
    fig_ids = args.figures or [f for f in FIGURES if f not in OUTSIDE_ALL]
    unknown = [f for f in fig_ids if f not in FIGURES]
    if unknown:
        sys.exit(f"unknown figure {', '.join(unknown)}; choose from {', '.join(FIGURES)}")
    with tempfile.TemporaryDirectory() as tmp:
        figures = draw(fig_ids, args.cache_dir, Path(tmp), check=not args.no_check)
        if args.options:
            compare_options(figures, Path(tmp), args.rounds)


if __name__ == "__main__":
    main()
