"""Figure ``kunin`` drawn from its committed runs (figures/data/kunin, read, never computed): the sidecar's
maps and key numbers are a recomputation from the cached ``phase`` artifacts, read here as plain JSON, at
the digits the gallery prints; the six cells run against their code are marked where the grid holds
them; the words of the claim hold in the data; every series drawn, no text clipped or colliding, text at
least 7 pt, at most 4.5 in tall; ``plot all`` leaves it out."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import _figure_checks as checks
import numpy as np
import pytest

from gaugecli.pipeline import Pipeline
from gaugecli.plots import FIGURES, OUTSIDE_ALL, kunin, style
from gaugecli.plots import layout_check as L
from gaugecli.plots.readings import printed
from gaugecli.plots.render import resolve
from gaugecli.plots.venue import layout
from gaugecli.store.artifacts import config_hash

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "figures" / "data" / "kunin"
MAX_HEIGHT_IN = 4.5
SAME_ARITHMETIC = 1e-12
"""The figure's mean over at most a few seeds against numpy's here: the same float64 sums, a few ulps."""


def _artifact_paths() -> list[Path]:
    return [DATA / "phase" / f"{config_hash(n.config)}.json" for n in kunin.needs(False).values()]


def _tool(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def built() -> tuple[Any, dict[str, Any]]:
    """The figure from the committed artifacts (one ``phase`` map per seed; reading them costs a second)."""
    missing = [p.name for p in _artifact_paths() if not p.is_file()]
    assert not missing, f"figures/data/kunin lacks {missing}: the figure would rerun its grid (CPU-hours)"
    inputs, _ = resolve(kunin.needs(False), Pipeline(DATA))
    sizes = layout()
    with style.context(sizes):
        fig, panels = kunin.build(inputs, sizes)
        fig.canvas.draw()
    return fig, json.loads(json.dumps(panels, allow_nan=False))


@pytest.fixture(scope="module")
def committed() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(τ, δ, S[seed, iy, ix])`` straight from the artifacts' JSON, not through the pipeline."""
    docs = [json.loads(p.read_text(encoding="utf-8"))["result"] for p in _artifact_paths()]
    S = np.array([[[np.nan if v is None else v for v in row] for row in d["maps"][kunin.METRIC]] for d in docs])
    return np.array(docs[0]["x"]["values"]), np.array(docs[0]["y"]["values"]), S


def test_registered_outside_plot_all_with_the_tools_cells_and_calls() -> None:
    assert "kunin" in FIGURES and "kunin" in OUTSIDE_ALL and kunin.CLAIM
    cells = _tool("kunin_cells")
    assert kunin.CELLS == cells.CELLS and (kunin.RICH, kunin.LAZY) == (cells.RICH, cells.LAZY)
    config = kunin.needs(False)["seed100"].config
    assert (config.x.num, config.y.num) == (9, 9) and config.base.init == "paired"


def test_maps_are_the_committed_runs(built: Any, committed: Any) -> None:
    _, panels = built
    taus, deltas, S = committed
    a = panels["a"]
    np.testing.assert_allclose(a["tau"], taus, rtol=0)
    np.testing.assert_allclose(a["delta"], deltas, rtol=0)
    np.testing.assert_allclose(a["mean"], S.mean(axis=0), rtol=SAME_ARITHMETIC)
    if S.shape[0] > 1:
        sd = np.sqrt(((S - S.mean(axis=0)) ** 2).sum(axis=0) / (S.shape[0] - 1))
        np.testing.assert_allclose(panels["b"]["spread"], sd / S.mean(axis=0), rtol=1e3 * SAME_ARITHMETIC)
    for name, series in panels["c"].items():  # a row of the grid: δ from the name
        iy = int(np.argmin(np.abs(deltas - float(name.removeprefix("delta")))))
        np.testing.assert_allclose(series["low"], S[:, iy, :].min(axis=0), rtol=0)
        np.testing.assert_allclose(series["high"], S[:, iy, :].max(axis=0), rtol=0)


