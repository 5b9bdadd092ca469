"""The module entry point: ``python -m gaugecli`` runs the command line, as the ``gaugecli`` script does."""

from gaugecli.cli import main

main()
