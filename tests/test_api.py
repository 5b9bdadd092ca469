"""The public Python API (``gaugecli.api``): keyword forms build the configs the command line
builds, ``load`` reads back every kind of artifact the command line writes (and refuses a tampered
one), and ``to_xarray()`` / ``to_dataframe()`` hold exactly the result's numbers."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import gaugecli
from gaugecli.cli import app
from gaugecli.core.frames import long_form
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.declare import ConfigError
from gaugecli.experiments.params import Mode
from gaugecli.store.artifacts import now, read_artifact, save_artifact
from gaugecli.store.codec import to_jsonable
from gaugecli.store.errors import ArtifactError

xr = pytest.importorskip("xarray")
pd = pytest.importorskip("pandas")

FAST = ["--d", "3", "--rtol", "1e-8"]
MODEL, FLOW = ModelConfig(d=3), DynamicsConfig(rtol=1e-8)

COMMANDS = {  # each kind of artifact the command line writes, made cheaply (≈ 8 s in all on one core)
    "simulate": ["simulate", "--m", "2", "-D", "4", *FAST],
    "select": ["select", "--m", "3", *FAST],
    "select-sweep": ["select", "--sweep", "--ms", "2,3", *FAST],
    "prune": ["prune", "-D", "4", "--ms", "2", "--no-sample", *FAST],
    "reln": [
        "reln",
        "-D",
        "4",
        "--m",
        "3",
        "--restart",
        "0.5,2",
        "--envelope-levels",
        "0.2,0.02",
        "--psi-step",
        "15",
        "--d",
        "3",
    ],
    "phase": [
        *("phase", "--kind", "select", "--m", "2", "--x", "owner-delta=-1:1:2", "--y", "others-delta=-1:1:2"),
        *("--metric", "outcome", "--metric", "owner-share", "--rtol", "1e-8"),
    ],
    "perturb": [
        *("perturb", "--eps", "0,0.2,1.56", "-D", "4", "--step-fractions", "0.01,0.02,0.04"),
        *("--stability-fractions", "0.3,1.5", "--n-samples", "200,400", "--sample-seeds", "0,1"),
        *("--success-n-samples", "16", "--success-seeds", "0,1", *FAST),
    ],
    "lockin": [
        *("lockin", "-D", "4", "--d", "4", "--per", "50", "--span", "3", "--burn-in", "50"),
        *("--assign", "select,all-minus", "--seeds", "0", "--n-samples", "500"),
        *("--scan-strength", "none", "--scan-pers", "50", "--scan-eps", "1e-16"),
    ],
}


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``kind → path`` of one artifact of every kind, written by the command line (and, for
    ``verify``, whose full run takes minutes, by the store from a small result)."""
    import torch

    root = tmp_path_factory.mktemp("artifacts")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        paths = {}
        for kind, args in COMMANDS.items():
            out = root / f"{kind}.json"
            result = CliRunner().invoke(app, [*args, "--cache-dir", str(root / "runs"), "--out", str(out)])
            assert result.exit_code == 0, (kind, result.output)
            paths[kind] = out
    finally:
        torch.set_num_threads(threads)
    from gaugecli.verify import VerifyConfig, VerifyResult
    from gaugecli.verify.claim import ClaimOutcome

    claims = [ClaimOutcome("C4", "T_spec(−D)/T_spec(+D) = Θ(D²)", 2.01, "2 ± 0.05", "0.05", True, "slope", "m = 1")]
    config = VerifyConfig(quick=True, only=("C4",))
    save_artifact(root / "verify.json", "verify", config, VerifyResult(claims), seed=None, started=now())
    paths["verify"] = root / "verify.json"
    return paths


# -- keyword forms -------------------------------------------------------------------------------


def test_keywords_build_the_config_the_command_line_builds() -> None:
    from gaugecli.api import build

    config = build(
        gaugecli.SimulateConfig, "simulate", {"gauge": "unfavorable", "gauge_strength": 16, "d": 3, "rtol": 1e-8}
    )
    assert config == gaugecli.SimulateConfig(model=MODEL, dynamics=FLOW, gauge="unfavorable", strengths=(16.0,))
    select = build(
        gaugecli.SelectConfig, "select", {"gauge_strength": 2.0, "m": 4, "owner": 1, "mode": "gd", "eta": 0.01}
    )
    assert select == gaugecli.SelectConfig(dynamics=DynamicsConfig(mode=Mode.gd, eta=0.01), m=4, owner=1, strength=2.0)
    assert build(gaugecli.PruneConfig, "prune", {"gauge_strength": [1, 4], "ms": 2}) == gaugecli.PruneConfig(
        strengths=(1.0, 4.0), ms=(2,)
    )
    assert build(gaugecli.VerifyConfig, "verify", {"quick": True, "only": "C4"}) == gaugecli.VerifyConfig(True, ("C4",))


