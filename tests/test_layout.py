"""The layout check (:mod:`gaugecli.plots.layout_check`) against figures built to offend in one way
each and its colour difference against published references; then every figure, full and main-text
version, at every venue's width: no text clipped or colliding, no legend over data, no two colours of a
panel alike."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _quick_runs import QuickRuns

from gaugecli.pipeline import Pipeline
from gaugecli.plots import FIGURES, style
from gaugecli.plots import layout_check as L
from gaugecli.plots.render import figure_module, main_panels
from gaugecli.plots.venue import VENUES, layout

# Sharma, Wu & Dalal (2005), Table 1: pairs of CIELAB colours and their CIEDE2000 difference, printed
# to four decimals (rows 1, 2, 3, 7, 8, 17–20, 25, 26, 34: the hue, chroma and lightness terms, the
# achromatic case and the blue-region rotation term R_T).
SHARMA = [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 3.1571, -77.2803), (50.0, 0.0, -82.7485), 2.8615),
    ((50.0, 2.8361, -74.0200), (50.0, 0.0, -82.7485), 3.4412),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, -1.0, 2.0), (50.0, 0.0, 0.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((50.0, 2.5, 0.0), (61.0, -5.0, 29.0), 22.8977),
    ((50.0, 2.5, 0.0), (56.0, -27.0, -3.0), 31.9030),
    ((50.0, 2.5, 0.0), (58.0, 24.0, 15.0), 19.4535),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((63.0109, -31.0961, -5.8663), (62.8187, -29.7946, -4.0864), 1.2630),
    ((22.7233, 20.0904, -46.6940), (23.0331, 14.9730, -42.5619), 2.0373),
]


def test_ciede2000_matches_sharmas_table() -> None:
    lab1, lab2, expected = (np.array(v) for v in zip(*SHARMA, strict=True))
    # the table prints four decimals: agreement to half a unit of the last one
    np.testing.assert_allclose(L.delta_e_2000(lab1, lab2), expected, rtol=0, atol=5e-5)
    # symmetric in its arguments (row 7 against row 8 above; here every row, to round-off)
    np.testing.assert_allclose(L.delta_e_2000(lab2, lab1), expected, rtol=0, atol=5e-5)


def test_srgb_to_lab_matches_the_published_primaries() -> None:
    # CIELAB of sRGB white, red, green and blue under D65 (Lindbloom's calculator, two decimals)
    rgb = [(1, 1, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
    lab = [(100.0, 0.0, 0.0), (53.24, 80.09, 67.20), (87.73, -86.18, 83.18), (32.30, 79.19, -107.86)]
    np.testing.assert_allclose(L.srgb_to_lab(rgb), lab, rtol=0, atol=0.01)


def _figure(width: float = 3.0, height: float = 2.0) -> tuple[Any, Any]:
    with style.context(layout()):
        return style.new_figure(width, height)


def test_a_clean_figure_passes() -> None:
    fig, ax = _figure()
    x = np.linspace(0, 1, 20)
    ax.plot(x, x, color=style.BLUE, label="up")
    ax.plot(x, 1 - x, color=style.VERMILLION, label="down")
    ax.set_xlabel("x")
    fig.legend(loc="outside upper center", ncols=2)
    style.panel_label(ax, "a")
    assert L.offences(fig) == []


def test_each_offence_is_found_and_named() -> None:
    fig, ax = _figure()
    x = np.linspace(0, 1, 20)
    ax.plot(x, x, color=style.BLUE, label="diagonal")
    ax.plot(x, 0.5 + 0 * x, color="#0274b3", label="flat")  # ΔE00 ≈ 0.3 from the blue
    ax.legend(loc="center")  # on both lines
    ax.annotate("first note", (0.1, 0.8), fontsize=8)
    ax.annotate("second note", (0.15, 0.8), fontsize=8)  # on the first
    ax.annotate("past the edge", (0.9, 0.2), xycoords="figure fraction", fontsize=8)  # beyond the right edge
    found = L.offences(fig)
    assert any(o.startswith("clipped: axes text 'past the edge'") for o in found), found
    assert any("collision" in o and "'first note'" in o and "'second note'" in o for o in found), found
    assert any(o.startswith("legend over data: axes legend covers") for o in found), found
    assert any(o.startswith("colours: axes draws #0173b2 and #0274b3") for o in found), found
    assert len(found) == 4, found


def test_series_alike_in_colour_dash_and_marker_are_named() -> None:
    fig, ax = _figure()
    x = np.linspace(0, 1, 5)
    ax.plot(x, x, color=style.PINK, label="leaky 0.3")
    ax.plot(x, x**2, color=style.PINK, label="relu²")
    ax.plot(x, x**3, color=style.PINK, ls="--", label="relu³")  # its dash tells it apart
    assert L.offences(fig) == ["colours: axes draws 'leaky 0.3' and 'relu²' alike"]


def test_tick_labels_outside_the_view_are_not_counted() -> None:
    fig, ax = _figure()
    ax.plot([0.0, 1.0], [0.0, 1.0], color=style.BLUE)
    ax.set_xticks([-5.0, 0.0, 1.0, 6.0], ["far left", "0", "1", "far right"])  # ±5: not drawn
    ax.set_xlim(0, 1)
    names = [b.name for b in L.text_boxes(fig)]
    assert "axes x-tick '0'" in names and not any("far" in n for n in names)


def test_the_pairs_left_out_are_those_no_rule_can_report() -> None:
    # offences compares only the pairs _near_pairs keeps; every pair it leaves out must be one that
    # neither rule reports (overlap > TOLERANCE_PT, or x-tick labels closer than TICK_GAP_PT), checked
    # on every pair of a crowd of boxes, upright and rotated, apart, touching and overlapping
    rng = np.random.default_rng(7)
    boxes = []
    for k in range(120):
        centre, half = rng.uniform(0.0, 60.0, 2), rng.uniform(0.5, 8.0, 2)
        corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half
        if k % 3 == 0:
            c, s = np.cos(rng.uniform(0, np.pi)), np.sin(rng.uniform(0, np.pi))
            corners = corners @ np.array([[c, s], [-s, c]])
        name = f"panel (a) x-tick '{k}'" if k % 2 else f"panel (a) text '{k}'"
        boxes.append(L.Box(name, corners + centre))
    kept = {(a.name, b.name) for a, b in L._near_pairs(boxes)}
    reported = set()
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            depth = L._overlap(a, b)
            if depth > L.TOLERANCE_PT or (depth > -L.TICK_GAP_PT and L._same_axis_ticks(a, b)):
                reported.add((a.name, b.name))
    assert reported and reported <= kept  # the crowd offends, and nothing reportable is left out
    assert len(kept) < len(boxes) * (len(boxes) - 1) // 4  # most pairs are far apart, not compared
    order = [(a.name, b.name) for a, b in L._near_pairs(boxes)]
    assert order == sorted(order, key=lambda p: (int(p[0].split("'")[1]), int(p[1].split("'")[1])))


# ------------------------------------------------------------------------------------------
# every figure at every venue


def _layouts() -> list[Any]:
    """The venues' layouts, one of each distinct size (two venues may print alike)."""
    seen: dict[tuple[float, float, float], Any] = {}
    for venue in VENUES:
        sizes = layout(venue)
        seen.setdefault((sizes.width, sizes.text, sizes.small), sizes)
    return list(seen.values())


