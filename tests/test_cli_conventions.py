"""The command line scripts rely on: one flag name per concept across every command, ``-h``,
``--json`` (each line with its config) and ``--quiet`` everywhere, the former flags read for one
release with a deprecation, ``GAUGECLI_CACHE_DIR``, ``gaugecli cache``, and an example block in
every ``--help`` whose examples parse."""

from __future__ import annotations

import json
import os
import re
import shlex
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer._click.core import Context
from typer.testing import CliRunner

from gaugecli.cli import app
from gaugecli.cli.app import COMMANDS
from gaugecli.cli.conventions import CONCEPTS, Concept
from gaugecli.cli.flags import renamed

ROOT = typer.main.get_command(app)


def _commands() -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command as ``(its words after gaugecli, the click command)``, cache's subcommands too."""
    ctx = Context(ROOT, info_name="gaugecli")
    for name in COMMANDS:
        command = ROOT.get_command(ctx, name)  # type: ignore[attr-defined]
        subcommands = getattr(command, "commands", None)
        if subcommands:
            for sub, subcommand in subcommands.items():
                yield (name, sub), subcommand
        else:
            yield (name,), command


COMMANDS_ = list(_commands())
IDS = [" ".join(path) for path, _ in COMMANDS_]


def _long_options(command: Any) -> list[str]:
    """A command's long flags, each option by its primary names (a bool's ``--no-x`` is its ``--x``)."""
    return [o for p in command.params for o in p.opts if o.startswith("--")]


def _offences(options: list[str]) -> list[str]:
    """The options spelled as a concept's name but not as its one flag, and the concepts (other than
    a ``{part}`` family) under two flags of one command."""
    out = []
    for option in options:
        named = [c for c in CONCEPTS if c.names(option)]
        if named and not any(c.canonical(option) for c in named):
            out.append(f"{option} names {named[0].what!r}, whose flag is {named[0].flag}")
    for concept in CONCEPTS:
        flags = sorted({o for o in options if concept.names(o)})
        if "{part}" not in concept.flag and len(flags) > 1:
            out.append(f"{concept.what!r} under {', '.join(flags)}")
    return out


