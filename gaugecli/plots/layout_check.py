"""A drawn figure's layout, checked: text the figure's edge clips, texts and legends that collide,
legends over data, and series sharing a panel whose colours a reader cannot tell apart.

Every text artist a reader sees — axis labels, tick labels drawn inside the view, offset texts,
titles and panel letters, annotations, figure texts, and each legend as one box — is measured by its
window extent after a draw (the frozen layout the files are saved from), in points:

* **clipped**: a box reaching past the figure's edge by more than :data:`TOLERANCE_PT`;
* **collision**: two boxes overlapping by more than :data:`TOLERANCE_PT` in both directions, or two
  tick labels of one x axis closer than :data:`TICK_GAP_PT`;
* **legend over data**: a legend box holding points of a panel's data lines or markers (the grey
  guides of :data:`gaugecli.plots.style.GUIDE` may pass under a legend's frame);
* **colours**: two data colours of one panel closer than :data:`MIN_DELTA_E` in CIEDE2000 ΔE
  (Sharma, Wu & Dalal 2005, on CIELAB from sRGB under D65), or two labelled series drawn in one
  colour, dash and marker.

:func:`offences` returns one line per offence, naming the artists; an empty list is a clean figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

TOLERANCE_PT = 0.5
"""Overlap (or overhang past the edge) a reader cannot see at printed size: half a point, a fifth of
the gap between two lines of 7.2 pt text."""
TICK_GAP_PT = 2.0
"""Least gap between two tick labels of one x axis, points: a space at the small text size (7.2 pt
DejaVu Sans: 2.3 pt), so that ``256`` and ``1024`` do not read as ``2561024``."""
MIN_DELTA_E = 10.0
"""Smallest CIEDE2000 difference between two colours of one panel. ΔE ≈ 1 is the just-noticeable
difference side by side; thin lines and small markers far apart in a panel need about ten times that
(Szafir 2018, "Modeling color difference for visualization design", for marks of 1–2 mm)."""


@dataclass(frozen=True)
class Box:
    """A named rectangle in points (origin at the figure's lower left): ``corners`` (4 × 2, in order
    around it) of a text rotated by its angle, or of an upright box."""

    name: str
    corners: np.ndarray

    @property
    def lower(self) -> np.ndarray:
        return self.corners.min(axis=0)

    @property
    def upper(self) -> np.ndarray:
        return self.corners.max(axis=0)


# ------------------------------------------------------------------------------------------
# colour difference


def srgb_to_lab(rgb: Any) -> np.ndarray:
    """CIELAB ``(L*, a*, b*)`` of sRGB colours in [0, 1] (IEC 61966-2-1 transfer, D65 white)."""
    c = np.asarray(rgb, float)[..., :3]
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    to_xyz = np.array(
        [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]
    )
    xyz = linear @ to_xyz.T / to_xyz.sum(axis=1)  # relative to the white the matrix maps sRGB white to (D65)
    eps, kappa = 216 / 24389, 24389 / 27
    f = np.where(xyz > eps, np.cbrt(xyz), (kappa * xyz + 16) / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def delta_e_2000(lab1: Any, lab2: Any) -> np.ndarray:
    """CIEDE2000 colour difference of CIELAB colours (``k_L = k_C = k_H = 1``), as written in Sharma,
    Wu & Dalal (2005), eqs. (1)–(22)."""
    L1, a1, b1 = np.moveaxis(np.asarray(lab1, float), -1, 0)
    L2, a2, b2 = np.moveaxis(np.asarray(lab2, float), -1, 0)
    C_bar = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    G = 0.5 * (1 - np.sqrt(C_bar**7 / (C_bar**7 + 25.0**7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dLp, dCp = L2 - L1, C2p - C1p
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(C1p * C2p == 0, 0.0, dh)
    dHp = 2 * np.sqrt(C1p * C2p) * np.sin(np.radians(dh / 2))
    Lp_bar, Cp_bar = (L1 + L2) / 2, (C1p + C2p) / 2
    h_sum = h1p + h2p
    hp_bar = np.where(
        C1p * C2p == 0,
        h_sum,
        np.where(np.abs(h1p - h2p) <= 180, h_sum / 2, np.where(h_sum < 360, (h_sum + 360) / 2, (h_sum - 360) / 2)),
    )
    T = (
        1
        - 0.17 * np.cos(np.radians(hp_bar - 30))
        + 0.24 * np.cos(np.radians(2 * hp_bar))
        + 0.32 * np.cos(np.radians(3 * hp_bar + 6))
        - 0.20 * np.cos(np.radians(4 * hp_bar - 63))
    )
    d_theta = 30 * np.exp(-(((hp_bar - 275) / 25) ** 2))
    R_C = 2 * np.sqrt(Cp_bar**7 / (Cp_bar**7 + 25.0**7))
    S_L = 1 + 0.015 * (Lp_bar - 50) ** 2 / np.sqrt(20 + (Lp_bar - 50) ** 2)
    S_C = 1 + 0.045 * Cp_bar
    S_H = 1 + 0.015 * Cp_bar * T
    R_T = -np.sin(np.radians(2 * d_theta)) * R_C
    terms = (dLp / S_L, dCp / S_C, dHp / S_H)
    return np.sqrt(terms[0] ** 2 + terms[1] ** 2 + terms[2] ** 2 + R_T * terms[1] * terms[2])


def colour_difference(color1: Any, color2: Any) -> float:
    """CIEDE2000 ΔE between two matplotlib colours."""
    from matplotlib.colors import to_rgb

    return float(delta_e_2000(srgb_to_lab(to_rgb(color1)), srgb_to_lab(to_rgb(color2))))


# ------------------------------------------------------------------------------------------
# what a reader sees


def _panel_name(ax: Any) -> str:
    letter = ax.get_title(loc="left").strip()
    return f"panel {letter}" if letter else (ax.get_label() or "axes")


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 40 else flat[:37] + "…"


def _drawn_tick_labels(axis: Any) -> list[Any]:
    """The tick labels an axis draws: those of ticks inside the view interval, visible, not empty."""
    labels = []
    for tick in axis._update_ticks():  # the ticks `Axis.draw` draws (inside the view interval)
        for label in (tick.label1, tick.label2):
            if label.get_visible() and label.get_text().strip():
                labels.append(label)
    return labels


def text_boxes(fig: Any) -> list[Box]:
    """Every text a reader sees in ``fig``, and every legend as one box, in points (after a draw)."""
    from matplotlib.axes import Axes
    from matplotlib.legend import Legend
    from matplotlib.text import Text

    renderer = fig.canvas.get_renderer()
    scale = 72.0 / fig.dpi
    legends = [lg for lg in fig.findobj(Legend) if lg.get_visible()]
    inside_legend = {id(t) for lg in legends for t in lg.findobj(Text)}
    boxes: list[Box] = []

    def add(name: str, bbox: Any, text: Any = None) -> None:
        if not (bbox.width > 0 and bbox.height > 0):
            return
        corners = np.array([[bbox.x0, bbox.y0], [bbox.x1, bbox.y0], [bbox.x1, bbox.y1], [bbox.x0, bbox.y1]])
        angle = 0.0 if text is None else float(text.get_rotation()) % 90.0
        if angle > 1e-6:  # a rotated text: its own rectangle, about the centre of its upright box
            upright = _upright_size(text, renderer)
            c, s = np.cos(np.radians(text.get_rotation())), np.sin(np.radians(text.get_rotation()))
            half = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * upright / 2
            corners = half @ np.array([[c, s], [-s, c]]) + corners.mean(axis=0)
        boxes.append(Box(name, corners * scale))

    tick_owned: set[int] = set()
    for ax in fig.findobj(Axes):
        if not ax.get_visible():
            continue
        panel = _panel_name(ax)
        for axis_name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if not axis.get_visible():
                continue
            for label in _drawn_tick_labels(axis):
                add(f"{panel} {axis_name}-tick '{_short(label.get_text())}'", label.get_window_extent(renderer), label)
            tick_owned.update(
                id(t) for tick in axis.get_major_ticks() + axis.get_minor_ticks() for t in (tick.label1, tick.label2)
            )
    for text in fig.findobj(Text):
        if id(text) in tick_owned or id(text) in inside_legend:
            continue
        if not text.get_visible() or not text.get_text().strip():
            continue
        axes = text.axes
        where = _panel_name(axes) if axes is not None else "figure"
        add(f"{where} text '{_short(text.get_text())}'", text.get_window_extent(renderer), text)
    for lg in legends:
        axes = lg.axes if lg.axes is not None and lg.parent is lg.axes else None
        where = _panel_name(axes) if axes is not None else "figure"
        add(f"{where} legend", lg.get_window_extent(renderer))
    return boxes


def _same_axis_ticks(a: Box, b: Box) -> bool:
    """Whether both boxes are tick labels of one x axis, read side by side (a y axis's labels stand
    one above the other, as lines of text do, with the leading between them)."""
    head_a, tick_a, _ = a.name.partition(" x-tick '")
    head_b, tick_b, _ = b.name.partition(" x-tick '")
    return bool(tick_a and tick_b) and head_a == head_b


def _upright_size(text: Any, renderer: Any) -> np.ndarray:
    """Width and height of ``text`` drawn upright (its rotation set to 0 for the measurement)."""
    angle = text.get_rotation()
    text.set_rotation(0.0)
    try:
        box = text.get_window_extent(renderer)
    finally:
        text.set_rotation(angle)
    return np.array([box.width, box.height])


def _overlap(a: Box, b: Box) -> float:
    """How deep two boxes overlap, in points (the least overlap of their projections on the four edge
    normals, the separating-axis test of convex polygons); ≤ 0 when they are apart."""
    upright = min(a.upper[0], b.upper[0]) - max(a.lower[0], b.lower[0])
    upright = min(upright, min(a.upper[1], b.upper[1]) - max(a.lower[1], b.lower[1]))
    if upright <= 0:  # apart even as upright boxes
        return upright
    depth = np.inf
    for box in (a, b):
        for edge in (box.corners[1] - box.corners[0], box.corners[3] - box.corners[0]):
            normal = np.array([-edge[1], edge[0]]) / np.hypot(*edge)
            pa, pb = a.corners @ normal, b.corners @ normal
            depth = min(depth, min(pa.max(), pb.max()) - max(pa.min(), pb.min()))
    return float(depth)


def _near_pairs(boxes: list[Box]) -> list[tuple[Box, Box]]:
    """The pairs of ``boxes``, in :func:`itertools.combinations`' order, whose upright boxes come
    closer than :data:`TICK_GAP_PT`: the only pairs :func:`offences` can report (a pair further apart
    has :func:`_overlap` ≤ −TICK_GAP_PT < TOLERANCE_PT). Found for all pairs at once, since a figure
    has hundreds of texts and tens of thousands of pairs, almost all far apart."""
    if len(boxes) < 2:
        return []
    lower = np.array([b.lower for b in boxes])
    upper = np.array([b.upper for b in boxes])
    # the upright overlap of every pair, as _overlap computes it: the lesser of the two axes'
    gap = np.minimum(upper[:, None, :], upper[None, :, :]) - np.maximum(lower[:, None, :], lower[None, :, :])
    near = np.triu(gap.min(axis=2) > -TICK_GAP_PT, k=1)
    rows, cols = np.nonzero(near)  # row-major: combinations' order
    return [(boxes[i], boxes[j]) for i, j in zip(rows, cols, strict=True)]


def data_points(ax: Any, steps: int = 8) -> np.ndarray:
    """Every point of ``ax``'s data lines and markers in display coordinates, with points along each
    drawn segment; not the grey guides (:data:`gaugecli.plots.style.GUIDE`), which may pass under a
    legend."""
    from matplotlib.collections import PathCollection
    from matplotlib.colors import same_color

    from gaugecli.plots import style

    out = []
    for line in ax.get_lines():
        if not line.get_visible() or same_color(line.get_color(), style.GUIDE):
            continue
        xy = np.column_stack([np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)])
        if xy.size == 0:
            continue
        with np.errstate(invalid="ignore", divide="ignore"):
            pts = line.get_transform().transform(xy)
        if line.get_linestyle() not in ("None", "none", " ", "") and len(pts) > 1:
            f = np.linspace(0.0, 1.0, steps, endpoint=False)[:, None, None]
            pts = np.concatenate([(pts[:-1] + f * (pts[1:] - pts[:-1])).reshape(-1, 2), pts[-1:]])
        out.append(pts[np.all(np.isfinite(pts), axis=1)])
    for coll in ax.collections:
        offsets = np.asarray(coll.get_offsets(), float).reshape(-1, 2)
        if isinstance(coll, PathCollection) and coll.get_visible() and offsets.size:
            with np.errstate(invalid="ignore", divide="ignore"):
                pts = coll.get_offset_transform().transform(offsets)
            out.append(pts[np.all(np.isfinite(pts), axis=1)])
    return np.concatenate(out) if out else np.empty((0, 2))


def _series_styles(ax: Any) -> list[tuple[str, Any, str, str]]:
    """``(label, colour, dash, marker)`` of each data line and marker set of ``ax`` (not guides)."""
    from matplotlib.collections import PathCollection
    from matplotlib.colors import same_color, to_hex

    from gaugecli.plots import style

    out = []
    for line in ax.get_lines():
        if not line.get_visible() or len(line.get_xdata()) == 0 or same_color(line.get_color(), style.GUIDE):
            continue
        out.append((line.get_label(), to_hex(line.get_color()), str(line.get_linestyle()), str(line.get_marker())))
    for coll in ax.collections:
        if isinstance(coll, PathCollection) and coll.get_visible() and np.asarray(coll.get_offsets()).size:
            faces = np.atleast_2d(coll.get_facecolor())
            if len(faces) == 1 and coll.get_array() is None:
                out.append((coll.get_label(), to_hex(faces[0]), "None", "scatter"))
    return out


def offences(fig: Any, *, min_delta_e: float = MIN_DELTA_E) -> list[str]:
    """Every clipping, collision, legend over data and indistinct pair of colours in ``fig``, one line
    each naming the artists (``fig`` is laid out first, as its files are saved)."""
    from matplotlib.axes import Axes
    from matplotlib.colors import to_rgb

    fig.draw_without_rendering()  # the layout the files are saved from, text measured, nothing rasterised
    found: list[str] = []
    width, height = fig.get_figwidth() * 72.0, fig.get_figheight() * 72.0
    boxes = text_boxes(fig)
    for b in boxes:
        over = max(-b.lower[0], -b.lower[1], b.upper[0] - width, b.upper[1] - height)
        if over > TOLERANCE_PT:
            found.append(f"clipped: {b.name} reaches {over:.1f} pt past the figure's edge")
    for a, b in _near_pairs(boxes):
        depth = _overlap(a, b)
        if depth > TOLERANCE_PT:
            found.append(f"collision: {a.name} and {b.name} overlap by {depth:.1f} pt")
        elif depth > -TICK_GAP_PT and _same_axis_ticks(a, b):
            found.append(f"collision: {a.name} and {b.name} are {-depth:.1f} pt apart (< {TICK_GAP_PT:g} pt)")
    scale = 72.0 / fig.dpi
    for ax in fig.findobj(Axes):
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            box = legend.get_window_extent()
            pts = data_points(ax)
            pad = TOLERANCE_PT / scale
            inside = (pts[:, 0] > box.x0 + pad) & (pts[:, 0] < box.x1 - pad)
            inside &= (pts[:, 1] > box.y0 + pad) & (pts[:, 1] < box.y1 - pad)
            if np.any(inside):
                found.append(f"legend over data: {_panel_name(ax)} legend covers {int(np.sum(inside))} data points")
        styles = _series_styles(ax)
        colours = sorted({c for _, c, _, _ in styles})
        for c1, c2 in combinations(colours, 2):
            de = float(delta_e_2000(srgb_to_lab(to_rgb(c1)), srgb_to_lab(to_rgb(c2))))
            if de < min_delta_e:
                found.append(f"colours: {_panel_name(ax)} draws {c1} and {c2}, ΔE00 = {de:.1f} < {min_delta_e:g}")
        seen: dict[tuple[Any, str, str], str] = {}
        for label, colour, dash, marker in styles:
            if label.startswith("_"):
                continue
            key = (colour, dash, marker)
            if key in seen and seen[key] != label:
                found.append(f"colours: {_panel_name(ax)} draws '{seen[key]}' and '{label}' alike")
            seen.setdefault(key, label)
    return found