def test_a_keyword_run_equals_the_config_run_number_for_number() -> None:
    by_keywords = gaugecli.simulate(gauge="unfavorable", gauge_strength=[4, 8], d=3, rtol=1e-8)
    config = gaugecli.SimulateConfig(model=MODEL, dynamics=FLOW, gauge="unfavorable", strengths=(4.0, 8.0))
    by_config = gaugecli.simulate(config)
    assert len(by_keywords) == len(by_config) == 2
    for a, b in zip(by_keywords, by_config, strict=True):
        assert np.array_equal(a.alignment, b.alignment) and a.t_spec == b.t_spec
    assert 1.8 < by_config[1].t_spec / by_config[0].t_spec < 2.2  # T_spec(−D) grows like D: 8 against 4


def test_select_keywords_reach_the_sweep_and_perturb_takes_its_kind() -> None:
    sweep = gaugecli.select(sweep=True, ms=(2,), d=3, rtol=1e-8)
    assert isinstance(sweep, gaugecli.OwnerSweepResult) and sweep.ms == [2]
    assert [p.success for p in sweep.points] == [True, True]  # each of 2 designated owners wins
    with pytest.raises(ConfigError, match=r"^kind: must be one of adversarial, random"):
        gaugecli.perturb(kind="sideways")


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        ({"gauge_strength": -1}, ConfigError, r"^gauge_strength: must be in \(0, 1e6\]"),
        ({"d": 1}, ConfigError, r"^d: must be an integer ≥ 2"),
        ({"mode": "warp"}, ConfigError, r"^mode: must be one of flow, gd"),
        ({"bogus": 1}, TypeError, r"unknown parameter 'bogus'; valid: .*gauge_strength"),
        ({"strengths": (4.0,), "gauge_strength": 8}, TypeError, "twice"),
        ({"model": MODEL, "d": 4}, TypeError, "model= and d"),
    ],
)
def test_a_bad_keyword_is_one_line_naming_the_parameter(params: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message) as info:
        gaugecli.simulate(**params)
    assert "\n" not in str(info.value)


def test_a_config_and_keywords_together_are_refused() -> None:
    with pytest.raises(TypeError, match="a config or keywords, not both"):
        gaugecli.simulate(gaugecli.SimulateConfig(), d=4)
    with pytest.raises(TypeError, match=r"prune\(\) takes a PruneConfig \(got SelectConfig\)"):
        gaugecli.prune(gaugecli.SelectConfig())


def test_cache_dir_shares_the_command_lines_cache(tmp_path: Path) -> None:
    (run,) = gaugecli.simulate(d=3, rtol=1e-8, cache_dir=tmp_path)
    (cached,) = list((tmp_path / "simulate").glob("*.json"))
    loaded = gaugecli.load(cached)
    assert loaded.config == gaugecli.SimulateConfig(model=MODEL, dynamics=FLOW)
    assert np.array_equal(loaded.result.coefficient, run.coefficient)
    result = CliRunner().invoke(app, ["simulate", *FAST, "--cache-dir", str(tmp_path)])
    assert result.exit_code == 0 and "reused from the cache" in result.output


JSON_ROUND_TRIP_RTOL = 2.3e-16
"""A number read back from an artifact: stored as its shortest repr, which reads back to the same
double (at most one ulp, 2.2e-16 relative, is allowed)."""


def test_a_result_through_a_cache_names_its_artifact(tmp_path: Path) -> None:
    """A result returned through ``cache_dir`` carries ``.path`` (the artifact written, or reused)
    and ``.config_hash``; ``gaugecli.load(result.path)`` gives the same numbers."""
    sel = gaugecli.select(m=3, d=3, rtol=1e-8, cache_dir=tmp_path)
    assert sel.path == tmp_path / "select" / f"{sel.config_hash}.json" and sel.path.is_file()
    loaded = gaugecli.load(sel.path)
    assert loaded.config_hash == sel.config_hash and loaded.result.owner == sel.owner
    assert loaded.result.t_spec == pytest.approx(sel.t_spec, rel=JSON_ROUND_TRIP_RTOL)
    np.testing.assert_allclose(loaded.result.runs[0].coefficient, sel.runs[0].coefficient, rtol=JSON_ROUND_TRIP_RTOL)
    reused = gaugecli.select(m=3, d=3, rtol=1e-8, cache_dir=tmp_path)
    assert (reused.path, reused.config_hash) == (sel.path, sel.config_hash)
    runs = gaugecli.simulate(d=3, rtol=1e-8, gauge_strength=[1, 4], cache_dir=tmp_path)
    assert [r.path for r in runs] == [tmp_path / "simulate" / f"{r.config_hash}.json" for r in runs]
    assert len({r.path for r in runs}) == 2 and all(r.path is not None and r.path.is_file() for r in runs)
    assert [gaugecli.load(r.path).result.t_spec for r in runs] == pytest.approx(
        [r.t_spec for r in runs], rel=JSON_ROUND_TRIP_RTOL
    )
    uncached = gaugecli.select(m=3, d=3, rtol=1e-8)  # nothing written: no path, the same configuration
    assert uncached.path is None and uncached.config_hash == sel.config_hash


