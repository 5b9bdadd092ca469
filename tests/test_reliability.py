"""Reliability: atomic artifacts, interrupted sweeps that resume, bit-for-bit determinism,
and the shipped JSON Schemas."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gaugecli.cli import app
from gaugecli.store import artifacts
from gaugecli.store.artifacts import ArtifactError, read_artifact, write_artifact
from gaugecli.store.atomic import atomic_write_text

# ------------------------------------------------------------------------------------------
# (a) atomic writes


def _leftovers(folder: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name not in keep)


class Boom(OSError):
    pass


def _boom(*args, **kwargs):
    raise Boom("simulated failure")


@pytest.mark.parametrize("where", ["replace", "fsync", "write", "interrupt"])
@pytest.mark.parametrize("existing", [True, False], ids=["over-old-file", "new-file"])
def test_atomic_write_leaves_old_file_or_nothing(tmp_path: Path, monkeypatch, where: str, existing: bool) -> None:
    target = tmp_path / "artifact.json"
    old = '{"old": true}\n'
    if existing:
        target.write_text(old)
    new = json.dumps({"new": list(range(10_000))})

    if where == "replace":
        monkeypatch.setattr(os, "replace", _boom)
    elif where == "fsync":
        monkeypatch.setattr(os, "fsync", _boom)
    else:
        real_write_text = Path.write_text
        error = KeyboardInterrupt if where == "interrupt" else Boom

        def half_writing(self, text, *args, **kwargs):
            real_write_text(self, text[: len(text) // 2], *args, **kwargs)
            raise error("simulated failure mid-write")

        monkeypatch.setattr(Path, "write_text", half_writing)

    # an OS failure is reported as an ArtifactError naming the file; an interrupt propagates
    with pytest.raises((ArtifactError, KeyboardInterrupt), match=r"artifact\.json|mid-write"):
        atomic_write_text(target, new)
    monkeypatch.undo()
    if existing:
        assert target.read_text() == old
    else:
        assert not target.exists()
    assert _leftovers(tmp_path, {"artifact.json"}) == [], "a temporary file was left behind"

    atomic_write_text(target, new)  # and a clean write still works afterwards
    assert target.read_text() == new
    assert _leftovers(tmp_path, {"artifact.json"}) == []


def test_readers_never_see_a_partial_file(tmp_path: Path) -> None:
    target = tmp_path / "a.json"
    versions = [json.dumps({"v": i, "pad": "x" * 200_000}) for i in range(2)]
    atomic_write_text(target, versions[0])
    stop = threading.Event()

    def writer() -> None:
        i = 0
        while not stop.is_set():
            atomic_write_text(target, versions[i % 2])
            i += 1

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        seen = set()
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            text = target.read_text()
            assert text in versions, f"partial file of {len(text)} characters"
            seen.add(text)
    finally:
        stop.set()
        thread.join()
    assert _leftovers(tmp_path, {"a.json"}) == []


@pytest.fixture(scope="module")
def simulate_artifact(tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = tmp_path_factory.mktemp("artifact") / "s.json"
    args = ["simulate", "--mode", "gd", "--eta", "0.05", "--d", "4", "--t-max", "1", "--out", str(path)]
    args += ["--cache-dir", str(path.parent / "runs")]  # not the working directory's runs/, shared by every test
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return read_artifact(path, "simulate")


def test_write_artifact_writes_nothing_when_serialisation_fails(tmp_path: Path, monkeypatch, simulate_artifact):
    target = tmp_path / "a.json"
    target.write_text("old\n")
    monkeypatch.setattr(artifacts.json, "dumps", _boom)
    with pytest.raises(Boom):
        write_artifact(target, simulate_artifact)
    monkeypatch.undo()
    assert target.read_text() == "old\n"
    assert _leftovers(tmp_path, {"a.json"}) == []


def test_write_artifact_refuses_an_invalid_artifact(tmp_path: Path, simulate_artifact) -> None:
    bad = json.loads(json.dumps(simulate_artifact))
    del bad["result"]["owner"]
    with pytest.raises(ArtifactError, match="owner"):
        write_artifact(tmp_path / "a.json", bad)
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------------------------
# (b) interrupted sweeps

SWEEP = ["select", "--sweep", "--ms", "2,3,4,5,6", "--rtol", "1e-12"]


def _points(folder: Path) -> dict[Path, tuple[bytes, int]]:
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.rglob("*.json")}


def _default_interrupt() -> None:
    # A shell starts background jobs with SIGINT ignored, and a child inherits that: Python then
    # never turns Ctrl-C into KeyboardInterrupt. Give the command the terminal's default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _gaugecli(cwd: Path, *args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "gaugecli", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_interrupt,
        **kwargs,
    )


@pytest.fixture(scope="module")
def reference_sweep(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The same sweep, run in one go into its own points folder."""
    folder = tmp_path_factory.mktemp("reference")
    args = [*SWEEP, "--cache-dir", str(folder / "P"), "--out", str(folder / "O.json")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return read_artifact(folder / "O.json", "select-sweep")


GATED = """
import functools, sys, time
import gaugecli.experiments.select as select

original, ran = select.owner_job, []


@functools.wraps(original)  # the same job name: the same cache keys
def gated(job):
    while ran:  # every point after the first waits for the signal
        time.sleep(3600)
    ran.append(job)
    return original(job)


select.owner_job = gated
from gaugecli.cli.app import main

main(sys.argv[1:])
"""
"""The sweep command with its second point held until a signal comes: the interrupt then lands inside
a point whatever the machine's load. (Racing the real sweep, the signal sometimes came after every
point had finished; the test retried, and could still fail when all its tries were beaten.)"""

PROGRESS_LINE = re.compile(r"^\S+: \d+ % after ")
"""A progress line off a terminal (:mod:`gaugecli.cli.heartbeat`): printed on stderr once a command has
run 10 s, which a loaded machine reaches before the signal; no part of the interrupt's message."""

HANG_GUARD_S = 600
"""Only against a hang, never a speed bound: the first point takes ~0.3 s of CPU, the resumed sweep ~2 s."""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupted_sweep_resumes(tmp_path: Path, signum: int, reference_sweep: dict) -> None:
    points_dir, out = tmp_path / "P", tmp_path / "O.json"
    args = [*SWEEP, "--cache-dir", "P", "--out", "O.json"]
    proc = subprocess.Popen(
        [sys.executable, "-c", GATED, *args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_interrupt,
    )
    try:
        deadline = time.monotonic() + HANG_GUARD_S
        while not any(points_dir.rglob("*.json")):
            assert proc.poll() is None, f"the sweep ended before its first point: {proc.communicate()}"
            assert time.monotonic() < deadline, "hung: no point finished"
            time.sleep(0.01)
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=HANG_GUARD_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()

    assert proc.returncode == 128 + signum, (proc.returncode, stdout, stderr)  # 130 Ctrl-C, 143 SIGTERM
    assert "Traceback" not in stderr
    message = [line for line in stderr.splitlines() if line.strip() and not PROGRESS_LINE.match(line)]
    assert len(message) == 1 and message[0].startswith("Error:") and "resume" in message[0], stderr
    assert not out.exists(), "a partial artifact was written"
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")], "temporary files were left behind"
    finished = _points(points_dir / "point")
    assert len(finished) == 1, f"{len(finished)} of 5 points finished; the gate holds all but the first"
    for path in finished:
        assert read_artifact(path, "point")["config"]["job"].endswith("owner_job")

    proc = _gaugecli(tmp_path, *args)
    stdout, stderr = proc.communicate(timeout=HANG_GUARD_S)
    assert proc.returncode == 0, (stdout, stderr)
    after = _points(points_dir / "point")
    assert len(after) == 5
    for path, state in finished.items():
        assert after[path] == state, f"{path.name} was recomputed instead of reused"
    resumed = read_artifact(out, "select-sweep")
    assert json.dumps(resumed["result"], sort_keys=True) == json.dumps(reference_sweep["result"], sort_keys=True)
    assert resumed["config_hash"] == reference_sweep["config_hash"]


# ------------------------------------------------------------------------------------------
# (c) determinism


@pytest.fixture
def one_thread():
    """Finite-sample GD multiplies tiny matrices; with several torch threads on a busy
    2-core machine each product can wait a whole scheduler slice. Keep it to one thread
    (the thread count itself is tested in a subprocess below)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _result_text(args: list[str], out: Path) -> str:
    result = CliRunner().invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return json.dumps(read_artifact(out)["result"], sort_keys=True)


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--deltas", "1,-1", "--d", "3", "--rtol", "1e-8"],
        ["simulate", "--mode", "sample", "--n-samples", "300", "--m", "2", "--d", "4", "--t-max", "3", "--seed", "7"],
        ["simulate", "--mode", "gd", "--deltas", "2,-2,-2", "--d", "4", "--t-max", "3"],
    ],
    ids=["flow", "sample", "gd"],
)
def test_same_config_same_result_bytes(tmp_path: Path, args: list[str], one_thread) -> None:
    first = _result_text(args, tmp_path / "a.json")
    second = _result_text(args, tmp_path / "b.json")
    assert first == second


_THREADS_SCRIPT = """
import json, sys
import torch
from gaugecli.store.artifacts import to_jsonable
from gaugecli.experiments.common import DynamicsConfig, ModelConfig
from gaugecli.experiments.simulate import SimulateConfig, simulate
config = SimulateConfig(
    model=ModelConfig(d=8),
    dynamics=DynamicsConfig(mode="sample", n_samples=8000, t_max=2.0),
    deltas=(2.0, -2.0, -2.0),
    seed=3,
)
out = {}
for threads in map(int, sys.argv[1:]):
    torch.set_num_threads(threads)
    (run,) = simulate(config)
    out[torch.get_num_threads()] = to_jsonable(run)
print(json.dumps(out, sort_keys=True))
"""


def test_sample_mode_does_not_depend_on_the_thread_count(tmp_path: Path) -> None:
    # a fresh process (no thread pool in use yet), one run per thread count, 2 first
    proc = subprocess.run(
        [sys.executable, "-c", _THREADS_SCRIPT, "2", "1"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    outputs = json.loads(proc.stdout)
    assert sorted(outputs) == ["1", "2"]
    one, two = outputs["1"], outputs["2"]
    if one != two:
        diff = max(
            float(np.nanmax(np.abs(np.asarray(one[k], float) - np.asarray(two[k], float))))
            for k in ("loss", "coefficient", "alignment", "empirical_loss")
        )
        pytest.fail(f"1 vs 2 torch threads differ by up to {diff:.3g}")


def test_each_sample_size_has_its_own_stream() -> None:
    from gaugecli.core.model.model import standard_model
    from gaugecli.core.samples.sample_draw import draw_sample

    teacher = standard_model(4)
    X_small, y_small = draw_sample(teacher, 200, np.random.SeedSequence([0, 200]))
    X_large, _ = draw_sample(teacher, 400, np.random.SeedSequence([0, 400]))
    assert not np.any(np.all(np.isclose(X_large[:, None, :], X_small[None, :, :]), axis=-1)), "shared draws"
    again, y_again = draw_sample(teacher, 200, np.random.SeedSequence([0, 200]))
    np.testing.assert_array_equal(again, X_small)
    np.testing.assert_array_equal(y_again, y_small)
    other_seed, _ = draw_sample(teacher, 200, np.random.SeedSequence([1, 200]))
    assert not np.array_equal(other_seed, X_small)
    # contrast: a bare integer seed makes the smaller sample a prefix of the larger one
    np.testing.assert_array_equal(draw_sample(teacher, 400, 0)[0][:200], draw_sample(teacher, 200, 0)[0])


def test_perturb_sample_sweep_seeds_every_point_with_seed_and_n(monkeypatch, one_thread) -> None:
    import gaugecli.core.samples.sample_draw
    from gaugecli.experiments.config import ModelConfig
    from gaugecli.experiments.params import SAMPLE_RTOL
    from gaugecli.experiments.perturb import SampleJob, sample_job

    seen = []
    real = gaugecli.core.samples.sample_draw.draw_sample

    def spy(teacher, n, seed):
        seen.append((n, seed))
        return real(teacher, n, seed)

    monkeypatch.setattr(gaugecli.core.samples.sample_draw, "draw_sample", spy)
    model = ModelConfig(d=4)
    for n in (100, 150):
        sample_job(SampleJob(model, 2, 4.0, n, (0, 1), 0.2, SAMPLE_RTOL))
    assert [n for n, _ in seen] == [100, 100, 150, 150]
    assert all(isinstance(s, np.random.SeedSequence) for _, s in seen)
    assert [tuple(s.entropy) for _, s in seen] == [(0, 100), (1, 100), (0, 150), (1, 150)]


# ------------------------------------------------------------------------------------------
# (d) JSON Schemas


def test_every_schema_is_valid_draft7() -> None:
    import jsonschema

    from gaugecli.store.schemas import kinds, load_schema

    assert {"simulate", "select", "select-sweep", "prune", "perturb", "point", "figure"} <= set(kinds())
    for kind in kinds():
        schema = load_schema(kind)
        jsonschema.Draft7Validator.check_schema(schema)
        assert schema["properties"]["schema"] == {"const": f"gaugecli.{kind}/1"}


def test_missing_owner_is_reported_with_its_path(tmp_path: Path, simulate_artifact: dict) -> None:
    from gaugecli.store.schemas import validate

    bad = json.loads(json.dumps(simulate_artifact))
    del bad["result"]["owner"]
    with pytest.raises(ArtifactError, match=r"at result: 'owner' is a required property"):
        validate(bad)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(ArtifactError, match=r"bad\.json: invalid simulate artifact at result: 'owner'"):
        read_artifact(path)


def test_wrong_type_is_reported_with_its_path(simulate_artifact: dict) -> None:
    from gaugecli.store.schemas import validate

    bad = json.loads(json.dumps(simulate_artifact))
    bad["result"]["t_spec"] = "soon"
    with pytest.raises(ArtifactError, match=r"at result/t_spec"):
        validate(bad)
    bad = json.loads(json.dumps(simulate_artifact))
    bad["result"]["owner"] = 0.5
    with pytest.raises(ArtifactError, match=r"at result/owner"):
        validate(bad)


def test_an_atomic_write_through_a_symlink_updates_its_target_and_keeps_the_link(tmp_path: Path) -> None:
    from gaugecli.store.atomic import atomic_write_text

    target, link = tmp_path / "target.json", tmp_path / "link.json"
    target.write_text("old\n")
    link.symlink_to(target.name)
    atomic_write_text(link, "new\n")
    assert link.is_symlink() and target.read_text() == "new\n"


def test_a_sweep_removes_old_leftovers_and_never_a_live_writers_temporary(tmp_path: Path) -> None:
    """plot all's workers share one cache: a reader sweeping leftovers must not delete the temporary
    another process is writing (the race seen as "cannot write runs/select/….json")."""
    import os

    from gaugecli.store.atomic import LEFTOVER_AGE, TEMP_SUFFIX, atomic_target, sweep_leftovers

    old = tmp_path / f".dead.json.0{TEMP_SUFFIX}"
    old.write_text("left by a killed writer")
    stale = os.path.getmtime(old) - LEFTOVER_AGE - 1.0
    os.utime(old, (stale, stale))
    with atomic_target(tmp_path / "live.json") as tmp:
        tmp.write_text("{}")
        assert sweep_leftovers(tmp_path) == 1  # the old one only
        assert tmp.exists() and not old.exists()
    assert (tmp_path / "live.json").read_text() == "{}"
