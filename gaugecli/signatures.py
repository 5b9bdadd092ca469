"""The keyword signatures of the run functions (``gaugecli.simulate``, ``select``, …), generated from
the parameter declarations: what ``help()`` and IDEs show (:func:`signature`), what mypy reads (the
committed stub ``gaugecli/_run_functions.pyi``, :func:`stub`) and the keyword tables of the API
reference (:func:`keyword_table`).

A run function takes the keywords :func:`gaugecli.experiments.keywords.build` accepts for its config
(:func:`keywords`): each declared parameter of the config under its declaration's name
(``gauge_strength`` for the field ``strengths``), each undeclared field under its own name, and the
fields of its ``model`` and ``dynamics`` (``d``, ``mode``, ``rtol``, …). A command whose function
writes more than one kind (``select`` and ``select --sweep``) takes the keywords of each, the
primary kind's defaults first, and the keyword that picks the other kind (``sweep=True``); a config
field that holds a run's config (``phase``'s ``base``) takes the keywords of each run it may be. A
field given one value for a tuple (``gauge_strength=16``) is the one-item tuple, so a tuple's
keyword takes one value or a sequence.

Resolving the config types imports the numerics (≈ 1 s): a signature is made on first use.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import json
import types
import typing
from dataclasses import dataclass
from typing import Any

from gaugecli.experiments.declare import Fields, Param
from gaugecli.experiments.spec import Experiment, experiments, resolve

STUB_PATH = "gaugecli/_run_functions.pyi"
"""The generated stub of the run functions, relative to the repository root (committed; a test
compares it with :func:`stub`; ``python -m gaugecli.signatures`` rewrites it)."""

COMMON = ("cache_dir", "progress")
"""The keywords every run function takes besides its parameters (:mod:`gaugecli.api`)."""

NOT_KEYWORDS = {"phase": ("preset",)}
"""Declared parameters a command takes that its function does not: a preset of ``gaugecli phase``
sets the command's options, and the function takes the config or the keywords themselves."""


@dataclass(frozen=True)
class Keyword:
    """One keyword of a run function: its ``name``, ``annotation`` (as written in the stub), its
    ``default`` (what the config holds when it is not given), and from its declaration its ``help``
    and allowed ``range`` (empty for a field no flag sets)."""

    name: str
    annotation: str
    default: Any
    help: str
    range: str


@dataclass
class _Types:
    """The names a set of annotations mentions, by module: the stub's imports."""

    imports: dict[str, set[str]] = dataclasses.field(default_factory=dict)

    def name(self, tp: type) -> str:
        if tp.__module__ != "builtins":
            self.imports.setdefault(tp.__module__, set()).add(tp.__name__)
        return tp.__name__

    def text(self, tp: Any, *, one_or_many: bool = False, word: bool = False) -> str:
        """``tp`` as written in a stub; with ``one_or_many`` a tuple's items also alone
        (``float | Sequence[float]``); with ``word`` an Enum also as its values' words."""
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if tp is type(None) or tp is None:
            return "None"
        if origin in (typing.Union, types.UnionType):
            parts = [self.text(a, one_or_many=one_or_many, word=word) for a in args]
            return " | ".join(dict.fromkeys(p for part in parts for p in part.split(" | ")))
        if origin is tuple:
            item = self.text(args[0]) if len(args) == 2 and args[1] is Ellipsis else None
            if item is None:
                return f"tuple[{', '.join(self.text(a) for a in args)}]"
            return f"{item} | Sequence[{item}]" if one_or_many else f"tuple[{item}, ...]"
        if origin is typing.Literal:
            return f"Literal[{', '.join(_quoted(a) for a in args)}]"
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            name = self.name(tp)
            return f"{name} | Literal[{', '.join(_quoted(m.value) for m in tp)}]" if word else name
        if isinstance(tp, type):
            return self.name(tp)
        raise TypeError(f"no stub spelling for the annotation {tp!r}")


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return inspect.Parameter.empty


def _annotation(types_: _Types, hint: Any, param: Param | None) -> str:
    """The keyword's annotation: the field's type, a word for a declared choice (``Literal``), and a
    word beside a parsed value the declaration takes as a word (``phase``'s axes)."""
    if param is not None and param.choices:
        words = f"Literal[{', '.join(_quoted(c) for c in param.choices)}]"
        if isinstance(hint, type) and issubclass(hint, enum.Enum):  # mode: Mode.gd or "gd"
            words = f"{types_.name(hint)} | {words}"
        if param.plural:
            return f"{words} | Sequence[{words}]"
        return words + (" | None" if param.default is None else "")
    text = types_.text(hint, one_or_many=True, word=True)
    if param is not None and param.type is str and "str" not in text.split(" | "):
        text += " | str"
    return text


