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


def test_an_unknown_key_names_the_closest_valid_keys_in_one_short_line(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_text("gauge-strenght = [4.0]\n")
    result = CliRunner().invoke(app, ["simulate", "--config", str(config)])
    message = result.output.strip()
    assert result.exit_code == 2 and "\n" not in message
    assert "unknown option 'gauge-strenght'; did you mean 'gauge-strength'" in message
    assert "n-samples" not in message and len(message) < 200  # not every option of the command
    config.write_text("zzzz = 1\n")  # nothing close: where to find the keys, not all of them
    result = CliRunner().invoke(app, ["simulate", "--config", str(config)])
    assert result.exit_code == 2 and "gaugecli simulate --help" in result.output and "n-samples" not in result.output


def test_validate_checks_a_rerun_recipe_as_its_command_reads_it(tmp_path: Path) -> None:
    """``validate RUN.toml`` recognises a rerun recipe (not "not valid JSON"): valid when its command
    accepts every option at its value; one line naming the file and the option otherwise."""
    out = tmp_path / "run.json"
    _run("select", "--m", "3", "--d", "3", "--rtol", "1e-8", "--out", str(out), "--cache-dir", str(tmp_path / "c"))
    recipes = [out.with_suffix(".toml"), *(tmp_path / "c" / "select").glob("*.toml")]
    assert len(recipes) == 2
    result = CliRunner().invoke(app, ["validate", *map(str, recipes)])
    assert result.exit_code == 0, result.output
    assert result.output.count("a rerun recipe of gaugecli select") == 2 and "JSON" not in result.output
    text = recipes[0].read_text()
    cases = {
        "value": (text.replace("m = 3", "m = 0"), "--m"),
        "key": (text + "seedz = [1]\n", "unknown option 'seedz'"),
        "no recipe": ("m = 3\n", "not a rerun recipe"),
        "not TOML": (text + "m = = 3\n", "not TOML"),
    }
    for name, (content, needle) in cases.items():
        bad = tmp_path / f"{name.replace(' ', '-')}.toml"
        bad.write_text(content)
        result = CliRunner().invoke(app, ["validate", str(bad)])
        (line,) = [ln for ln in result.output.splitlines() if ln.startswith("INVALID")]
        assert result.exit_code == 1 and str(bad) in line and needle in line, (name, result.output)
