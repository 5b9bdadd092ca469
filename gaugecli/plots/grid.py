"""The panel grid of a figure's version: the full figure's rows and columns, or the one row of its
main-text version (:attr:`gaugecli.plots.venue.Layout.panels`), with each panel's axes by letter."""

from __future__ import annotations

from typing import Any

from gaugecli.plots import style
from gaugecli.plots.venue import Layout


def panel_grid(
    layout: Layout,
    letters: str,
    *,
    ncols: int,
    height: float,
    main_height: float,
    height_ratios: Any = None,
    width_ratios: Any = None,
) -> tuple[Any, dict[str, Any]]:
    """A figure and the axes of its panels by letter.

    Full figure: ``letters`` fill ``len(letters) / ncols`` rows of ``ncols`` in reading order, at
    ``height`` × width (``height_ratios``, ``width_ratios`` as matplotlib's). Main-text version: the
    panels of ``layout.panels`` in one row, in that order, at ``main_height`` × width. Each axes is
    lettered by :meth:`Layout.label` (the caller draws its panel, then :func:`label_panels`)."""
    if layout.panels is None:
        nrows = -(-len(letters) // ncols)
        fig, axes = style.new_figure(
            layout.width,
            layout.height(height),
            nrows=nrows,
            ncols=ncols,
            squeeze=False,
            height_ratios=height_ratios,
            width_ratios=width_ratios,
        )
        return fig, dict(zip(letters, axes.ravel(), strict=False))
    wanted = [letter for letter in layout.panels if letter in letters]
    fig, axes = style.new_figure(layout.width, layout.height(main_height), ncols=len(wanted), squeeze=False)
    return fig, dict(zip(wanted, axes.ravel(), strict=True))


def label_panels(axes: dict[str, Any], layout: Layout) -> None:
    """``(a)``, ``(b)``, … on each drawn panel: its letter in this version (:meth:`Layout.label`)."""
    for letter, ax in axes.items():
        if ax is not None:
            style.panel_label(ax, layout.label(letter))
