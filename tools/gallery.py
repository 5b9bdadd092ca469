"""docs/gallery.md, generated from the committed figures: one ``## <figure>`` section per figure of
``figures/`` — its PNG linked to its PDF, its claim (the module's ``CLAIM``) and the claims
``gaugecli verify`` checks on it, a caption rendered from the figure's ``CAPTION`` template and
``READINGS`` (:mod:`gaugecli.plots.readings`), a collapsible table of every quoted number with its
sidecar path, the longer reading (the module's ``READING``, rendered from the same readings) collapsed,
and the commands that regenerate the figure and print its numbers, with the cost of a cold
regeneration measured once (tools/figure_costs.json: machine, date and seconds per figure). A figure that
declares no readings gets the plain section (picture, claim, commands).

    python tools/gallery.py            # print the page
    python tools/gallery.py --write    # write docs/gallery.md (`make docs` runs this)
    python tools/gallery.py --check    # exit 1 if docs/gallery.md is stale

Every number on the page is printed from a sidecar (tests/test_gallery.py checks it). A figure whose
module declares ``RELATED_WORK`` (a template of its readings, like ``READING``) also fills the block
``<!-- <figure>:numbers -->`` … ``<!-- /<figure>:numbers -->`` of docs/related-work.md from its sidecar;
one whose module declares ``REGENERATE`` (a figure outside ``plot all``, drawn from committed data) gets
that command too.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
FIGURES_DIR = ROOT / "figures"
PAGE = ROOT / "docs" / "gallery.md"
RELATED = ROOT / "docs" / "related-work.md"
COSTS = ROOT / "tools" / "figure_costs.json"

from gaugecli.plots import FIGURES  # noqa: E402 (the repository root first: run as a script)
from gaugecli.plots import readings as R  # noqa: E402

INTRO = (
    "Every figure committed in `figures/`, generated from its files by `tools/gallery.py` (`make docs`). "
    "Each figure is a vector PDF, a PNG and a JSON sidecar holding every plotted number at full precision; "
    "every number in a caption below is printed from that sidecar at the precision shown, never typed, and "
    "`gaugecli numbers FIGURE --format tex` prints the same numbers as LaTeX macros with their provenance."
)


def verify_lines() -> dict[str, list[str]]:
    """Figure → the claims ``gaugecli verify`` checks on it, as ``ID: statement``."""
    from gaugecli.verify.beyond import CLAIMS as BEYOND
    from gaugecli.verify.paper import CLAIMS as PAPER

    out: dict[str, list[str]] = {}
    for claim in [*PAPER, *BEYOND]:
        if claim.figure:
            out.setdefault(claim.figure, []).append(f"{claim.id}: {claim.statement}")
    return out


def costs() -> dict:
    """The measured cost of each figure's cold regeneration (tools/figure_costs.json)."""
    return json.loads(COSTS.read_text(encoding="utf-8")) if COSTS.is_file() else {}


def _cost(figure: str, measured: dict) -> str:
    """`` · cold: about 9 s (8 CPU-s) on <machine>, <date>`` (whole seconds: a cold timing on a shared
    machine varies by more than that), or nothing when the figure was not measured."""
    row = measured.get("seconds", {}).get(figure)
    if not row:
        return ""
    return (
        f" · from an empty cache: about {round(row['wall'])} s ({round(row['cpu'])} CPU-s) on "
        f"{measured['machine']}, {measured['date']}"
    )


def _redraw(figure: str) -> str | None:
    """The command that redraws a figure kept outside ``plot all`` from its committed data (its
    module's ``REGENERATE``), or None."""
    from importlib import import_module

    return getattr(import_module(f"gaugecli.plots.{figure}"), "REGENERATE", None)


def related_work(page: str, figures_dir: Path = FIGURES_DIR) -> str:
    """``page`` (docs/related-work.md) with each figure's numbers block rendered from its sidecar: the
    module's ``RELATED_WORK`` template with its readings printed (a figure not committed leaves its block)."""
    import re
    from importlib import import_module

    for figure in FIGURES:
        template = getattr(import_module(f"gaugecli.plots.{figure}"), "RELATED_WORK", None)
        path = figures_dir / f"{figure}.json"
        if template is None or not path.is_file():
            continue
        quoted = R.resolve(figure, json.loads(path.read_text(encoding="utf-8")))
        text = template.format_map({q.reading.name: q.text for q in quoted})
        begin, end = f"<!-- {figure}:numbers -->", f"<!-- /{figure}:numbers -->"
        pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.DOTALL)
        block = f"{begin}\n{text}\n{end}"
        page = pattern.sub(lambda _, block=block: block, page)
    return page


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _claim(figure: str) -> str:
    from importlib import import_module

    return " ".join(str(getattr(import_module(f"gaugecli.plots.{figure}"), "CLAIM", "")).split())


