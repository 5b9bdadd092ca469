"""Parameter names spelled as the command line's flags: ``gauge_strength`` → ``--gauge-strength``.

The experiments and the core name parameters, never flags (a message mentions another parameter
as ```t_max```); this is the one place where a name becomes a flag, for every message the CLI
prints — refusals, failures, warnings and ``--help``.
"""

from __future__ import annotations

from gaugecli.experiments import params  # noqa: F401  (declares every Fields class that _declared walks)
from gaugecli.experiments.declare import Fields, render


def flag(name: str) -> str:
    """The flag of the declared parameter ``name``: ``gauge_strength`` → ``--gauge-strength``."""
    return _FLAGS.get(name, "--" + name.replace("_", "-"))


def message(text: str) -> str:
    """A core or experiment message with its parameter mentions spelled as flags."""
    return render(text, flag)


def _declared() -> dict[str, str]:
    out: dict[str, str] = {}
    stack: list[type[Fields]] = list(Fields.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        out.update({p.name: p.option for p in cls.params.values()})
    return out


_FLAGS = _declared()
