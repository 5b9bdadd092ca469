"""``gaugecli verify``: claims measured and judged; a broken expectation fails naming its claim."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gaugecli.cli import app
from gaugecli.pipeline import Pipeline
from gaugecli.store.artifacts import read_artifact
from gaugecli.verify import VerifyConfig, all_claims, verify
from gaugecli.verify.claim import at_most, within


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("verify-cache")


def test_claim_helpers_judge_against_their_bounds() -> None:
    assert at_most(1e-13, 1e-12, "x").passed and not at_most(2e-12, 1e-12, "x").passed
    assert not at_most(float("nan"), 1.0, "x").passed
    assert within(1.98, 2.0, 0.05, "slope").passed and not within(1.9, 2.0, 0.05, "slope").passed


def test_quick_verify_passes_every_paper_claim(cache: Path) -> None:
    only = tuple(f"C{i}" for i in range(1, 8))
    result = verify(VerifyConfig(quick=True, only=only), Pipeline(cache))
    ran = {c.id: c for c in result.claims if c.passed is not None}
    assert set(ran) == set(only)
    assert all(c.passed for c in ran.values()), [(c.id, c.measured, c.error) for c in ran.values() if not c.passed]
    assert ran["C4"].measured == pytest.approx(2.0, abs=0.05)
    assert all(c.passed is None for c in result.claims if c.id not in only)  # not run


def test_a_broken_expectation_exits_1_naming_the_claim(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gaugecli.verify as V

    claims = all_claims()
    c4 = next(c for c in claims if c.id == "C4")
    broken = dataclasses.replace(c4, evaluate=lambda inputs, quick: within(1.98, 3.0, 0.05, "slope expected 3"))
    monkeypatch.setattr(V, "all_claims", lambda: [broken if c.id == "C4" else c for c in claims])
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["verify", "--quick", "--claims", "C1,C4", "--cache-dir", str(cache)])
    assert result.exit_code == 1, result.output
    assert "1 claim(s) failed: C4" in result.output
    assert "Traceback" not in result.output


def test_cli_writes_a_valid_artifact_and_a_report(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["verify", "--quick", "--claims", "C1,C6", "--cache-dir", str(cache), "--out", "v.json"]
    result = CliRunner().invoke(app, [*args, "--report", "rep/review.md", "--figures-dir", "figs"])
    assert result.exit_code == 0, result.output
    artifact = read_artifact(tmp_path / "v.json", "verify")
    claims = {c["id"]: c for c in artifact["result"]["claims"]}
    assert claims["C1"]["passed"] is True and claims["C6"]["passed"] is True and claims["C4"]["passed"] is None
    for key in ("id", "statement", "measured", "expected", "tolerance", "passed"):
        assert key in claims["C1"]
    text = (tmp_path / "rep" / "review.md").read_text()
    assert "| C1 |" in text and "**pass**" in text and "gaugecli plot fig1" in text  # no figure yet: how to draw it


def test_unknown_claim_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["verify", "--claims", "C9"])
    assert result.exit_code == 2 and "--claims" in result.output and "C1" in result.output
    assert not list(tmp_path.iterdir())


def test_off_a_terminal_every_claim_line_is_whole(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Piped (CI logs), a claim's line is not cut to 80 columns: C5–C8's measured values, read back
    from the artifact the same command wrote, appear whole in the captured output."""
    from gaugecli.cli.report.studies import _one_line

    monkeypatch.chdir(tmp_path)
    args = ["verify", "--quick", "--claims", "C5,C6,C7,C8", "--cache-dir", str(cache), "--out", "v.json"]
    result = CliRunner().invoke(app, args)  # CliRunner's stdout is no terminal
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    claims = {c["id"]: c for c in read_artifact(tmp_path / "v.json", "verify")["result"]["claims"]}
    lines = {line.split()[0]: line for line in result.output.splitlines() if line.strip()}
    for cid in ("C5", "C6", "C7", "C8"):
        measured = _one_line(claims[cid]["measured"])
        assert len(lines[cid]) > 80, lines[cid]  # long enough that an 80-column cut would have lost its end
        assert measured in lines[cid], (cid, lines[cid])
        assert lines[cid].endswith(
            f"(expected {claims[cid]['expected']} {claims[cid]['tolerance']})".replace(" )", ")")
        )