def _main_panels(figure: str) -> tuple[str, ...]:
    from gaugecli.plots.render import main_panels

    return main_panels(figure) or ()


def section(figure: str, sidecar: dict | None, checks: list[str], measured: dict | None = None) -> list[str]:
    """The page's section of one figure."""
    lines = [f"## {figure}", "", f"[![{figure}](figures/{figure}.png)](figures/{figure}.pdf)", ""]
    claim = _claim(figure)
    if claim:
        lines += [f"**Claim.** {claim}", ""]
    if checks:
        lines += ["**Checked by `gaugecli verify`.** " + "; ".join(checks), ""]
    quoted = R.resolve(figure, sidecar) if sidecar is not None and R.declared(figure) else []
    caption = R.caption(figure, quoted) if quoted else None
    if caption:
        lines += [caption, ""]
    if quoted:
        lines += [
            '<details markdown="1">',
            f"<summary>The {len(quoted)} quoted numbers, from the sidecar</summary>",
            "",
            "| macro | printed | meaning | sidecar path |",
            "|---|---|---|---|",
        ]
        lines += [f"| `\\{q.macro}` | {q.text} | {_cell(q.reading.meaning)} | `{q.reading.pointer}` |" for q in quoted]
        lines += ["", "</details>", ""]
    reading = R.long_reading(figure, quoted) if quoted else None
    if reading:
        lines += ['<details markdown="1">', "<summary>The longer reading</summary>", "", reading, "", "</details>", ""]
    provenance = (sidecar or {}).get("provenance") or {}
    files = f"[PDF](figures/{figure}.pdf) · [sidecar (JSON)](figures/{figure}.json)"
    if (FIGURES_DIR / f"{figure}_main.pdf").is_file():  # its main-text version (`plot --layout main`)
        files += f" · [main-text version](figures/{figure}_main.pdf) (panels {', '.join(_main_panels(figure))})"
    if sidecar is not None:
        files += (
            f" · config `{str(sidecar.get('config_hash'))[:12]}` · commit `{str(provenance.get('git_commit'))[:12]}`"
        )
    lines += [
        files,
        "",
        f"Regenerate: `gaugecli plot {figure} --out-dir figures`"
        + _cost(figure, measured or {})
        + (f" · its numbers: `gaugecli numbers {figure} --format tex`" if quoted else ""),
        "",
    ]
    if (redraw := _redraw(figure)) is not None:
        lines += [f"Outside `plot all`; redraw it from its committed study in seconds: `{redraw}`", ""]
    return lines


def gallery_markdown(figures_dir: Path = FIGURES_DIR) -> str:
    """The whole page: an introduction, then each committed figure in :data:`FIGURES` order."""
    checks = verify_lines()
    measured = costs()
    lines = ["# Figure gallery", "", INTRO, ""]
    for figure in FIGURES:
        if not (figures_dir / f"{figure}.png").is_file():
            continue
        path = figures_dir / f"{figure}.json"
        sidecar = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
        try:
            lines += section(figure, sidecar, checks.get(figure, []), measured)
        except KeyError as error:  # a sidecar older than its module's READINGS: say which, and the cure
            raise SystemExit(
                f"{path.relative_to(ROOT)} is stale ({error.args[0]}): run `gaugecli plot {figure} --out-dir figures`"
            ) from None
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help="write docs/gallery.md")
    group.add_argument("--check", action="store_true", help="exit 1 if docs/gallery.md is stale")
    args = parser.parse_args(argv)
    page = gallery_markdown()
    related = RELATED.read_text(encoding="utf-8")
    if args.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.is_file() else ""
        if current != page or related_work(related) != related:
            print("docs/gallery.md or docs/related-work.md is stale: run `make docs`", file=sys.stderr)
            return 1
        return 0
    if args.write:
        for target, text in ((PAGE, page), (RELATED, related_work(related))):
            tmp = target.with_suffix(".md.tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(target)  # atomic: a reader never sees half a page
        return 0
    sys.stdout.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
