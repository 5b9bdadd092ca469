"""Integrity of stored artifacts: a missing ``config_hash`` or ``result_hash`` is a mismatch.

Deleting the hash of a hand-edited artifact must not make it trusted. Every reader — ``validate``,
``gaugecli.load``, ``export``, the run cache, ``plot --compare`` (figure sidecars) and the sweep
chunk cache — refuses it (or warns and recomputes) with the one-line message a wrong hash gets,
and the true value returns.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import gaugecli
from gaugecli.cli import app
from gaugecli.experiments.simulate import SimulateConfig
from gaugecli.pipeline import Pipeline
from gaugecli.store.artifacts import read_artifact
from gaugecli.store.errors import ArtifactError

FAST = SimulateConfig().runs()[0]
"""`gaugecli simulate` at its defaults (T_spec ≈ 0.4363): one run, ~1 s."""

SAME_RUN_RTOL = 1e-9
"""The same configuration integrated again by the same code: equal up to round-off in the
summation order (≈ 1e-15 relative), far inside this bound and the solver's rtol (1e-7)."""

Tamper = Callable[[dict[str, Any]], None]


def _edit_result(a: dict[str, Any]) -> None:
    a["result"]["t_spec"] = 0.5  # the true value is ≈ 0.4363


def _edit_config(a: dict[str, Any]) -> None:
    a["config"]["model"]["c0"] = 0.2


TAMPERS: dict[str, tuple[Tamper, str, Tamper]] = {
    # name: (the tamper, the hash its message names, the same edit with a wrong hash instead)
    "result edited, result_hash deleted": (
        lambda a: (_edit_result(a), a.pop("result_hash")),
        "result_hash",
        _edit_result,
    ),
    "result edited, both hashes deleted": (
        lambda a: (_edit_result(a), a.pop("result_hash"), a.pop("config_hash")),
        "config_hash",
        lambda a: (_edit_result(a), a.update(config_hash="0" * 64)),
    ),
    "config edited, config_hash deleted": (
        lambda a: (_edit_config(a), a.pop("config_hash")),
        "config_hash",
        _edit_config,
    ),
}


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], float]:
    """A genuine cached simulate artifact and its true T_spec."""
    outcome = Pipeline(tmp_path_factory.mktemp("cache")).ensure("simulate", FAST)
    assert outcome.path is not None
    return json.loads(outcome.path.read_text()), outcome.result.t_spec


def _write(path: Path, artifact: dict[str, Any], tamper: Tamper) -> Path:
    edited = json.loads(json.dumps(artifact))
    tamper(edited)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(edited))
    return path


@pytest.mark.parametrize("name", TAMPERS)
def test_a_missing_hash_gets_the_wrong_hash_message(tmp_path: Path, stored, name: str) -> None:
    artifact, _ = stored
    tamper, needle, wrong = TAMPERS[name]
    path = tmp_path / "run.json"
    with pytest.raises(ArtifactError) as wrong_hash:
        read_artifact(_write(path, artifact, wrong))
    with pytest.raises(ArtifactError) as missing_hash:
        read_artifact(_write(path, artifact, tamper))
    assert str(missing_hash.value) == str(wrong_hash.value)
    assert needle in str(missing_hash.value) and "edited by hand" in str(missing_hash.value)
    assert "\n" not in str(missing_hash.value)


@pytest.mark.parametrize("name", TAMPERS)
def test_validate_load_and_export_refuse_it(tmp_path: Path, stored, name: str) -> None:
    artifact, _ = stored
    tamper, needle, _ = TAMPERS[name]
    path = _write(tmp_path / "run.json", artifact, tamper)
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 1 and "INVALID" in result.output and needle in result.output
    assert "valid   " not in result.output and "Traceback" not in result.output
    with pytest.raises(ArtifactError, match=needle):
        gaugecli.load(path)
    out = tmp_path / "run.csv"
    result = CliRunner().invoke(app, ["export", str(path), "--format", "csv", "--out", str(out)])
    assert result.exit_code == 1 and needle in result.output and not out.exists()


@pytest.mark.parametrize("name", TAMPERS)
def test_the_run_cache_warns_and_recomputes_the_true_value(tmp_path: Path, stored, name: str) -> None:
    artifact, t_spec = stored
    tamper, needle, _ = TAMPERS[name]
    cache = tmp_path / "runs"
    path = _write(cache / "simulate" / f"{artifact['config_hash']}.json", artifact, tamper)
    warnings: list[str] = []
    outcome = Pipeline(cache, warn=warnings.append).ensure("simulate", FAST)
    assert outcome.computed and outcome.result.t_spec == pytest.approx(t_spec, rel=SAME_RUN_RTOL)
    assert len(warnings) == 1 and str(path) in warnings[0] and needle in warnings[0] and "recomputing" in warnings[0]
    assert read_artifact(path)["result"]["t_spec"] == pytest.approx(t_spec, rel=SAME_RUN_RTOL)  # overwritten