def _config_keywords(config_type: type, types_: _Types, skip: tuple[str, ...] = ()) -> list[Keyword]:
    """The keywords ``build`` accepts for ``config_type``: its declared fields by their parameters'
    names, declared parameters it holds under another field (handled by the spec's ``api_configs``),
    its undeclared fields, then its ``model``'s and ``dynamics``' fields."""
    from gaugecli.experiments import params as P
    from gaugecli.experiments.keywords import _declared

    hints = typing.get_type_hints(config_type)
    fields = {f.name: f for f in dataclasses.fields(config_type)}
    declared = _own_first(_declared(config_type), config_type)
    out: list[Keyword] = []
    for name, p in declared.items():
        if p.name in skip or (name not in fields and name in _base_fields(config_type)):
            continue
        if name in fields:
            f = fields[name]
            default = _default(f)
            if dataclasses.is_dataclass(default) and isinstance(p.default, str):  # a parsed word: as typed
                default = p.default
            out.append(Keyword(p.name, _annotation(types_, hints[name], p), default, p.help_text(), p.range_text()))
        else:  # held under another field (perturb's kind: the config's adversarial)
            out.append(Keyword(p.name, _annotation(types_, str, p), p.default, p.help_text(), p.range_text()))
    held = {p.name for p in declared.values()} | set(declared)
    nested: dict[str, type[Fields]] = {"model": P.Model, "dynamics": P.Dynamics}
    for name, f in fields.items():
        if name in held or name in nested:
            continue
        if name == "adversarial" and "kind" in held:  # said by `kind`, one name per concept
            continue
        out.append(Keyword(name, _annotation(types_, hints[name], None), _default(f), "", ""))
    for part, declaration in nested.items():
        if part not in fields:
            continue
        part_type = hints[part]
        part_hints = typing.get_type_hints(part_type)
        for f in dataclasses.fields(part_type):
            declared_part = declaration.params.get(f.name)
            if declared_part is None:  # not a parameter of the command line (a_star, grid_points): the config's own
                continue
            p = declared_part
            out.append(
                Keyword(f.name, _annotation(types_, part_hints[f.name], p), _default(f), p.help_text(), p.range_text())
            )
    return out


def _fields(tp: type) -> tuple[dataclasses.Field[Any], ...]:
    return dataclasses.fields(tp) if dataclasses.is_dataclass(tp) else ()


def _own_first(declared: dict[str, Param], config_type: type) -> dict[str, Param]:
    """``declared`` in the order of ``--help``: the config's own declarations, then those it inherits."""
    from gaugecli.experiments import params as P

    fields = getattr(P, config_type.__name__.removesuffix("Config"), None)
    if not isinstance(fields, type):
        return declared
    order = [name for base in fields.__mro__ for name, p in vars(base).items() if isinstance(p, Param)]
    return {name: declared[name] for name in dict.fromkeys(order) if name in declared}


