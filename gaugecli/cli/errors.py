"""Errors of the command line: the core's exceptions as one line with the right exit code."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from typing import Any

# typer ≥ 0.29 vendors its own click: its parser raises these, not the click package's
from typer._click.exceptions import ClickException, UsageError

__all__ = ["ClickException", "Failure", "Interrupted", "Terminated", "UsageError", "bad_parameter", "errors"]


class Failure(ClickException):
    """A runtime failure (exit code 1): numerical, storage or executor."""

    exit_code = 1


class Interrupted(ClickException):
    """Ctrl-C: exit code 130 (128 + SIGINT), as a shell reports it."""

    exit_code = 130


class Terminated(Interrupted):
    """SIGTERM: exit code 143 (128 + SIGTERM)."""

    exit_code = 143


class _SigTerm(KeyboardInterrupt):
    """Raised by the SIGTERM handler: unwinds like Ctrl-C (every cleanup runs), reported as SIGTERM."""


def bad_parameter(flag: str, message: str) -> UsageError:
    """The usage error for ``flag`` (exit code 2), in click's own wording."""
    return UsageError(f"Invalid value for '{flag}': {message}")


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise _SigTerm


@contextlib.contextmanager
def errors() -> Iterator[None]:
    """Map the core's errors onto one-line CLI errors; SIGTERM ends the run like Ctrl-C."""
    from gaugecli.cli.flags import flag
    from gaugecli.cli.flags import message as spelled
    from gaugecli.core.integrate.trajectory import NumericalFault
    from gaugecli.experiments.budget import BudgetExceeded
    from gaugecli.experiments.declare import ConfigError
    from gaugecli.run.executors import ExecutorError
    from gaugecli.store.errors import ArtifactError

    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        yield
    except KeyboardInterrupt as exc:
        message = (
            "interrupted; no partial artifact was written, finished runs and sweep points are cached — "
            "run the same command again to resume"
        )
        raise (Terminated if isinstance(exc, _SigTerm) else Interrupted)(message) from None
    except ConfigError as exc:  # the experiments name parameters; only here do they become flags
        raise bad_parameter(flag(exc.param), spelled(exc.message)) from None
    except BudgetExceeded as exc:  # a value this machine cannot run: a usage error naming the option (exit 2)
        raise bad_parameter(flag(exc.param), spelled(exc.message)) from None
    except (NumericalFault, ArtifactError, ExecutorError) as exc:
        raise Failure(spelled(str(exc))) from None
    except BrokenPipeError:  # stdout's reader left (| head): click's main ends quietly, as for any print
        raise
    except OSError as exc:  # a path the OS refused where no check foresaw it: still one line
        raise Failure(f"{exc.filename or 'file system'}: {exc.strerror or exc}") from None
    finally:
        signal.signal(signal.SIGTERM, previous)
