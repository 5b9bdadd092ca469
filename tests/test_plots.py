"""Figures: each ``figN.build`` from small data (synthetic, or the quick profile's real runs),
``render`` (files, fonts, metadata, sidecar artifact), the artifact cache and the
data-level regeneration check ``compare_sidecars``."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _quick_runs import QuickRuns

from gaugecli.core.analyses.observables import RunObservables
from gaugecli.pipeline import KINDS, Pipeline
from gaugecli.plots import FIGURES, style
from gaugecli.plots import render as R
from gaugecli.plots import sidecar as S
from gaugecli.plots.render import render as _render
from gaugecli.store.artifacts import config_hash, read_artifact
from gaugecli.store.codec import from_jsonable


def render(fig_id: str, cache: Path, out: Path, warn: Any = None, **kwargs: Any) -> list[Path]:
    return _render(fig_id, Pipeline(cache, warn=warn), out, **kwargs)


# ------------------------------------------------------------------------------------------
# helpers


def _lines(ax: Any) -> list[Any]:
    """Lines that carry data (legend proxies have no points)."""
    return [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 0]


def _arr(values: Any) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def assert_plotted(ax: Any, series: dict[str, Any]) -> None:
    """Some line of ``ax`` draws exactly the sidecar ``series`` (x and y)."""
    x, y = _arr(series["x"]), _arr(series["y"])
    for ln in _lines(ax):
        lx, ly = np.asarray(ln.get_xdata(), float), np.asarray(ln.get_ydata(), float)
        if lx.shape == x.shape and np.allclose(lx, x, equal_nan=True) and np.allclose(ly, y, equal_nan=True):
            return
    raise AssertionError(f"no line on {ax.get_title(loc='left')} draws the sidecar series (n={x.size})")


def assert_sidecar_series_plotted(fig: Any, panels: dict[str, Any], letters: str) -> int:
    """Every x/y series of the panels ``letters`` is drawn on the matching axes; returns how many."""
    axes = {ax.get_title(loc="left").strip("()"): ax for ax in fig.axes if ax.get_title(loc="left")}
    count = 0
    for letter in letters:
        for value in panels[letter].values():
            if isinstance(value, dict) and "x" in value and "y" in value and len(value["x"]) > 0:
                assert_plotted(axes[letter], value)
                count += 1
    return count


def _close(fig: Any) -> None:
    fig.clear()


# ------------------------------------------------------------------------------------------
# synthetic results with the JSON shapes of the experiments (no integration)


# ------------------------------------------------------------------------------------------
# real quick-profile data, computed once for the module


def fake_run(deltas: list[float], owner: int = 0, n: int = 60, t_end: float = 50.0, mode: str = "flow") -> dict:
    """A run dict with every key of a ``simulate`` result; owner aligns, the others are pruned."""
    m = len(deltas)
    t = np.concatenate([[0.0], np.geomspace(1e-3, t_end, n - 1)])
    s = 1.0 - np.exp(-t / (0.2 * t_end))
    alignment = np.zeros((n, m))
    alignment[:, owner] = s
    coefficient = np.full((n, m), 0.1 / m) * (1 - s[:, None])
    coefficient[:, owner] = 0.1 / m + (1 - 0.1 / m) * s
    loss = 0.24 * np.exp(-t / (0.1 * t_end)) + 0.0
    P = 0.1 * np.exp(-t / (0.05 * t_end)) if m > 1 else np.zeros(n)
    reaction = 0.1 * np.exp(-t / t_end * 20)
    transport = 0.05 * np.exp(-t / t_end * 10)
    gsq = reaction + transport
    thr = 0.99
    i = int(np.argmax(s >= thr))
    return {
        "t": t.tolist(),
        "loss": loss.tolist(),
        "alignment": alignment.tolist(),
        "feature": np.zeros((n, m), int).tolist(),
        "coefficient": coefficient.tolist(),
        "imbalance": np.tile(deltas, (n, 1)).tolist(),
        "norm_a": np.ones((n, m)).tolist(),
        "norm_w": np.ones((n, m)).tolist(),
        "reaction": reaction.tolist(),
        "transport": transport.tolist(),
        "grad_norm_sq": gsq.tolist(),
        "identity_residual": np.full(n, 1e-15).tolist(),
        "dissipated_reaction": float(np.trapezoid(reaction, t)),
        "dissipated_transport": float(np.trapezoid(transport, t)),
        "instantaneous_owner": [owner] * n,
        "nonowner_norm": P.tolist(),
        "crossing_times": [float(t[i]) if j == owner else None for j in range(m)],
        "owner": owner,
        "computed_owner": owner,
        "symmetric_start": False,
        "specialized": True,
        "t_spec": float(t[i]),
        "imbalance_drift": 1e-12,
        "converged": True,
        "stats": {"method": "fake", "n_steps": n, "n_gradient_evals": n, "n_hessian_evals": 0, "message": ""},
        "empirical_loss": loss.tolist() if mode == "sample" else None,
    }


def _runs_of(fig_id: str, quick: bool) -> list[tuple[str, str, Any]]:
    """``(kind, name, config)`` of every run a figure reads (``needs`` → ``{name: Need}``)."""
    return [(n.kind, name, n.config) for name, n in R.figure_module(fig_id).needs(quick).items()]


def test_every_figure_has_requirements_in_both_profiles() -> None:
    for fig_id in FIGURES:
        R.figure_module(fig_id)  # every id resolves to a module
        for quick in (True, False):
            runs = _runs_of(fig_id, quick)
            assert all(kind in KINDS for kind, _, _ in runs)
            assert len({(kind, name) for kind, name, _ in runs}) == len(runs)
    # fig6's flows are fig3's configurations, and its D = 4 pair is fig2's
    for quick in (True, False):
        fig6 = [run for run in _runs_of("fig6", quick) if run[0] == "simulate"]
        assert {config_hash(c) for _, _, c in fig6} <= {config_hash(c) for _, _, c in _runs_of("fig3", quick)}
        pair = {config_hash(c) for _, name, c in fig6 if name.endswith("-D4")}
        assert pair <= {config_hash(c) for _, _, c in _runs_of("fig2", quick)}


# ------------------------------------------------------------------------------------------
# render: files, fonts, metadata, sidecar


def test_render_writes_vector_pdf_png_and_a_figure_artifact(tmp_path: Path) -> None:
    # fig1 reads three m = 1 runs (~0.4 s together into this test's own small cache)
    paths = render("fig1", tmp_path / "cache", tmp_path / "out", formats=("pdf", "png", "svg"), quick=True)
    assert [p.name for p in paths] == ["fig1.pdf", "fig1.png", "fig1.svg", "fig1.json"]
    pdf = (tmp_path / "out" / "fig1.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and b"/FontFile2" in pdf and b"/Type3" not in pdf
    assert b"gaugecli" in pdf  # Creator metadata
    from matplotlib.image import imread

    from gaugecli.plots.venue import layout

    png = imread(tmp_path / "out" / "fig1.png")
    assert png.shape[1] == round(layout().width * style.PNG_DPI)
    again = render("fig1", tmp_path / "cache", tmp_path / "again", formats=("pdf", "svg"), quick=True)
    for fmt, path in zip(("pdf", "svg"), again, strict=False):  # byte-reproducible: no dates, fixed ids
        assert path.read_bytes() == (tmp_path / "out" / f"fig1.{fmt}").read_bytes()
    assert again[-1].read_bytes() == paths[-1].read_bytes()  # the sidecar too
    artifact = read_artifact(tmp_path / "out" / "fig1.json", "figure")
    assert artifact["result"]["figure"] == "fig1" and "panels" in artifact["result"]
    assert artifact["config"]["layout"] == {"venue": "neurips", "width": layout().width}
    # the three runs, and the window of (c): a run of the reduced flow (followups read the first runs)
    assert set(artifact["result"]["config_hashes"]) == {"favorable", "balanced", "unfavorable", "window"}


def test_a_figure_drawn_in_a_worker_process_is_byte_identical(tmp_path: Path) -> None:
    """``plot all`` draws its figures on worker processes (``render_from_cache``) once the runs are
    cached: the files must be those drawn in-process, byte for byte."""
    from gaugecli.plots.venue import layout
    from gaugecli.run.executors import make_executor

    serial = render("fig1", tmp_path / "cache", tmp_path / "serial", formats=("pdf", "png"), quick=True)
    args = ("fig1", str(tmp_path / "cache"), tmp_path / "worker", ("pdf", "png"), True, layout())
    with make_executor(None, 2) as executor:
        parallel = executor.submit(R.render_from_cache, *args).result()
    assert [p.name for p in parallel] == [p.name for p in serial]
    for a, b in zip(serial, parallel, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    assert parallel.warnings == []
    # ``plot all`` looks for the runs' files only (prefetch): a damaged one is found by the worker that
    # reads it, recomputed there, and the cache's warning comes back for the command to say
    damaged = sorted((tmp_path / "cache").glob("*/*.json"))[0]
    damaged.write_text('{"broken":', encoding="utf-8")
    again = R.render_from_cache(*args, keep_unchanged=True)
    assert again.kept and len(again.warnings) == 1 and damaged.name in again.warnings[0]
    assert "recomputing" in again.warnings[0] and read_artifact(damaged, damaged.parent.name)


def test_render_sidecar_records_config_hashes(quick_runs: QuickRuns, tmp_path: Path) -> None:
    from gaugecli.plots import fig6

    with quick_runs.locked("fig6") as pipeline:  # the session's fig6 runs (computed once for every file)
        paths = _render("fig6", pipeline, tmp_path, formats=("pdf",), quick=True)
    artifact = read_artifact(paths[-1], "figure")
    expected = {name: config_hash(n.config) for name, n in fig6.needs(True).items()}
    assert artifact["result"]["config_hashes"] == expected == artifact["config"]["requirements"]
    assert artifact["config"]["layout"] == {"venue": "neurips", "width": 5.5}
    pdf = paths[0].read_bytes()
    assert all(h[:16].encode() in pdf for h in expected.values())  # Subject metadata


def test_unknown_figure_lists_valid_ids(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="fig1, fig2, fig3, fig4, fig5, fig6, fig7"):
        render("fig99", tmp_path, tmp_path)
    with pytest.raises(R.UnknownFigureError):
        R.figure_module("figure3")
    with pytest.raises(ValueError, match="unsupported figure format"):
        render("fig1", tmp_path, tmp_path, formats=("jpg",))
    assert not list(tmp_path.iterdir())  # nothing written


def test_importing_plots_does_not_import_matplotlib() -> None:
    code = "import sys, gaugecli.plots; assert 'matplotlib' not in sys.modules and 'seaborn' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_declaring_every_figures_runs_does_not_import_torch() -> None:
    """``plot all``'s main process imports every figure and declares its runs (both profiles) before a worker
    draws: torch (≈ 2.5 CPU-s to import, on the warm path's critical path) is the workers' alone."""
    code = (
        "import sys; from gaugecli.plots import FIGURES; from gaugecli.plots.render import figure_module\n"
        "for fig in FIGURES:\n"
        "    for quick in (True, False): figure_module(fig).needs(quick)\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-2000:]


# ------------------------------------------------------------------------------------------
# the artifact cache (a cheap fake simulate: these tests are about caching, not numbers)


@pytest.fixture
def counted_simulate(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    import gaugecli.experiments.simulate as sim

    calls: list[Any] = []

    def fake(config: Any, progress: Any = None) -> list[Any]:
        calls.append(config)
        return [from_jsonable(RunObservables, fake_run(list(row))) for row in config.imbalances()]

    monkeypatch.setattr(sim, "simulate", fake)
    return calls


def test_cache_reuses_and_recomputes_on_change(
    counted_simulate: list[Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gaugecli.plots import fig6

    cache, out = tmp_path / "cache", tmp_path / "out"
    warnings: list[str] = []
    render("fig6", cache, out, formats=("png",), warn=warnings.append)
    runs = sum(n.kind == "simulate" for n in fig6.needs(False).values())  # ±D at several D: each by itself
    assert len(counted_simulate) == runs and len(list((cache / "simulate").glob("*.json"))) == runs
    first = json.loads((out / "fig6.json").read_text())["result"]
    render("fig6", cache, out, formats=("png",), warn=warnings.append)
    assert len(counted_simulate) == runs and not warnings  # reused
    assert compare_sidecars_ok(first, json.loads((out / "fig6.json").read_text())["result"])

    # a changed parameter is another configuration: recomputed, the old file left alone
    from dataclasses import replace

    original = fig6.needs
    monkeypatch.setattr(
        fig6,
        "needs",
        lambda quick: {
            k: R.Need(n.kind, replace(n.config, m=2) if n.kind == "simulate" else n.config)
            for k, n in original(quick).items()
        },
    )
    render("fig6", cache, out, formats=("png",))
    assert len(counted_simulate) == 2 * runs and len(list((cache / "simulate").glob("*.json"))) == 2 * runs


def _one_simulate_run() -> R.Need:
    from gaugecli.experiments.simulate import SimulateConfig

    return R.Need("simulate", SimulateConfig(gauge="favorable", strengths=(4.0,)))


def compare_sidecars_ok(a: dict, b: dict) -> bool:
    return S.compare_sidecars(a, b) == []


@pytest.mark.parametrize("damage", ["corrupt", "newer-schema", "older-schema", "invalid", "wrong-hash"])
def test_damaged_cache_is_reported_and_recomputed(counted_simulate: list[Any], tmp_path: Path, damage: str) -> None:
    req = _one_simulate_run()
    Pipeline(tmp_path).ensure(req.kind, req.config)
    path = Pipeline(tmp_path).cache.path(req.kind, req.config)
    artifact = json.loads(path.read_text())
    if damage == "corrupt":
        path.write_text(path.read_text()[:100])
    elif damage == "newer-schema":
        artifact["schema"] = "gaugecli.simulate/2"
        path.write_text(json.dumps(artifact))
    elif damage == "older-schema":
        artifact["schema"] = "gaugecli.simulate/0"
        path.write_text(json.dumps(artifact))
    elif damage == "invalid":
        del artifact["result"]["t_spec"]
        path.write_text(json.dumps(artifact))
    else:
        artifact["config_hash"] = "0" * 64
        path.write_text(json.dumps(artifact))
    warnings: list[str] = []
    fresh = Pipeline(tmp_path, warn=warnings.append).ensure(req.kind, req.config).artifact
    assert len(counted_simulate) == 2
    assert len(warnings) == 1 and str(path) in warnings[0] and "recomputing" in warnings[0]
    if damage.endswith("schema"):
        assert "schema" in warnings[0]
    assert read_artifact(path, "simulate")["config_hash"] == fresh["config_hash"] == config_hash(req.config)


def test_ensure_artifact_rejects_multi_run_simulate(counted_simulate: list[Any], tmp_path: Path) -> None:
    from dataclasses import replace

    req = _one_simulate_run()
    multi = R.Need("simulate", replace(req.config, strengths=(1.0, 2.0)))
    with pytest.raises(ValueError, match="one run"):
        Pipeline(tmp_path).ensure(multi.kind, multi.config)
    assert not list(tmp_path.rglob("*.json"))


# ------------------------------------------------------------------------------------------
# regeneration check


def test_compare_sidecars_names_the_moved_series() -> None:
    s = np.linspace(-2.0, 2.0, 201)
    w = np.geomspace(0.01, 3.0, 50)
    panels = {
        "a": {"hyperbola": style.series(w, 0.1 / w, c0=0.1), "favorable": style.series([0.05], [2.0], delta=4.0)},
        "b": {"unfavorable-m5": style.series(s, 0.1 * np.maximum(s, 0.0) + 0.05)},
    }
    committed = {"figure": "fig1", "config_hashes": {}, "panels": panels}
    assert S.compare_sidecars(committed, copy.deepcopy(committed)) == []
    assert S.compare_sidecars({"result": committed}, committed) == []  # whole artifacts too

    moved = copy.deepcopy(committed)
    moved["panels"]["b"]["unfavorable-m5"]["y"][150] *= 1.01
    messages = S.compare_sidecars(committed, moved)
    assert len(messages) == 1
    assert messages[0].startswith("fig1: series 'b/unfavorable-m5/y'") and "index 150" in messages[0]

    shorter = copy.deepcopy(committed)
    shorter["panels"]["a"]["hyperbola"]["x"].pop()
    gone = copy.deepcopy(committed)
    del gone["panels"]["a"]["favorable"]
    assert "length changed" in S.compare_sidecars(committed, shorter)[0]
    assert "missing" in S.compare_sidecars(committed, gone)[0]
    assert S.compare_sidecars(committed, {"figure": "fig2", "panels": {}})[0].startswith("figure ids differ")


def test_a_text_is_compared_unless_round_off_decides_it() -> None:
    """A text series must match exactly, except under a rule whose tolerance is infinite (round-off
    decides it, the rule says why): lockin_nulls' share of round-off windows for the all −D flow."""
    committed = {"figure": "lockin_nulls", "config_hashes": {}, "panels": {"b": {"roundoff_shares": {}}}}
    committed["panels"]["b"]["roundoff_shares"] = {"flow all −D": "19–54 %", "flow select": "19 %"}
    other_path = copy.deepcopy(committed)
    other_path["panels"]["b"]["roundoff_shares"]["flow all −D"] = "4–84 %"
    assert S.compare_sidecars(committed, other_path) == []
    moved = copy.deepcopy(committed)
    moved["panels"]["b"]["roundoff_shares"]["flow select"] = "20 %"
    (message,) = S.compare_sidecars(committed, moved)
    assert "flow select" in message and "changed from '19 %' to '20 %'" in message


def test_compare_sidecars_tolerances_per_series() -> None:
    base = {
        "figure": "fig6",
        "panels": {
            "a": {"favorable-reaction": {"x": [1.0, 2.0], "y": [1e-3, 1e-11]}},
            "c": {"favorable-D4": {"x": [1e-2, 1e-13], "y": [1e-2, 1e-13]}},
            "d": {"favorable-D4": {"x": [1.0, 2.0], "y": [1e-16, None]}},
            "shares": {"favorable": {"4": {"identity_residual": 1e-12, "reaction_share": 0.7325}}},
        },
    }
    noisy = copy.deepcopy(base)
    noisy["panels"]["d"]["favorable-D4"]["y"] = [5e-15, 3e-16]  # round-off changes, and crosses the floor
    noisy["panels"]["shares"]["favorable"]["4"]["identity_residual"] = 7e-11
    noisy["panels"]["c"]["favorable-D4"]["y"][1] = 1.3e-13  # −dL/dt where the loss is at round-off
    assert S.compare_sidecars(base, noisy) == []
    noisy["panels"]["a"]["favorable-reaction"]["y"][1] = 2e-11  # below the default absolute tolerance
    assert S.compare_sidecars(base, noisy) == []
    moved = copy.deepcopy(base)
    moved["panels"]["a"]["favorable-reaction"]["y"][0] = 1.001e-3  # a relative change of 1e-3 is drift
    message = S.compare_sidecars(base, moved)[0]
    assert message.startswith("fig6: series 'a/favorable-reaction/y': moved from 0.001 to 0.001001")
    shifted = copy.deepcopy(base)
    shifted["panels"]["shares"]["favorable"]["4"]["reaction_share"] = 0.7326
    assert "reaction_share" in S.compare_sidecars(base, shifted)[0]
    assert S.tolerance_for("fig3/b/ratio/y") == (S.DEFAULT_RTOL, S.DEFAULT_ATOL)
    masked = copy.deepcopy(base)
    masked["panels"]["a"]["favorable-reaction"]["y"][0] = None
    assert "masked" in S.compare_sidecars(base, masked)[0]
