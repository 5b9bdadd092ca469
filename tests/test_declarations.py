"""Every parameter is declared once (gaugecli/experiments/params/), and every layer agrees with
that declaration: the config dataclass's default, the CLI option (flag, help with its range,
default, panel, refusal at parse time), docs/cli.md, and the cache key.

The walk goes over the declarations themselves, so a parameter added later is checked without a
new test: a config field declared but missing from its command, or a field the cache key ignores
(a key that dropped ``theta0`` used to pass every test), fails here.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from gaugecli.cli.app import app
from gaugecli.cli.flags import message
from gaugecli.experiments import params as P
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.declare import ConfigError, Fields, Param
from gaugecli.experiments.lockin import LockinConfig
from gaugecli.experiments.perturb import PerturbConfig
from gaugecli.experiments.prune import PruneConfig
from gaugecli.experiments.reln import RelnConfig
from gaugecli.experiments.select import OwnerSweepConfig, SelectConfig
from gaugecli.experiments.simulate import SimulateConfig
from gaugecli.store.artifacts import config_hash

DOCS = Path(__file__).resolve().parents[1] / "docs" / "cli.md"

CONFIGS: list[tuple[type[Fields], type]] = [
    (P.Model, ModelConfig),
    (P.Dynamics, DynamicsConfig),
    (P.Simulate, SimulateConfig),
    (P.Select, SelectConfig),
    (P.OwnerSweep, OwnerSweepConfig),
    (P.Prune, PruneConfig),
    (P.Perturb, PerturbConfig),
    (P.Lockin, LockinConfig),
    (P.Reln, RelnConfig),
]
"""Each config dataclass and the declaration of its fields."""

COMMANDS: dict[str, list[type[Fields]]] = {
    "simulate": [P.Model, P.Dynamics, P.Simulate],
    "select": [P.Model, P.Dynamics, P.Select, P.OwnerSweep],
    "prune": [P.Model, P.Dynamics, P.Prune],
    "perturb": [P.Model, P.Dynamics, P.Perturb],
    "lockin": [P.Model, P.Dynamics, P.Lockin],
    "reln": [P.Model, P.Dynamics, P.Reln],
}
"""The declarations each command's options are built from."""

DYNAMICS_OFFERED = {"prune": {"rtol"}, "perturb": {"rtol"}, "lockin": {"rtol"}, "reln": {"t_max", "rtol"}}
"""Commands whose sweeps set their own modes and horizons offer only these dynamics options (their
configs refuse any other dynamics: tested in test_the_experiments_that_set_their_own_dynamics_refuse_others)."""

NOT_OPTIONS = {
    ("prune", "k"): "prune's teacher has one feature (C7 is stated for k = 1)",
    ("perturb", "k"): "perturb's teacher has one feature",
    ("lockin", "k"): "lockin's teacher has one feature",
    ("reln", "k"): "a ReLN gate is defined for one feature",
    ("simulate", "seed"): "simulate takes --seeds (one run per seed); --seed is its alias",
    **{
        (command, field): f"{command}'s analysis holds for the paper's ReLU model alone"
        for command in ("lockin", "reln")
        for field in ("activation", "teacher_activation", "negative_slope", "weight_decay")
    },
}
"""Declared fields a command deliberately does not offer, and why."""

PERTURB_KIND = {"adversarial": "kind"}
"""Config fields whose option has another name (``--kind adversarial|random`` sets ``adversarial``)."""


def _command(name: str) -> Any:
    return typer.main.get_group(app).get_command(None, name)  # type: ignore[arg-type]


def _options(name: str) -> dict[str, Any]:
    """Every long flag of the command → its click option."""
    out = {}
    for param in _command(name).params:
        for flag in param.opts + param.secondary_opts:
            if flag.startswith("--"):
                out[flag] = param
    return out


