"""The package's version, written once: pyproject.toml reads it (``[tool.setuptools.dynamic]``),
``gaugecli.__version__`` serves it, and ``tests/test_citation.py`` holds CITATION.cff to it."""

__version__ = "0.2.0"
