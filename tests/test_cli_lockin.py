"""``gaugecli lockin`` end to end with small options: exit code, the artifact (which validates, carries the
options, and whose clock agrees with the package's own flow solver), the summary, the figure, and one-line
usage errors (exit 2) that name the option."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gaugecli.cli import app

SMALL = [
    *("-D", "4", "--d", "4", "--per", "50", "--span", "3", "--burn-in", "50"),
    *("--assign", "select,all-minus", "--seeds", "0", "--n-samples", "500"),
    *("--scan-strength", "none", "--scan-pers", "50", "--scan-eps", "1e-16"),
]


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One small run (≈ 2 s: two flows and their control, one seed of finite-sample GD and its control)."""
    root = tmp_path_factory.mktemp("lockin-cli")
    out, figure = root / "lockin.json", root / "lockin.png"
    args = [*SMALL, "--cache-dir", str(root / "runs"), "--out", str(out), "--figure", str(figure)]
    result = CliRunner().invoke(app, ["lockin", *args])
    assert result.exit_code == 0, result.output
    assert figure.stat().st_size > 10_000
    return out, result.output


def test_artifact_validates_and_carries_the_options(ran: tuple[Path, str]) -> None:
    out, _ = ran
    check = CliRunner().invoke(app, ["validate", str(out)])
    assert check.exit_code == 0 and "lockin artifact" in check.output
    artifact = json.loads(out.read_text())
    config, result = artifact["config"], artifact["result"]
    assert (config["per"], config["span"], config["burn_in"], config["model"]["d"]) == (50, 3.0, 50, 4)
    assert config["assignments"] == ["select", "all-minus"] and config["scan_strengths"] == []
    assert {(r["assign"], r["mode"], r["control"]) for r in result["runs"]} == {
        ("select", "flow", False),
        ("all-minus", "flow", False),
        ("select", "flow", True),
        ("select", "sample", False),
        ("select", "sample", True),
    }
    # the clock of the select flow (the epoch-grid LSODA flow on the invariant set) against T_spec from the
    # package's flow (`gaugecli select`'s solver) with duplicates perturbed by ε = 1e-16: measured to agree to 1e-13
    (flow,) = [r for r in result["runs"] if (r["assign"], r["mode"], r["control"]) == ("select", "flow", False)]
    assert result["tspec_vs_eps"][0]["eps"] == 1e-16
    assert result["tspec_vs_eps"][0]["select"] == pytest.approx(flow["t_unit"], rel=1e-7)
    assert result["rank2_collapse"] == []


def test_summary_is_printed(ran: tuple[Path, str]) -> None:
    out, text = ran
    artifact = json.loads(out.read_text())
    for row in ("select flow D=4", "control flow D=4", "select sample D=4", "control sample D=4"):
        assert row in text
    (minus,) = [r for r in artifact["result"]["runs"] if r["assign"] == "all-minus"]
    assert f"all-minus (D=4) {minus['Lambda_total']:.3g}" in text
    assert "ln(1/ε_machine) = 36.0" in text and "drew " in text and str(out) in text


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--assign", "select,sideways"], "--assign"),
        (["--assign", "all-minus"], "--assign"),
        (["--window", "2"], "--window"),
        (["--scan-pers", "50,x"], "--scan-pers"),
        (["--x2-step-fraction", "1.5"], "--x2-step-fraction"),
        (["--per", "5"], "--span"),
        (["--seeds", "-1"], "--seeds"),
    ],
)
def test_bad_option_is_one_line_exit_2(tmp_path: Path, args: list[str], flag: str) -> None:
    result = CliRunner().invoke(app, ["lockin", *args, "--cache-dir", str(tmp_path)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and f"'{flag}'" in lines[0], result.output
    assert not any(tmp_path.iterdir())  # nothing computed, nothing cached


def test_help_lists_the_command_and_its_options() -> None:
    assert "lockin" in CliRunner().invoke(app, ["--help"]).output
    text = CliRunner().invoke(app, ["lockin", "--help"]).output
    for option in ("--assign", "--x2", "--window", "--burn-in", "--floor", "--scan-pers", "--figure"):
        assert option in text
