"""Figure ``xu`` (quick profile): the sidecar's key numbers are the study's summary, the marked firing
epochs and accuracy curves are the runs', the counts never exceed the runs; every sidecar series drawn,
text at least 7 pt, legends clear of the data, at most 4.5 in tall; ``plot all`` leaves it out."""

from __future__ import annotations

import json
from typing import Any

import _figure_checks as checks
import pytest
from _quick_runs import QuickRuns

from gaugecli.plots import FIGURES, OUTSIDE_ALL, style, xu
from gaugecli.plots.render import resolve
from gaugecli.plots.venue import layout

MAX_HEIGHT_IN = 4.5


@pytest.fixture(scope="module")
def built(quick_runs: QuickRuns) -> tuple[Any, dict[str, Any], Any]:
    """The quick study computed once (≈ 2 CPU-s: four runs of 150 epochs at M = 23, K = 256)."""
    with quick_runs.locked("xu") as pipeline:
        inputs, _ = resolve(xu.needs(True), pipeline)
    sizes = layout()
    with style.context(sizes):
        fig, panels = xu.build(inputs, sizes)
        fig.canvas.draw()
    return fig, json.loads(json.dumps(panels, allow_nan=False)), inputs["study"]


def test_registered_outside_plot_all() -> None:
    assert "xu" in FIGURES and "xu" in OUTSIDE_ALL and xu.CLAIM
    assert set(xu.TITLES) == set("abcd")
    assert xu.needs(False)["study"].config.seeds == xu.STUDY_SEEDS


def test_key_numbers_are_the_studys(built: Any) -> None:
    _, panels, result = built
    key = panels["key"]
    assert key["seeds"] == len({r.seed for r in result.runs})
    for row in result.summary:
        name = f"{row['activation']}_{row['condition']}"
        assert (key[f"{name}_groks"], key[f"{name}_fires"]) == (row["groks"], row["fires_raw"])
        assert 0 <= row["fires_raw"] <= row["runs"] and 0 <= row["groks"] <= row["runs"]
    assert key["sign_match_min"] == min(r["sign_match_min"] for r in result.summary)


def test_accuracy_curves_and_firing_marks_are_the_runs(built: Any) -> None:
    _, panels, result = built
    for run in result.runs:
        entry = panels["a"][f"{run.activation}_{'control' if run.control else 'grokking'}_seed{run.seed}"]
        assert entry["y"] == run.series["test_acc"] and entry["fire_epoch"] == run.fire_raw
        assert entry["grok_epoch"] == run.grok_epoch
    counts = panels["d"]
    for row in result.summary:
        bars = counts[f"{row['activation']}_{'control' if row['condition'] == 'control' else 'grokking'}"]
        assert bars["fires_raw"]["count"] == row["fires_raw"] and bars["runs"] == row["runs"]
        assert bars["fires_raw"]["y"] == [row["fires_raw"] / row["runs"]]
    gauge = [r for r in result.gauge_check if r.control]
    assert counts["gauge_control"]["fires_raw"]["count"] == sum(r.fire_raw is not None for r in gauge)


def test_every_sidecar_series_is_drawn(built: Any) -> None:
    fig, panels, _ = built
    checks.assert_every_series_drawn(fig, panels, "abcd")


def test_text_is_at_least_7_pt_and_the_figure_at_most_4_5_in_tall(built: Any) -> None:
    checks.assert_text_and_height(built[0], MAX_HEIGHT_IN)


def test_legends_are_clear_of_the_data(built: Any) -> None:
    fig, _, _ = built
    for letter, ax in checks.panel_axes(fig).items():
        legend = ax.get_legend()
        if legend is not None:
            assert checks.covers(legend.get_window_extent(), checks.data_points(ax)) == 0, f"panel {letter}"


def test_every_tolerance_rule_names_a_sidecar_number(built: Any) -> None:
    checks.assert_rules_name_sidecar_numbers(built[1], xu.SIDECAR_TOLERANCES)
