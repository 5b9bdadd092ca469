"""One house style for every figure: seaborn's ``paper`` context, the colorblind palette,
DejaVu Sans (text and math) embedded as TrueType, and journal widths.

Gauges keep the same colour and marker in every figure:
favorable (δ = +D) blue circles, unfavorable (δ = −D) vermillion squares, balanced (δ = 0) green triangles.

matplotlib and seaborn are imported inside the functions, so importing this module is free;
figures are built on :class:`matplotlib.figure.Figure` directly (Agg canvas, no pyplot state).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from gaugecli.plots.venue import Layout

if TYPE_CHECKING:  # a dash pattern: a name ("-", ":", …) or (offset, on-off sequence)
    from matplotlib.typing import LineStyleType as LineStyleType

ONE_COLUMN = 3.4
"""Width of a one-column figure, inches."""
TWO_COLUMN = 7.0
"""Width of a two-column figure, inches."""
PNG_DPI = 300

# seaborn "colorblind" (fixed here so that colours do not depend on the seaborn version)
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, BROWN, PINK, GREY, YELLOW, SKY = (
    "#0173b2",
    "#de8f05",
    "#029e73",
    "#d55e00",
    "#cc78bc",
    "#ca9161",
    "#fbafe4",
    "#949494",
    "#ece133",
    "#56b4e9",
)

PLUS, MINUS, BALANCED = BLUE, VERMILLION, GREEN
"""+D, −D and δ = 0 keep these colours in every figure; nothing else uses them."""
THEORY = "0.15"
"""Closed forms and asymptotes: near-black."""
GUIDE = "0.45"
"""Guides (power laws, thresholds, round-off floors): grey."""
GAUGE_COLORS = {"favorable": PLUS, "unfavorable": MINUS, "balanced": BALANCED}
GAUGE_MARKERS = {"favorable": "o", "unfavorable": "s", "balanced": "^"}
GAUGE_LABELS = {
    "favorable": r"favorable $\delta=+D$",
    "unfavorable": r"unfavorable $\delta=-D$",
    "balanced": r"balanced $\delta=0$",
}
MODE_LINESTYLES = {"flow": "-", "gd": ":", "sample": "--"}
MODE_LABELS = {"flow": "population flow", "gd": "population GD", "sample": "finite sample"}
REFERENCE_COLOR = "0.35"
"""Reference lines (thresholds, power laws): dark grey, dotted."""
SEQUENCE_MARKERS = ("o", "^", "D", "v", "P", "X", "<", ">", "*", "h")
"""Markers of a sequence of runs (D, m, n values); no square: squares mean the −D gauge in every figure."""

# Axis labels with the symbols of docs/theory.md.
LABELS = {
    "t": r"time $t$",
    "loss": r"loss $\mathcal{L}(t)$",
    "loss_level": r"loss level $\ell$",
    "alignment": r"alignment $\alpha_j = u_j\cdot v$",
    "alignment_owner": r"alignment $\alpha = u\cdot v$",
    "coefficient": r"coefficient $c_j(t)$",
    "tspec": r"$T_{\rm spec}$",
    "D": r"gauge strength $D$ [$a_*^2\|v\|^2$]",
    "P": r"non-owner norm $P(t)$",
    "reaction": r"$R(t)$",
    "transport": r"$T(t)$",
    "dissipation": r"dissipation $R(t),\ T(t)$",
    "residual": r"$|\,\|\nabla\mathcal{L}\|^2 - (R+T)| \,/\, \|\nabla\mathcal{L}\|^2$",
    "norm_w": r"input norm $\|w\|$",
    "abs_a": r"output weight $|a|$",
    "eps": r"perturbation size $\varepsilon$",
    "eta": r"step size $\eta$",
    "n": r"sample size $n$",
    "m": r"neurons $m$",
    "designated": r"designated owner $o$",
    "tspec_error": r"$|T_{\rm spec}^{\rm GD} - T_{\rm spec}^{\rm flow}|$",
    "deviation": r"deviation from population",
    "probability": "selection probability",
    "prediction": r"prediction $f_0(x(s))$",
    "slice": r"slice coordinate $s$",
    "ratio": r"$T_{\rm spec}(-D)\,/\,T_{\rm spec}(+D)$",
}


@cache
def rc_params(layout: Layout | None = None) -> dict[str, Any]:
    """The rcParams of the house style (seaborn ticks style, the colorblind cycle, one font for
    text and math) at the text sizes of ``layout`` (default: the seaborn paper context)."""
    import seaborn as sns
    from cycler import cycler

    rc: dict[str, Any] = {}
    rc.update(sns.axes_style("ticks"))
    rc.update(sns.plotting_context("paper", font_scale=0.85))
    rc.update(
        {
            "font.family": ["sans-serif"],
            "font.sans-serif": ["DejaVu Sans"],
            "mathtext.fontset": "dejavusans",
            "axes.prop_cycle": cycler(color=sns.color_palette("colorblind").as_hex()),
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.titlesize": 8.0,
            "legend.frameon": False,
            "legend.handlelength": 1.8,
            "legend.borderaxespad": 0.3,
            "lines.linewidth": 1.3,
            "lines.markersize": 4.0,
            "image.cmap": "cividis",
            "pdf.fonttype": 42,
            "ps.fonttype": 42,
            "svg.fonttype": "path",  # glyphs as outlines: identical in every viewer
            "svg.hashsalt": "gaugecli",  # reproducible SVG ids
            "savefig.dpi": PNG_DPI,
            "savefig.bbox": "standard",
            # the layout is measured at the PDF's 72 dpi: mathtext is parsed per dpi, so the layout's
            # parses are the PDF's too (at 100 dpi a third of all parses were the layout's alone)
            "figure.dpi": 72,
            # every figure asks for constrained layout itself (new_figure); off here so that
            # set_layout_engine(None) removes the engine once the layout is frozen (render.freeze_layout)
            "figure.constrained_layout.use": False,
            "figure.constrained_layout.h_pad": 0.03,
            "figure.constrained_layout.w_pad": 0.03,
        }
    )
    if layout is not None:
        rc.update(
            {
                "font.size": layout.text,
                "axes.labelsize": layout.text,
                "axes.titlesize": layout.text,
                "xtick.labelsize": layout.small,
                "ytick.labelsize": layout.small,
                "legend.fontsize": layout.small,
                "legend.title_fontsize": layout.small,
                "figure.titlesize": layout.text,
            }
        )
    return rc


@contextlib.contextmanager
def context(layout: Layout | None = None) -> Iterator[None]:
    """Apply the house style while building and saving figures (which use an Agg canvas,
    never pyplot or a display, so the caller's backend is left alone)."""
    import matplotlib

    # the stubs key rc_context by a Literal of every rcParams name; ours is a dict built at run time
    with matplotlib.rc_context(rc_params(layout)), script_size((layout or Layout()).script_shrink):  # type: ignore[arg-type]
        yield


_PARSES: dict[float, Any] = {}
"""mathtext's parse cache for each script factor :func:`script_size` has set in this process."""


@contextlib.contextmanager
def script_size(shrink: float) -> Iterator[None]:
    """Draw mathtext sub- and superscripts at ``shrink`` × their text size while inside.

    matplotlib has no setting for it: the factor is the module constant
    ``matplotlib._mathtext.SHRINK_FACTOR`` (0.7, so 5.0 pt scripts on 7.2 pt ticks). It is set
    here and restored after. Inside, mathtext's parse cache is this factor's own (:data:`_PARSES`;
    matplotlib's is restored after), so no layout made at one factor is reused at the other. It is
    keyed by the parser's output type, not by the parser: every renderer (the layout's, the PDF's,
    the PNG's) makes a parser of its own, so matplotlib's cache, keyed by that instance, never
    serves one renderer what another parsed — here the layout and the PDF, both at 72 dpi, share
    their parses, and so do figures (their tick labels repeat). It is also larger than
    matplotlib's 50 entries, which one figure's tick labels overflow.
    ``tests/test_style.py`` checks the printed script size, so a matplotlib that renames either
    fails there, not silently.
    """
    import functools

    from matplotlib import _mathtext
    from matplotlib.mathtext import MathTextParser

    parser: Any = MathTextParser  # private attributes: not in matplotlib's stubs
    previous, cached = _mathtext.SHRINK_FACTOR, parser._parse_cached
    _mathtext.SHRINK_FACTOR = shrink
    if shrink not in _PARSES:
        parse = cached.__wrapped__  # (parser, s, dpi, prop, antialiased, load_glyph_flags) → layout
        # the result depends on the parser only through its output type (class-level parser and
        # font tables otherwise): one representative per type does the parsing
        kinds = {"vector": MathTextParser("path"), "raster": MathTextParser("agg")}

        @functools.lru_cache(maxsize=4096)
        def by_output(output: str, *args: Any) -> Any:
            return parse(kinds[output], *args)

        def shared(self: Any, *args: Any) -> Any:
            return by_output(self._output_type, *args)

        _PARSES[shrink] = shared
    parser._parse_cached = _PARSES[shrink]
    try:
        yield
    finally:
        _mathtext.SHRINK_FACTOR = previous
        parser._parse_cached = cached


def new_figure(width: float, height: float, **subplot_kw: Any) -> tuple[Any, Any]:
    """A :class:`matplotlib.figure.Figure` (Agg canvas, no pyplot) and its axes from ``subplots``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(**subplot_kw) if subplot_kw else fig.subplots()
    return fig, axes


def panel_label(ax: Any, letter: str) -> None:
    """``(a)``, ``(b)``, … in bold at the top-left corner, outside the axes."""
    ax.set_title(f"({letter})", loc="left", fontweight="bold", fontsize=8.5, pad=3)


def gauge_of(delta: float) -> str:
    """``favorable`` / ``unfavorable`` / ``balanced`` from the sign of δ."""
    return "favorable" if delta > 0 else ("unfavorable" if delta < 0 else "balanced")


def sequential_colors(n: int) -> list[str]:
    """``n`` colours for an ordered quantity (D, m, n): evenly spaced on cividis (colorblind-safe)."""
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    cmap = colormaps["cividis"]
    return [to_hex(cmap(x)) for x in np.linspace(0.0, 0.78, max(n, 1))][:n]


def as_array(values: Any) -> np.ndarray:
    """A JSON list (``None`` for NaN) as a float array."""
    if values is None:
        return np.array([], dtype=float)
    return np.array(values, dtype=float)


class _Aligning(Protocol):
    @property
    def t_spec(self) -> float | None: ...


def spec_time(run: _Aligning) -> float:
    """``T_spec`` of a run whose time axis a figure scales by it. Every run a figure requests
    aligns within its horizon; one that did not (``t_spec`` is ``None``) is a bug in the figure's
    configuration, reported here rather than as a ``TypeError`` in the arithmetic."""
    if run.t_spec is None:
        raise ValueError("a figure's run never reached alignment α = 1 − ε (T_spec is None): lengthen its horizon")
    return float(run.t_spec)


def loglog_fit(x: ArrayLike, y: ArrayLike) -> tuple[float, float]:
    """Least-squares ``log y = slope · log x + intercept`` over finite positive pairs.

    Returns ``(slope, intercept)``; NaN for both with fewer than two usable points.
    """
    xs, ys = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(xs) & np.isfinite(ys) & (xs > 0) & (ys > 0)
    if np.count_nonzero(ok) < 2:
        return float("nan"), float("nan")
    slope, intercept = np.polyfit(np.log(xs[ok]), np.log(ys[ok]), 1)
    return float(slope), float(intercept)


def positive(x: np.ndarray, y: np.ndarray, floor: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The samples of ``(x, y)`` where both are finite, ``x > 0`` and ``y > floor`` (for log axes)."""
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > floor)
    return x[ok], y[ok]


