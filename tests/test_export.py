"""``gaugecli export``: an artifact as a long-form CSV or Parquet table, or netCDF mirroring
``to_xarray()`` — each format read back with exactly the artifact's numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import gaugecli
from gaugecli.cli import app

xr = pytest.importorskip("xarray")
pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("h5netcdf")

FAST = ["--d", "3", "--rtol", "1e-8"]


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A simulate artifact (one Dataset) and a select artifact (a DataTree: its runs are child nodes)."""
    root = tmp_path_factory.mktemp("export")
    out = {}
    for kind, args in {"simulate": ["simulate", "--m", "2", *FAST], "select": ["select", "--m", "3", *FAST]}.items():
        out[kind] = root / f"{kind}.json"
        result = CliRunner().invoke(app, [*args, "--cache-dir", str(root / "runs"), "--out", str(out[kind])])
        assert result.exit_code == 0, result.output
    return out


def _export(artifact: Path, fmt: str, out: Path | None = None) -> Path:
    args = ["export", str(artifact), "--format", fmt, *([] if out is None else ["--out", str(out)])]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("wrote ")
    return Path(result.output.split()[1].rstrip(":"))


@pytest.mark.parametrize("kind", ["simulate", "select"])
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_the_table_reads_back_with_the_same_numbers(
    artifacts: dict[str, Path], tmp_path: Path, kind: str, fmt: str
) -> None:
    path = _export(artifacts[kind], fmt, tmp_path / f"table.{fmt}")
    table = pd.read_csv(path) if fmt == "csv" else pd.read_parquet(path)
    expected = gaugecli.load(artifacts[kind]).to_dataframe()
    assert list(table.columns) == list(expected.columns) and len(table) == len(expected)
    assert list(table["variable"]) == list(expected["variable"])
    for column in ("value", "t", "neuron"):  # repr-exact floats through CSV, binary through Parquet
        assert np.array_equal(table[column].to_numpy(float), expected[column].to_numpy(float), equal_nan=True)
    run = gaugecli.load(artifacts[kind]).result
    run = run if kind == "simulate" else run.runs[0]
    prefix = "" if kind == "simulate" else "runs/0/"
    coefficient = table[table["variable"] == prefix + "coefficient"].pivot(index="t", columns="neuron", values="value")
    assert np.array_equal(coefficient.to_numpy(), run.coefficient)


def test_netcdf_of_a_run_mirrors_its_dataset(artifacts: dict[str, Path], tmp_path: Path) -> None:
    path = _export(artifacts["simulate"], "netcdf")
    assert path == artifacts["simulate"].with_suffix(".nc")  # beside the artifact by default
    with xr.open_dataset(path, engine="h5netcdf") as back:
        expected = gaugecli.load(artifacts["simulate"]).to_xarray()
        assert back.equals(expected)
        assert back.attrs["config_hash"] == expected.attrs["config_hash"] and back.attrs["config.model.d"] == 3
        run = gaugecli.load(artifacts["simulate"]).result
        assert np.array_equal(back["alignment"].values, run.alignment) and back["alignment"].dims == ("t", "neuron")


def test_netcdf_of_a_nested_result_mirrors_its_tree(artifacts: dict[str, Path], tmp_path: Path) -> None:
    path = _export(artifacts["select"], "netcdf", tmp_path / "select.nc")
    expected = gaugecli.load(artifacts["select"]).to_xarray()
    with xr.open_datatree(path, engine="h5netcdf") as back:
        assert {n.path for n in back.subtree} == {n.path for n in expected.subtree}
        for node in expected.subtree:
            assert back[node.path].to_dataset(inherit=False).equals(node.to_dataset(inherit=False)), node.path
        run = gaugecli.load(artifacts["select"]).result.runs[0]
        assert np.array_equal(back["runs/0"]["imbalance"].values, run.imbalance)


def test_an_export_replaces_its_file_whole_and_leaves_no_temporary(artifacts: dict[str, Path], tmp_path: Path) -> None:
    target = tmp_path / "t.csv"
    target.write_text("old\n")
    _export(artifacts["simulate"], "csv", target)
    assert target.read_text().startswith("variable,t,neuron,value\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


def test_without_the_frame_extra_export_names_it(
    artifacts: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "xarray", None)
    result = CliRunner().invoke(
        app, ["export", str(artifacts["simulate"]), "--format", "csv", "--out", str(tmp_path / "x.csv")]
    )
    assert result.exit_code == 1 and "pip install 'gaugecli[frame]'" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize(
    ("fmt", "out", "named"),
    [
        ("parquet", "x.csv", "csv"),
        ("csv", "x.parquet", "parquet"),
        ("netcdf", "x.CSV", "csv"),
        ("csv", "x.nc", "netcdf"),
    ],
)
def test_an_out_named_for_another_format_is_refused(
    artifacts: dict[str, Path], tmp_path: Path, fmt: str, out: str, named: str
) -> None:
    """``--format parquet --out x.csv`` is refused in one line (exit 2), naming both ways out; the file is
    never written."""
    target = tmp_path / out
    result = CliRunner().invoke(app, ["export", str(artifacts["simulate"]), "--format", fmt, "--out", str(target)])
    assert result.exit_code == 2 and not target.exists() and "Traceback" not in result.output
    message = result.output.strip()
    assert "\n" not in message and "--out" in message and f"--format {named}" in message and f"is {fmt}" in message


def test_an_out_with_a_suffix_of_no_format_is_the_users_choice(artifacts: dict[str, Path], tmp_path: Path) -> None:
    written = _export(artifacts["simulate"], "csv", tmp_path / "table.txt")
    assert written == tmp_path / "table.txt" and pd.read_csv(written).shape[0] > 0


def test_a_rerun_recipe_is_refused_naming_its_artifact(tmp_path: Path) -> None:
    """The ``.toml`` beside an artifact is the slip a user makes (the cache lists both): one line, exit 2,
    naming the ``.json`` to export instead — not "not valid JSON"."""
    recipe = tmp_path / "abc.toml"
    recipe.write_text("# Reruns abc.json (or reads it from the cache): gaugecli simulate --config abc.toml\nm = 1\n")
    result = CliRunner().invoke(app, ["export", str(recipe), "--format", "csv"])
    message = result.output.strip()
    assert result.exit_code == 2 and "\n" not in message and "Traceback" not in message
    assert "rerun recipe" in message and str(tmp_path / "abc.json") in message
    assert not (tmp_path / "abc.csv").exists()
