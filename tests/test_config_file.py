"""``--config run.toml``: options from a file, overridden by the command line, and the file that
``--out`` writes beside an artifact reruns it to the same configuration (the same config hash)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gaugecli.cli import app


def _run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _hash(path: Path) -> str:
    return str(json.loads(path.read_text())["config_hash"])


def test_simulate_reruns_from_the_file_written_beside_each_artifact(tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    _run("simulate", "--gauge", "unfavorable", "-D", "4", "-D", "16", "--c0", "0.05", "--theta0", "1.2",
         "--out", str(tmp_path / "a.json"), "--cache-dir", cache)  # fmt: skip
    for D in ("4", "16"):
        rerun_file = tmp_path / f"a-D{D}.toml"
        options = tomllib.loads(rerun_file.read_text())
        # the options given, this run's own D; the defaults that applied are comments
        assert options == {"gauge": ["unfavorable"], "gauge-strength": [float(D)], "c0": 0.05, "theta0": 1.2,
                           "cache-dir": cache}  # fmt: skip
        assert "# m = 1" in rerun_file.read_text()
        again = tmp_path / f"b-D{D}.json"
        _run("simulate", "--config", str(rerun_file), "--out", str(again))
        assert _hash(again) == _hash(tmp_path / f"a-D{D}.json")


def test_command_line_overrides_the_file_and_values_are_parsed_as_typed(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_text('mode = "sample"\nn-samples = 300\nseeds = [1, 2]\ndeltas = [3.0, -1.0, 0.5]\n')
    out = tmp_path / "s.json"
    _run("select", "--config", str(config), "--n-samples", "400", "--out", str(out), "--cache-dir", str(tmp_path / "c"))
    artifact = json.loads(out.read_text())
    assert artifact["config"]["dynamics"]["n_samples"] == 400  # the command line wins
    assert artifact["config"]["seeds"] == [1, 2] and artifact["config"]["deltas"] == [3.0, -1.0, 0.5]
    assert artifact["config"]["dynamics"]["mode"] == "sample"
    rerun = tomllib.loads(out.with_suffix(".toml").read_text())
    assert rerun["n-samples"] == 400 and rerun["seeds"] == [1, 2] and rerun["mode"] == "sample"
    again = tmp_path / "t.json"
    _run("select", "--config", str(out.with_suffix(".toml")), "--out", str(again))
    assert _hash(again) == _hash(out)


@pytest.mark.parametrize(
    ("text", "value"),
    [("d = 32", 32), ("c0 = 1e-3", 1e-3), ("c0 = 2", 2.0), ("theta0 = 1.5707963267948966", 1.5707963267948966)],
)
def test_toml_numbers_reach_the_config_unchanged(tmp_path: Path, text: str, value: float) -> None:
    config = tmp_path / "run.toml"
    config.write_text(text + "\n")
    out = tmp_path / "o.json"
    _run("simulate", "--config", str(config), "--out", str(out), "--cache-dir", str(tmp_path / "c"))
    key = text.split()[0]
    assert json.loads(out.read_text())["config"]["model"][key] == value
