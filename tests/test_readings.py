"""The registry of quoted numbers (gaugecli.plots.readings): every reading of every committed sidecar
equals its sidecar value at the digits it is printed with, every caption is rendered from readings only,
and the printing, parsing and macro naming that carry them into a paper."""

from __future__ import annotations

import json
import math
import re
import string
from pathlib import Path

import pytest

from gaugecli.plots import FIGURES
from gaugecli.plots.readings import (
    Reading,
    caption_template,
    declared,
    figure_macro,
    half_unit,
    lookup,
    parse,
    printed,
    reading_template,
    resolve,
    tex,
)

ROOT = Path(__file__).resolve().parents[1]
FIGURES_DIR = ROOT / "figures"
DECLARING = [f for f in FIGURES if declared(f)]
COMMITTED = [f for f in DECLARING if (FIGURES_DIR / f"{f}.json").is_file()]
EPS = 2.220446049250313e-16


def _sidecar(figure: str) -> dict:
    return json.loads((FIGURES_DIR / f"{figure}.json").read_text(encoding="utf-8"))


def test_every_figure_declares_readings_and_a_caption() -> None:
    assert set(DECLARING) == set(FIGURES)
    for figure in DECLARING:
        assert caption_template(figure), figure


@pytest.mark.parametrize("figure", [f for f in DECLARING if reading_template(f)])
def test_a_longer_reading_names_only_readings_and_types_no_number(figure: str) -> None:
    """The gallery's collapsed reading is rendered from the same registry as the caption: every field a
    reading, and no decimal number typed into the template (settings such as D = 4 or 0.01 are one digit)."""
    template = reading_template(figure)
    assert template is not None
    names = {r.name for r in declared(figure)}
    fields = {field for _, field, _, _ in string.Formatter().parse(template) if field}
    assert fields <= names, f"{figure}: reading fields without a reading: {sorted(fields - names)}"
    text = re.sub(r"\{\w+\}", "", template)
    tokens = re.findall(r"(?<![\w.^])\d+(?:\.\d+)?(?:e[-+]?\d+)?%?(?!\w)", text)
    significant = lambda t: len(re.sub(r"e[-+]?\d+$", "", t.rstrip("%")).replace(".", "").lstrip("0"))  # noqa: E731
    typed = [t for t in tokens if re.search(r"[.e%]", t) and significant(t) >= 2]
    assert not typed, f"{figure}: numbers typed into the reading: {typed}"


@pytest.mark.parametrize("figure", COMMITTED)
def test_every_reading_equals_its_sidecar_value_at_its_printed_digits(figure: str) -> None:
    """Recomputed from the committed sidecar, independently of the formatter: the printed text, read
    back as a number, lies within half a unit of its last printed digit of the full-precision value.
    Basis: correct rounding, plus 4ε·|x| for the binary representation of value and printed decimal."""
    sidecar = _sidecar(figure)
    quoted = resolve(figure, sidecar)
    assert len(quoted) == len(declared(figure))
    for q in quoted:
        value = lookup(sidecar, q.reading.path)  # the sidecar's own number, not the Quoted copy
        shown = parse(q.text)
        bound = half_unit(q.text) + 4 * EPS * max(abs(value), abs(shown))
        assert abs(shown - value) <= bound, f"{figure} {q.reading.name}: printed {q.text}, sidecar {value!r}"
        # the JSON Pointer of the table addresses the same number in the file
        node = sidecar
        for key in q.reading.pointer.lstrip("/").split("/"):
            node = node[int(key)] if isinstance(node, list) else node[key.replace("~1", "/").replace("~0", "~")]
        assert node == value


@pytest.mark.parametrize("figure", DECLARING)
def test_a_caption_names_only_readings_and_stays_short(figure: str) -> None:
    template = caption_template(figure)
    assert template is not None
    names = {r.name for r in declared(figure)}
    fields = {field for _, field, _, _ in string.Formatter().parse(template) if field}
    assert fields <= names, f"{figure}: caption fields without a reading: {sorted(fields - names)}"
    # the budget: at most ~120 words, the first sentence bold (the claim)
    words = len(re.sub(r"\{\w+\}", "N", template).split())
    assert words <= 120, f"{figure}: caption has {words} words"
    assert template.startswith("**") and ".**" in template
    # every decimal number of the caption is a field: nothing typed with two or more digits
    text = re.sub(r"\{\w+\}", "", template)
    assert not re.findall(r"\d+\.\d{2,}|\d\.\d+e[-+]?\d+|\d+%", text), figure


