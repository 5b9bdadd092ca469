"""The command line: a thin layer that parses, builds a config, asks the pipeline, reports.

``app`` is the Typer app, ``main`` the console entry point (``gaugecli``, ``python -m gaugecli``).
"""

from gaugecli.cli.app import app, main

__all__ = ["app", "main"]
