"""The panel grid of a figure's main-text version (:attr:`gaugecli.plots.venue.Layout.panels`): its
panels' axes by letter, in a grid a page's text width carries."""

from __future__ import annotations

from typing import Any

from gaugecli.plots import style
from gaugecli.plots.venue import Layout


def main_axes(layout: Layout, letters: str, *, height: float = 0.72, row: bool = False) -> tuple[Any, dict[str, Any]]:
    """A figure and the axes of the main-text version's panels (``layout.panels``, among ``letters``),
    by their full-figure letter, in ``layout.panels``' order.

    Two panels stand side by side; three stand as the first, tall, on the left and the other two
    stacked on the right (or, with ``row``, all three side by side) — a third of the text width is
    too narrow for the in-panel labels of most figures. ``height`` × width is the figure's height."""
    if layout.panels is None:
        raise ValueError("main_axes draws a main-text version (layout.panels is None)")
    wanted = [letter for letter in layout.panels if letter in letters]
    if row or len(wanted) < 3:
        fig, axes = style.new_figure(layout.width, layout.height(height), ncols=len(wanted), squeeze=False)
        return fig, dict(zip(wanted, axes[0], strict=True))
    fig = style.new_figure(layout.width, layout.height(height))[0]
    fig.axes[0].remove()
    first, *rest = wanted
    grid = fig.add_gridspec(len(rest), 2)
    out = {first: fig.add_subplot(grid[:, 0])}
    out.update({letter: fig.add_subplot(grid[i, 1]) for i, letter in enumerate(rest)})
    return fig, out


def panel_axes(layout: Layout, letters: str, *, full: float, main: float, ncols: int = 2) -> tuple[Any, dict[str, Any]]:
    """A figure and its panels' axes by letter: the full figure's ``letters`` in rows of ``ncols``
    (``full`` × width high), or the main-text version's wanted panels in one row (``main`` × width)."""
    if layout.is_main:
        wanted = [p for p in letters if layout.wants(p)]
        fig, axes = style.new_figure(layout.width, layout.height(main), nrows=1, ncols=len(wanted), squeeze=False)
        return fig, dict(zip(wanted, axes[0], strict=True))
    nrows = -(-len(letters) // ncols)
    fig, axes = style.new_figure(layout.width, layout.height(full), nrows=nrows, ncols=ncols, squeeze=False)
    return fig, dict(zip(letters, axes.ravel(), strict=True))
