"""``gaugecli reln`` end to end with small options: the summary it prints, the artifact it writes
(valid for ``gaugecli validate``, numbers as the flows give them), its figure, and its one-line errors."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gaugecli.cli import app
from gaugecli.store.artifacts import read_artifact

# one D, a coarse gate grid and two restarts: the flows stay in span(v, u0), so d = 3 changes nothing
SMALL = ["-D", "4", "--m", "3", "--restart", "0.5,2", "--envelope-levels", "0.2,0.02", "--psi-step", "15", "--d", "3"]


def _invoke(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str, code: int = 0):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, list(args))
    assert "Traceback" not in result.output
    assert result.exit_code == code, f"exit {result.exit_code}: {result.output!r} {result.exception!r}"
    return result.output


def test_reln_prints_its_summary_writes_a_valid_artifact_and_its_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _invoke(
        tmp_path, monkeypatch, "reln", *SMALL, "--cache-dir", "C", "--out", "reln.json", "--figure", "reln.pdf"
    )
    # T_spec(ReLN)/T_spec(ReLU) at +4 = 0.6077 (the closed-form pathway over the ReLU flow), race ratio 1
    assert "0.6077" in out
    assert "T_spec(−D)/T_spec(+D) at D=4:" in out and "race 1" in out
    assert "select (m=3, D=4, designated 0): owner ReLU 0, ReLN 0" in out
    assert "restart at t0 = 2 T_spec" in out and "stopped at the gate floor" in out
    assert "identity (gates = current directions)" in out and "computed: " in out
    assert "drew reln.pdf" in out and (tmp_path / "reln.pdf").read_bytes().startswith(b"%PDF")
    # the artifact: schema, hashes, and the numbers behind the summary
    artifact = read_artifact(tmp_path / "reln.json", "reln")
    result = artifact["result"]
    by = {r["delta"]: r for r in result["ratios"]}
    assert set(by) == {4.0, -4.0}
    assert by[4.0]["t_spec_reln"] / by[4.0]["t_spec_relu"] == pytest.approx(0.6077, abs=2e-4)
    assert by[-4.0]["t_spec_race"] == by[4.0]["t_spec_race"]
    assert by[4.0]["loss_end_reln_initial"] == pytest.approx(3 / 16 - 1 / (4 * math.pi**2), rel=1e-9)
    assert result["identity_error"] <= 1e-14
    assert len(result["restart"]) == 2 * 2 * 2  # ±D × t0 × levels
    assert result["psi_deg"] == [0.0, 15.0, 30.0, 45.0, 60.0, 75.0, 90.0]
    # gaugecli validate accepts it, and a rerun reads it from the cache
    assert _invoke(tmp_path, monkeypatch, "validate", "reln.json").startswith("valid")
    assert "reused from the cache: " in _invoke(tmp_path, monkeypatch, "reln", *SMALL, "--cache-dir", "C")


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--owner", "5"], "--owner"),
        (["--restart", "0.5,x"], "--restart"),
        (["--psi-step", "60"], "--psi-step"),
    ],
)
def test_reln_rejects_bad_options_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], flag: str
) -> None:
    out = _invoke(tmp_path, monkeypatch, "reln", *args, "--cache-dir", "C", code=2)
    (line,) = out.strip().splitlines()
    assert line.startswith(f"Error: Invalid value for '{flag}'")
    assert not (tmp_path / "C").exists() or not any((tmp_path / "C").rglob("*.json"))
