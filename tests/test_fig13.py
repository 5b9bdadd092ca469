"""Figure 13 (beyond the paper: the hidden gauge one layer deeper) on the quick profile.

The table's counts against the closed forms (a balance per hidden neuron; n(n+1)/2 per hidden layer of a
linear network); the balances' drift against the flow's tolerance; the separation's T_spec(+D) local
slopes against the mobility laws of docs/theory.md (D⁻² in layer 1 under a balanced layer 2, D⁻¹ in layer
2); selection and its boundary. Layout and readings: tests/test_layout.py and tests/test_readings.py cover
every registered figure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _quick_runs import QuickRuns

from gaugecli.plots import render

SLOPE = 0.1
"""A local slope against its asymptotic law at D = 2→4: the corrections are O(c0²/D) relative (the
mobility's next term), measured within 0.05 of the law there."""


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory, quick_runs: QuickRuns) -> Path:
    out = tmp_path_factory.mktemp("fig13")
    with quick_runs.locked("fig13") as pipeline:
        render.render("fig13", pipeline, out, formats=("png",), quick=True)
    return out


@pytest.fixture(scope="module")
def sidecar(rendered: Path) -> dict[str, Any]:
    return json.loads((rendered / "fig13.json").read_text())["result"]["panels"]


def test_the_counts_are_the_known_laws_and_no_others(sidecar: dict[str, Any]) -> None:
    for name, row in sidecar["a"].items():
        hidden = row["widths"][1:-1]
        known = sum(n * (n + 1) // 2 for n in hidden) if row["activation"] == "linear" else sum(hidden)
        assert row["n_laws"] == known == row["known"], name
        assert row["others"] == 0 and row["holds"], name


def test_the_balances_hold_along_the_flow(sidecar: dict[str, Any]) -> None:
    b = sidecar["b"]
    assert b["max_drift"] <= b["drift_tolerance"]


def test_the_favorable_time_follows_the_outgoing_mobility(sidecar: dict[str, Any]) -> None:
    """T_spec(+D) ∝ 1/(outgoing path)²: D⁻² in layer 1 ((aW₂)² ≈ D² under a balanced layer 2), D⁻¹ in
    layer 2 (a² ≈ D); the ratio's slope exceeds the paper's 2 in layer 1."""
    c = sidecar["c"]
    assert c["layer1"]["last_plus_slope"] == pytest.approx(-2.0, abs=SLOPE)
    assert c["layer2"]["last_plus_slope"] == pytest.approx(-1.0, abs=SLOPE)
    assert c["layer1"]["last_slope"] > 2.0 + SLOPE


def test_selection_and_its_boundary(sidecar: dict[str, Any]) -> None:
    d = sidecar["d"]
    assert d["layer1"]["owns"] and d["layer2"]["owns"]
    assert d["layer1"]["gd_selected"] == 0 and d["layer2"]["gd_selected"] == 0
    assert d["boundary"]["selected"] == -1 and max(d["boundary"]["alignment"]) < 0.9


def test_verify_claims_pass_on_the_figures_runs(rendered: Path, quick_runs: QuickRuns) -> None:
    """verify's claims of issue 51 read fig13's runs (cached by the render: no run of their own)."""
    from gaugecli.verify import VerifyConfig, verify

    only = ("D-law-counts", "D-balances", "D-selection", "D-mobility")
    with quick_runs.locked("fig13") as pipeline:  # the render's cache
        result = verify(VerifyConfig(quick=True, only=only), pipeline)
    ran = {c.id: c for c in result.claims if c.passed is not None}
    assert set(ran) == set(only)
    assert all(c.passed for c in ran.values()), [(c.id, c.measured) for c in ran.values() if not c.passed]
