"""What the CLI's own cost was cut by keeps its guarantees: a cache entry is written without fsync
yet a torn one is never used, the placeholders of the one-pass encoder, the cycle collector paused
around JSON values, the heartbeat's dropped reports and the provenance read on a thread."""

from __future__ import annotations

import gc
import itertools
import json
import os
import uuid
from pathlib import Path

import pytest

from gaugecli.cli.heartbeat import STEP, ProgressLines
from gaugecli.pipeline import Pipeline
from gaugecli.store import artifacts
from gaugecli.store.atomic import atomic_write_text
from gaugecli.store.codec import acyclic


def _count_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = os.fsync

    def counted(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counted)
    return calls


def test_a_file_for_the_user_is_fsynced_and_a_cache_entry_is_not(tmp_path: Path, monkeypatch) -> None:
    calls = _count_fsyncs(monkeypatch)
    atomic_write_text(tmp_path / "out.json", "{}\n")
    assert len(calls) == 2  # the file's bytes before the rename, the folder after it
    calls.clear()
    atomic_write_text(tmp_path / "entry.json", "{}\n", durable=False)
    assert calls == []
    assert (tmp_path / "entry.json").read_text() == "{}\n"


def _small_run():  # type: ignore[no-untyped-def]
    from gaugecli.experiments.simulate import SimulateConfig

    return SimulateConfig(model=SimulateConfig().model.__class__(d=3), strengths=(4.0,)).runs()[0]


@pytest.mark.parametrize("torn", ["empty", "half"])
def test_a_cache_entry_torn_by_a_power_loss_is_reported_and_recomputed(tmp_path: Path, monkeypatch, torn) -> None:
    """What a power loss can leave of an entry written without fsync — an empty file, or the first
    part of it, under its final name — fails its read check: it is recomputed, never used."""
    calls = _count_fsyncs(monkeypatch)
    config = _small_run()
    first = Pipeline(tmp_path).ensure("simulate", config)
    assert first.computed and first.path is not None and calls == []
    text = first.path.read_text()
    first.path.write_text("" if torn == "empty" else text[: len(text) // 2])
    warnings: list[str] = []
    again = Pipeline(tmp_path, warn=warnings.append).ensure("simulate", config)
    assert again.computed and len(warnings) == 1 and "recomputing" in warnings[0]
    assert again.artifact["result_hash"] == first.artifact["result_hash"]
    assert json.loads(first.path.read_text())["result_hash"] == first.artifact["result_hash"]


def test_a_string_that_looks_like_a_placeholder_is_kept() -> None:
    """The placeholder pattern is compiled once for any nonce: another nonce's placeholder, typed
    by a user into a label, is text like any other."""
    fake = f"@{uuid.uuid4().hex}:0@"
    value = {"label": fake, "series": [1.0, 2.5], "nested": {"s": fake}}
    assert json.loads(artifacts.dumps(value)) == value


def test_the_collector_is_paused_in_the_block_and_restored_after() -> None:
    assert gc.isenabled()
    with acyclic():
        assert not gc.isenabled()
        with acyclic():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block restores the state it found: paused
    assert gc.isenabled()
    with pytest.raises(RuntimeError), acyclic():
        raise RuntimeError("an error in the block")
    assert gc.isenabled()


def test_the_heartbeat_keeps_steps_of_a_thousandth_and_the_end() -> None:
    now = [0.0]
    lines: list[str] = []
    progress = ProgressLines("runs", clock=lambda: now[0], write=lines.append)
    for i in range(1, 10_001):  # 10⁴ reports of 10⁻⁴ each, as a flow reports at every step
        now[0] = i * 1e-3
        progress(i / 10_000)
    kept = [f for _, f in progress.samples[1:]]
    assert len(kept) <= round(1 / STEP) + 1 and kept[-1] == 1.0
    # each kept report but the last (the end, always kept) a step of at least STEP after the one before;
    # 1e-12: round-off of the differences of i/10⁴ (a few ε)
    assert all(b - a >= STEP - 1e-12 for a, b in itertools.pairwise(kept[:-1]))


def test_provenance_read_on_a_thread_is_the_provenance() -> None:
    artifacts._git_source.cache_clear()
    artifacts.warm_provenance()
    warmed = artifacts.stable_provenance()  # waits for the thread's git reading, or reads it itself
    artifacts._git_source.cache_clear()
    assert artifacts.stable_provenance() == warmed


def test_a_cached_path_is_the_hash_of_the_config_and_a_mutable_config_is_hashed_again(tmp_path: Path) -> None:
    from gaugecli.store.cache import Cache

    cache, config = Cache(tmp_path), _small_run()
    assert cache.path("simulate", config) == tmp_path / "simulate" / f"{artifacts.config_hash(config)}.json"
    assert cache.path("simulate", config) is cache.path("simulate", config)  # taken once
    loose = {"p": 1}  # a dict can change under the same object: its hash is taken at every call
    before = cache.path("point", loose)
    loose["p"] = 2
    assert cache.path("point", loose) != before
