"""Figure ``lockin_nulls`` (quick profile): the detectors that carry no lock-in signal for ReLU, drawn from
figure ``lockin``'s own run — Xu's window Gram at round-off (its share of windows recomputed from the
stored λ3/λ1 and printed beside (b)), Xu's detector and its σ = x² positive, the resolution scan, and
Tian's sign rule (an identity) and sign rate (not one), stated as text and kept in the sidecar, not drawn; every sidecar series
drawn, every text at least 7 pt, legends and notes clear of the data, no squares, at most 4.5 in tall."""

from __future__ import annotations

import json
from typing import Any

import _figure_checks as checks
import numpy as np
import pytest
from _quick_runs import QuickRuns
from typer.testing import CliRunner

from gaugecli.core.analyses.lockin import ROUNDOFF_LEVEL
from gaugecli.plots import FIGURES, lockin, lockin_nulls, style
from gaugecli.plots.render import resolve
from gaugecli.plots.venue import layout
from gaugecli.store.artifacts import config_hash

CONFIG = lockin_nulls.needs(True)["lockin"].config
D = CONFIG.strengths[0]
MAX_HEIGHT_IN = 4.5


@pytest.fixture(scope="module")
def built(quick_runs: QuickRuns) -> tuple[Any, dict[str, Any], Any]:
    """The quick profile computed once (≈ 4 s on one core), as for test_fig_lockin.py."""
    with quick_runs.locked("lockin_nulls") as pipeline:
        inputs, _ = resolve(lockin_nulls.needs(True), pipeline)
    sizes = layout()
    with style.context(sizes):
        fig, panels = lockin_nulls.build(inputs, sizes)
        fig.canvas.draw()
    return fig, json.loads(json.dumps(panels, allow_nan=False)), inputs["lockin"]


def _runs(result: Any, **where: Any) -> list[Any]:
    return [r for r in result.runs if all(getattr(r, k) == v for k, v in where.items())]


@pytest.mark.parametrize("quick", [True, False])
def test_registered_and_reads_the_lockin_figures_run(quick: bool) -> None:
    """One Need, one cached artifact: the two figures ask for the very same run."""
    assert "lockin_nulls" in FIGURES and FIGURES.index("lockin_nulls") == FIGURES.index("lockin") + 1
    assert lockin_nulls.CLAIM and set(lockin_nulls.TITLES) == set("abcd")
    ours, theirs = lockin_nulls.needs(quick), lockin.needs(quick)
    assert ours.keys() == theirs.keys() == {"lockin"}
    assert ours["lockin"].kind == theirs["lockin"].kind
    assert config_hash(ours["lockin"].config) == config_hash(theirs["lockin"].config)


def test_plot_help_lists_it() -> None:
    from gaugecli.cli.app import app

    result = CliRunner().invoke(app, ["plot", "--help"], terminal_width=200)
    assert result.exit_code == 0 and "lockin_nulls" in result.output


def test_xu_window_gram_at_round_off_and_its_share_of_windows(built: Any) -> None:
    a, b, result = built[1]["a"], built[1]["b"], built[2]
    # the aligned control flow's updates have rank one: λ3 (and λ2) are round-off in every window
    assert f"flow_relu_control_D{D:g}" in a["in_band_throughout"]
    assert a[f"flow_relu_control_D{D:g}"]["roundoff_fraction"] == 1.0
    assert a["roundoff_level"] == ROUNDOFF_LEVEL and a["floor"] == CONFIG.floor
    for mode, activation, assign, control, label in lockin_nulls.RASTER_GROUPS:
        runs = _runs(result, mode=mode, activation=activation, assign=assign, control=control)
        if not runs:
            continue
        shares = b[label]["roundoff_fraction"]
        assert shares == [r.roundoff_fraction for r in runs]
        # independently, from the stored λ3/λ1 (every store_every-th window): the same share within sampling
        for run, share in zip(runs, shares, strict=True):
            ratio = style.as_array(run.series["lambda3_over_lambda1"])
            ratio = ratio[np.isfinite(ratio)]
            assert share == pytest.approx(np.mean(np.abs(ratio) <= ROUNDOFF_LEVEL), abs=0.1), (label, run.seed)
        lo, hi = round(100 * min(shares)), round(100 * max(shares))
        assert b[label]["roundoff_share"] == (f"{lo} %" if lo == hi else f"{lo}–{hi} %")
        assert b["roundoff_shares"][label] == b[label]["roundoff_share"]


def test_the_shares_are_printed_beside_b_and_a_says_what_they_are(built: Any) -> None:
    fig, panels, _ = built
    axes = checks.panel_axes(fig)
    right = [t.get_text() for child in axes["b"].child_axes for t in child.get_yticklabels()]
    assert right == list(panels["b"]["roundoff_shares"].values())
    labels = [child.get_ylabel() for child in axes["b"].child_axes]
    assert any("round-off" in s and "windows" in s for s in labels)
    notes = [t.get_text() for t in axes["a"].texts]
    assert any("round-off" in s and "share of windows: (b)" in s for s in notes)
    # the floor is named once, beside the axes (not overprinted on the curves)
    assert not any(s == "floor" for s in notes)
    assert [t.get_text() for child in axes["a"].child_axes for t in child.get_yticklabels()] == ["floor"]


