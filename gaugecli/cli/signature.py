"""A command's options written into its signature from their declarations, and handed to it built.

Typer reads a command's options from its signature and has no option groups. The decorators here
write them there: :func:`with_params` one option per declared parameter of a
:class:`~gaugecli.experiments.declare.Fields` class (flags, annotation, default and check from the
:class:`~gaugecli.experiments.declare.Param` alone, :func:`gaugecli.cli.options.declared`), its
values handed to the command as one mapping field → value, which
:func:`gaugecli.experiments.keywords.build` turns into the config as it does the Python API's
keywords; :func:`with_model` and :func:`with_dynamics` the shared groups, built into a ModelConfig
and a DynamicsConfig; :func:`with_outputs`, :func:`with_execution` and :func:`with_option` the
command line's own options (where results go, how the work runs), each declared once. A command
lists its options in the order its decorators add them (innermost first), which is the order of
``--help`` within each panel and of docs/cli.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from gaugecli.cli import session
from gaugecli.experiments.declare import Fields, Param

Group = list[tuple[str, Any, Any]]
"""Options as ``(parameter name, Annotated type, default)``."""


def grouped(
    name: str, group: Group, build: Callable[..., Any], *, merge: bool = False
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Give a command the options of ``group`` and hand them to it built into one value: its
    parameter ``name`` receives ``build(**options)`` (a refusal of ``build`` is a one-line error);
    with ``merge``, a mapping joined with the one an outer decorator gives under the same name.

    Typer reads a command's options from its signature and has no option groups: this writes a
    group shared by several commands into their signatures once, instead of in every command."""
    import functools
    import inspect

    from gaugecli.cli.errors import errors

    names = [option for option, _, _ in group]

    def decorate(command: Callable[..., None]) -> Callable[..., None]:
        signature = inspect.signature(command, eval_str=True)
        own = [p for p in signature.parameters.values() if p.name != name]
        extra = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d, annotation=a) for n, a, d in group]

        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> None:
            given = {option: kwargs.pop(option) for option in names}
            with errors():
                value = build(**given)
            if merge:
                value = {**kwargs.pop(name, {}), **value}
            command(*args, **{name: value}, **kwargs)

        wrapper.__signature__ = signature.replace(parameters=own + extra)  # type: ignore[attr-defined]
        return wrapper

    return decorate


Declared = type[Fields] | Mapping[str, Param]
"""Declared parameters by field: a :class:`Fields` class, or a mapping of the command line's own."""