def test_the_command_recomputes_instead_of_reusing(tmp_path: Path, stored, monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's case: both hashes deleted and T_spec set to 0.5 — a rerun must not print 0.5 as
    "reused from the cache"."""
    artifact, t_spec = stored
    monkeypatch.chdir(tmp_path)
    path = Path("runs") / "simulate" / f"{artifact['config_hash']}.json"
    _write(path, artifact, TAMPERS["result edited, both hashes deleted"][0])
    result = CliRunner().invoke(app, ["simulate", "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout.strip().splitlines()[-1])
    assert record["computed"] is True and record["result"]["t_spec"] == pytest.approx(t_spec, rel=SAME_RUN_RTOL)
    assert "config_hash" in result.stderr and "recomputing" in result.stderr


def _sidecar(path: Path) -> Path:
    from gaugecli.plots.render import write_sidecar

    panels = {"a": {"D": [1.0, 2.0, 4.0], "T_spec": [0.3, 0.25, 0.219]}}
    return write_sidecar(path, "fig3", {"figure": "fig3", "quick": True}, {"run": "0" * 64}, panels)


@pytest.mark.parametrize("hash_state", ["deleted", "wrong"])
def test_compare_refuses_a_committed_sidecar_edited_within_tolerance(tmp_path: Path, hash_state: str) -> None:
    """An edit far inside ``--compare``'s tolerance (1e-9 relative) passes the numeric comparison;
    only the hash catches it, missing or wrong alike."""
    from gaugecli.cli.plot import _compare

    regenerated = _sidecar(tmp_path / "out" / "fig3.json")
    committed = _sidecar(tmp_path / "committed" / "fig3.json")
    assert _compare(committed, regenerated) == []
    sidecar = json.loads(committed.read_text())
    sidecar["result"]["panels"]["a"]["T_spec"][2] *= 1 + 1e-9
    if hash_state == "deleted":
        del sidecar["result_hash"]
    else:
        sidecar["result_hash"] = "0" * 64
    committed.write_text(json.dumps(sidecar))
    (line,) = _compare(committed, regenerated)
    assert str(committed) in line and "result_hash" in line


def test_a_sidecar_without_its_hash_is_redrawn_not_kept(tmp_path: Path) -> None:
    from gaugecli.plots.render import _unchanged

    path = _sidecar(tmp_path / "fig3.json")
    image = tmp_path / "fig3.png"
    image.write_bytes(b"png")
    sidecar = read_artifact(path, "figure")
    assert _unchanged(path, sidecar, [image])
    stripped = json.loads(path.read_text())
    del stripped["result_hash"]
    path.write_text(json.dumps(stripped))
    assert not _unchanged(path, sidecar, [image])


# -- the sweep chunk cache ------------------------------------------------------------------------


def _edit_chunk(a: dict[str, Any]) -> None:
    a["result"]["owners"] = [[0] for _ in a["result"]["owners"]]  # every start owned by neuron 0


CHUNK_TAMPERS: dict[str, Tamper] = {
    "hash wrong": _edit_chunk,
    "result_hash deleted": lambda a: (_edit_chunk(a), a.pop("result_hash")),
    "both hashes deleted": lambda a: (_edit_chunk(a), a.pop("result_hash"), a.pop("config_hash")),
}


@pytest.mark.parametrize("name", CHUNK_TAMPERS)
def test_an_edited_predict_chunk_is_reported_and_recomputed(tmp_path: Path, name: str) -> None:
    """A cached sweep point is an artifact like any other: a chunk edited by hand (its hash wrong or
    gone) is reported and recomputed when the study is rebuilt, and the true table returns. Reading
    the points without their hash check (``cache.load(..., verify=False)`` in ``run/sweep.py``)
    fails the first two cases: the edit flows into the table silently."""
    from gaugecli.experiments.predict import PredictConfig, chunk_key, chunks
    from gaugecli.run.sweep import make_runner

    config = PredictConfig(ks=(1,), widths=(2,), spreads=(1.0,), natural=True, runs=4)

    def run(warn: Callable[[str], None] | None = None) -> Any:
        pipe = Pipeline(tmp_path, warn=warn)
        pipe.runner = make_runner(None, pipe.cache)
        return pipe.ensure("predict", config)

    first = run()
    (row,) = [r for r in first.artifact["result"]["rows"] if r["spread"] == 1.0]
    jobs, _ = chunks(config)
    cache = Pipeline(tmp_path).cache
    assert cache is not None
    point = cache.path("point", chunk_key(jobs[-1]))  # the spread-1 cell's chunk
    _write(point, json.loads(point.read_text()), CHUNK_TAMPERS[name])
    Path(first.path).unlink()  # the study is rebuilt from its chunks
    warnings: list[str] = []
    second = run(warnings.append)
    (again,) = [r for r in second.artifact["result"]["rows"] if r["spread"] == 1.0]
    # counts of starts: integers, equal (the edit would make neuron 0 own all four)
    assert second.computed and (again["owned"], again["correct"]) == (row["owned"], row["correct"])
    assert len(warnings) == 1 and str(point) in warnings[0] and "recomputing" in warnings[0]
    read_artifact(point)  # rewritten: its hashes check again
