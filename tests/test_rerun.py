"""The TOML beside every cached artifact reruns it: ``gaugecli <command> --config <hash>.toml``
finds the same cache entry (the same config hash), for runs a command made and runs a figure read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from gaugecli.cli import rerun
from gaugecli.cli.app import app
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.lockin import LockinConfig
from gaugecli.experiments.perturb import PerturbConfig
from gaugecli.experiments.prune import PruneConfig
from gaugecli.experiments.reln import RelnConfig
from gaugecli.experiments.select import OwnerSweepConfig, SelectConfig
from gaugecli.experiments.simulate import SimulateConfig
from gaugecli.plots import FIGURES
from gaugecli.plots.render import figure_module

FAST = ["--d", "3", "--rtol", "1e-8"]


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", *FAST, "-D", "2", "--gauge", "unfavorable"],
        ["simulate", "--d", "3", "--deltas", "1,-0.5", "--mode", "gd", "--t-max", "0.5"],
        ["simulate", *FAST[:2], "--mode", "sample", "--n-samples", "300", "--seeds", "2", "--t-max", "0.5"],
        ["select", *FAST, "--m", "3", "--owner", "2", "-D", "3"],
        ["select", *FAST, "--sweep", "--ms", "2,3"],
        # one sweep of four: the file leaves out what the others (and adversarial ε) would read, which
        # the command refuses as having no effect; --kind is the config's bool `adversarial`
        [
            "perturb",
            *FAST,
            "--sweeps",
            "visible",
            "--eps",
            "0,0.5",
            "--refine",
            "1",
            "--kind",
            "random",
            "--seeds",
            "0",
        ],
        ["perturb", *FAST, "--sweeps", "visible", "--eps", "0,0.5", "--refine", "1"],
    ],
)
def test_the_toml_beside_a_cached_run_reruns_it_from_the_cache(tmp_path: Path, args: list[str]) -> None:
    runner = CliRunner()
    first = runner.invoke(app, [*args, "--cache-dir", str(tmp_path), "--json"])
    assert first.exit_code == 0, first.output
    (record,) = [json.loads(line) for line in first.output.splitlines() if line.startswith("{")]
    toml = Path(record["path"]).with_suffix(".toml")
    again = runner.invoke(app, [args[0], "--config", str(toml), "--cache-dir", str(tmp_path), "--json"])
    assert again.exit_code == 0, again.output
    (second,) = [json.loads(line) for line in again.output.splitlines() if line.startswith("{")]
    assert second["config_hash"] == record["config_hash"] and second["computed"] is False


CONFIGS = [
    ("simulate", SimulateConfig(model=ModelConfig(d=5, c0=0.2), strengths=(8.0,), gauge="balanced", m=3)),
    ("select", SelectConfig(dynamics=DynamicsConfig(mode="sgd", batch_size=7), seeds=(1, 2), m=4, owner=3)),
    ("select-sweep", OwnerSweepConfig(ms=(2, 4), strength=2.0)),
    ("prune", PruneConfig(strengths=(4.0,), ms=(3,), n_samples=500, seeds=(0, 1))),
    ("perturb", PerturbConfig(adversarial=False, eps=(0.1, 0.3), refine=2)),
    ("lockin", LockinConfig(assignments=("select",), quadratic=False, scan_pers=(), store_every=2)),
    ("reln", RelnConfig(dynamics=DynamicsConfig(t_max=50.0), levels=(10.0,))),
]


@pytest.mark.parametrize(("kind", "config"), CONFIGS, ids=[k for k, _ in CONFIGS])
def test_every_option_of_a_rerun_file_parses_back_to_the_configs_values(kind: str, config: object) -> None:
    """For each kind (the costly ones are parsed, not run): every key is an option of its command,
    and the command line reads back each value the config holds."""
    command_name = rerun.COMMANDS[kind][0]
    command = typer.main.get_group(app).get_command(None, command_name)  # type: ignore[arg-type]
    values = rerun.options(kind, config)
    argv: list[str] = []
    for key, value in values.items():
        if value is True and key in ("sweep", "sample", "control", "x2", "sample-gd"):
            argv.append(f"--{key}")
        elif value is False:
            argv.append(f"--no-{key}")
        elif isinstance(value, list):
            argv += [f"--{key}", ",".join(str(v) for v in value) or "none"]
        else:
            argv += [f"--{key}", str(getattr(value, "value", value))]
    ctx = command.make_context(command_name, argv)
    assert set(ctx.params) >= {p.name for p in command.params if any(o.lstrip("-") in values for o in p.opts)}
    assert values.get("d") == config.model.d  # type: ignore[attr-defined]


@pytest.mark.parametrize("fig_id", sorted(FIGURES))
def test_every_run_a_figure_reads_has_a_rerun_file_of_its_commands_options(fig_id: str) -> None:
    """Every key a figure's rerun file would hold is an option of its command, and the file holds the
    run's input dimension and (where the kind has them) its gauge strengths as the config does."""
    from gaugecli.cli.config_file import key_of
    from gaugecli.experiments.initial import ignored_by_config
    from gaugecli.experiments.spec import experiment

    for need in figure_module(fig_id).needs(False).values():
        if need.kind not in rerun.COMMANDS:
            continue
        command = typer.main.get_group(app).get_command(None, rerun.COMMANDS[need.kind][0])  # type: ignore[arg-type]
        keys = {key_of(p) for p in command.params}
        values = rerun.options(need.kind, need.config)
        assert set(values) <= keys, (fig_id, need.kind, set(values) - keys)
        if need.kind != "phase" and not hasattr(need.config, "model"):
            continue  # a kind without the gauge model (lockin-task: modular addition) has no d nor D
        model = need.config.run_base.model if need.kind == "phase" else need.config.model  # phase: its base run's
        assert values["d"] == model.d
        spec = experiment(need.kind)
        unread = spec.rerun_unread(need.config) if spec is not None and spec.rerun_unread else set()
        ignored = set(ignored_by_config(need.config)) | unread  # the draw's, and what the run did not read
        if hasattr(need.config, "strengths") and getattr(need.config, "deltas", None) is None:
            if "gauge_strength" in ignored:  # a natural gauge reads no D: the file leaves it out
                assert "gauge-strength" not in values, (fig_id, need.kind)
            else:
                assert values["gauge-strength"] == list(need.config.strengths), (fig_id, need.kind)
        assert not {"c0", "theta0"} & set(values) & ignored, (fig_id, need.kind)  # nor what a draw ignores


