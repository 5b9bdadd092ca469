"""The pipeline: one cache for commands, figures and sweeps; a configuration computed once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from _quick_runs import QuickRuns
from typer.testing import CliRunner

from gaugecli.cli import app
from gaugecli.experiments.simulate import SimulateConfig
from gaugecli.pipeline import KINDS, Pipeline, kind
from gaugecli.store.artifacts import config_hash

FAST = SimulateConfig().runs()[0]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every ensemble integration run by simulate, recorded."""
    import gaugecli.experiments.simulate as sim

    calls: list[Any] = []
    original = sim.simulate

    def counting(config: Any, progress: Any = None) -> Any:
        calls.append(config)
        return original(config, progress)

    monkeypatch.setattr(sim, "simulate", counting)
    return calls


def test_simulate_then_plot_fig3_computes_nothing_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, counted, quick_runs: QuickRuns
) -> None:
    monkeypatch.chdir(tmp_path)
    # fig3's other runs (the reduced flow's kinds, which no simulate command writes) from the
    # session's quick runs; its simulate runs left out: the commands below compute them
    shutil.rmtree(quick_runs.copy("fig3", tmp_path / "runs") / "simulate")
    counted.clear()  # the shared runs, if computed just now for this copy, are not the commands' below
    runner = CliRunner()
    strengths = [a for D in ("1", "4", "16", "64") for a in ("-D", D)]
    for gauge in ("favorable", "unfavorable"):
        result = runner.invoke(app, ["simulate", "--gauge", gauge, *strengths])
        assert result.exit_code == 0, result.output
        assert result.output.count("computed: runs/simulate/") == 4
    assert len(counted) == 8  # each run integrated by itself (its numbers depend on its config only)
    import gaugecli.run.executors as executors

    pools: list[int] = []  # processes started (the pipeline's in-process executor of 1 is not a pool)
    original = executors.make_executor

    def recording(scheduler: Any, workers: int) -> Any:
        if workers > 1:
            pools.append(workers)
        return original(scheduler, workers)

    monkeypatch.setattr(executors, "make_executor", recording)
    # one drawing checks both: nothing simulate cached is computed again, and, two workers asked
    # for, no pool is started for one figure whose runs are all cached
    result = runner.invoke(app, ["plot", "fig3", "--quick", "--format", "png", "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert len(counted) == 8, "plot fig3 recomputed runs that simulate had cached"
    assert pools == [], "a pool was started for one figure whose runs were all cached"
    assert len(list((tmp_path / "runs" / "simulate").glob("*.json"))) == 8


def test_missing_names_the_needs_without_an_artifact(tmp_path: Path) -> None:
    from gaugecli.pipeline import Need

    other = SimulateConfig(gauge="unfavorable").runs()[0]
    needs = [Need("simulate", FAST), Need("simulate", other)]
    assert Pipeline(tmp_path).missing(needs) == needs
    Pipeline(tmp_path).ensure("simulate", FAST)
    assert Pipeline(tmp_path).missing(needs) == [needs[1]]
    assert Pipeline(tmp_path, reuse=False).missing(needs) == needs  # --recompute: all of them run again
    assert Pipeline(None).missing(needs) == needs


def test_ensure_reuses_and_recompute_overwrites(tmp_path: Path, counted) -> None:
    first = Pipeline(tmp_path).ensure("simulate", FAST)
    assert first.computed and first.path == tmp_path / "simulate" / f"{config_hash(FAST)}.json"
    again = Pipeline(tmp_path).ensure("simulate", FAST)
    assert not again.computed and len(counted) == 1
    assert again.result.t_spec == first.result.t_spec  # the typed result, read back
    fresh = Pipeline(tmp_path, reuse=False).ensure("simulate", FAST)
    assert fresh.computed and len(counted) == 2


@pytest.mark.parametrize("edit", ["result", "config", "nan"])
def test_an_edited_cache_entry_is_reported_and_recomputed(tmp_path: Path, edit: str, counted) -> None:
    path = Pipeline(tmp_path).ensure("simulate", FAST).path
    text = path.read_text()
    artifact = json.loads(text)
    if edit == "result":
        artifact["result"]["t_spec"] = 0.5  # a hand-edited number
        path.write_text(json.dumps(artifact))
    elif edit == "config":
        artifact["config"]["model"]["c0"] = 0.2
        path.write_text(json.dumps(artifact))
    else:
        path.write_text(text.replace('"imbalance_drift": ', '"imbalance_drift": NaN, "x": ', 1))
    warnings: list[str] = []
    outcome = Pipeline(tmp_path, warn=warnings.append).ensure("simulate", FAST)
    assert outcome.computed and len(counted) == 2
    assert len(warnings) == 1 and str(path) in warnings[0] and "recomputing" in warnings[0]
    assert outcome.result.t_spec == pytest.approx(0.43626, rel=1e-4)


def test_what_a_command_wrote_itself_is_read_without_reverifying(tmp_path: Path, counted) -> None:
    """``plot`` reads back the runs it has just computed without re-encoding their results for the hash
    check (``written``); any other entry is still verified — a hand edit there is caught."""
    path = Pipeline(tmp_path).ensure("simulate", FAST).path
    key = ("simulate", config_hash(FAST))
    artifact = json.loads(path.read_text())
    artifact["result"]["t_spec"] = 0.5  # edited: its result no longer matches its result_hash
    path.write_text(json.dumps(artifact))
    trusted = Pipeline(tmp_path, written={key}).ensure("simulate", FAST)
    assert not trusted.computed and trusted.result.t_spec == 0.5 and len(counted) == 1
    warnings: list[str] = []
    checked = Pipeline(tmp_path, warn=warnings.append).ensure("simulate", FAST)
    assert checked.computed and len(counted) == 2 and "result_hash" in warnings[0]


def test_every_kind_has_a_schema_and_a_config_with_defaults() -> None:
    from gaugecli.store.schemas import kinds

    for name in KINDS:
        k = kind(name)
        assert name in kinds()
        k.config_type()  # every config has defaults


def test_unknown_kind_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="simulate"):
        kind("nope")


def test_prefetch_computes_the_missing_runs_in_workers_once(tmp_path: Path) -> None:
    """Runs computed by worker processes land in the cache: a later ensure computes nothing,
    and a second prefetch has nothing left to do."""
    from gaugecli.experiments.config import ModelConfig
    from gaugecli.experiments.select import SelectConfig
    from gaugecli.pipeline import Need
    from gaugecli.run.executors import make_executor

    model = ModelConfig(d=3)
    needs = [
        Need("simulate", SimulateConfig(model=model, strengths=(4.0,))),
        Need("simulate", SimulateConfig(model=model, gauge="unfavorable", strengths=(4.0,))),
        Need("select", SelectConfig(model=model, m=3)),
    ]
    pipe = Pipeline(tmp_path)
    with make_executor(None, 2) as executor:
        assert pipe.prefetch(needs, executor) == 2  # the two simulate runs are one batch
        assert pipe.prefetch(needs, executor) == 0
    outcomes = [pipe.ensure(n.kind, n.config) for n in needs]
    assert not any(o.computed for o in outcomes)
    assert outcomes[0].result.t_spec == pytest.approx(0.43626, rel=1e-4)


def test_a_cache_says_whether_it_holds_any_run_and_prefetch_looks_for_files_only(tmp_path: Path) -> None:
    """What ``plot all`` decides its workers' imports by (an empty cache: every run to compute), and
    what prefetch counts as cached: a file, read and verified later by whoever reads it (``ensure``
    recomputes a damaged one, saying so), not parsed by the process that only hands out the runs."""
    from gaugecli.experiments.config import ModelConfig
    from gaugecli.pipeline import Need
    from gaugecli.store.cache import Cache

    assert not Cache(tmp_path / "absent").holds_any()
    (tmp_path / "c" / "simulate").mkdir(parents=True)
    assert not Cache(tmp_path / "c").holds_any()
    need = Need("simulate", SimulateConfig(model=ModelConfig(d=3), strengths=(4.0,)))
    warned: list[str] = []
    pipe = Pipeline(tmp_path / "c", warn=warned.append)
    path = pipe.cache.path(need.kind, need.config)
    path.write_text('{"broken":', encoding="utf-8")
    assert pipe.cache.holds_any() and pipe.missing([need]) == []
    cached: list[set[tuple[str, str]]] = []
    assert pipe.prefetch([need], executor=None, on_cached=lambda keys, _: cached.append(keys)) == 0
    assert cached == [{(need.kind, config_hash(need.config))}] and warned == []
    assert pipe.ensure(need.kind, need.config).computed and len(warned) == 1 and path.name in warned[0]


def test_prefetch_reports_what_is_cached_as_each_task_finishes(tmp_path: Path) -> None:
    """What lets ``plot all`` draw a figure while the runs of others still compute: first the
    runs already cached, then each task's runs as the task finishes."""
    from gaugecli.experiments.config import ModelConfig
    from gaugecli.experiments.select import SelectConfig
    from gaugecli.pipeline import Need
    from gaugecli.run.executors import make_executor

    model = ModelConfig(d=3)
    sims = [SimulateConfig(model=model, strengths=(4.0,)), SimulateConfig(model=model, strengths=(2.0,))]
    select = SelectConfig(model=model, m=3)
    Pipeline(tmp_path).ensure("simulate", sims[0])
    reports: list[tuple[set[tuple[str, str]], bool]] = []

    def on_cached(keys: set[tuple[str, str]], computed: bool) -> None:
        for kind_name, digest in keys:  # each reported run is in the cache when reported
            assert (tmp_path / kind_name / f"{digest}.json").exists()
        reports.append((keys, computed))

    needs = [Need("simulate", c) for c in sims] + [Need("select", select)]
    # one pool of two workers for both windows (a pool's start, two spawned interpreters importing
    # the package, is most of this test's time; what is tested is the prefetch's order of reports)
    with make_executor(None, 2) as executor:
        for window in (None, 1):  # all tasks submitted at once, or one at a time
            for path in tmp_path.glob("*/*.json"):
                if path.name != f"{config_hash(sims[0])}.json":
                    path.unlink()
            reports.clear()
            assert Pipeline(tmp_path).prefetch(needs, executor, on_cached=on_cached, window=window) == 2
            assert reports[0] == ({("simulate", config_hash(sims[0]))}, False)  # already there: not computed
            assert all(computed for _, computed in reports[1:])
            assert sorted(sorted(keys) for keys, _ in reports[1:]) == sorted(
                [[("select", config_hash(select))], [("simulate", config_hash(sims[1]))]]
            )


def test_recompute_runs_each_configuration_once_per_pipeline(tmp_path: Path, counted) -> None:
    """``--no-cache`` recomputes what a command uses, once: two figures sharing a run share it."""
    Pipeline(tmp_path).ensure("simulate", FAST)
    pipe = Pipeline(tmp_path, reuse=False)
    first, second = pipe.ensure("simulate", FAST), pipe.ensure("simulate", FAST)
    assert first.computed and not second.computed and len(counted) == 2
    assert second.result.t_spec == first.result.t_spec


def test_prefetch_without_reuse_recomputes_once_and_the_drawing_reads_it(tmp_path: Path, counted) -> None:
    from gaugecli.pipeline import Need
    from gaugecli.run.executors import make_executor

    Pipeline(tmp_path).ensure("simulate", FAST)
    stale = (tmp_path / "simulate" / f"{config_hash(FAST)}.json").stat().st_mtime_ns
    pipe = Pipeline(tmp_path, reuse=False)
    with make_executor(None, 1) as executor:  # in-process, so the counter sees the prefetch
        assert pipe.prefetch([Need("simulate", FAST)], executor) == 1
    assert len(counted) == 2
    assert (tmp_path / "simulate" / f"{config_hash(FAST)}.json").stat().st_mtime_ns >= stale
    assert not pipe.ensure("simulate", FAST).computed and len(counted) == 2


def test_a_figures_laws_runs_are_one_prefetch_task(tmp_path: Path) -> None:
    """fig13's laws runs go to one worker as one task (the laws spec's ``prefetch_slice``): torch.func's
    first call imports torch._dynamo in the process that makes it, which two workers both paid."""
    import concurrent.futures

    from gaugecli.plots.render import figure_module

    submitted: list[tuple[str, list[Any]]] = []

    class Recording:  # takes the tasks without running them
        def submit(self, fn: Any, root: str, kind_name: str, configs: list[Any], reuse: bool) -> Any:
            submitted.append((kind_name, configs))
            done: concurrent.futures.Future[None] = concurrent.futures.Future()
            done.set_result(None)
            return done

        def as_completed(self, handles: list[Any]) -> Any:
            return iter(handles)

    needs = [n for n in figure_module("fig13").needs(False).values() if n.kind == "laws"]
    assert len(needs) > 1
    assert Pipeline(tmp_path).prefetch(needs, Recording()) == 1
    assert submitted == [("laws", [n.config for n in needs])]
