"""Every summary the commands print: rich tables of what was computed, and where it lies.

Layout: :mod:`.terminal` (the consoles, number formats and tables that fit the terminal),
:mod:`.header` (the run's configuration line and what the model changes in a summary's reading),
:mod:`.runs` (``simulate``, ``select``, ``prune``, ``perturb``) and :mod:`.studies` (``reln``,
``verify``, ``lockin``, ``predict``); a command calls ``report.<command>``.
"""

from __future__ import annotations

from gaugecli.cli.report.header import header as header
from gaugecli.cli.report.runs import owner_sweep as owner_sweep
from gaugecli.cli.report.runs import perturb as perturb
from gaugecli.cli.report.runs import prune as prune
from gaugecli.cli.report.runs import select as select
from gaugecli.cli.report.runs import simulate as simulate
from gaugecli.cli.report.studies import lockin as lockin
from gaugecli.cli.report.studies import lockin_task as lockin_task
from gaugecli.cli.report.studies import predict as predict
from gaugecli.cli.report.studies import reln as reln
from gaugecli.cli.report.studies import verify as verify
from gaugecli.cli.report.terminal import console as console
from gaugecli.cli.report.terminal import errors_console as errors_console
from gaugecli.cli.report.terminal import escape as escape
from gaugecli.cli.report.terminal import fmt as fmt
from gaugecli.cli.report.terminal import new_table as new_table
from gaugecli.cli.report.terminal import show as show
from gaugecli.cli.report.terminal import where as where
