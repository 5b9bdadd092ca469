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
