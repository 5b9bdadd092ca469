"""The house style's script size: mathtext sub- and superscripts are printed at ≥ MIN_SCRIPT_PT
inside :func:`gaugecli.plots.style.context`, and matplotlib's own factor is back outside it."""

from __future__ import annotations

import pytest
from matplotlib.font_manager import FontProperties
from matplotlib.mathtext import MathTextParser

from gaugecli.plots import style
from gaugecli.plots.venue import MATPLOTLIB_SCRIPT_SHRINK, MIN_SCRIPT_PT, SMALL_PT, layout


def _glyph_sizes(text: str, size: float) -> list[float]:
    """Point sizes of the glyphs mathtext lays out for ``text`` at ``size`` (72 dpi: points)."""
    parsed = MathTextParser("path").parse(text, dpi=72, prop=FontProperties(family="DejaVu Sans", size=size))
    return sorted({round(g[1], 9) for g in parsed.glyphs})


@pytest.mark.parametrize("text", [r"$10^{-8}$", r"$T_{\rm spec}$"])
def test_scripts_meet_the_floor_inside_the_style_and_not_outside(text: str) -> None:
    before = _glyph_sizes(text, SMALL_PT)
    with style.context(layout()):
        inside = _glyph_sizes(text, SMALL_PT)
    after = _glyph_sizes(text, SMALL_PT)
    # the script (smallest glyph) at 6.0 pt = MIN_SCRIPT_PT, the base at 7.2 pt
    assert inside == pytest.approx([MIN_SCRIPT_PT, SMALL_PT], rel=1e-12)
    # outside, matplotlib's 0.7 (5.04 pt), before and after: nothing cached leaks either way
    assert before == after == pytest.approx([MATPLOTLIB_SCRIPT_SHRINK * SMALL_PT, SMALL_PT], rel=1e-12)


def test_script_shrink_never_below_matplotlibs() -> None:
    assert layout().script_shrink == pytest.approx(MIN_SCRIPT_PT / SMALL_PT, rel=1e-15)
    big = layout().__class__(small=9.0, text=10.0)
    assert big.script_shrink == MATPLOTLIB_SCRIPT_SHRINK


def _mathtext_literals() -> list[tuple[str, str]]:
    """Every string literal of the plotting package with a ``$…$`` math segment, as ``(file, segment)``;
    an f-string's replacement fields are read as ``1`` (numbers are what they insert into math)."""
    import ast
    import re
    from pathlib import Path

    found = []
    for source in sorted(Path(style.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.JoinedStr):
                text = "".join(v.value if isinstance(v, ast.Constant) else "1" for v in node.values)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
            else:
                continue
            found += [(source.name, f"${m}$") for m in re.findall(r"\$([^$]+)\$", text)]
    return found


def test_no_script_in_any_figure_text_is_below_the_floor() -> None:
    """Every math segment the figures write, laid out by mathtext inside the style: no glyph below
    MIN_SCRIPT_PT — a script inside a script (``e^{εζ_j}``) would print at 0.83² × 7.2 = 5 pt."""
    literals = _mathtext_literals()
    assert len(literals) > 100  # the figures' math, not a stray few
    small = []
    with style.context(layout()):
        for source, segment in literals:
            try:
                parsed = MathTextParser("path").parse(
                    segment, dpi=72, prop=FontProperties(family="DejaVu Sans", size=SMALL_PT)
                )
            except ValueError:  # a fragment completed elsewhere (e.g. by concatenation): not math alone
                continue
            # a sized delimiter (√, big brackets) comes from STIX's size-variant fonts at a nominal
            # size that is not its printed height: only the letters and digits are read as text
            sizes = [g[1] for g in parsed.glyphs if "Siz" not in g[0].fname]
            if sizes and min(sizes) < MIN_SCRIPT_PT - 1e-9:
                small.append((source, segment, min(sizes)))
    assert not small, small