def test_json_is_not_written_into_a_rerun_file_and_is_refused_in_one(tmp_path: Path) -> None:
    """--json says how a run prints, not what it computes: the rerun file leaves it out, and a
    config file giving it is told to pass it on the command line."""
    runner = CliRunner()
    out = tmp_path / "run.json"
    result = runner.invoke(app, ["simulate", *FAST, "--cache-dir", str(tmp_path), "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert not [ln for ln in out.with_suffix(".toml").read_text().splitlines() if ln.lstrip("# ").startswith("json")]
    bad = tmp_path / "bad.toml"
    bad.write_text("json = true\n")
    refused = runner.invoke(app, ["simulate", "--config", str(bad)])
    assert refused.exit_code == 2 and "names an output; give --json on the command line" in refused.output


@pytest.mark.parametrize("cache", ["runs", "deep/cache"])
def test_the_command_a_rerun_file_names_works_from_where_the_run_was_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: str
) -> None:
    """The first line of each rerun file is a command that, run where the original command was, reads
    the same cache entry: the recipe's path as that run named it, and a cache other than the default."""
    import shlex

    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    args = ["select", *FAST, "--m", "3", "--out", "out/sel.json"]
    first = runner.invoke(app, [*args, *([] if cache == "runs" else ["--cache-dir", cache]), "--json"])
    assert first.exit_code == 0, first.output
    (record,) = [json.loads(line) for line in first.output.splitlines() if line.startswith("{")]
    cached = Path(cache) / "select" / f"{record['config_hash']}.toml"
    for recipe in (cached, Path("out/sel.toml")):
        header = recipe.read_text().splitlines()[0]
        words = shlex.split(header.split(": ", 1)[1])
        assert words[:2] == ["gaugecli", "select"] and str(recipe) in words, header
        again = runner.invoke(app, [*words[1:], "--json"])
        assert again.exit_code == 0, (header, again.output)
        (second,) = [json.loads(line) for line in again.output.splitlines() if line.startswith("{")]
        assert second["config_hash"] == record["config_hash"] and second["computed"] is False, header
