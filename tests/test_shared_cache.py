"""A read-only run cache — a colleague's, shared — serves the runs it holds: reading needs no write
permission, and a run it lacks is refused in one line before it is computed."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import gaugecli
from gaugecli.cli import app

FAST = ["--d", "3", "--rtol", "1e-8"]


@contextlib.contextmanager
def read_only(root: Path) -> Iterator[None]:
    """Every folder under ``root`` refuses new entries: ``chmod a-w`` — or, for root, whom permissions
    do not stop, the immutable attribute (``chattr +i``); skipped where neither is possible."""
    folders = [root, *(p for p in root.rglob("*") if p.is_dir())]
    as_root = os.geteuid() == 0
    if as_root and shutil.which("chattr") is None:
        pytest.skip("running as root without chattr: no folder can be made read-only")
    try:
        for folder in folders:
            if as_root:
                if subprocess.run(["chattr", "+i", str(folder)], capture_output=True, check=False).returncode:
                    pytest.skip("running as root without CAP_LINUX_IMMUTABLE: no folder can be made read-only")
            else:
                folder.chmod(0o555)
        probe = root / "probe"
        with contextlib.suppress(OSError):
            probe.touch()
            probe.unlink()
            pytest.skip("this filesystem lets a write through a read-only folder")
        yield
    finally:
        for folder in folders:
            if as_root:
                subprocess.run(["chattr", "-i", str(folder)], capture_output=True, check=False)
            else:
                folder.chmod(0o755)


def _json(output: str) -> dict:
    (record,) = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    return record


def test_a_read_only_cache_serves_its_runs_and_refuses_a_new_one_in_one_line(tmp_path: Path) -> None:
    cache = tmp_path / "shared"
    runner = CliRunner()
    first = runner.invoke(app, ["select", "--m", "3", *FAST, "--cache-dir", str(cache), "--json"])
    assert first.exit_code == 0, first.output
    record = _json(first.output)
    for recipe in cache.rglob("*.toml"):  # a cache filled by the API, say: no rerun file to write beside
        recipe.unlink()
    before = sorted(p.relative_to(cache) for p in cache.rglob("*"))
    with read_only(cache):
        again = runner.invoke(app, ["select", "--m", "3", *FAST, "--cache-dir", str(cache), "--json"])
        assert again.exit_code == 0, again.output
        reused = _json(again.output)
        assert reused["computed"] is False and reused["config_hash"] == record["config_hash"]
        assert reused["result"]["t_spec"] == pytest.approx(record["result"]["t_spec"], rel=2.3e-16)  # JSON round trip
        sel = gaugecli.select(m=3, d=3, rtol=1e-8, cache_dir=cache)  # the API too
        assert sel.path is not None and sel.path.parent.parent == cache
        refused = runner.invoke(app, ["select", "--m", "4", *FAST, "--cache-dir", str(cache)])
        errors = [line for line in refused.output.splitlines() if line.startswith("Error")]
        assert refused.exit_code == 1 and "Traceback" not in refused.output
        assert len(errors) == 1 and "--cache-dir" in errors[0] and "cannot write" in errors[0]
    assert sorted(p.relative_to(cache) for p in cache.rglob("*")) == before  # nothing written, nothing left


def test_a_run_a_read_only_cache_lacks_is_refused_before_it_is_computed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gaugecli.experiments.simulate as sim

    cache = tmp_path / "shared"
    (cache / "simulate").mkdir(parents=True)
    calls: list[object] = []
    monkeypatch.setattr(sim, "simulate", lambda *args, **kwargs: calls.append(args))
    with read_only(cache):
        refused = CliRunner().invoke(app, ["simulate", *FAST, "--cache-dir", str(cache)])
    assert refused.exit_code == 1 and "--cache-dir" in refused.output and not calls
