"""The documentation pages quote no typed measurement: every number a page marks is printed from its
data by tools/doc_numbers.py (the pages are current, and a changed value makes them stale), and
every decimal of a page's prose is such a generated number, one of the figures' printed readings, or
an input the text states (a parameter's value, a threshold, a version) — recognised by its context
or listed below with its reason."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from test_gallery import NUMBER, _decimal
from test_readme import _printed_readings

ROOT = Path(__file__).resolve().parents[1]


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("doc_numbers", ROOT / "tools" / "doc_numbers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["doc_numbers"] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


T = _tool()

PENDING: dict[str, tuple[int | None, str]] = {}
"""The pages not yet converted, the one list of exclusions: each with the most typed decimals it may
still hold (a ratchet: converting lowers it; ``None``, not counted) and why. Empty: every page is converted
(theory, the phase-maps how-to and related work last, from docs/data/theory.json and phase-presets.json
and the figures' sidecars)."""

SYMBOLS = r"d|m|k|D|n|B|σ|σ_a|σ_w|ε|η|λ|β|ρ|θ_0|c_0|a\*|α|rtol|\\alpha|\\varepsilon|\\sigma|\\eta|\\lambda|\\beta|\\rho|c_0|\\theta_0"
"""The parameters a sentence sets (plain and in TeX): ``d = 16``, ``α ≥ 0.99``, ``$\\varepsilon=0.01$``."""
VALUE = r"[-−]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"

INPUT_CONTEXT = [
    # a version of Python or a package, or any dotted version x.y.z
    re.compile(r"(?:Python|torch|numpy|scipy|matplotlib|CFF)\s*(?:≥|>=|==)?\s*\d+(?:\.\d+)+"),
    re.compile(r"(?<![\w.])\d+\.\d+\.\d+(?![\w.])"),
    # a parameter set to a value or bounded by a threshold (a measurement is written with ≈, never =)
    re.compile(rf"(?<![\w])(?:{SYMBOLS})\s*(?:=|≥|≤|<|>|\\ge|\\le)\s*(?:[\w.]+\s*=\s*)?{VALUE}"),
    # a flag with its value, an option's default, the confidence of an interval
    re.compile(rf"--[\w-]+[ =]{VALUE}"),
    re.compile(rf"default {VALUE}"),
    re.compile(r"\d+% (?:Wilson|bootstrap|confidence)"),
    # a tolerance a check allows: ± 0.15
    re.compile(rf"±\s*{VALUE}"),
]
"""Inputs recognised by their context: the number is what the text sets, not what a run measured."""

ALLOWED: dict[str, dict[str, str]] = {
    "docs/design.md": {
        "7.2": "the figures' small text size in pt: a style setting (gaugecli.plots.venue.SMALL_PT)",
        "6.1": "Hairer's stiffness bound on |h λ| in the Fortran DOP853 (HLAMB > 6.1): the algorithm's constant",
        "0.75": "the per-cell solver's stiffness bound, a setting (gaugecli.core.integrate.dop853_flow.STIFF_H_LAMBDA)",
    },
    "docs/related-work.md": {
        "30%": "the modular-addition task's training fraction, an input (TaskLockinConfig.train_fraction = 0.3)",
        "10%": "its controls' training fraction, an input (TaskLockinConfig.control_fraction = 0.1)",
    },
}
"""Inputs the context rules do not see, per page: the value and why it is no measurement."""


EXECUTED = [ROOT / "docs" / "tutorial.md", *sorted((ROOT / "docs" / "howto").glob("*.md"))]
"""The pages whose ``pycon`` blocks run in the test suite, their outputs compared with the page's
(tests/test_tutorial.py, tests/test_howtos.py): a number they print is the code's."""
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def _executed_outputs() -> set[str]:
    """Every number an executed ``pycon`` block prints (its output lines, not its input)."""
    out: set[str] = set()
    for page in EXECUTED:
        for language, body in _FENCE.findall(page.read_text(encoding="utf-8")):
            if language == "pycon":
                lines = [line for line in body.splitlines() if not line.startswith((">>>", "..."))]
                out |= set(NUMBER.findall("\n".join(lines)))
    return out


def _comments(markdown: str) -> str:
    """The comments of the page's shell and Python blocks (``# T_spec ≈ 0.436``): prose a reader reads
    in code."""
    return "\n".join(
        line.split(" # ", 1)[1]
        for language, body in _FENCE.findall(markdown)
        if language in ("bash", "console", "sh", "python")
        for line in body.splitlines()
        if " # " in line
    )


_TAG = re.compile(
    r"<!--.*?-->|</?(?:a|img|details|summary|div|span|br|p|table|tr|td|th|sup|sub|em|strong|code|kbd)\b[^<>]*>", re.S
)


def _prose(markdown: str) -> str:
    """The page's text as a reader sees it: code, link targets, comments and HTML tags removed — the
    tags by name, since a page's math holds ``<`` and ``>`` (``$a<0<\\delta$``) that are no tags."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.DOTALL)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\]\([^)\s]*\)", "]", text)
    return _TAG.sub(" ", text)


TOOL_BLOCKS: dict[str, str] = {
    "momentum-exponent": "tools/momentum_exponent.py --write; tests/test_momentum_loop.py checks it is the JSON's",
    "kunin-cells": "tools/kunin_cells.py --write-doc; tests/test_rich_lazy.py checks it is the JSON's",
    "rich-lazy": "tools/rich_lazy_readings.py; tests/test_phase.py checks it is the JSON's",
}
"""Blocks a tool of tools/ writes whole into a page (``<!-- NAME: generated by … -->`` … ``<!-- /NAME -->``),
each with the test that checks the block against the tool's data: their numbers are generated."""
TOOL_BLOCK = re.compile(r"<!-- (?P<name>[\w-]+): generated by tools/[^>]*-->.*?<!-- /(?P=name) -->", re.DOTALL)


def _unmarked(markdown: str) -> str:
    """The page with each generated number (a mark and its printed text), each generated table and each
    block a tool of :data:`TOOL_BLOCKS` writes taken out."""
    for block in TOOL_BLOCK.finditer(markdown):
        assert block["name"] in TOOL_BLOCKS, f"{block['name']}: a generated block no test checks (TOOL_BLOCKS)"
    return T.MARK.sub(" ", T.TABLE.sub(" ", TOOL_BLOCK.sub(" ", markdown)))


MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.DOTALL)
"""TeX math, where a page states its derivations: a number there is a closed form's value or a
constant of the derivation, an input (a measured number is written in prose, and marked)."""


