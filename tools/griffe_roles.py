"""A Griffe extension for the API reference (mkdocs.yml): the docstrings' Sphinx roles as Markdown.

The package's docstrings write cross-references as Sphinx roles (:class:`~gaugecli.pipeline.Pipeline`,
:func:`load`) and literals in double backquotes. Double backquotes are already Markdown code; a role
becomes the code span of its target, shortened as Sphinx would for a leading ``~``.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?[a-z]+:`(~?)([^`<]+?)(?:\s*<([^>]+)>)?`")


def markdown(text: str) -> str:
    """``text`` with every Sphinx role replaced by a code span."""

    def replace(match: re.Match[str]) -> str:
        tilde, shown, _target = match.groups()  # `text <target>` shows the text
        shown = shown.strip()
        if tilde:
            shown = shown.rsplit(".", 1)[-1]
        return f"`{shown}`"

    return _ROLE.sub(replace, text)


class SphinxRolesAsCode(griffe.Extension):
    """Rewrites each object's docstring as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
