"""Printed sizes: a venue's text width and font sizes, from ``tueplots`` (which keeps the
official numbers of NeurIPS, ICLR, ICML, JMLR, …), with a floor so that no text a reader
sees is smaller than :data:`MIN_TEXT_PT`.

Figures are drawn at their printed size (never scaled by LaTeX), so the sizes here are the
sizes on paper.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_TEXT_PT = 7.0
"""Smallest text in a figure (tick labels, legends, annotations), points at printed size."""
MIN_SCRIPT_PT = 6.0
"""Smallest sub- or superscript (tick exponents, the "spec" of T_spec), points at printed size."""
SMALL_PT = 7.2
"""Tick labels, legends and annotations: 7.2 pt, a margin over :data:`MIN_TEXT_PT` that every
PDF reader's rounding keeps at or above 7."""
MATPLOTLIB_SCRIPT_SHRINK = 0.7
"""matplotlib's mathtext draws a sub/superscript at 0.7 of its text size (5.04 pt at 7.2 pt);
:attr:`Layout.script_shrink` raises it so that scripts meet :data:`MIN_SCRIPT_PT`."""

VENUES = ("neurips", "iclr", "icml", "jmlr")
DEFAULT_VENUE = "neurips"


@dataclass(frozen=True)
class Layout:
    """Where a figure will be printed: ``width`` (inches) and the two text sizes (points):
    ``text`` for axis labels and titles, ``small`` for ticks, legends and annotations.

    ``panels`` selects a version of the figure: ``None`` draws every panel (the appendix version);
    a tuple of panel letters draws only those, in that order (the main-text version a figure module
    declares as ``MAIN_PANELS``), lettered anew (a), (b), … by :meth:`label`."""

    venue: str = DEFAULT_VENUE
    width: float = 5.5
    text: float = 9.0
    small: float = 7.2
    panels: tuple[str, ...] | None = None

    @property
    def is_main(self) -> bool:
        """Whether this is a main-text version (a selection of the panels)."""
        return self.panels is not None

    def wants(self, letter: str) -> bool:
        """Whether panel ``letter`` (the full figure's lettering) is drawn in this version."""
        return self.panels is None or letter in self.panels

    def label(self, letter: str) -> str:
        """The letter printed on panel ``letter`` (the full figure's lettering): itself in the full
        figure, its place in :attr:`panels` (a, b, …) in a main-text version."""
        if self.panels is None:
            return letter
        if letter not in self.panels:
            raise ValueError(f"panel ({letter}) is not drawn in this version (panels {self.panels})")
        return "abcdefghijklmnopqrstuvwxyz"[self.panels.index(letter)]

    @property
    def script_shrink(self) -> float:
        """Size of a sub/superscript relative to its text: :data:`MIN_SCRIPT_PT` at the small size
        (6.0 / 7.2 = 0.83), never below matplotlib's 0.7."""
        return max(MATPLOTLIB_SCRIPT_SHRINK, MIN_SCRIPT_PT / min(self.small, self.text))

    def height(self, ratio: float) -> float:
        """A height ``ratio`` × width, in inches."""
        return self.width * ratio


def layout(venue: str = DEFAULT_VENUE, width: float | None = None) -> Layout:
    """The layout of ``venue`` (full text width), or of an explicit ``width`` in inches."""
    from tueplots import figsizes, fontsizes

    if venue not in VENUES:
        raise ValueError(f"unknown venue {venue!r}; choose one of {', '.join(VENUES)}")
    size_of = {
        "neurips": (figsizes.neurips2024, fontsizes.neurips2024),
        "iclr": (figsizes.iclr2024, fontsizes.iclr2024),
        "icml": (figsizes.icml2024_full, fontsizes.icml2024),
        "jmlr": (figsizes.jmlr2001, fontsizes.jmlr2001),
    }
    figsize, fonts = (f() for f in size_of[venue])
    text = float(fonts["axes.labelsize"])
    small = max(float(fonts["xtick.labelsize"]), SMALL_PT)
    full = float(figsize["figure.figsize"][0])
    if width is not None and not 1.0 <= width <= 20.0:
        raise ValueError(f"width must be in [1, 20] inches (got {width!r})")
    return Layout(venue=venue, width=full if width is None else float(width), text=max(text, small), small=small)
