"""Quoted numbers: what a figure's caption states, each read from its sidecar, never typed.

A figure module declares ``READINGS``, a tuple of :class:`Reading` (a name, the JSON path of the
number in the sidecar's data part ``result``, the format it is printed with and a one-line
meaning), ``CAPTION``, a template whose ``{Name}`` fields are those readings, and optionally
``READING``, the longer reading (the same fields) that the gallery shows collapsed under the caption. A number is
printed by Python's format mini-language at the declared precision: the printed text ``s`` of a
value ``x`` satisfies ``|x − float(s)| ≤ ½·10^(e−k)`` for ``s``'s ``k`` mantissa decimals and
exponent ``e`` (:func:`half_unit`), which is what ``tests/test_readings.py`` checks for every
reading of every committed sidecar. ``gaugecli numbers`` prints them as LaTeX macros, JSON or
Markdown; ``tools/gallery.py`` writes the captions into docs/gallery.md.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from importlib import import_module
from typing import Any

_NAME = re.compile(r"^[A-Z][A-Za-z]*$")
_FORMAT = re.compile(r"^\.\d+[efg%]$")
_NUMBER = re.compile(r"^(?P<sign>[-+]?)(?P<int>\d+)(?:\.(?P<frac>\d*))?(?:e(?P<exp>[-+]?\d+))?(?P<pct>%?)$")
_ENGLISH = ("Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Eleven", "Twelve")


@dataclass(frozen=True)
class Reading:
    """One number a figure quotes.

    :param name: CamelCase letters only (a LaTeX macro name cannot hold digits), unique per figure.
    :param path: ``/``-separated keys (list indices as integers) from the sidecar's ``result``.
    :param format: a format spec ``.Nf``, ``.Ne``, ``.Ng`` or ``.N%`` (N digits after the point,
        or significant digits for ``g``): the precision the number is printed at.
    :param meaning: one line saying what the number is.
    """

    name: str
    path: str
    format: str
    meaning: str

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"reading name {self.name!r}: CamelCase letters only (it becomes a LaTeX macro)")
        if not _FORMAT.match(self.format):
            raise ValueError(f"reading {self.name}: format {self.format!r} is not .Nf, .Ne, .Ng or .N%")
        if not self.path or self.path.startswith("/"):
            raise ValueError(f"reading {self.name}: path {self.path!r} must be relative to the sidecar's result")

    @property
    def pointer(self) -> str:
        """The JSON Pointer (RFC 6901) of the number in the whole sidecar file."""
        keys = ["result", *self.path.split("/")]
        return "/" + "/".join(k.replace("~", "~0").replace("/", "~1") for k in keys)


@dataclass(frozen=True)
class Quoted:
    """A reading resolved against one sidecar: its full-precision value and its printed text."""

    figure: str
    reading: Reading
    value: float
    text: str
    config_hash: str | None
    git_commit: str | None

    @property
    def macro(self) -> str:
        """The LaTeX macro name, e.g. ``gaugeFigFourTSpec``."""
        return f"gauge{figure_macro(self.figure)}{self.reading.name}"


def figure_macro(figure: str) -> str:
    """``fig4`` → ``FigFour``, ``lockin_nulls`` → ``LockinNulls``: letters only, for LaTeX."""
    match = re.fullmatch(r"fig(\d+)", figure)
    if match and int(match[1]) < len(_ENGLISH):
        return "Fig" + _ENGLISH[int(match[1])]
    return "".join(part.capitalize() for part in re.split(r"[_\W\d]+", figure) if part)


def declared(figure: str) -> tuple[Reading, ...]:
    """The figure module's ``READINGS`` (empty for a figure that declares none)."""
    return tuple(getattr(import_module(f"gaugecli.plots.{figure}"), "READINGS", ()))


def caption_template(figure: str) -> str | None:
    """The figure module's ``CAPTION`` template, if it declares one."""
    return getattr(import_module(f"gaugecli.plots.{figure}"), "CAPTION", None)


def reading_template(figure: str) -> str | None:
    """The figure module's ``READING`` template (the longer reading under the caption), if it declares one."""
    return getattr(import_module(f"gaugecli.plots.{figure}"), "READING", None)


def lookup(sidecar: dict[str, Any], path: str) -> Any:
    """The value at ``path`` in the sidecar's data part (``result``; the sidecar itself if it has none)."""
    node: Any = sidecar["result"] if "result" in sidecar else sidecar
    for key in path.split("/"):
        if isinstance(node, list):
            node = node[int(key)]
        elif isinstance(node, dict) and key in node:
            node = node[key]
        else:
            raise KeyError(f"sidecar has no {key!r} on the path {path!r}")
    return node


def printed(value: float, format: str) -> str:
    """``value`` at the declared precision; ``e`` exponents without padding (``3.95e-14``)."""
    text = f"{value:{format}}"
    mantissa, sep, exponent = text.partition("e")
    return f"{mantissa}e{int(exponent)}" if sep else text


def half_unit(text: str) -> float:
    """Half a unit in the last printed place of ``text`` (``0.070`` → 5e-4, ``3.95e-14`` → 5e-17,
    ``79%`` → 5e-3): the largest distance between a value and its correctly rounded print."""
    match = _NUMBER.match(text)
    if not match:
        raise ValueError(f"{text!r} is not a printed number")
    places = len(match["frac"] or "") - int(match["exp"] or 0) + (2 if match["pct"] else 0)
    return 0.5 * 10.0 ** (-places)


def parse(text: str) -> float:
    """The number a printed text stands for (``79%`` → 0.79)."""
    return float(text[:-1]) / 100 if text.endswith("%") else float(text)


def resolve(figure: str, sidecar: dict[str, Any]) -> list[Quoted]:
    """Every reading the figure declares, read from ``sidecar`` and printed."""
    provenance = sidecar.get("provenance") or {}
    out = []
    for reading in declared(figure):
        value = lookup(sidecar, reading.path)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{figure}: reading {reading.name} at {reading.pointer} is {value!r}, not a finite number")
        out.append(
            Quoted(
                figure=figure,
                reading=reading,
                value=float(value),
                text=printed(float(value), reading.format),
                config_hash=sidecar.get("config_hash"),
                git_commit=provenance.get("git_commit"),
            )
        )
    return out


def caption(figure: str, quoted: list[Quoted]) -> str | None:
    """The figure's ``CAPTION`` with each ``{Name}`` replaced by that reading's printed text."""
    template = caption_template(figure)
    if template is None:
        return None
    return template.format_map({q.reading.name: q.text for q in quoted})


def long_reading(figure: str, quoted: list[Quoted]) -> str | None:
    """The figure's ``READING`` with each ``{Name}`` replaced by that reading's printed text."""
    template = reading_template(figure)
    if template is None:
        return None
    return template.format_map({q.reading.name: q.text for q in quoted})


def tex(q: Quoted) -> str:
    r"""``\newcommand{\gaugeFigFourTSpec}{0.0703}``; an exponent as ``\times 10^{…}``, a percent as ``\%``."""
    mantissa, sep, exponent = q.text.partition("e")
    body = rf"\ensuremath{{{mantissa}\times 10^{{{int(exponent)}}}}}" if sep else q.text.replace("%", r"\%")
    return rf"\newcommand{{\{q.macro}}}{{{body}}}"