def with_params(
    declared: Declared,
    *,
    only: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
    aliases: Mapping[str, tuple[str, ...]] | None = None,
    into: str = "params",
    build: Callable[[dict[str, Any]], Any] | None = None,
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """One option per declared parameter (every one, or ``only`` those fields, less ``exclude``),
    each built from its declaration alone (:func:`gaugecli.cli.options.declared`; ``aliases``: more
    flags of a field), listed in the order they are declared (a class's own before those it
    inherits). The command's parameter ``into`` receives the values given as a mapping field →
    value (a field still named by a former name of its parameter: by the new name; joined with
    those of the other ``with_params`` decorators), which
    :func:`gaugecli.experiments.keywords.build` turns into a config as it does the Python API's
    keywords; or, with ``build``, what ``build`` makes of that mapping."""
    from gaugecli.cli import options as opt

    params = _in_order(declared)
    chosen = {field: p for field, p in params.items() if (not only or field in only) and field not in exclude}
    # a field still named as its parameter was before a rename (predict's sgd_eta) is handed over by
    # the new name, which :func:`~gaugecli.experiments.keywords.build` reads without a deprecation
    field_of = {opt.identifier(p): p.name if field in p.deprecated else field for field, p in chosen.items()}
    group: Group = [
        (opt.identifier(p), *opt.declared(p, *(aliases or {}).get(field, ()))) for field, p in chosen.items()
    ]

    def collect(**given: Any) -> Any:
        values = {field_of[name]: opt.plain(value) for name, value in given.items()}
        return values if build is None else build(values)

    return grouped(into, group, collect, merge=build is None)


def _in_order(declared: Declared) -> dict[str, Param]:
    """The parameters of ``declared`` by field: a class's own declarations first, then its bases'."""
    if not isinstance(declared, type):
        return dict(declared)
    out: dict[str, Param] = {}
    for base in declared.__mro__:
        for field, p in vars(base).items():
            if isinstance(p, Param) and field not in out:
                out[field] = declared.params[field]
    return out


def with_option(name: str, annotation: Any, default: Any) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """One option of the command line's own (not a declared parameter), placed where this decorator
    stands among the others: ``--help`` and docs/cli.md list options in the order they are added."""
    return grouped(name, [(name, annotation, default)], lambda **given: given[name])


def with_outputs(*, sweeps: bool = False) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``--out``, ``--figure``, ``--cache-dir``, ``--cache``, ``--config``, ``--json``, ``--quiet`` (and for a
    sweep ``--workers``, ``--scheduler``) as the command's parameter ``outputs`` (:class:`~gaugecli.cli.session.Outputs`)."""
    from gaugecli.cli import options as opt

    group: Group = [
        ("out", opt.Out, None),
        ("figure", opt.FigurePath, None),
        ("cache_dir", opt.CacheDir, opt.DEFAULT_CACHE),
        ("cache", opt.UseCache, True),
        ("config_file", opt.ConfigFile, None),  # read by its eager callback already
        ("json", opt.Json, False),
        ("quiet", opt.Quiet, False),
    ]
    if sweeps:
        group += [(opt.identifier(opt.WORKERS), *opt.declared(opt.WORKERS)), ("scheduler", opt.Scheduler, None)]

    def build(config_file: Path | None, **given: Any) -> session.Outputs:
        return session.Outputs(**given)

    return grouped("outputs", group, build)


def with_execution() -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``--max-time``, as the command's parameter ``max_time`` (seconds)."""
    from gaugecli.cli import options as opt

    return with_params({"max_time": opt.MAX_TIME}, into="max_time", build=lambda values: values["max_time"])


def with_model(*, features: bool = True, network: bool = True) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``--d``, ``--k`` (unless the experiment's teacher has one feature), ``--activation``,
    ``--teacher-activation``, ``--negative-slope`` and ``--weight-decay`` (unless its analysis holds
    for the paper's ReLU model alone), ``--c0``, ``--theta0`` and ``--eps-align`` as the command's
    parameter ``model`` (a ModelConfig, built as the Python API builds it)."""
    from gaugecli.experiments import params as P

    exclude: tuple[str, ...] = () if features else ("k",)
    exclude += () if network else ("activation", "teacher_activation", "negative_slope", "weight_decay")
    return with_params(P.Model, exclude=exclude, into="model", build=_config("ModelConfig", "model"))


def with_dynamics(*only: str, exclude: tuple[str, ...] = ()) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """The dynamics options as the command's parameter ``dynamics`` (a DynamicsConfig): every one of
    them, or ``only`` those named — ``t_max`` and ``rtol`` for a command that compares population
    flows, ``rtol`` for one whose sweeps set their own modes and horizons — less ``exclude`` (those the
    command declares itself: phase's ``device``)."""
    from gaugecli.experiments import params as P

    build = _config("DynamicsConfig", "dynamics")
    if only == ("rtol",):  # the sweeps set their own modes: the tolerance is the population flow's
        return with_params({"rtol": P.FLOW_RTOL}, into="dynamics", build=build)
    return with_params(P.Dynamics, only=only, exclude=exclude, into="dynamics", build=build)


def _config(name: str, function: str) -> Callable[[dict[str, Any]], Any]:
    """``values`` built into the config class ``name`` of :mod:`gaugecli.experiments.config`."""

    def make(values: dict[str, Any]) -> Any:
        from gaugecli.experiments import config, keywords

        return keywords.build(getattr(config, name), function, values)

    return make