def series(x: Any, y: Any, **extra: Any) -> dict[str, Any]:
    """A sidecar series: exactly the numbers handed to the plotting call."""
    out = {"x": tolist(x), "y": tolist(y)}
    out.update({k: tolist(v) for k, v in extra.items()})
    return out


def tolist(v: Any) -> Any:
    """Arrays and numpy scalars as JSON-ready lists and floats; NaN/inf as ``None``."""
    if isinstance(v, np.ndarray):
        return [None if not np.isfinite(e) else float(e) for e in v.ravel()] if v.ndim == 1 else [tolist(r) for r in v]
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return f if np.isfinite(f) else None
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, (list, tuple)):
        return [tolist(e) for e in v]
    return v


def tidy_log_axis(ax: Any, which: str = "both") -> None:
    """Readable ticks on log axes spanning less than 30×: majors at 1–9, 1, 2, 3, 5 or
    1, 2, 5 × 10^k, labelled plainly (``0.02``); minor ticks never labelled.
    Call after the data are plotted."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    for name in ("x", "y") if which == "both" else (which,):
        axis = ax.xaxis if name == "x" else ax.yaxis
        if axis.get_scale() != "log":
            continue
        lo, hi = sorted(ax.get_xlim() if name == "x" else ax.get_ylim())
        if lo > 0 and hi / lo < 30:
            if hi / lo < 3:
                subs: tuple[float, ...] = tuple(float(k) for k in range(1, 10))
            elif hi / lo < 10:
                subs = (1.0, 2.0, 3.0, 5.0)
            else:
                subs = (1.0, 2.0, 5.0) if name == "x" else (1.0, 2.0, 3.0, 5.0)
            axis.set_major_locator(LogLocator(base=10, subs=subs))
            axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
        axis.set_minor_formatter(NullFormatter())


# ------------------------------------------------------------------------------------------
# shapes shared by the figures


def power_law_guide(
    ax: Any, x: ArrayLike, slope: float, through: tuple[float, float], label: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """A dotted grey guide ``y = y0 (x/x0)^slope`` over ``x``; returns the plotted ``(x, y)``."""
    xs = np.asarray(x, float)
    x0, y0 = through
    ys = y0 * (xs / x0) ** slope
    ax.plot(xs, ys, color=GUIDE, ls=":", lw=0.9, zorder=1, label=label)
    return xs, ys


def note(
    ax: Any,
    text: str,
    xy: tuple[float, float],
    layout: Layout,
    *,
    offset: tuple[float, float] = (0.0, 0.0),
    xycoords: Any = "data",
    ha: str = "left",
    va: str = "center",
    color: str | None = GUIDE,
    **kw: Any,
) -> Any:
    """An in-panel annotation (the label of a guide, curve or band) at the layout's small text size:
    ``text`` at ``xy`` in ``xycoords`` (matplotlib's: ``"data"``, ``"axes fraction"``, or an
    ``(x, y)`` pair of them), shifted by ``offset`` points, aligned by ``ha``/``va``; ``color``
    ``None`` takes the style's text colour. ``kw`` goes to ``annotate`` (e.g. ``multialignment``)."""
    return ax.annotate(
        text,
        xy,
        xycoords=xycoords,
        xytext=offset,
        textcoords="offset points",
        ha=ha,
        va=va,
        color=color,
        fontsize=layout.small,
        **kw,
    )


