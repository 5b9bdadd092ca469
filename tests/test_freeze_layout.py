"""``render.freeze_layout`` lays a figure out without drawing it: its files are byte for byte those
of a layout by a full draw (``Figure.draw_without_rendering``), the way it was done before."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from gaugecli.plots import style
from gaugecli.plots.render import freeze_layout
from gaugecli.plots.venue import layout


def _by_full_draw(fig: Any) -> None:
    fig.draw_without_rendering()
    fig.set_layout_engine(None)


def _files(freeze: Callable[[Any], None]) -> list[bytes]:
    """A figure with what a layout must get right before any draw — a fixed aspect, a colour bar, a
    legend placed at draw time, panel titles, mathtext, a figure title — saved as PDF and PNG."""
    with style.context(layout()):
        fig, (left, right) = style.new_figure(5.0, 2.2, ncols=2)
        t = np.linspace(0.0, 3.0, 50)
        left.plot(t, np.exp(-t), label=r"$c_1 = e^{-t}$")
        left.plot(t, 1 - np.exp(-t), label=r"$1 - c_1$")
        left.legend(loc="best")
        left.set_xlabel(r"time $t / T_{\rm spec}$")
        style.panel_label(left, "a")
        image = right.imshow(np.outer(t, t[::-1]), origin="lower")
        right.set_aspect("equal")
        fig.colorbar(image, ax=right, label=r"$\delta$")
        style.panel_label(right, "b")
        fig.suptitle("a layout to freeze")
        freeze(fig)
        out = []
        for fmt in ("pdf", "png"):
            buffer = io.BytesIO()
            fig.savefig(buffer, format=fmt, dpi=100 if fmt == "png" else "figure", metadata={"Software": None} if fmt == "png" else {"CreationDate": None, "Producer": None})  # fmt: skip
            out.append(buffer.getvalue())
    return out


def test_the_frozen_layout_is_the_full_draws_byte_for_byte() -> None:
    assert _files(freeze_layout) == _files(_by_full_draw)


def test_the_engine_is_gone_after_freezing() -> None:
    with style.context(layout()):
        fig, _ = style.new_figure(2.0, 2.0)
        freeze_layout(fig)
        assert fig.get_layout_engine() is None