def _declared(name: str) -> list[tuple[str, Param]]:
    """The declared fields the command offers as options."""
    out = []
    for cls in COMMANDS[name]:
        for field, p in cls.params.items():
            if cls is P.Dynamics and name in DYNAMICS_OFFERED and field not in DYNAMICS_OFFERED[name]:
                continue
            if cls is P.Dynamics and DYNAMICS_OFFERED.get(name) == {"rtol"}:
                p = P.FLOW_RTOL  # the same field, read as the population flow's tolerance
            out.append((field, p))
    return out


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_declared_field_is_an_option_with_the_declared_help_default_and_panel(command: str) -> None:
    options = _options(command)
    for field, p in _declared(command):
        if (command, field) in NOT_OPTIONS:
            continue
        option = options.get(p.option)
        assert option is not None, f"{command}: {field} is declared but has no option {p.option}"
        assert option.help.startswith(message(p.help_text())), (command, field, option.help)
        assert option.rich_help_panel == p.panel, (command, field)
        if isinstance(p.default, tuple):
            assert tuple(float(v) if p.type is float else v for v in option.default) == p.default, (command, field)
        elif p.default is not None:
            assert option.default == p.default or option.default == [p.default], (command, field, option.default)
        else:
            assert option.default is None, (command, field)
        if p.default_text is not None:
            assert option.show_default == p.default_text, (command, field)


@pytest.mark.parametrize("command", list(DYNAMICS_OFFERED))
def test_commands_that_set_their_own_dynamics_offer_no_other_dynamics_option(command: str) -> None:
    options = _options(command)
    own = {"rtol": P.FLOW_RTOL} if DYNAMICS_OFFERED[command] == {"rtol"} else {}
    offered = {  # the same flag may be the experiment's own (prune's --n-samples of its sample rows)
        field
        for field, p in P.Dynamics.params.items()
        if p.option in options and options[p.option].help.startswith(message(own.get(field, p).help_text()))
    }
    assert offered == DYNAMICS_OFFERED[command]


@pytest.mark.parametrize("config", [PruneConfig, PerturbConfig, LockinConfig])
def test_the_experiments_that_set_their_own_dynamics_refuse_others(config: type) -> None:
    """prune, perturb and lockin take the one DynamicsConfig too, for its tolerance: a mode or a
    horizon they would not honour is refused, naming the field."""
    assert config(dynamics=DynamicsConfig(rtol=1e-8)).rtol == 1e-8
    assert config().rtol == P.POPULATION_RTOL
    for bad, field in ((DynamicsConfig(mode=P.Mode.gd), "mode"), (DynamicsConfig(t_max=10.0), "t_max")):
        with pytest.raises(ConfigError) as info:
            config(dynamics=bad)
        assert info.value.param == field
    with pytest.raises(ConfigError, match="rtol"):
        config(dynamics=DynamicsConfig(rtol=1e-20))


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_option_of_a_command_is_documented_in_docs_cli(command: str) -> None:
    docs = DOCS.read_text(encoding="utf-8")
    section = docs.split(f"## `gaugecli {command}`", 1)[1].split("\n## ", 1)[0]
    for field, p in _declared(command):
        if (command, field) in NOT_OPTIONS:
            continue
        assert p.option in section, (command, p.option)
        assert message(p.help_text()) in " ".join(section.split()), (command, field)


@pytest.mark.parametrize(("fields", "config"), CONFIGS, ids=[c.__name__ for _, c in CONFIGS])
def test_config_defaults_are_the_declared_defaults(fields: type[Fields], config: type) -> None:
    instance = config()
    for field, p in fields.params.items():
        if field in PERTURB_KIND and config is PerturbConfig:
            assert instance.adversarial == (P.Perturb.kind.default == "adversarial")
            continue
        if field not in {f.name for f in dataclasses.fields(config)}:
            continue
        assert getattr(instance, field) == p.default, (config.__name__, field)


def _other(p: Param, value: Any) -> Any:
    """A valid value of ``p`` other than ``value``."""
    if p.choices:
        return next(c for c in p.choices if c != value)
    if p.type is bool:
        return not value
    if p.plural:
        if not value:
            return (p.low + 1 if p.low is not None else 1.0,)
        return (*value[:-1], _other(p.but(plural=False), value[-1]))
    x = value if value is not None else (p.low if p.low is not None else 0.0)
    if p.type is int:
        candidate = int(x) + 1
        return candidate if p.high is None or candidate <= p.high else int(x) - 1
    if p.high is not None and math.isfinite(p.high):
        return (x + p.high) / 2 if x < p.high else (x + (p.low or 0.0)) / 2
    return x * 1.5 + 0.5