def test_reading_names_are_unique_per_figure_and_macros_across_figures() -> None:
    macros = []
    for figure in DECLARING:
        names = [r.name for r in declared(figure)]
        assert len(names) == len(set(names)), figure
        macros += [f"gauge{figure_macro(figure)}{n}" for n in names]
    assert len(macros) == len(set(macros))
    assert all(re.fullmatch(r"[A-Za-z]+", m) for m in macros)  # a LaTeX control word: letters only


@pytest.mark.parametrize(
    ("figure", "macro"),
    [
        ("fig3", "FigThree"),
        ("fig4", "FigFour"),
        ("fig10", "FigTen"),
        ("fig11", "FigEleven"),
        ("lockin_nulls", "LockinNulls"),
    ],
)
def test_figure_macro_names(figure: str, macro: str) -> None:
    assert figure_macro(figure) == macro


@pytest.mark.parametrize(
    ("text", "half"),
    [
        ("0.070", 5e-4),
        ("3.95e-14", 5e-17),
        ("79%", 5e-3),
        ("0.9%", 5e-4),
        ("-0.9999", 5e-5),
        ("35", 0.5),
        ("1.20229", 5e-6),
    ],
)
def test_half_a_unit_in_the_last_printed_place(text: str, half: float) -> None:
    assert math.isclose(half_unit(text), half, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("value", "format", "text"),
    [
        (3.952393967665557e-14, ".2e", "3.95e-14"),
        (0.0014130510193115912, ".1e", "1.4e-3"),
        (0.07030882323338296, ".3f", "0.070"),
        (0.79, ".0%", "79%"),
        (209.31, ".3g", "209"),
    ],
)
def test_printed_at_the_declared_precision(value: float, format: str, text: str) -> None:
    assert printed(value, format) == text
    assert abs(parse(text) - value) <= half_unit(text) + 4 * EPS * abs(value)


def test_tex_macros_typeset_exponents_and_percent() -> None:
    sidecar = {"result": {"panels": {"x": 3.952393967665557e-14, "p": 0.79}}, "config_hash": "h", "provenance": {}}

    class Fake:
        READINGS = (Reading("Spread", "panels/x", ".2e", "a spread"), Reading("Share", "panels/p", ".0%", "a share"))

    import sys

    sys.modules["gaugecli.plots._fake_readings"] = Fake  # type: ignore[assignment]
    try:
        spread, share = resolve("_fake_readings", sidecar)
    finally:
        del sys.modules["gaugecli.plots._fake_readings"]
    assert tex(spread) == r"\newcommand{\gaugeFakeReadingsSpread}{\ensuremath{3.95\times 10^{-14}}}"
    assert tex(share) == r"\newcommand{\gaugeFakeReadingsShare}{79\%}"


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"name": "T2"}, "letters only"),
        ({"name": "tSpec"}, "letters only"),
        ({"format": "0.3f"}, "format"),
        ({"format": ".3d"}, "format"),
        ({"path": "/result/panels"}, "relative"),
    ],
)
def test_a_malformed_reading_is_refused_when_declared(kwargs: dict, needle: str) -> None:
    fields = {"name": "TSpec", "path": "panels/a/t_spec", "format": ".3f", "meaning": "m"} | kwargs
    with pytest.raises(ValueError, match=needle):
        Reading(**fields)


def test_a_missing_or_masked_number_is_an_error_naming_the_reading() -> None:
    with pytest.raises(KeyError, match="t_spec"):
        lookup({"result": {"panels": {"a": {}}}}, "panels/a/t_spec")
    sidecar = {"result": {"panels": {"a": {"t_spec": 0.07}, "b": {"max_nonowner_alignment": None}}}}
    with pytest.raises(ValueError, match="MaxNonownerAlignment"):
        resolve("fig4", sidecar)