@pytest.mark.parametrize(("path", "command"), COMMANDS_, ids=IDS)
def test_every_command_takes_h_json_and_quiet(path: tuple[str, ...], command: Any) -> None:
    result = CliRunner().invoke(app, [*path, "-h"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Usage: gaugecli {' '.join(path)}")
    options = _long_options(command)
    assert "--json" in options and "--quiet" in options, options


def test_one_flag_per_concept_across_every_command() -> None:
    offences = [
        f"{' '.join(path)}: {line}" for path, command in COMMANDS_ for line in _offences(_long_options(command))
    ]
    assert offences == []


def test_the_walk_finds_the_former_spellings() -> None:
    """The check above is no tautology: the flags this table replaced, or two names of one concept in
    one command, are offences."""
    assert len(_offences(["--ns", "--sgd-eta", "--widths", "--sgd-batch", "--seed"])) == 5
    assert _offences(["--m", "--neurons"]) != []
    assert _offences(["--n-samples", "--success-n-samples", "--step-strength", "--gauge-strength"]) == []


def test_former_flags_are_the_tables() -> None:
    """Every former flag the command line reads is in the table (and docs/development.md), and the
    flag that replaced it is its concept's."""
    table = {old: concept for concept in CONCEPTS for old in concept.former}
    assert set(renamed()) == set(table)
    for old, new in renamed().items():
        assert table[old].canonical(new), (old, new)


def test_conventions_page_lists_every_concept() -> None:
    text = (Path(__file__).parents[1] / "docs" / "development.md").read_text(encoding="utf-8")
    for concept in CONCEPTS:
        assert f"| {concept.what} | `{concept.flag}` |" in text, concept.what
        for old in concept.former:
            assert f"`{old}`" in text


FORMER_VALUES = {
    "--ns": ("perturb", "500,1000"),
    "--success-ns": ("perturb", "16,32"),
    "--widths": ("predict", "1,4"),
    "--sgd-batch": ("predict", "8"),
    "--sgd-eta": ("predict", "0.05"),
    "--scan-strengths": ("lockin", "2,8"),
    "--seed": ("simulate", "3"),
}


@pytest.mark.parametrize("old", sorted(FORMER_VALUES))
def test_a_former_flag_is_read_as_its_replacement(old: str, capsys: pytest.CaptureFixture[str]) -> None:
    name, value = FORMER_VALUES[old]
    new = renamed()[old]
    command = ROOT.get_command(Context(ROOT), name)  # type: ignore[attr-defined]
    assert old not in _long_options(command) and new in _long_options(command)  # hidden: not in --help
    assert not re.search(rf"{old}\b(?!-)", CliRunner().invoke(app, [name, "-h"]).output)
    before = command.make_context(name, [new, value]).params
    assert "deprecated" not in capsys.readouterr().err
    after = command.make_context(name, [old, value]).params
    assert after == before
    assert capsys.readouterr().err.strip() == (
        f"Warning: {old} is deprecated; use {new} (the old name goes in the next release)."
    )
    assert command.make_context(name, [f"{old}={value}"]).params == before  # --flag=value too


def test_a_recipe_with_a_former_key_still_reruns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = tmp_path / "run.toml"
    recipe.write_text("ns = [500, 1000]\nsuccess_ns = [16]\n", encoding="utf-8")
    command = ROOT.get_command(Context(ROOT), "perturb")  # type: ignore[attr-defined]
    params = command.make_context("perturb", ["--config", str(recipe)]).params
    assert params["n_samples"] == (500, 1000) and params["success_n_samples"] == (16,)
    assert "'ns' is deprecated; use 'n-samples'" in capsys.readouterr().err


def test_the_api_reads_a_former_keyword_with_a_deprecation_warning() -> None:
    from gaugecli.experiments.keywords import build
    from gaugecli.experiments.perturb import PerturbConfig
    from gaugecli.experiments.predict import PredictConfig

    with pytest.warns(DeprecationWarning, match="'ns' is deprecated; use 'n_samples'"):
        old = build(PerturbConfig, "perturb", {"ns": (500, 1000)})
    assert old == build(PerturbConfig, "perturb", {"n_samples": (500, 1000)})
    assert old.ns == (500, 1000)
    with pytest.warns(DeprecationWarning) as caught:
        old = build(PredictConfig, "predict", {"sgd_eta": 0.05, "widths": (1, 4)})
    assert [str(w.message).split(";")[0] for w in caught] == [
        "predict(): 'sgd_eta' is deprecated",
        "predict(): 'widths' is deprecated",
    ]
    assert old == build(PredictConfig, "predict", {"eta": 0.05, "m_per_k": (1, 4)})


@pytest.mark.parametrize(("path", "command"), COMMANDS_, ids=IDS)
def test_every_help_has_examples_that_parse(
    path: tuple[str, ...], command: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each example of a ``--help`` is a command line its command accepts as written: every option
    exists and every value is in range (``make_context`` parses and checks them; nothing runs)."""
    if command.epilog is None and getattr(command, "commands", None) is not None:
        pytest.skip("a group: its subcommands carry the examples")
    assert command.epilog and command.epilog.startswith("Examples:"), command.epilog
    lines = [line.strip() for line in command.epilog.split("\n") if line.strip().startswith("gaugecli ")]
    assert len(lines) >= 2
    for line in lines:
        words = shlex.split(line)
        assert tuple(words[1 : 1 + len(path)]) == path, line
        command.make_context(" ".join(["gaugecli", *path]), words[1 + len(path) :])
    assert "deprecated" not in capsys.readouterr().err  # the examples use the current flags


# -- --json, --quiet, GAUGECLI_CACHE_DIR and `gaugecli cache`, end to end at d = 3 ---------------
FAST = ["--d", "3", "--rtol", "1e-8"]


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GAUGECLI_CACHE_DIR", str(tmp_path / "elsewhere"))

    def invoke(*args: str, code: int = 0) -> Any:
        result = CliRunner().invoke(app, list(args))
        assert "Traceback" not in result.output
        assert result.exit_code == code, f"exit {result.exit_code} for {args}: {result.output!r}"
        return result

    return invoke


def _lines(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def test_json_quiet_and_the_cache_command(cli: Any, tmp_path: Path) -> None:
    from gaugecli.store.artifacts import read_artifact

    cache = tmp_path / "elsewhere"
    (record,) = _lines(cli("simulate", "-D", "4", *FAST, "--json").stdout)
    artifact = read_artifact(Path(record["path"]))
    assert Path(record["path"]).parent == cache / "simulate"  # GAUGECLI_CACHE_DIR: the default cache
    assert not (tmp_path / "runs").exists()
    assert record["config"] == artifact["config"] and record["config"]["model"]["d"] == 3
    assert record["config_hash"] == artifact["config_hash"]
    quiet = cli("simulate", "-D", "16", *FAST, "--quiet")
    assert quiet.stdout == ""
    assert len(list((cache / "simulate").glob("*.json"))) == 2

    (valid,) = _lines(cli("validate", record["path"], "--json").stdout)
    assert valid["valid"] is True and valid["config"] == artifact["config"]
    assert cli("validate", record["path"], "--quiet").stdout == ""
    (exported,) = _lines(cli("export", record["path"], "--format", "csv", "--out", "t.csv", "--json").stdout)
    assert exported["config"] == artifact["config"] and (tmp_path / "t.csv").stat().st_size > 0
    assert cli("export", record["path"], "--format", "csv", "--out", "u.csv", "--quiet").stdout == ""

    # outside the layout: a folder of no kind, a file not named by a hash, a hash in an unknown folder
    foreign = [cache / "notes.txt", cache / "simulate" / "notes.json", cache / "mine" / f"{'a' * 64}.json"]
    for path in foreign:
        path.parent.mkdir(exist_ok=True)
        path.write_text("{}", encoding="utf-8")
    listed = _lines(cli("cache", "list", "--json").stdout)
    assert sorted(e["config_hash"] for e in listed) == sorted(
        p.stem for p in (cache / "simulate").glob("????*.json") if p.stem != "notes"
    )
    files = [p for p in (cache / "simulate").iterdir() if p.name != "notes.json"]  # artifacts and recipes
    *kinds, total = _lines(cli("cache", "du", "--json").stdout)
    assert kinds == [{"kind": "simulate", "entries": 2, "bytes": sum(p.stat().st_size for p in files)}]
    assert total["bytes"] == kinds[0]["bytes"] and total["entries"] == 2

    old = next(e for e in listed if e["config_hash"] == record["config_hash"])
    ten_days_ago = time.time() - 10 * 86400
    for path in (cache / "simulate").glob(f"{old['config_hash']}.*"):
        os.utime(path, (ten_days_ago, ten_days_ago))
    assert "stdin is no terminal; give --yes" in cli("cache", "clear", code=2).output  # no confirmation, no clear
    assert len(_lines(cli("cache", "list", "--json").stdout)) == 2
    (removed,) = _lines(cli("cache", "clear", "--older-than", "5", "--yes", "--json").stdout)
    assert removed["config_hash"] == record["config_hash"]
    assert not list((cache / "simulate").glob(f"{record['config_hash']}.*"))
    cli("cache", "clear", "--kind", "simulate", "--yes", "--quiet")
    assert _lines(cli("cache", "list", "--json").stdout) == []
    assert all(path.exists() for path in foreign)  # nothing outside the layout is touched
    assert cli("cache", "clear", "--kind", "nope", "--yes", code=2).output.startswith(
        "Error: Invalid value for '--kind'"
    )


def test_concept_matching_spells_parts() -> None:
    part = Concept("x", "--{part}-seeds", r".-seeds$")
    assert part.canonical("--sample-seeds") and part.canonical("--success-seeds") and not part.canonical("--seeds")


def test_the_tools_json_lines_carry_their_config(cli: Any, tmp_path: Path) -> None:
    """verify's lines (one per claim) and numbers' (one per quoted number) name the config they come
    from: the same as the artifact or sidecar they were read from says."""
    from gaugecli.store.artifacts import read_artifact

    lines = _lines(cli("verify", "--quick", "--claims", "C1", "--json").stdout)
    artifact = read_artifact(Path(lines[0]["path"]))
    assert [line["id"] for line in lines] == [claim["id"] for claim in artifact["result"]["claims"]]
    (c1,) = [line for line in lines if line["id"] == "C1"]
    assert c1["passed"] is True and c1["config"] == artifact["config"] == {"quick": True, "only": ["C1"]}
    assert cli("verify", "--quick", "--claims", "C1", "--quiet").stdout == ""

    figures = Path(__file__).parents[1] / "figures"
    quoted = _lines(cli("numbers", "fig3", "--json", "--figures-dir", str(figures)).stdout)
    sidecar = read_artifact(figures / "fig3.json", "figure")
    assert quoted and all(
        q["config"] == sidecar["config"] and q["config_hash"] == sidecar["config_hash"] for q in quoted
    )
