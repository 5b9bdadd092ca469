"""The numbers of the documentation pages, printed from data, never typed.

A page marks every number it quotes with the expression that computes it and the precision it is
printed at, in an HTML comment just before the printed text::

    <!-- numbers: predict-one-feature -->
    … argmax c·α names the owner in <!--{k1.m2.rho0.c-alpha:.0%}-->77% of runs …
    <!-- /numbers -->

The region's opening line names the data (:func:`source`): ``figure:NAME``, a committed figure's
sidecar (its readings by name, or a path in its ``result``: ``figure:fig10`` and ``CAlphaAtZero``);
``benchmarks``, ``benchmarks/results.json`` (a path from a row's id: ``f3/data/seconds``);
``tool:NAME``, the JSON ``tools/NAME.py`` writes beside itself (``tool:momentum_exponent``);
``benchmarks:NAME``, a JSON a benchmark writes into benchmarks/ (``benchmarks:phase_scaling``); or ``NAME``,
``docs/data/NAME.json``, written by the one command ``docs/data/sources.toml`` gives for it
(``python tools/doc_numbers.py --run NAME`` runs it): the artifact of a run that is no figure's (its
config and config hash inside, and ``--out`` writes the TOML that reruns it beside it), or the
``numbers`` a ``python tools/…`` script computes, with its command and provenance. An
expression is a name of the source's view (a ``predict`` study's is :mod:`tools.doc_views`), a path
``a/b/0`` into it, or ``min(P, …)``/``max(P, …)`` over the names matching the patterns ``P``
(``fnmatch``; ``!P`` leaves those out) or, where no name matches, over the numbers at the paths ``P``
(a list's elements each, its nulls left out); ``EXPR@SOURCE`` reads another source than the region's.
A table too long to mark number by number is printed whole: ``<!-- table: benchmarks -->`` …
``<!-- /table -->`` holds the lines of which run measured which rows and the table of
``benchmarks/results.json`` (:func:`_results.block`, what ``benchmarks/run.py`` writes into
results.md), rewritten from the file on each rendering.
The format is :func:`gaugecli.plots.readings.printed`'s (``.2f``, ``.0%``, ``.3g``, ``.1e``): the one
function every generated number goes through.

Why comments: GitHub and mkdocs both hide them, so the page reads as plain Markdown in either, the
source keeps its prose where a writer edits it (no template beside the page to keep in step), and
each number carries its provenance where it stands. ``make docs`` rewrites the printed texts in place
(:func:`render` is idempotent); ``tests/test_doc_numbers.py`` checks that every page is current and
that every decimal of the pages' prose is generated, a reading, or an input it recognises.

    python tools/doc_numbers.py            # rewrite the marked numbers of every page (`make docs`)
    python tools/doc_numbers.py --check    # exit 1 naming each page whose numbers are stale
    python tools/doc_numbers.py --run NAME # run NAME's command (docs/data/sources.toml) into docs/data/
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))  # doc_views, beside this file, also when a test loads it by path
DOCS = ROOT / "docs"
DATA = DOCS / "data"
SOURCES = DATA / "sources.toml"

from gaugecli.plots import readings as R  # noqa: E402 (the repository root first: run as a script)

# a printed number: what readings.printed writes (sign, digits, fraction, exponent, percent)
PRINTED = r"-?\d+(?:\.\d+)?(?:e-?\d+)?%?"
MARK = re.compile(r"<!--\{(?P<expr>[^{}]+):(?P<format>\.\d+[efg%])\}-->(?P<text>" + PRINTED + ")?")
REGION = re.compile(r"<!-- numbers: (?P<source>\S+) -->(?P<body>.*?)<!-- /numbers -->", re.DOTALL)
TABLE = re.compile(r"<!-- table: (?P<source>\S+) -->\n(?P<body>.*?)<!-- /table -->", re.DOTALL)
"""A block written whole from its data (only ``benchmarks`` has one: its table of results)."""
GENERATED = ("cli.md", "reference.md", "gallery.md")
"""Pages written whole by a generator, with their own checks (tests/test_docs.py, test_gallery.py)."""


@dataclass(frozen=True)
class View:
    """A source's numbers: ``flat`` by name (what ``min``/``max`` patterns range over) and ``tree``,
    the nested data a path walks; ``origin`` says where they were read."""

    origin: str
    flat: Mapping[str, float]
    tree: Any

    def value(self, expr: str) -> float:
        """The number ``expr`` names: a name, a ``/`` path, or ``min(…)``/``max(…)`` of names."""
        expr = expr.strip()
        call = re.fullmatch(r"(min|max)\((.+)\)", expr)
        if call:
            patterns = [p.strip() for p in call[2].split(",")]
            names = self.matching(patterns)
            values = [float(self.flat[n]) for n in names] if names else self._listed(patterns)
            if not values:
                raise KeyError(f"{self.origin}: no number matches {expr!r}")
            return min(values) if call[1] == "min" else max(values)
        if expr in self.flat:
            return float(self.flat[expr])
        node = self._node(expr)
        if not _is_number(node):
            raise KeyError(f"{self.origin}: {expr!r} is {node!r}, not a number")
        return float(node)

    def _node(self, path: str) -> Any:
        node = self.tree
        for key in path.split("/"):
            if isinstance(node, list) and key.lstrip("-").isdigit():
                node = node[int(key)]
            elif isinstance(node, dict) and key in node:
                node = node[key]
            else:
                raise KeyError(f"{self.origin}: no number {path!r}")
        return node

    def _listed(self, paths: list[str]) -> list[float]:
        """The numbers at ``paths`` in the tree, a list's numbers each (its nulls left out): what
        ``min``/``max`` range over when no flat name matches (``min(panels/b/runs/roundoff)``)."""
        nodes = [self._node(p) for p in paths if not p.startswith("!")]
        items = [x for n in nodes for x in (n if isinstance(n, list) else [n])]
        return [float(x) for x in items if _is_number(x)]

    def matching(self, patterns: list[str]) -> list[str]:
        """The flat names that match a pattern and none of the ``!`` patterns, in order."""
        take = [p for p in patterns if not p.startswith("!")]
        drop = [p[1:] for p in patterns if p.startswith("!")]
        return [
            n
            for n in self.flat
            if any(fnmatch.fnmatchcase(n, p) for p in take) and not any(fnmatch.fnmatchcase(n, p) for p in drop)
        ]


def _is_number(node: Any) -> bool:
    return not isinstance(node, bool) and isinstance(node, (int, float))


def sources() -> dict[str, dict[str, Any]]:
    """``docs/data/sources.toml``: each data file's name → its command (and what it is)."""
    return tomllib.loads(SOURCES.read_text(encoding="utf-8")) if SOURCES.is_file() else {}