def test_xu_detector_and_the_x2_positive(built: Any) -> None:
    fig, panels, result = built
    b = panels["b"]
    # σ = x²: the floored detector fires in the select run and not in its aligned control (Xu's positive)
    assert b["x² select"]["detector_fire_floored_count"] == 1
    assert b["x² control"]["detector_fire_floored_count"] == 0
    assert b["flow control"]["detector_fire_floored_count"] == 0
    run = _runs(result, mode="sample", activation="x2", control=False)[0]
    assert b["x² select"]["detector_fire_floored"]["x"] == [run.detector_fire_floored]
    # the figure's legend says what (b)'s rings, dots and ticks are ((b) itself has none: its firings,
    # some decided by round-off, may fall anywhere in the panel)
    assert checks.panel_axes(fig)["b"].get_legend() is None
    (legend,) = fig.legends
    keyed = [(t.get_text(), h) for t, h in zip(legend.get_texts(), legend.legend_handles, strict=True)]
    keyed = [(text, h) for text, h in keyed if text.startswith("(b) ")]
    assert [text for text, _ in keyed] == ["(b) raw fires", "(b) floored fires", r"(b) the run's $T_{\rm spec}$"]
    markers = [(h.get_marker(), h.get_markerfacecolor()) for _, h in keyed]
    assert markers[0] == ("o", "none") and markers[1][0] == "o" and markers[1][1] != "none" and markers[2][0] == "|"


def test_the_resolution_scan_is_the_results(built: Any) -> None:
    c, result = built[1]["c"], built[2]
    rows = [row for row in result.resolution_scan if row["control"] is False]
    assert c["select_raw"]["x"] == [float(row["per"]) for row in rows]
    got = style.as_array(c["select_raw"]["y"])
    want = np.array([np.nan if row["detector_fire_raw"] is None else row["detector_fire_raw"] for row in rows])
    assert np.array_equal(got, want, equal_nan=True)


def test_tian_sign_rate_is_stated_not_drawn(built: Any) -> None:
    fig, panels, result = built
    d = panels["d"]
    # the sign rule is the identity f̃_jᵀP_ηf̃_l = −η²B_jl: it holds to round-off in every run
    assert d["direct_sign_match_min"] == 1.0
    assert d["sign_identity_residual_max"] < 1e-11
    # the rate conditions on S instead: no identity. Where the duplicates' columns are identical,
    # B_jl = −g/(η(η + k g)) < 0 for every similar pair and it is 1 — in every run of the quick profile;
    # the full profile's all −D run at D = 16 (split by round-off) has 0.943 (the gallery)
    rates = {run: rate for run, rate in d["sign_rate"].items()}
    assert sorted(rates.values()) == sorted(r.frac_neg_given_similar for r in result.runs if r.frac_neg_given_similar)
    assert d["informative_rate_min"] == min(rates.values()) == 1.0 == d["informative_rate_max"]
    drawn = [v for v in d.values() if isinstance(v, dict) and "x" in v]
    assert drawn and all(v["informative_rate_min"] == 1.0 for v in drawn)
    ax = checks.panel_axes(fig)["d"]
    (note,) = [t.get_text() for t in ax.texts if "frac($B<0" in t.get_text()]
    assert f"$=1$\nin {len(rates)}/{len(rates)} runs" in note and note.splitlines()[1] == "every run (identity)"
    assert "identity" not in "".join(note.splitlines()[2:])  # the rate is not called one
    for line in ax.get_lines():  # the flat rate is not a drawn line
        assert line.get_marker() in ("None", "none", "", None)
    # the similarity: selection separates owner and non-owners, the aligned control's duplicates stay equal
    assert d[f"flow_relu_control_D{D:g}"]["y"][-1] == pytest.approx(1.0, abs=1e-9)
    assert d[f"flow_relu_select_D{D:g}"]["y"][-1] < 0.2


# ------------------------------------------------------------------------------------------
# conventions (the same helpers as test_fig_lockin.py: tests import no test module)


def test_every_sidecar_series_is_drawn(built: Any) -> None:
    fig, panels, _ = built
    checks.assert_every_series_drawn(fig, panels, "abcd")


def test_text_is_at_least_7_pt_and_the_figure_at_most_4_5_in_tall(built: Any) -> None:
    checks.assert_text_and_height(built[0], MAX_HEIGHT_IN)


def test_legends_and_notes_are_clear_of_the_data_and_no_squares(built: Any) -> None:
    fig, _, _ = built
    for letter, ax in checks.panel_axes(fig).items():
        pts = checks.data_points(ax)
        boxes = [("the legend", ax.get_legend())] + [
            (f"note {t.get_text()!r}", t) for t in ax.texts if "\n" in t.get_text()
        ]
        for what, artist in boxes:
            if artist is not None:
                assert checks.covers(artist.get_window_extent(), pts) == 0, f"panel {letter}: {what} covers data"
        assert all(line.get_marker() != "s" for line in ax.get_lines()), f"panel {letter}: a square (−D only)"


def test_every_tolerance_rule_names_a_sidecar_number(built: Any) -> None:
    """The rules moved here from lockin with their series: each still matches a number this figure writes."""
    checks.assert_rules_name_sidecar_numbers(built[1], lockin_nulls.SIDECAR_TOLERANCES)