def _inputs_removed(prose: str) -> str:
    prose = MATH.sub(" ", prose)
    for pattern in INPUT_CONTEXT:
        prose = pattern.sub(" ", prose)
    return prose


def typed(markdown: str, printed: set[str], allowed: dict[str, str] | None = None) -> list[str]:
    """The decimals of the page's prose and of its shell blocks' comments that are neither generated, a
    printed reading (of a figure, or of an executed ``pycon`` block), nor an input (a percent written
    with a space, ``77 %``, read as ``77%``)."""
    text = _prose(_unmarked(markdown)) + "\n" + _comments(markdown)
    prose = _inputs_removed(re.sub(r"(\d) %", r"\1%", text))
    return [
        t
        for t in NUMBER.findall(prose)
        if _decimal(t) and t.replace("−", "-") not in printed and t not in (allowed or {})
    ]


def _checked_pages() -> list[Path]:
    return [p for p in T.pages() if str(p.relative_to(ROOT)) not in PENDING]


def test_every_page_is_current() -> None:
    """Regenerate with ``make docs`` (``python tools/doc_numbers.py``) when this fails."""
    assert T.stale() == []


def test_every_data_source_is_its_commands_output_and_quoted() -> None:
    """Each docs/data file is what its command writes: a gaugecli artifact of the command's kind (config
    hash checked on load) with its rerun TOML beside it, or a tool's numbers naming that command; and a
    page quotes it."""
    from gaugecli.api import load

    texts = [p.read_text(encoding="utf-8") for p in T.pages()]
    quoted = {m["source"] for text in texts for m in T.regions(text)}
    quoted |= {m["expr"].partition("@")[2] for text in texts for m in T.MARK.finditer(text)}
    for name, entry in T.sources().items():
        program, *words = entry["command"].split()
        if program == "python":
            assert json.loads((T.DATA / f"{name}.json").read_text(encoding="utf-8"))["command"] == entry["command"]
        else:
            artifact = load(T.DATA / f"{name}.json")
            assert words[0] == artifact.kind, name
            rerun = (T.DATA / f"{name}.toml").read_text(encoding="utf-8")
            assert f"gaugecli {artifact.kind} --config" in rerun, name
        assert name in quoted, f"{name}: no page quotes it"