def _quoted(value: Any) -> str:
    """A literal as a stub writes it (strings in double quotes, as the code's style has them)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, tuple):
        inner = ", ".join(_quoted(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


def _base_fields(config_type: type) -> set[str]:
    """Declared parameters of ``config_type`` that are fields of the run config it holds (phase's
    ``gauge``, ``m``, …, fields of its ``base``)."""
    out: set[str] = set()
    for tp in _run_types(config_type):
        out |= {f.name for f in dataclasses.fields(tp)}
    return out


def _run_types(config_type: type) -> list[type]:
    """The run configs a field of ``config_type`` may hold (phase's ``base``: simulate's or select's)."""
    hints = typing.get_type_hints(config_type)
    out: list[type] = []
    for f in dataclasses.fields(config_type):
        if f.name in ("model", "dynamics"):
            continue
        options = typing.get_args(hints[f.name]) or (hints[f.name],)
        out += [o for o in options if isinstance(o, type) and "model" in {g.name for g in _fields(o)}]
    return out


def _variants(spec: Experiment) -> list[Experiment]:
    """The kinds ``spec``'s function writes: its own, then those written by its command alone."""
    return [spec] + [s for s in experiments() if s.api_name is None and s.command == spec.name]


def keywords(spec: Experiment, types_: _Types | None = None) -> list[Keyword]:
    """Every keyword of ``spec``'s run function besides ``config``, ``cache_dir`` and ``progress``."""
    types_ = types_ or _Types()
    skip = NOT_KEYWORDS.get(spec.name, ())
    out: dict[str, Keyword] = {}
    for variant in _variants(spec):
        config_type = resolve(variant.config)
        for flag, value in variant.rerun_flags.items():  # the keyword that picks this kind
            out.setdefault(flag, Keyword(flag, types_.text(type(value)), not value, _picks(variant), ""))
        for k in _config_keywords(config_type, types_, skip):
            out.setdefault(k.name, k)
        for run_type in _run_types(config_type):
            for k in _config_keywords(run_type, types_):
                out.setdefault(k.name, k)
    return list(out.values())


def _picks(variant: Experiment) -> str:
    return f"Run {variant.name} (a {variant.config.rpartition(':')[2]}) instead."


# -- what help() shows ------------------------------------------------------------------------------


class _Shown:
    """An annotation that prints as the stub writes it (``inspect`` prints its ``repr``)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def signature(spec: Experiment) -> inspect.Signature:
    """``(config=None, /, *, cache_dir=None, progress=None, <every keyword>=<its default>) -> result``."""
    config = resolve(spec.config).__name__
    configs = " | ".join(resolve(v.config).__name__ for v in _variants(spec))
    head = [
        inspect.Parameter(
            "config", inspect.Parameter.POSITIONAL_ONLY, default=None, annotation=_Shown(f"{configs} | None")
        ),
        inspect.Parameter(
            "cache_dir", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=_Shown("Path | str | None")
        ),
        inspect.Parameter(
            "progress",
            inspect.Parameter.KEYWORD_ONLY,
            default=False,
            annotation=_Shown("bool | Callable[[float], None]"),
        ),
    ]
    assert config in configs
    rest = [
        inspect.Parameter(k.name, inspect.Parameter.KEYWORD_ONLY, default=k.default, annotation=_Shown(k.annotation))
        for k in keywords(spec)
    ]
    return inspect.Signature(head + rest, return_annotation=_Shown(spec.api_returns))


def run_specs() -> dict[str, Experiment]:
    """The experiments with a run function, by the function's name."""
    return {spec.api_name: spec for spec in experiments() if spec.api_name is not None}


# -- what mypy reads ---------------------------------------------------------------------------------


def _literal(value: Any) -> str:
    """A default as a stub writes it: a literal, or ``...`` for anything else (a parsed axis)."""
    if isinstance(value, enum.Enum):
        return _quoted(value.value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return _quoted(value)
    if isinstance(value, tuple) and all(v is None or isinstance(v, (bool, int, float, str)) for v in value):
        return _quoted(value)
    return "..."


def stub() -> str:
    """The text of :data:`STUB_PATH`: one typed declaration per run function."""
    types_ = _Types()
    functions: list[str] = []
    for name, spec in run_specs().items():
        configs = [types_.name(resolve(v.config)) for v in _variants(spec)]
        lines = [f"def {name}(", f"    config: {' | '.join(configs)} | None = None,", "    /,", "    *,"]
        lines += ["    cache_dir: Path | str | None = None,", "    progress: bool | Callable[[float], None] = False,"]
        lines += [f"    {k.name}: {k.annotation} = {_literal(k.default)}," for k in keywords(spec, types_)]
        for returned in _names(spec.api_returns):
            types_.name(_result_type(returned))
        lines.append(f") -> {spec.api_returns}: ...")
        functions.append("\n".join(lines))
    imports = [
        "from collections.abc import Callable, Sequence",
        "from pathlib import Path",
        "from typing import Literal",
        "",
        *(f"from {module} import {', '.join(sorted(names))}" for module, names in sorted(types_.imports.items())),
    ]
    head = '"""Generated by ``python -m gaugecli.signatures`` from the parameter declarations: do not edit.\n\nThe run functions of :mod:`gaugecli.api` as mypy sees them (the module makes them at run time)."""'
    return "\n".join([head, "", *imports, "", "", "\n\n".join(functions), ""])


def _names(annotation: str) -> list[str]:
    """The type names of a return annotation (``list[RunObservables]``, ``A | B``)."""
    import re

    return [n for n in re.findall(r"[A-Za-z_]\w*", annotation) if n not in ("list", "tuple", "None")]


def _result_type(name: str) -> type:
    for spec in experiments():
        if spec.result.rpartition(":")[2] == name:
            return typing.cast(type, resolve(spec.result))
    raise LookupError(f"no experiment has the result type {name}")


# -- the reference --------------------------------------------------------------------------------


def keyword_table(spec: Experiment) -> str:
    """A Markdown table of ``spec``'s keywords: name, default, allowed range, help."""
    rows = ["| keyword | default | range | meaning |", "|---|---|---|---|"]
    for k in keywords(spec):
        default = _literal(k.default) if _literal(k.default) != "..." else repr(k.default)
        meaning = k.help or "A field of the config (no command-line flag)."
        cells = [f"`{k.name}`", f"`{default}`", k.range.replace("|", "\\|"), meaning.replace("|", "\\|")]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main() -> None:
    """Rewrite :data:`STUB_PATH` (run from the repository root)."""
    from pathlib import Path

    Path(STUB_PATH).write_text(stub(), encoding="utf-8")


if __name__ == "__main__":
    main()
