"""Figure ``reln`` (quick profile: D ∈ {1, 4}, m = 3): the sidecar's key numbers against independent
references — the race and the final-gate pathway integrated here by scipy, the ReLU T_spec from the
reduced (c, θ) solver, the gate floor by hand — every sidecar series drawn, no text below 7 pt."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _quick_runs import QuickRuns
from matplotlib.text import Text
from scipy.integrate import solve_ivp

from gaugecli.core.reduced.planar import reduced_specialization_time
from gaugecli.plots import reln as fig_reln
from gaugecli.plots import render, style
from gaugecli.plots.venue import MIN_TEXT_PT, layout

C0, EPS = 0.1, 0.01  # the quick profile's model: c0, ε (θ0 = π/2, a* = ‖v‖ = 1)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, quick_runs: QuickRuns) -> tuple[Any, dict[str, Any], Path]:
    """The quick figure built once, laid out, and its sidecar written (and schema-checked) as
    ``render`` writes it — without saving a PDF, which would triple the cost."""
    root = tmp_path_factory.mktemp("fig-reln")
    with quick_runs.locked("reln") as pipeline:
        inputs, hashes = render.resolve(fig_reln.needs(True), pipeline)
    sizes = layout()
    with style.context(sizes):
        fig, panels = fig_reln.build(inputs, sizes)
        fig.canvas.draw()
    config = {"figure": "reln", "quick": True, "requirements": hashes}
    return fig, panels, render.write_sidecar(root / "reln.json", "reln", config, hashes, panels)


def _start(delta: float) -> tuple[float, float]:
    """(a, ‖w‖) of the complete start: a‖w‖ = c0, a² − ‖w‖² = δ."""
    root = math.sqrt(delta**2 + 4 * C0**2)
    return math.sqrt((delta + root) / 2), math.sqrt((-delta + root) / 2)


def _pathway_tspec(delta: float) -> float:
    """T_spec of one linear pathway gated by v: L = ¼‖a w − v‖² in the plane (v, u0), w0 ∥ u0 ⊥ v;
    gradient flow ȧ = −½(a w − v)·w, ẇ = −½ a (a w − v), stopped at w·v/‖w‖ = 1 − ε."""
    a0, n0 = _start(delta)

    def rhs(_t: float, y: np.ndarray) -> np.ndarray:
        a, w = y[0], y[1:]
        r = a * w - np.array([1.0, 0.0])
        return np.concatenate([[-0.5 * r @ w], -0.5 * a * r])

    def aligned(_t: float, y: np.ndarray) -> float:
        return y[1] / np.hypot(y[1], y[2]) - (1 - EPS)

    aligned.terminal = True  # type: ignore[attr-defined]
    sol = solve_ivp(rhs, (0, 1e4), [a0, 0.0, n0], method="LSODA", rtol=1e-12, atol=1e-15, events=aligned)
    return float(sol.t_events[0][0])


def _race_tspec(delta: float) -> float:
    """ċ = −√(δ² + 4c²)(c − 1)/2 from c0 to 1 − ε, by scipy (the code uses quadrature)."""

    def hit(_t: float, c: np.ndarray) -> float:
        return c[0] - (1 - EPS)

    hit.terminal = True  # type: ignore[attr-defined]
    sol = solve_ivp(
        lambda _t, c: -np.sqrt(delta**2 + 4 * c**2) * (c - 1) / 2,
        (0, 1e3),
        [C0],
        rtol=1e-12,
        atol=1e-15,
        events=hit,
    )
    return float(sol.t_events[0][0])


def test_favorable_ratio_is_0606_by_independent_solvers(built) -> None:
    """T_spec(ReLN, gate v)/T_spec(ReLU) at +D: the pathway ODE over the reduced ReLU solver gives
    0.62500 (D = 1) and 0.60769 (D = 4); the D → ∞ limit 0.60628 lies 1.4e-3 below D = 4."""
    _, panels, _ = built
    b = panels["b"]
    assert b["favorable"]["x"] == [1.0, 4.0]
    expected = [_pathway_tspec(D) / reduced_specialization_time(D) for D in (1.0, 4.0)]
    np.testing.assert_allclose(b["favorable"]["y"], expected, rtol=1e-6)
    assert b["favorable"]["y"][1] == pytest.approx(0.6077, abs=2e-4)
    assert 0 < b["favorable"]["y"][1] - b["favorable_ratio_limit"] <= 2e-3
    # at −D the ReLN is the slower one (its start ⊥ v sits on a saddle), more so at larger D
    expected_minus = [_pathway_tspec(-D) / reduced_specialization_time(-D) for D in (1.0, 4.0)]
    np.testing.assert_allclose(b["unfavorable"]["y"], expected_minus, rtol=1e-6)
    assert 1.0 < b["unfavorable"]["y"][0] < b["unfavorable"]["y"][1]


def test_race_erases_the_gauge(built) -> None:
    """The race is symmetric in δ: T_race(−D)/T_race(+D) is exactly 1, and T_race matches scipy."""
    _, panels, _ = built
    assert panels["c"]["race_ratio"] == [1.0, 1.0]
    assert panels["a"]["t_spec_favorable"]["race"] == pytest.approx(_race_tspec(4.0), rel=1e-7)
    assert panels["a"]["t_spec_unfavorable"]["race"] == panels["a"]["t_spec_favorable"]["race"]
    # the ReLU and the ReLN keep a Θ(D²)-size separation (≈ 5.75 D² and more)
    relu, reln = panels["c"]["relu"]["y"], panels["c"]["reln"]["y"]
    assert relu[1] / 16 == pytest.approx(6.08, abs=0.05) and reln[1] > relu[1]
    assert panels["c"]["relu_limit"]["coefficient"] == pytest.approx(10.0809 / 1.75392, rel=1e-4)


def test_initial_gate_stops_on_the_gate_floor(built) -> None:
    """L_floor(π/2) = ¼ − (π²/4 + 1)/(4π²) = 3/16 − 1/(4π²), and the gate-u0 ReLN ends there."""
    _, panels, _ = built
    floor = 3 / 16 - 1 / (4 * math.pi**2)
    assert panels["a"]["gate_floor"] == pytest.approx(floor, rel=1e-14)
    for end in panels["a"]["loss_end_reln_initial"].values():
        assert end == pytest.approx(floor, rel=1e-9)
    assert panels["a"]["t_spec_favorable"]["reln_initial"] is None  # it never aligns


def test_select_restart_and_envelope_numbers(built) -> None:
    """The remaining claims at the quick profile (measured: select max|ΔL|/L0 = 0.0295 at m = 3; restart
    errors 15 %, 32 %, 4.2 %, 0.40 % at t0 = 0.5, 1, 2, 5 T_spec; envelope 1.33 → 1.04 (+4), 0.82 (−4))."""
    _, panels, _ = built
    d = panels["d"]
    assert d["owner_relu"] == d["owner_reln"] == d["designated"] == 0
    assert d["max_abs_dloss_over_l0"] <= 0.03
    assert d["nonowner_norm_end"] <= 1e-6 and d["nonowner_norm_end_shared"] > 1e-5
    e = panels["e"]
    assert e["max_error_by_t0"]["2"] <= 0.05 and e["max_error_by_t0"]["5"] <= 0.005
    hits = {(h["gauge"], h["level"], h["t0_over_t_spec"]) for h in e["floor_hits"]}
    assert ("unfavorable", 10.0, 0.5) in hits and not any(t0 >= 2 for *_, t0 in hits)
    f = panels["f"]
    plus, minus = f["delta_+4"]["y"], f["delta_-4"]["y"]
    assert plus[0] == pytest.approx(1.33, abs=0.01) and all(np.diff(plus) < 0) and plus[-1] > 1.0
    assert minus[-1] < 0.9


def _series(tree: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    if isinstance(tree, dict):
        if "x" in tree and "y" in tree:
            return [(path, tree)]
        return [s for k, v in tree.items() for s in _series(v, f"{path}/{k}")]
    return []


def test_every_series_is_drawn_and_the_sidecar_is_the_figures(built) -> None:
    fig, panels, sidecar = built
    stored = json.loads(sidecar.read_text())["result"]["panels"]
    assert stored == json.loads(json.dumps(style.tolist(panels)))
    # by panel label; (a)'s two halves and (e)'s strip over its errors share a time axis (the lower
    # one has no label)
    axes = {ax.get_title(loc="left").strip("()"): ax for ax in fig.axes if ax.get_title(loc="left")}
    assert sorted(axes) == list("abcdef")
    for letter, ax in axes.items():
        found = _series(panels[letter])
        assert found, letter
        group = ax.get_shared_x_axes().get_siblings(ax) if letter in "ae" else [ax]
        lines = [
            (np.asarray(ln.get_xdata(), float), np.asarray(ln.get_ydata(), float))
            for a in group
            for ln in a.get_lines()
        ]
        for path, s in found:
            x, y = np.array(s["x"], dtype=float), np.array(s["y"], dtype=float)
            assert any(
                lx.shape == x.shape and np.allclose(lx, x, equal_nan=True) and np.allclose(ly, y, equal_nan=True)
                for lx, ly in lines
            ), f"({letter}){path} is not drawn"


def test_no_text_below_the_floor(built) -> None:
    fig, _, _ = built
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert sizes and min(sizes) >= MIN_TEXT_PT


def test_never_reached_restarts_stand_apart_from_the_errors(built) -> None:
    """(e): a restart whose gates' floor lies above its target has no error; it is drawn in a strip
    titled "never reached" above the error axis (no y value), and the error axis holds only errors."""
    fig, panels, _ = built
    (strip,) = [ax for ax in fig.axes if ax.get_title(loc="left") == "(e)"]
    (errors,) = [ax for ax in fig.axes if ax.get_label() == "e-lower"]
    assert strip.get_title(loc="right") == "never reached" and list(strip.get_yticks()) == []
    floors = [s for k, s in panels["e"].items() if k.endswith("_floor")]
    assert floors and all(
        y == 0.0 for s in floors for y in s["y"]
    )  # exact by construction: the strip's drawn position, a constant
    strip_points = {(x, y) for ln in strip.get_lines() for x, y in zip(ln.get_xdata(), ln.get_ydata(), strict=True)}
    assert all((x, 0.0) in strip_points for s in floors for x in s["x"])
    drawn = [np.asarray(ln.get_ydata(), float) for ln in errors.get_lines()]
    assert all(np.all(y > 0) for y in drawn)  # log axis: errors only, nothing placed at a made-up value
