"""``python -m gaugecli``."""

from gaugecli.cli import main

main()