def _fake(values: dict[str, float]) -> T.View:  # type: ignore[name-defined]
    return T.View("fake", values, {"a": {"b": [values.get("x", 0.0)]}})


def test_a_changed_value_makes_the_page_stale_and_rendering_is_idempotent() -> None:
    page = (
        "Intro 0.5 σ = 0.3.\n<!-- numbers: fake -->\nowner in <!--{x:.0%}-->77% [<!--{x.low:.2f}-->0.71], "
        "path <!--{a/b/0:.3f}-->0.770, range <!--{min(x*, !x.low):.2f}-->0.77–<!--{max(x*):.2f}-->0.77\n"
        "<!-- /numbers -->\n"
    )
    values = {"x": 0.77, "x.low": 0.71}
    assert T.render(page, lambda _: _fake(values)) == page
    moved = T.render(page, lambda _: _fake({"x": 0.78, "x.low": 0.71}))
    assert moved != page and "-->78%" in moved and "-->0.780" in moved
    assert T.render(moved, lambda _: _fake({"x": 0.78, "x.low": 0.71})) == moved
    # a mark left empty by its writer is filled
    assert T.render(page.replace("-->77%", "-->"), lambda _: _fake(values)) == page


def test_min_and_max_range_over_a_list_in_the_tree_when_no_name_matches() -> None:
    """``min(path)``/``max(path)`` take a list's numbers (its nulls left out), or several paths' numbers."""
    view = T.View("fake", {"x": 0.5}, {"runs": {"share": [0.4, None, 0.9], "other": 0.1}})
    assert view.value("min(runs/share)") == 0.4 and view.value("max(runs/share)") == 0.9
    assert view.value("min(runs/share, runs/other)") == 0.1
    assert view.value("max(x*)") == 0.5  # a flat name still wins
    with pytest.raises(KeyError, match="no number"):
        view.value("min(runs/none)")


def test_a_mark_outside_a_region_or_an_unknown_name_is_refused() -> None:
    with pytest.raises(ValueError, match="no <!-- numbers"):
        T.render("owner in <!--{x:.0%}-->77%", lambda _: _fake({"x": 0.77}))
    with pytest.raises(KeyError, match="no number"):
        T.render("<!-- numbers: f -->\n<!--{y:.0%}-->77%\n<!-- /numbers -->", lambda _: _fake({"x": 0.77}))


def test_the_check_recognises_inputs_and_flags_a_typed_measurement() -> None:
    text = (
        "At d = 16, σ = 0.3, $\\varepsilon=0.01$, $L_0=0.2366$ and α ≥ 0.99 (Python ≥ 3.11, torch 2.13.0, --eta 0.05, "
        "default 0.25, 95 % Wilson, B within ± 0.15) the race names <!--{x:.0%}-->77% and T_spec ≈ 0.436 in 64 % of runs, "
        "with 1.9934 a reading."
    )
    assert typed(text, {"1.9934"}) == ["0.436", "64%"]
    assert typed(text, {"1.9934"}, {"0.436": "why", "64%": "why"}) == []
    shell = "```bash\ngaugecli simulate --mode sample  # T_spec ≈ 0.434 (n = 100000)\n```\n"
    assert typed(shell, set()) == ["0.434"]


def test_every_decimal_of_the_pages_is_generated_a_reading_or_an_input() -> None:
    printed = _printed_readings() | _executed_outputs()
    found = {}
    for page in _checked_pages():
        name = str(page.relative_to(ROOT))
        left = typed(page.read_text(encoding="utf-8"), printed, ALLOWED.get(name))
        if left:
            found[name] = left
    assert not found, f"typed numbers (generate them: tools/doc_numbers.py, or list an input in ALLOWED): {found}"


