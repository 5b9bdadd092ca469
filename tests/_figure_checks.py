"""Checks every figure test can make of a drawn figure: its lettered panels, the sidecar series each
must draw, the drawn points (to test that legends and notes sit clear of them), text size and height,
and that each tolerance rule of the figure still names a number its sidecar writes."""

from __future__ import annotations

import fnmatch
from typing import Any

import numpy as np
from matplotlib.text import Text

from gaugecli.plots import style
from gaugecli.plots.venue import MIN_TEXT_PT


def panel_axes(fig: Any) -> dict[str, Any]:
    """The axes titled ``(a)``, ``(b)``, … by their letter."""
    from matplotlib.axes import Axes

    return {
        ax.get_title(loc="left").strip("()"): ax for ax in fig.findobj(Axes) if ax.get_title(loc="left").startswith("(")
    }


def sidecar_series(node: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every ``{x, y, …}`` series in a sidecar panel, with its path."""
    if isinstance(node, dict):
        if "x" in node and "y" in node:
            return [(path, node)]
        return [item for k, v in node.items() for item in sidecar_series(v, f"{path}/{k}")]
    return []


def data_points(ax: Any, steps: int = 8, *, guides: bool = True) -> np.ndarray:
    """Every drawn line's points in display coordinates, with points along its segments
    (``guides=False``: not the grey guides, thresholds and power laws of :data:`style.GUIDE`)."""
    from matplotlib.colors import same_color

    from gaugecli.plots import style

    out = []
    for line in ax.get_lines():
        if not guides and same_color(line.get_color(), style.GUIDE):
            continue
        xy = np.column_stack([np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)])
        if xy.size == 0:
            continue
        with np.errstate(invalid="ignore", divide="ignore"):
            pts = ax.transData.transform(xy)
        if line.get_linestyle() not in ("None", "none", " ", "") and len(pts) > 1:
            f = np.linspace(0.0, 1.0, steps, endpoint=False)[:, None, None]
            pts = np.concatenate([(pts[:-1] + f * (pts[1:] - pts[:-1])).reshape(-1, 2), pts[-1:]])
        out.append(pts[np.all(np.isfinite(pts), axis=1)])
    return np.concatenate(out) if out else np.empty((0, 2))


def covers(box: Any, pts: np.ndarray, pad: float = 1.0) -> int:
    """How many of ``pts`` lie inside ``box`` (shrunk by ``pad`` display units)."""
    inside = (pts[:, 0] > box.x0 + pad) & (pts[:, 0] < box.x1 - pad) & (pts[:, 1] > box.y0 + pad)
    return int(np.sum(inside & (pts[:, 1] < box.y1 - pad)))


def assert_every_series_drawn(fig: Any, panels: dict[str, Any], letters: str) -> None:
    """Each panel ``letters`` exists and draws every series its sidecar panel holds, point for point."""
    axes = panel_axes(fig)
    assert sorted(axes) == list(letters)
    for letter, ax in axes.items():
        lines = [(np.asarray(ln.get_xdata(), float), np.asarray(ln.get_ydata(), float)) for ln in ax.get_lines()]
        found = sidecar_series(panels[letter])
        assert found, letter
        for name, s in found:
            x, y = style.as_array(s["x"]), style.as_array(s["y"])
            assert any(
                lx.shape == x.shape and np.allclose(lx, x, equal_nan=True) and np.allclose(ly, y, equal_nan=True)
                for lx, ly in lines
            ), f"panel {letter}: series {name} is not drawn"


def assert_text_and_height(fig: Any, max_height_in: float) -> None:
    """Every visible text at least :data:`MIN_TEXT_PT`, the figure at most ``max_height_in`` tall."""
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert texts and min(t.get_fontsize() for t in texts) >= MIN_TEXT_PT
    assert fig.get_figheight() <= max_height_in


def assert_rules_name_sidecar_numbers(panels: dict[str, Any], rules: Any) -> None:
    """Each ``SIDECAR_TOLERANCES`` pattern matches at least one number the sidecar writes."""

    def paths(node: Any, path: str) -> list[str]:
        if isinstance(node, dict):
            return [p for k, v in node.items() for p in paths(v, f"{path}/{k}" if path else k)]
        if isinstance(node, list) and node and not all(isinstance(v, (int, float)) or v is None for v in node):
            return [p for i, v in enumerate(node) for p in paths(v, f"{path}/{i}")]
        return [path]

    written = paths(panels, "")
    for pattern, *_ in rules:
        assert any(fnmatch.fnmatchcase(p, pattern) for p in written), pattern


def assert_legend_clear(fig: Any, letter: str) -> None:
    """Panel ``letter``'s legend covers no point of its data lines (guides may pass under it)."""
    ax = panel_axes(fig)[letter]
    legend = ax.get_legend()
    assert legend is not None
    covered = covers(legend.get_window_extent(), data_points(ax, guides=False))
    assert covered == 0, f"panel {letter}: the legend covers {covered} points of data"
