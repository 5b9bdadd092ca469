"""A parameter declared once (:class:`Param`): its name, range, default, help and panel, and the
check every layer applies to it (``ConfigError`` names the parameter, never a command-line flag).

Stdlib only, so that the command line can build its options and refuse a bad value from these
declarations before numpy is imported. The declarations themselves are in
:mod:`gaugecli.experiments.params`.

Messages mention other parameters by name in backquotes (```t_max```): :func:`render` spells them
as the reader of the message knows them — a field name for the Python API, a flag for the CLI.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

_MENTION = re.compile(r"`([a-z][a-z0-9_]*)`")


def render(message: str, spell: Callable[[str], str] = lambda name: name) -> str:
    """``message`` with every ```name``` mention spelled by ``spell`` (default: the bare name)."""
    return _MENTION.sub(lambda m: spell(m.group(1)), message)


class ConfigError(ValueError):
    """An invalid parameter: ``param`` names it (a :class:`Param` name), ``message`` gives the allowed
    range; ``str()`` is ``"param: message"`` with mentions of other parameters by name."""

    def __init__(self, param: str, message: str) -> None:
        super().__init__(f"{param}: {render(message)}")
        self.param = param
        self.message = message

    def __reduce__(self) -> tuple[type[ConfigError], tuple[str, str]]:
        # raised in worker processes too: pickle by the constructor's arguments, not by ``args``
        return type(self), (self.param, self.message)


def require(condition: bool, param: str, message: str) -> None:
    if not condition:
        raise ConfigError(param, message)


def listed(values: Sequence[Any]) -> str:
    """A list as the user typed it (``2,3,5``), for messages — not a Python tuple."""
    return ",".join(number(v) if isinstance(v, float) else str(v) for v in values)


def number(x: float) -> str:
    """``x`` as a reader writes it: ``0.1``, ``1e-2``, ``1e6``, ``2.5e-7`` (``:g`` without its exponent
    padding, and a power of ten below 0.1 or from 1e4 on as ``1eN``)."""
    if isinstance(x, float) and x > 0 and math.isfinite(x):
        exponent = round(math.log10(x))
        if 10.0**exponent == x and (exponent <= -2 or exponent >= 4):
            return f"1e{exponent}"
    return re.sub(r"e([+-])0*(\d)", lambda m: "e" + ("-" if m.group(1) == "-" else "") + m.group(2), f"{x:g}")


def _got(value: Any) -> str:
    return listed(value) if isinstance(value, (tuple, list)) else repr(value)


def require_finite(value: float, param: str, *, low: float | None = None, strict: bool = True) -> None:
    """``value`` finite and above ``low`` (strictly unless ``strict=False``) — for derived
    quantities; a declared parameter is checked by :meth:`Param.check`."""
    bound = "" if low is None else (f" > {number(low)}" if strict else f" ≥ {number(low)}")
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if ok and low is not None:
        ok = value > low if strict else value >= low
    require(ok, param, f"must be a finite number{bound} (got {value!r})")


@dataclass(frozen=True)
class Param:
    """One parameter: ``name`` (the keyword of the Python API, the key of ``--config`` TOML files,
    and the flag ``--name-with-dashes`` unless ``flag`` says otherwise), a one-line ``help`` without
    its range, the ``panel`` of ``--help`` it is listed in, its ``default`` (``None``: not given, the
    mode decides — ``default_text`` says how), its ``type`` and range ``[low, high]`` (``open_low``,
    ``open_high`` exclude an end; ``high_text`` spells an end such as π), ``choices`` for a word,
    and ``plural`` for a comma-separated list of at least ``min_items`` values (``distinct``: no value
    twice). ``why_low`` and ``why_high`` say why a bound is where it is; a refusal quotes them.
    ``repeat``: its flag may be given several times (``-D 4 -D 16,64``); for a single value (a
    config field of one value, such as simulate's ``gauge``) the command runs once per value.
    ``deprecated``: its former names, still accepted for one release with a deprecation (as a
    keyword of the Python API, a key of a ``--config`` file, and the flag ``--former-name``);
    docs/cli-conventions.md has the one name of each concept. ``former_choices``: ``(old, new)``
    pairs of renamed words of ``choices``, read as the new word for one release with a deprecation
    (:meth:`current`)."""

    name: str
    help: str
    panel: str
    default: Any = None
    type: type = float
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    choices: tuple[str, ...] = ()
    plural: bool = False
    min_items: int = 1
    distinct: bool = False
    flag: str | None = None
    short: str | None = None
    metavar: str | None = None
    default_text: str | None = None
    high_text: str | None = None
    why_low: str = ""
    why_high: str = ""
    repeat: bool = False
    deprecated: tuple[str, ...] = ()
    former_choices: tuple[tuple[str, str], ...] = ()

    def but(self, **changes: Any) -> Param:
        """The same parameter with another default, help or bound (another experiment's use of it);
        renamed, it keeps none of the former names of the parameter it was made from."""
        if "name" in changes and "deprecated" not in changes:
            changes["deprecated"] = ()
        return replace(self, **changes)

    def current(self, word: Any) -> tuple[Any, str | None]:
        """``word`` under its current name, and the deprecation line to show when it was a former
        one (``None`` otherwise)."""
        new = dict(self.former_choices).get(word) if isinstance(word, str) else None
        if new is None:
            return word, None
        return new, f"{self.option} {word} is deprecated; use {new} (the old name goes in the next release)"

    @property
    def deprecated_options(self) -> tuple[str, ...]:
        """The flags of its former names: ``--ns`` for ``n_samples`` once called ``ns``."""
        return tuple("--" + old.replace("_", "-") for old in self.deprecated)

    @property
    def option(self) -> str:
        """Its command-line flag: ``--gauge-strength``."""
        return self.flag or "--" + self.name.replace("_", "-")

    def range_text(self) -> str:
        """``an integer ≥ 2``, ``in [1e-6, 1e6]``, ``in (0, 1)``, ``> 0`` or ``""``."""
        lo, hi = self.low, self.high
        if self.choices:
            return "one of " + ", ".join(self.choices)
        head = "an integer " if self.type is int else ""
        if lo is not None and hi is not None:
            high = self.high_text or number(hi)
            return f"{head}in {'(' if self.open_low else '['}{number(lo)}, {high}{')' if self.open_high else ']'}"
        if lo is not None:
            return f"{head}{'>' if self.open_low else '≥'} {number(lo)}"
        if hi is not None:
            return f"{head}{'<' if self.open_high else '≤'} {self.high_text or number(hi)}"
        return head.strip()

    def help_text(self) -> str:
        """``help`` with its range: what ``--help`` and docs/cli.md print."""
        bound = self.range_text()
        if self.choices and self.metavar:  # the flag's placeholder does not show the words: say them
            return f"{self.help}; {'each ' if self.plural else ''}{bound}."
        if not bound or self.choices:
            return f"{self.help}."
        return f"{self.help}; {'each ' if self.plural else ''}{bound}."

    def check(self, value: Any) -> None:
        """Refuse ``value`` outside the declared type and range (``None``: not given, accepted).
        Each message is written only for a value it refuses: every config checks each of its fields
        when built (a phase map builds one config per cell), and the texts were most of that cost."""
        if value is None:
            return
        if not self.plural:
            self._check_one(value)
            return
        if not (isinstance(value, (tuple, list)) and len(value) >= self.min_items):
            raise ConfigError(
                self.name,
                f"give at least {self.min_items} value{'s' if self.min_items > 1 else ''} "
                f"(got {len(value) if isinstance(value, (tuple, list)) else 1}: {_got(value)})",
            )
        for x in value:
            self._check_one(x)
        if self.distinct and len(set(value)) < len(value):
            repeated = sorted({x for x in value if list(value).count(x) > 1})
            raise ConfigError(
                self.name,
                f"must differ: {', '.join(map(str, repeated))} given more than once would count one draw as several",
            )

    def _check_one(self, x: Any) -> None:
        if self.choices:
            if x not in self.choices:
                raise ConfigError(self.name, f"must be one of {', '.join(self.choices)} (got {x!r})")
            return
        if self.type is bool:
            if not isinstance(x, bool):
                raise ConfigError(self.name, f"must be true or false (got {x!r})")
            return
        if self.type is str:
            if not isinstance(x, str):
                raise ConfigError(self.name, f"must be a word (got {x!r})")
            return
        if self.type is int:
            if not isinstance(x, int) or isinstance(x, bool):
                raise ConfigError(self.name, f"must be {self.range_text() or 'an integer'} (got {x!r})")
        elif not (isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)):
            bound = self.range_text()
            raise ConfigError(self.name, f"must be a finite number{' ' + bound if bound else ''} (got {x!r})")
        lo, hi = self.low, self.high
        below = lo is not None and (x <= lo if self.open_low else x < lo)
        above = hi is not None and (x >= hi if self.open_high else x > hi)
        if below or above:
            why = self.why_low if below else self.why_high
            raise ConfigError(self.name, f"must be {self.range_text()} (got {x!r})" + (f": {why}" if why else ""))


class Fields:
    """The declared parameters of one config dataclass, as class attributes named by its fields:
    ``class Model(Fields): d = Param("d", ...)``. ``Model.params`` maps field → :class:`Param`;
    ``Model.check(config)`` checks every declared field of a config instance."""

    params: ClassVar[dict[str, Param]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.params = {k: v for base in reversed(cls.__mro__) for k, v in vars(base).items() if isinstance(v, Param)}

    @classmethod
    def check(cls, config: Any) -> None:
        for field, param in _declared(cls, type(config)):
            param.check(getattr(config, field))


_DECLARED: dict[tuple[type, type], tuple[tuple[str, Param], ...]] = {}


def _declared(declarations: type[Fields], config_type: type) -> tuple[tuple[str, Param], ...]:
    """The declared parameters that are fields of ``config_type``, in declaration order (read once per
    pair of classes: :func:`dataclasses.fields` for every config built was a tenth of its cost)."""
    found = _DECLARED.get((declarations, config_type))
    if found is None:
        names = {f.name for f in fields(config_type)}
        found = tuple((field, param) for field, param in declarations.params.items() if field in names)
        _DECLARED[(declarations, config_type)] = found
    return found