def test_the_public_surface_is_lazy_and_complete() -> None:
    for name in ("simulate", "select", "prune", "perturb", "reln", "lockin", "phase", "verify", "load", "Pipeline"):
        assert callable(getattr(gaugecli, name)), name
    for kind in ("Simulate", "Select", "OwnerSweep", "Prune", "Perturb", "Reln", "Lockin", "Phase", "Verify"):
        assert isinstance(getattr(gaugecli, f"{kind}Config"), type)
    assert gaugecli.Pipeline is __import__("gaugecli.pipeline").pipeline.Pipeline
    importlib.import_module("gaugecli.verify")  # the package of that name, now the attribute: still the function

    with pytest.raises(TypeError, match="takes a config or keywords"):
        gaugecli.verify(gaugecli.VerifyConfig(), quick=True)
    with pytest.raises(TypeError, match="unknown parameter 'claims'; valid: only, quick"):
        gaugecli.verify(claims="C4")


# -- load ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [*COMMANDS, "verify"])
def test_load_rebuilds_every_kind_of_artifact(artifacts: dict[str, Path], kind: str) -> None:
    stored = read_artifact(artifacts[kind])
    loaded = gaugecli.load(artifacts[kind])
    assert loaded.kind == kind and loaded.config_hash == stored["config_hash"]
    assert type(loaded.result).__name__ != "dict" and type(loaded.config).__name__.endswith("Config")
    assert to_jsonable(loaded.config) == stored["config"]
    assert to_jsonable(loaded.result) == json.loads(json.dumps(stored["result"]))  # every number, as stored


def test_load_reads_a_figure_sidecar_as_plain_json(tmp_path: Path) -> None:
    from gaugecli.plots.render import write_sidecar

    # written by this version (the committed figures carry their result_hash once regenerated)
    panels = {"a": {"D": [1.0, 2.0, 4.0], "T_spec": [0.3, 0.25, 0.219]}}
    sidecar = write_sidecar(tmp_path / "fig3.json", "fig3", {"figure": "fig3", "quick": True}, {}, panels)
    loaded = gaugecli.load(sidecar)
    assert loaded.kind == "figure" and loaded.result == read_artifact(sidecar)["result"]
    with pytest.raises(TypeError, match="no labelled view"):
        loaded.to_xarray()


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (lambda a: a["result"]["loss"].__setitem__(3, 0.5), "result_hash"),
        (lambda a: a["config"]["model"].update(c0=0.2), "config_hash"),
        (lambda a: a.update(schema="gaugecli.simulate/2"), "version 2"),
    ],
)
def test_load_refuses_a_tampered_artifact(artifacts: dict[str, Path], tmp_path: Path, edit, needle: str) -> None:
    artifact = json.loads(artifacts["simulate"].read_text())
    edit(artifact)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(artifact))
    with pytest.raises(ArtifactError, match=needle) as info:
        gaugecli.load(path)
    assert "\n" not in str(info.value) and "tampered.json" in str(info.value)