def test_a_page_not_yet_converted_gains_no_typed_number() -> None:
    printed = _printed_readings() | _executed_outputs()
    for name, (limit, _) in PENDING.items():
        if limit is not None:
            left = typed((ROOT / name).read_text(encoding="utf-8"), printed, ALLOWED.get(name))
            assert len(left) <= limit, f"{name}: {len(left)} typed decimals, at most {limit}: {left[-5:]}"


def test_the_exclusions_and_allowances_name_pages_that_exist() -> None:
    for name in [*PENDING, *ALLOWED]:
        assert (ROOT / name).is_file(), name
    for name, values in ALLOWED.items():
        text = re.sub(r"(\d) %", r"\1%", _prose((ROOT / name).read_text(encoding="utf-8")))  # as typed() reads it
        for value, reason in values.items():
            assert value in text and reason, f"{name}: {value} is allowed but no longer quoted"


def test_a_predict_view_names_each_cell_and_counts_as_the_artifact_does() -> None:
    """A study's named accuracies are its rows' (cell names as tools/doc_views.py writes them), and its
    owned shares and agreements count the stored owners directly (an independent tally)."""
    for name in [n for n, e in T.sources().items() if e["command"].split()[1] == "predict"]:
        view = T.source(name)
        rows = json.loads((T.DATA / f"{name}.json").read_text(encoding="utf-8"))["result"]["rows"]
        by_cell = {}
        for row in rows:
            spread = "drawn" if row["spread"] is None else f"rho{row['spread']:g}"
            cell = f"k{row['k']}.m{row['m']}.{spread}" + (f".n{row['n']}" if row["n"] is not None else "")
            cell += ".sgd" if row["batch"] is not None else ""
            by_cell[cell] = row
            for p, value in row["accuracy"].items():
                if value is not None:  # the stored float itself, read back: no arithmetic in between
                    assert view.value(f"{cell}.{p}") == value
            owners = [o for run in row["owners"] for o in run]
            # a ratio of counts ≤ 10⁵: a few ε relative at most between two ways of dividing them
            owned = sum(o >= 0 for o in owners) / len(owners)
            assert view.value(f"{cell}.owned_share") == pytest.approx(owned, rel=1e-14)
        for cell, row in by_cell.items():
            if row["n"] is not None and row["batch"] is None:
                population = by_cell[cell.split(".n")[0]]["owners"]
                both = [
                    (o, q)
                    for r, s in zip(row["owners"], population, strict=True)
                    for o, q in zip(r, s, strict=True)
                    if o >= 0 and q >= 0
                ]
                if both:
                    same = sum(o == q for o, q in both) / len(both)
                    assert view.value(f"{cell}.population") == pytest.approx(same, rel=1e-14)


def test_a_moved_value_of_the_committed_data_makes_its_page_stale() -> None:
    """The ownership how-to rendered with one quoted accuracy moved by a Wilson interval's width no
    longer equals the committed page, and the committed value renders it back."""
    page = (ROOT / "docs" / "howto" / "ownership.md").read_text(encoding="utf-8")
    real = T.source("predict-one-feature")
    moved = dict(real.flat)
    moved["k1.m2.rho0.c-alpha"] += 0.05

    def lookup(name: str) -> T.View:  # type: ignore[name-defined]
        return T.View("moved", moved, real.tree) if name == "predict-one-feature" else T.source(name)

    assert T.render(page, lookup) != page
    assert T.render(T.render(page, lookup)) == page


MARKUP = re.compile(r"<!-- numbers: \S+ -->|<!-- /numbers -->|<!--\{[^{}]+\}-->")
"""A region's two comments and a number's mark: what tools/doc_numbers.py adds to a page (its other
comments, a tool's block, are the page's own and stay in both renderings compared below)."""
MARKUP_LINE = re.compile(r"^(?:<!-- numbers: \S+ -->|<!-- /numbers -->)\n", re.MULTILINE)