# Fields whose other value needs another field changed with it, to be valid.
CONTEXT: dict[tuple[type, str], dict[str, Any]] = {
    (DynamicsConfig, "eta"): {"mode": P.Mode.gd},
    (DynamicsConfig, "max_steps"): {"mode": P.Mode.gd},
    (DynamicsConfig, "n_samples"): {"mode": P.Mode.sample},
    (DynamicsConfig, "device"): {"mode": P.Mode.sample},
    (DynamicsConfig, "batch_size"): {"mode": P.Mode.sgd},
    (DynamicsConfig, "batches"): {"mode": P.Mode.sgd},
    (DynamicsConfig, "optimizer"): {"mode": P.Mode.gd, "eta": 1e-3},
    (DynamicsConfig, "momentum"): {"mode": P.Mode.gd, "eta": 1e-3, "optimizer": "momentum"},
    (DynamicsConfig, "nesterov"): {"mode": P.Mode.gd, "eta": 1e-3, "optimizer": "momentum"},
    (DynamicsConfig, "betas"): {"mode": P.Mode.gd, "eta": 1e-3, "optimizer": "adam"},
    (DynamicsConfig, "adam_eps"): {"mode": P.Mode.gd, "eta": 1e-3, "optimizer": "adam"},
    (DynamicsConfig, "basis"): {"mode": P.Mode.gd},
    (DynamicsConfig, "basis_seed"): {"mode": P.Mode.gd, "basis": "random"},
    (DynamicsConfig, "step_error"): {"mode": P.Mode.gd, "eta": 1e-3},
    (DynamicsConfig, "imbalance_every_step"): {"mode": P.Mode.gd, "eta": 1e-3},
    (SimulateConfig, "seed"): {"dynamics": DynamicsConfig(mode=P.Mode.sample)},
    (SelectConfig, "seeds"): {"dynamics": DynamicsConfig(mode=P.Mode.sample)},
    (OwnerSweepConfig, "seeds"): {"dynamics": DynamicsConfig(mode=P.Mode.sample)},
    (SimulateConfig, "init_seed"): {"init": "random"},
    (SelectConfig, "init_seed"): {"init": "random"},
    (SimulateConfig, "init_scale_a"): {"init": "gaussian"},
    (SimulateConfig, "init_scale_w"): {"init": "gaussian"},
    (SelectConfig, "init_scale_a"): {"init": "gaussian"},
    (SelectConfig, "init_scale_w"): {"init": "gaussian"},
    (SimulateConfig, "mixed_signs"): {"init": "gaussian"},
    (SimulateConfig, "init_scale"): {"init": "paired", "m": 2},
    (SimulateConfig, "teacher"): {"init": "random"},
    (SimulateConfig, "teacher_seed"): {"init": "random", "teacher": "random"},
    (SimulateConfig, "inputs"): {"dynamics": DynamicsConfig(mode=P.Mode.sample)},
    (SimulateConfig, "test_samples"): {"dynamics": DynamicsConfig(mode=P.Mode.sample)},
    (SimulateConfig, "eta_per_scale"): {"init": "paired", "m": 2, "dynamics": DynamicsConfig(mode=P.Mode.gd, eta=0.1)},
    (SimulateConfig, "checkpoints"): {"dynamics": DynamicsConfig(mode=P.Mode.sample, n_samples=100)},
    (SelectConfig, "mixed_signs"): {"init": "gaussian"},
    (PerturbConfig, "seeds"): {"adversarial": False},
    (ModelConfig, "negative_slope"): {"activation": "leaky-relu"},
}