@pytest.mark.parametrize("text", ["", "{not json", "[1, 2]", '{"schema": "gaugecli.alien/1"}'])
def test_load_refuses_a_file_that_is_no_artifact(tmp_path: Path, text: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(text)
    with pytest.raises(ArtifactError) as info:
        gaugecli.load(path)
    assert "\n" not in str(info.value)


# -- labelled views ------------------------------------------------------------------------------


def test_a_runs_dataset_holds_its_arrays_exactly(artifacts: dict[str, Path]) -> None:
    loaded = gaugecli.load(artifacts["simulate"])
    run = loaded.result
    ds = run.to_xarray(loaded.config)
    assert isinstance(ds, xr.Dataset) and dict(ds.sizes) == {"t": run.t.size, "neuron": 2}
    assert np.array_equal(ds["t"].values, run.t) and np.array_equal(ds["neuron"].values, [0, 1])
    for name in ("alignment", "coefficient", "imbalance", "norm_a", "norm_w"):
        assert ds[name].dims == ("t", "neuron") and np.array_equal(ds[name].values, getattr(run, name)), name
    for name in ("loss", "reaction", "transport", "nonowner_norm"):
        assert ds[name].dims == ("t",) and np.array_equal(ds[name].values, getattr(run, name)), name
    assert float(ds["t_spec"]) == run.t_spec and float(ds["dissipated_reaction"]) == run.dissipated_reaction
    assert int(ds["stats.n_steps"]) == run.stats.n_steps and ds.attrs["stats.method"] == run.stats.method
    assert ds.attrs["config.model.d"] == 3 and ds.attrs["config.gauge"] == "favorable"
    assert loaded.to_xarray().attrs["config_hash"] == loaded.config_hash


def test_a_runs_long_form_pivots_back_to_its_arrays(artifacts: dict[str, Path]) -> None:
    run = gaugecli.load(artifacts["simulate"]).result
    df = run.to_dataframe()
    assert list(df.columns) == ["variable", "t", "neuron", "value"] and df["value"].dtype == np.float64
    alignment = df[df["variable"] == "alignment"].pivot(index="t", columns="neuron", values="value")
    assert np.array_equal(alignment.index.values, run.t) and np.array_equal(alignment.values, run.alignment)
    loss = df[df["variable"] == "loss"]
    assert loss["neuron"].isna().all() and np.array_equal(loss["value"].values, run.loss)
    assert df[df["variable"] == "t_spec"]["value"].item() == run.t_spec


def test_several_features_keep_the_nearest_feature_apart_from_the_feature_dimension() -> None:
    """With k > 1 a run has a ``feature`` dimension (owners per feature) and a per-neuron series of the
    nearest feature: the series is ``nearest_feature`` in the view, so the long form builds."""
    (run,) = gaugecli.simulate(k=2, m=2, d=6, t_max=5.0)  # one run per gauge strength
    ds = run.to_xarray()
    assert ds["nearest_feature"].dims == ("t", "neuron") and np.array_equal(ds["nearest_feature"].values, run.feature)
    assert ds["owners"].dims == ("feature",)
    df = run.to_dataframe()
    owners = df[df["variable"] == "owners"]
    # an index is an exact small integer, equal as stored; a feature without an owner is NaN
    expected = np.array([np.nan if o is None else o for o in run.owners], dtype=float)
    assert list(owners["feature"]) == [0, 1] and np.array_equal(owners["value"].values, expected, equal_nan=True)


@pytest.mark.parametrize("kind", [*COMMANDS, "verify"])
def test_every_long_form_holds_exactly_the_views_numbers(artifacts: dict[str, Path], kind: str) -> None:
    data = gaugecli.load(artifacts[kind]).to_xarray()
    df = long_form(data)
    nodes = data.subtree if isinstance(data, xr.DataTree) else [None]
    expected = 0
    for node in nodes:
        ds = data if node is None else node.to_dataset(inherit=False)
        prefix = "" if node is None or node.path == "/" else node.path.strip("/") + "/"
        for name, array in ds.data_vars.items():
            if array.dtype.kind not in "biuf":
                continue
            rows = df[df["variable"] == prefix + str(name)]
            expected += array.size
            assert np.array_equal(rows["value"].values, array.values.astype(float).ravel(), equal_nan=True), name
    assert len(df) == expected


def test_select_and_phase_views_carry_their_dims(artifacts: dict[str, Path]) -> None:
    select = gaugecli.load(artifacts["select"]).result
    tree = select.to_xarray()
    assert np.array_equal(tree["runs/0"]["alignment"].values, select.runs[0].alignment)
    assert tree["runs/0"]["alignment"].dims == ("t", "neuron") and tree["success"].dims == ("run",)
    phase = gaugecli.load(artifacts["phase"])
    maps = phase.to_xarray()
    assert maps["owner-share"].dims == ("y", "x") and np.array_equal(maps["x"].values, phase.result.x.values)
    assert np.array_equal(maps["owner-share"].values, phase.result.maps["owner-share"], equal_nan=True)


def test_without_the_frame_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "xarray", None)
    run = gaugecli.RunObservables.__new__(gaugecli.RunObservables)
    with pytest.raises(ImportError, match=r"pip install 'gaugecli\[frame\]'") as info:
        run.to_xarray()
    assert "\n" not in str(info.value)


def test_integer_keywords_for_float_options_load_back(tmp_path) -> None:
    """``gauge_strength=[4, 16]``, ``t_max=1``: ints given for float options are held as floats, so the
    artifacts they write hash as they are read back (``load`` checks the config hash)."""
    import glob

    runs = gaugecli.simulate(gauge="unfavorable", gauge_strength=[4, 16], t_max=1, d=4, cache_dir=tmp_path)
    paths = sorted(glob.glob(str(tmp_path / "simulate" / "*.json")))
    assert len(paths) == 2 == len(runs)
    strengths = [gaugecli.load(p).config.strengths for p in paths]
    assert all(isinstance(s, float) for row in strengths for s in row) and sum(strengths, ()) in (
        (4.0, 16.0),
        (16.0, 4.0),
    )