def _figure(name: str) -> View:
    path = ROOT / "figures" / f"{name}.json"
    sidecar = json.loads(path.read_text(encoding="utf-8"))
    flat = {q.reading.name: q.value for q in R.resolve(name, sidecar)}
    return View(f"figures/{name}.json", flat, sidecar["result"])


def _benchmarks() -> View:
    results = json.loads((ROOT / "benchmarks" / "results.json").read_text(encoding="utf-8"))
    return View("benchmarks/results.json", {}, {row["id"]: row for row in results["rows"]})


def table(name: str) -> str:
    """The text of a ``<!-- table: NAME -->`` block (between its two comment lines)."""
    if name != "benchmarks":
        raise KeyError(f"{name}: no table is printed from it (only benchmarks)")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import _results

    results = json.loads((ROOT / "benchmarks" / "results.json").read_text(encoding="utf-8"))
    return "\n" + _results.block(results["rows"]) + "\n\n"


def _data(name: str) -> View:
    from gaugecli.api import load

    if name not in sources():
        raise KeyError(f"{name}: not a data source of {SOURCES.relative_to(ROOT)}")
    path = DATA / f"{name}.json"
    payload = json.loads(path.read_text(encoding="utf-8"))
    if "schema" not in payload:  # a tool's numbers ({"command", "provenance", "numbers", "numbers_hash"})
        if numbers_hash(payload["numbers"]) != payload.get("numbers_hash"):
            raise ValueError(f"{path}: its numbers_hash does not match (edited by hand?): rerun it")
        return View(str(path.relative_to(ROOT)), payload["numbers"], payload["numbers"])
    from gaugecli.store.errors import ArtifactError

    try:
        artifact = load(path)  # schema, both hashes, and the config rebuilt to its hash
    except ArtifactError as error:  # e.g. the command's config changed since: the data is stale
        raise ArtifactError(f"{error} (run `python tools/doc_numbers.py --run {name}`, then `make docs`)") from None
    views: dict[str, Callable[[Any], dict[str, float]]] = {}
    if artifact.kind == "predict":
        from doc_views import predict_view

        views["predict"] = predict_view
    flat = views[artifact.kind](artifact) if artifact.kind in views else {}
    return View(str(path.relative_to(ROOT)), flat, payload["result"])