def test_key_numbers_print_as_their_recomputation(built: Any, committed: Any) -> None:
    """Each quoted number, recomputed here from the artifacts, prints as the sidecar's does."""
    _, panels = built
    taus, deltas, S = committed
    mean = S.mean(axis=0)
    iy, ix = np.unravel_index(int(np.argmax(mean)), mean.shape)
    spread = S.std(axis=0, ddof=1) / mean if S.shape[0] > 1 else None
    calls = [[2 if v >= kunin.RICH else 0 if v < kunin.LAZY else 1 for v in seed.ravel()] for seed in S]
    expected = {
        "seeds": S.shape[0],
        "their_seeds": 16,  # their grid's seeds 100 … 115 (issue 54)
        "calls_agree": np.mean([len(set(c)) == 1 for c in zip(*calls, strict=True)]),
        "cells": mean.size,
        "steps": 1e4,  # the preset's last checkpoint: their 10⁴ steps
        "rich": kunin.RICH,
        "lazy": kunin.LAZY,
        "rich_to": max(t for k, t in enumerate(taus) if np.all(mean[:, k] >= kunin.RICH)),
        "lazy_from": min(t for k, t in enumerate(taus) if np.all(mean[:, k] < kunin.LAZY)),
        "peak": mean.max(),
        "peak_tau": taus[ix],
        "peak_delta": deltas[iy],
        "small_tau_negative": mean[deltas < 0, 0].mean(),
        "small_tau_positive": mean[deltas > 0, 0].mean(),
        "large_tau_max": mean[:, -1].max(),
        "spread_median": None if spread is None else np.median(spread),
        "spread_max": None if spread is None else spread.max(),
    }
    key = panels["key"]
    assert key["seed_list"] == list(kunin.STUDY_SEEDS)
    for reading in kunin.READINGS:
        field = reading.path.split("/")[-1]
        value = expected[field]
        if value is None:
            assert key[field] is None, field
        else:
            assert printed(key[field], reading.format) == printed(float(value), reading.format), field


def test_the_claims_words_hold_in_the_data(built: Any) -> None:
    """Rich at the small τ and lazy at the large at every δ, the rich columns left of the lazy ones, and
    at the smallest τ more turning below δ = 0 than above, the largest there."""
    key = built[1]["key"]
    assert key["rich_to"] is not None and key["lazy_from"] is not None and key["rich_to"] < key["lazy_from"]
    assert key["small_tau_negative"] > key["small_tau_positive"]
    assert key["peak_delta"] < 0 and key["peak_tau"] == built[1]["a"]["tau"][0]


def test_the_six_cells_are_marked_with_their_values(built: Any, committed: Any) -> None:
    _, panels = built
    taus, deltas, S = committed
    cells = panels["a"]["cells"]
    assert len(cells["x"]) == len(kunin.CELLS)  # the 9 × 9 grid holds all six (τ = 0.447 is its 10^−0.35)
    for tau, delta, value in zip(cells["x"], cells["y"], cells["S"], strict=True):
        ix, iy = int(np.argmin(np.abs(taus - tau))), int(np.argmin(np.abs(deltas - delta)))
        assert value == pytest.approx(S[:, iy, ix].mean(), rel=SAME_ARITHMETIC)


def test_every_series_drawn_no_offence_text_and_height(built: Any) -> None:
    fig, panels = built
    checks.assert_every_series_drawn(fig, panels, "abcd")
    checks.assert_text_and_height(fig, MAX_HEIGHT_IN)
    assert L.offences(fig) == []


def test_plot_without_the_committed_runs_says_where_they_are(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new user's ``plot kunin`` into an empty cache is told, before the study starts, the command that
    redraws it from the committed runs in seconds (the study itself is stopped here at its first step)."""
    from typer.testing import CliRunner

    from gaugecli.cli import app

    def stop(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(Pipeline, "prefetch", stop)
    monkeypatch.setattr(Pipeline, "ensure_all", stop)
    args = [
        "plot",
        "kunin",
        "--workers",
        "1",
        "--cache-dir",
        str(tmp_path / "runs"),
        "--out-dir",
        str(tmp_path / "out"),
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0
    assert f"runs it reads are not in {tmp_path / 'runs'}" in result.stderr
    assert kunin.REGENERATE in result.stderr.replace("\n", " ")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