def _drawn(fig: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    from matplotlib.lines import Line2D

    return [(np.asarray(ln.get_xdata(), float), np.asarray(ln.get_ydata(), float)) for ln in fig.findobj(Line2D)]


def _check_main(fig: Any, panels: dict[str, Any], full: dict[str, Any], letters: tuple[str, ...]) -> list[str]:
    """The main version draws its panels lettered (a), (b), … in ``MAIN_PANELS``' order, each with
    the full figure's numbers (its sidecar's series, every one drawn)."""
    from _figure_checks import panel_axes, sidecar_series
    from matplotlib.text import Text

    from gaugecli.plots.venue import MIN_TEXT_PT

    problems = []
    small = sorted({t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()})
    if small and small[0] < MIN_TEXT_PT:
        problems.append(f"main version has text at {small[0]:g} pt < {MIN_TEXT_PT:g}")
    if fig.get_figheight() > fig.get_figwidth():
        problems.append(f"main version is {fig.get_figheight():.2f} in tall, more than its width")
    if sorted(panel_axes(fig)) != list("abcdefgh"[: len(letters)]):
        problems.append(f"main version lettered {sorted(panel_axes(fig))}, not a, b, … for {letters}")
    # the main version may return the full figure's numbers (it writes no sidecar of its own) but must
    # hold every panel it draws
    if not set(letters) <= set(panels):
        problems.append(f"main version's numbers lack panels {sorted(set(letters) - set(panels))}")
    lines = _drawn(fig)
    for letter in letters:
        for name, series in sidecar_series(panels.get(letter, {}), letter):
            x, y = style.as_array(series["x"]), style.as_array(series["y"])
            same = dict(sidecar_series(full[letter], letter)).get(name)
            if same is None or not (np.allclose(style.as_array(same["x"]), x, equal_nan=True)):
                problems.append(f"main version's {name} is not the full figure's")
            elif not any(
                lx.shape == x.shape and np.allclose(lx, x, equal_nan=True) and np.allclose(ly, y, equal_nan=True)
                for lx, ly in lines
            ):
                problems.append(f"main version's {name} is not drawn")
    return problems


@pytest.mark.parametrize("fig_id", FIGURES)
def test_no_figure_clips_or_collides_at_any_venue(fig_id: str, quick_runs: QuickRuns) -> None:
    """Every version at every venue's width passes the layout check; the main version (at the first
    venue) draws the full figure's numbers (its quick runs: the session's, shared with test_figN.py)."""
    module = figure_module(fig_id)
    inputs, _ = quick_runs.inputs(fig_id)
    found: list[str] = []
    for k, sizes in enumerate(_layouts()):
        versions = {"full": sizes}
        if (letters := main_panels(fig_id)) is not None:
            versions["main"] = dataclasses.replace(sizes, panels=letters)
        drawn: dict[str, Any] = {}
        for version, at in versions.items():
            with style.context(at):
                fig, drawn[version] = module.build(inputs, at)
                found += [f"{sizes.venue} ({sizes.width:g} in), {version}: {o}" for o in L.offences(fig)]
                if version == "main" and k == 0 and letters is not None:
                    found += _check_main(fig, drawn["main"], drawn["full"], letters)
    assert not found, "\n".join(found)


# ------------------------------------------------------------------------------------------
# plot --layout main


def _plot(*args: str) -> Any:
    from typer.testing import CliRunner

    from gaugecli.cli.app import app

    return CliRunner().invoke(app, ["plot", *args], terminal_width=200)


def test_layout_main_writes_the_main_version_beside_the_sidecar(tmp_path: Path, quick_runs: QuickRuns) -> None:
    out, cache = tmp_path / "out", str(quick_runs.copy("lockin", tmp_path / "runs"))
    # its runs cached: drawn in this process (a pool of workers would only import and start, ~7 s a call)
    result = _plot(
        "lockin", "--quick", "--cache-dir", cache, "--out-dir", str(out), "--layout", "main", "--workers", "1"
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["lockin.json", "lockin_main.pdf", "lockin_main.png"]
    # the sidecar is the full figure's: every panel's numbers, though only (a) and (c) are drawn
    panels = json.loads((out / "lockin.json").read_text())["result"]["panels"]
    assert set("abcd") <= set(panels)
    result = _plot("lockin", "--quick", "--cache-dir", cache, "--out-dir", str(out), "--workers", "1")  # the full one
    assert result.exit_code == 0, result.output
    assert {"lockin.pdf", "lockin.png", "lockin_main.pdf"} <= {p.name for p in out.iterdir()}


def test_layout_main_of_a_figure_without_one_is_refused_naming_those_with_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gaugecli.plots.render import figure_module

    monkeypatch.delattr(figure_module("fig4"), "MAIN_PANELS")  # every figure has one: take fig4's away
    out = tmp_path / "out"
    result = _plot("fig4", "--quick", "--cache-dir", str(tmp_path / "runs"), "--out-dir", str(out), "--layout", "main")
    assert result.exit_code == 2
    message = " ".join(result.output.split())
    with_main = [f for f in FIGURES if main_panels(f) is not None]
    assert "fig4 has no main-text version" in message and ", ".join(with_main) in message
    assert "Traceback" not in result.output and not out.exists()
    result = _plot("fig1", "--out-dir", str(out), "--layout", "sideways")
    assert result.exit_code == 2 and "--layout" in result.output and not out.exists()


def test_plot_all_draws_both_versions_where_a_figure_has_a_main_one() -> None:
    from gaugecli.cli.plot import _versions

    ids = list(FIGURES)
    both = _versions(ids, True, None)
    assert {f for f, v in both.items() if v == ("full", "main")} == {f for f in ids if main_panels(f) is not None}
    assert all(v in (("full",), ("full", "main")) for v in both.values())
    assert _versions(["fig1"], False, None) == {"fig1": ("full",)}
    only_main = _versions(ids, True, "main")
    assert all(v == (() if main_panels(f) is None else ("main",)) for f, v in only_main.items())
    assert all(v == ("full",) for v in _versions(ids, True, "full").values())


def test_a_main_version_is_kept_exactly_when_the_full_figure_is(tmp_path: Path, quick_runs: QuickRuns) -> None:
    """``keep_unchanged``: the main version draws the full figure's numbers, so its files are kept
    byte for byte with the full figure's (every number within tolerance) and redrawn with them."""
    from gaugecli.plots.render import render

    cache, out = Pipeline(quick_runs.copy("lockin", tmp_path / "runs")), tmp_path / "out"
    both = ("full", "main")
    first = render("lockin", cache, out, formats=("png",), quick=True, versions=both)
    assert [p.name for p in first] == ["lockin.png", "lockin_main.png", "lockin.json"] and not first.kept
    for path in first[:2]:
        path.write_bytes(b"marker")
    again = render("lockin", cache, out, formats=("png",), quick=True, versions=both, keep_unchanged=True)
    assert again.kept and all(p.read_bytes() == b"marker" for p in again[:2])
    (out / "lockin_main.png").unlink()  # a version missing: both redrawn
    again = render("lockin", cache, out, formats=("png",), quick=True, versions=both, keep_unchanged=True)
    assert not again.kept and all(p.read_bytes().startswith(b"\x89PNG") for p in again[:2])


def test_check_layout_passes_a_clean_figure_and_fails_naming_each_offence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quick_runs: QuickRuns
) -> None:
    """``plot --check-layout`` holds what it draws to the check: a clean figure passes; a text pushed
    past the figure's edge fails the command (exit 1), the offence named, in one line."""
    from gaugecli.plots.render import figure_module

    cache, out = str(quick_runs.copy("lockin", tmp_path / "runs")), tmp_path / "out"
    # its runs cached: drawn in this process (a pool of workers would only import and start, ~7 s a call)
    args = ("lockin", "--quick", "--cache-dir", cache, "--out-dir", str(out), "--check-layout", "--workers", "1")
    clean = _plot(*args)
    assert clean.exit_code == 0, clean.output
    assert "every figure drawn passes the layout check" in clean.output
    module = figure_module("lockin")
    build = module.build

    def clipped(inputs: Any, at: Any) -> Any:
        fig, panels = build(inputs, at)
        fig.text(0.99, 0.5, "a note past the edge")  # left-aligned at 99 % of the width: clipped
        return fig, panels

    monkeypatch.setattr(module, "build", clipped)
    bad = _plot(*args, "--rewrite")
    assert bad.exit_code == 1 and "Traceback" not in bad.output
    lines = " ".join(bad.output.split())
    assert "lockin full: clipped" in lines and "a note past the edge" in lines and "layout offences" in lines