OTHER: dict[tuple[type, str], Any] = {
    (SimulateConfig, "gauge"): "unfavorable",
    (SelectConfig, "owner"): 1,
    (LockinConfig, "owner"): 1,
    (RelnConfig, "owner"): 1,
    (LockinConfig, "assignments"): ("select", "reversed"),
    (DynamicsConfig, "device"): "cpu",
    (DynamicsConfig, "optimizer"): "adam",
    (DynamicsConfig, "basis"): "random",
    (DynamicsConfig, "betas"): (0.5, 0.9),
    (PruneConfig, "sweep_deltas"): (-1.0, 0.5),
    (PerturbConfig, "eps"): (0.0, 0.7),
    (PerturbConfig, "sweeps"): ("visible",),
    (ModelConfig, "activation"): "erf",
    (ModelConfig, "teacher_activation"): "linear",
}
"""Other values where the generic rule would not give a valid one (a word, an owner < m)."""


def _walk() -> list[tuple[type, str, Param]]:
    out = []
    for fields, config in CONFIGS:
        names = {f.name for f in dataclasses.fields(config)}
        out += [(config, field, p) for field, p in fields.params.items() if field in names]
    return out


@pytest.mark.parametrize(("config", "field", "p"), _walk(), ids=[f"{c.__name__}.{f}" for c, f, _ in _walk()])
def test_every_declared_field_changes_the_cache_key(config: type, field: str, p: Param) -> None:
    context = CONTEXT.get((config, field), {})
    if field == "mode":
        context = {}
    base = config(**context)
    value = getattr(base, field)
    other = OTHER.get((config, field)) or _other(p, value)
    changed = config(**{**context, field: other})
    assert getattr(changed, field) != value, (config.__name__, field, other)
    assert config_hash(changed) != config_hash(base), f"{config.__name__}.{field} does not change the cache key"


def test_the_default_refusal_of_every_bounded_parameter_is_the_same_in_the_config_and_the_cli() -> None:
    """One declaration, one message: the config's refusal and the CLI's name the same range."""
    runner = CliRunner()
    for field, p in [("c0", P.Model.c0), ("t_max", P.Dynamics.t_max), ("eps_align", P.Model.eps_align)]:
        bad = p.high * 10 if p.high is not None else -1.0
        with pytest.raises(ConfigError) as info:
            p.check(bad)
        result = runner.invoke(app, ["simulate", p.option, repr(bad)])
        assert result.exit_code == 2
        assert message(info.value.message) in " ".join(result.output.split()), (field, result.output)


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("select", ["--mode", "sample", "--seeds", "0,0"]),
        ("prune", ["--seeds", "1,2,1"]),
        ("perturb", ["--kind", "random", "--seeds", "3,3"]),
        ("simulate", ["--mode", "sample", "--seeds", "5,5"]),
    ],
)
def test_a_seed_given_twice_is_refused(command: str, args: list[str], tmp_path: Path) -> None:
    """A repeated seed repeats its run, and a share of seeds or its Wilson interval would count one
    draw as two: every list of seeds refuses it (before any run), in the config and on the CLI."""
    with pytest.raises(ConfigError, match="must differ"):
        P.SEEDS.check((4, 4))
    P.SEEDS.check((4, 5))
    result = CliRunner().invoke(app, [command, *args, "--cache-dir", str(tmp_path / "runs")])
    assert result.exit_code == 2
    assert "--seeds" in result.output and "must differ" in " ".join(result.output.split())
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").rglob("*.json"))


COMPUTING = ("simulate", "select", "prune", "perturb", "lockin", "reln")


@pytest.mark.parametrize("command", COMPUTING)
def test_commands_declare_no_parameter_of_their_own(command: str) -> None:
    """A computing command builds its options from the declarations: no help text, default text or
    range is written in its module (``select --sweep``, a mode switch of the command, is the one
    option a command states itself)."""
    source = (Path(__file__).resolve().parents[1] / "gaugecli" / "cli" / f"{command}.py").read_text()
    own = source.count("typer.Option(")
    assert own == (1 if command == "select" else 0), (command, own)
    assert "show_default" not in source and "help=" not in source.replace('help="Owner-success', "")
