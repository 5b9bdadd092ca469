"""Parameter names spelled as the command line's flags: ``gauge_strength`` → ``--gauge-strength``.

The experiments and the core name parameters, never flags (a message mentions another parameter
as ```t_max```); this is the one place where a name becomes a flag, for every message the CLI
prints — refusals, failures, warnings and ``--help``; and where a former flag (``--ns``) is read
as the one that replaced it (:func:`renamed_args`).
"""

from __future__ import annotations

import sys
from typing import Any

from gaugecli.experiments import params  # noqa: F401  (declares every Fields class that _declared walks)
from gaugecli.experiments.declare import Fields, render


def flag(name: str) -> str:
    """The flag of the declared parameter ``name``: ``gauge_strength`` → ``--gauge-strength``."""
    return _FLAGS.get(name, "--" + name.replace("_", "-"))


def message(text: str) -> str:
    """A core or experiment message with its parameter mentions spelled as flags."""
    return render(text, flag)


def field_flag(field: str) -> str:
    """The flag of a config *field* (``strengths`` → ``--gauge-strength``, ``quadratic`` → ``--x2``)."""
    return _FIELD_FLAGS.get(field, flag(field))


def _declared() -> tuple[dict[str, str], dict[str, str]]:
    names: dict[str, str] = {}
    fields: dict[str, str] = {}
    stack: list[type[Fields]] = list(Fields.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        names.update({p.name: p.option for p in cls.params.values()})
        names.update({old: p.option for p in cls.params.values() for old in p.deprecated})
        fields.update({field: p.option for field, p in cls.params.items()})
    fields["adversarial"] = names["kind"]  # perturb's --kind adversarial|random sets the field adversarial
    return names, fields


_FLAGS, _FIELD_FLAGS = _declared()


def renamed() -> dict[str, str]:
    """Every former flag → the flag that replaced it (``--ns`` → ``--n-samples``): accepted for one
    release with a deprecation line (:class:`gaugecli.cli.options.PanelCommand`)."""
    out: dict[str, str] = {"--seed": "--seeds"}  # simulate's: one run per seed, like every command's --seeds
    stack: list[type[Fields]] = list(Fields.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        out.update({old: p.option for p in cls.params.values() for old in p.deprecated_options})
    return out


def former_flags(command: Any) -> dict[str, str]:
    """The former flags ``command`` still reads → the flag that replaced each, where it has that flag
    (and no option of the former name)."""
    own = {name for p in command.params for name in (*p.opts, *p.secondary_opts)}
    return {old: new for old, new in renamed().items() if new in own and old not in own}


def renamed_args(command: Any, args: list[str]) -> list[str]:
    """``args`` with every former flag (``--ns 500`` or ``--ns=500``) spelled as its replacement, and
    one deprecation line on stderr for each."""
    table = former_flags(command)
    out: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":  # what follows is no option
            return out + args[i:]
        name, eq, value = arg.partition("=")
        if name in table:
            print(
                f"Warning: {name} is deprecated; use {table[name]} (the old name goes in the next release).",
                file=sys.stderr,
            )
            arg = table[name] + eq + value
        out.append(arg)
    return out