def numbers_hash(numbers: Mapping[str, float]) -> str:
    """SHA-256 of a tool's numbers as canonical JSON: a hand-edited data file is refused, as an artifact is."""
    import hashlib

    return hashlib.sha256(json.dumps(numbers, sort_keys=True, allow_nan=False).encode()).hexdigest()


def write_tool_numbers(path: Path, command: str, numbers: Mapping[str, float]) -> None:
    """Write a tool's numbers as the file :func:`source` reads back (``{"command", "provenance",
    "numbers", "numbers_hash"}``), whole or not at all."""
    from gaugecli.store.artifacts import stable_provenance
    from gaugecli.store.atomic import atomic_write_text

    payload = {
        "command": command,
        "provenance": stable_provenance(),
        "numbers": dict(numbers),
        "numbers_hash": numbers_hash(numbers),
    }
    atomic_write_text(path, json.dumps(payload, indent=1, allow_nan=False) + "\n")


def replace_block(page: Path, begin: str, end: str, body: str) -> None:
    """Put ``body`` between the marker lines ``begin`` and ``end`` of ``page`` (a tool's generated
    block, :data:`tests.test_doc_numbers.TOOL_BLOCKS`), the rest of the page as it was; atomically."""
    from gaugecli.store.atomic import atomic_write_text

    text = page.read_text(encoding="utf-8")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    atomic_write_text(page, f"{head}{begin}\n{body}\n{end}{tail}")


_VIEWS: dict[str, View] = {}


def source(name: str) -> View:
    """The view of a region's source (read once per process)."""
    if name not in _VIEWS:
        if name.startswith("figure:"):
            _VIEWS[name] = _figure(name.removeprefix("figure:"))
        elif name == "benchmarks":
            _VIEWS[name] = _benchmarks()
        elif name.startswith(("tool:", "benchmarks:")):  # the JSON a script writes beside itself, read by path
            folder, _, stem = name.partition(":")
            path = ROOT / ("tools" if folder == "tool" else "benchmarks") / f"{stem}.json"
            _VIEWS[name] = View(str(path.relative_to(ROOT)), {}, json.loads(path.read_text(encoding="utf-8")))
        else:
            _VIEWS[name] = _data(name)
    return _VIEWS[name]


def regions(markdown: str) -> Iterator[re.Match[str]]:
    """The page's ``<!-- numbers: … -->`` regions, in order."""
    return REGION.finditer(markdown)


CODE = re.compile(r"```.*?```|`[^`\n]+`", re.DOTALL)
"""Code, fenced or inline: a mark shown there (as an example) is text, never printed into."""