def threshold_line(ax: Any, y: float, label: str | None = None, *, axis: str = "y") -> None:
    """A thin dotted line at ``y`` (``axis="x"``: a vertical line at x = ``y``), optionally labelled."""
    line = ax.axhline if axis == "y" else ax.axvline
    line(y, color=GUIDE, ls=":", lw=0.8, zorder=0)
    if label:
        if axis == "y":
            ax.annotate(label, (0.01, y), xycoords=("axes fraction", "data"), va="bottom", ha="left", color=GUIDE)
        else:
            ax.annotate(
                label, (y, 0.98), xycoords=("data", "axes fraction"), va="top", ha="left", color=GUIDE, rotation=90
            )


def floor_band(ax: Any, floor: float, label: str | None = "round-off") -> None:
    """A grey band below ``floor`` on a log y-axis: values there are round-off, not data."""
    ax.axhspan(floor * 1e-30, floor, color="0.9", lw=0, zorder=0)
    if label:
        ax.annotate(label, (0.99, floor), xycoords=("axes fraction", "data"), va="top", ha="right", color=GUIDE)


def clip_to_floor(values: Any, floor: float) -> np.ndarray:
    """Values below ``floor`` set to NaN (not drawn): below the floor a series is round-off."""
    v = np.asarray(values, float).copy()
    v[~(v > floor)] = np.nan
    return v


def axis_break(ax: Any, left: float, right: float) -> None:
    """A white gap across the axes between the data positions ``left`` and ``right`` (log x): the
    axis does not continue between them (a value with no logarithm drawn apart, such as 0 or ∞).
    A patch, not a line: it is no data."""
    middle = np.sqrt(left * right)
    ax.axvspan(middle / 1.04, middle * 1.04, color="white", lw=0, zorder=2)


def line_handle(color: str, ls: LineStyleType = "-", marker: str | None = None, label: str = "", **kw: Any) -> Any:
    """A legend handle that shows the line's dashes and marker (not only its colour)."""
    from matplotlib.lines import Line2D

    return Line2D([], [], color=color, ls=ls, marker=marker, ms=3.5, label=label, **kw)