def _unmarked_page(text: str) -> str:
    return MARKUP.sub("", MARKUP_LINE.sub("", text))


def test_the_marks_change_nothing_a_reader_sees() -> None:
    """Rendered as CommonMark (markdown-it-py; GitHub's dialect, with tables), each page reads as it
    would without its marks: a comment alone on a line is its own HTML block, but one inside a paragraph
    (a mark at the start of a line) would start one there and split the paragraph."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    for page in T.pages():
        text = page.read_text(encoding="utf-8")
        if not T.marked(text):
            continue
        shown = _unmarked_page(md.render(text))  # a region's comment alone on a line: a block of its own
        assert shown == md.render(_unmarked_page(text)), (
            f"{page.relative_to(ROOT)}: a mark changes how the page renders"
        )


def test_the_marks_change_nothing_the_site_shows() -> None:
    """The same through Python-Markdown with the site's extensions (mkdocs.yml; the docs extra), blank
    lines aside: a comment block leaves one where the page without it has none."""
    markdown = pytest.importorskip("markdown")
    extensions = ["tables", "attr_list", "md_in_html", "footnotes", "admonition"]
    comment = re.compile(r"<!--.*?-->", re.DOTALL)

    def html(text: str) -> str:
        shown = comment.sub("", markdown.Markdown(extensions=extensions).convert(text))
        return "\n".join(line for line in shown.splitlines() if line.strip())

    for page in T.pages():
        text = page.read_text(encoding="utf-8")
        if T.marked(text):
            assert html(text) == html(_unmarked_page(text)), (
                f"{page.relative_to(ROOT)}: a mark changes how the site renders it"
            )


def test_the_benchmarks_and_figure_sources_read_their_files() -> None:
    """``benchmarks`` walks benchmarks/results.json from a row's id, ``benchmarks:NAME`` benchmarks/NAME.json;
    ``figure:NAME`` names its readings."""
    results = json.loads((ROOT / "benchmarks" / "results.json").read_text(encoding="utf-8"))
    row = results["rows"][0]
    seconds = row["data"]["records"]["+D"][0]["gaugecli"]["seconds"]
    assert T.source("benchmarks").value(f"{row['id']}/data/records/+D/0/gaugecli/seconds") == seconds
    fig1 = json.loads((ROOT / "figures" / "fig1.json").read_text(encoding="utf-8"))
    assert T.source("figure:fig1").value("FavorableTSpec") == fig1["result"]["panels"]["key"]["t_spec"]["favorable"]
    with pytest.raises(KeyError, match="no number"):
        T.source("figure:fig1").value("NoSuchReading")
    scaling = json.loads((ROOT / "benchmarks" / "phase_scaling.json").read_text(encoding="utf-8"))
    slope = scaling["families"]["n × n"]["slope"]
    assert T.source("benchmarks:phase_scaling").value("families/n × n/slope") == slope


def test_a_hand_edited_tool_data_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tool's numbers carry their hash: one edited by hand no longer matches it and is not quoted."""
    payload = json.loads((T.DATA / "theory.json").read_text(encoding="utf-8"))
    assert T.numbers_hash(payload["numbers"]) == payload["numbers_hash"]
    payload["numbers"]["D4.plus"] = 0.4363
    (tmp_path / "theory.json").write_text(json.dumps(payload), encoding="utf-8")
    monkeypatch.setattr(T, "DATA", tmp_path)
    with pytest.raises(ValueError, match="numbers_hash"):
        T._data("theory")


def test_a_tools_generated_block_counts_as_generated_only_when_a_test_checks_it() -> None:
    """A block a tool writes whole is taken out of the count when :data:`TOOL_BLOCKS` names the test that
    checks it against the tool's data; a block of another name is refused, not silently excused."""
    block = "<!-- {name}: generated by tools/x.py --write; do not edit -->\n| 1.371 |\n<!-- /{name} -->\nT ≈ 0.436\n"
    assert typed(block.format(name="momentum-exponent"), set()) == ["0.436"]
    with pytest.raises(AssertionError, match="no test checks"):
        typed(block.format(name="unchecked"), set())