def render(markdown: str, lookup: Callable[[str], View] = source, tables: Callable[[str], str] | None = None) -> str:
    """The page with every marked number printed afresh from its region's source (code left as it
    is) and every ``<!-- table: … -->`` block rewritten whole (``tables``: its text by source name);
    a mark outside a region, or a region left open, is an error naming it."""
    printer = table if tables is None else tables
    markdown = TABLE.sub(lambda m: f"<!-- table: {m['source']} -->\n{printer(m['source'])}<!-- /table -->", markdown)
    code: list[str] = []

    def hide(match: re.Match[str]) -> str:
        code.append(match[0])
        return f"\x00{len(code) - 1}\x00"

    text = _render(CODE.sub(hide, markdown), lookup)
    return re.sub("\x00(\\d+)\x00", lambda m: code[int(m[1])], text)


def marked(markdown: str) -> bool:
    """Whether the page marks a number outside code, or holds a generated table."""
    return bool(MARK.search(CODE.sub("", markdown))) or bool(TABLE.search(markdown))


def _render(markdown: str, lookup: Callable[[str], View]) -> str:
    stray = MARK.search(REGION.sub("", markdown))
    if stray:
        raise ValueError(f"the mark {stray[0][:60]!r} is in no <!-- numbers: … --> region")
    if markdown.count("<!-- numbers: ") != markdown.count("<!-- /numbers -->"):
        raise ValueError("a <!-- numbers: … --> region without its <!-- /numbers -->, or the reverse")

    def region(match: re.Match[str]) -> str:
        view = lookup(match["source"])

        def number(mark: re.Match[str]) -> str:
            expr, _, other = mark["expr"].partition("@")  # a number of another source: NAME@SOURCE
            value = (lookup(other) if other else view).value(expr)
            return f"<!--{{{mark['expr']}:{mark['format']}}}-->{R.printed(value, mark['format'])}"

        body = MARK.sub(number, match["body"])
        return f"<!-- numbers: {match['source']} -->{body}<!-- /numbers -->"

    return REGION.sub(region, markdown)


def pages() -> list[Path]:
    """Every documentation page a writer writes: docs/**/*.md but the generated ones."""
    return sorted(p for p in DOCS.rglob("*.md") if p.relative_to(DOCS).as_posix() not in GENERATED)


def stale() -> list[str]:
    """The pages whose marked numbers differ from a fresh rendering."""
    return [
        str(p.relative_to(ROOT))
        for p in pages()
        if marked(text := p.read_text(encoding="utf-8")) and render(text) != text
    ]


def run(name: str) -> Path:
    """Run the command ``sources.toml`` gives for ``name``: a ``gaugecli`` command with ``--out
    docs/data/NAME.json`` (and its rerun TOML beside it; the cache in ``runs/``), or a ``python tools/…``
    script that writes that file itself: the one way a data file is written."""
    program, *words = shlex.split(sources()[name]["command"])
    out = DATA / f"{name}.json"
    if program == "python":  # a tool of tools/ that writes docs/data/NAME.json itself
        subprocess.run([sys.executable, *words], check=True, cwd=ROOT)
        return out
    if program != "gaugecli":
        raise ValueError(f"{name}: its command must start with gaugecli or python, not {program!r}")
    gaugecli = Path(sys.executable).with_name("gaugecli")  # this environment's
    subprocess.run([str(gaugecli), *words, "--out", str(out.relative_to(ROOT))], check=True, cwd=ROOT)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a page's numbers are stale")
    parser.add_argument("--run", metavar="NAME", help="run NAME's command of docs/data/sources.toml into docs/data/")
    args = parser.parse_args(argv)
    if args.run:
        print(run(args.run).relative_to(ROOT))
        return 0
    if args.check:
        old = stale()
        for page in old:
            print(f"{page}: its generated numbers are stale: run `make docs`", file=sys.stderr)
        return 1 if old else 0
    for page in pages():
        text = page.read_text(encoding="utf-8")
        if marked(text) and (fresh := render(text)) != text:
            page.write_text(fresh, encoding="utf-8")
            print(f"wrote {page.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
