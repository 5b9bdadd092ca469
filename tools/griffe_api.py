"""A Griffe extension for the API reference (mkdocs.yml): the run functions of :mod:`gaugecli.api`.

They are made at import from the experiments' specs (``gaugecli.api.run_function``), so a static
reading of ``api.py`` does not see them; this extension imports the module and adds each one as
Griffe's inspection of it finds it (signature and docstring), so that ``::: gaugecli.api.simulate``
renders as a function written out would.
"""

from __future__ import annotations

from typing import Any

import griffe

MODULE = "gaugecli.api"


class GeneratedRunFunctions(griffe.Extension):
    """Adds the run functions to the statically loaded ``gaugecli.api``."""

    def on_module_members(self, *, mod: griffe.Module, **kwargs: Any) -> None:
        if mod.path != MODULE:
            return
        from gaugecli.api import run_functions

        inspected = griffe.inspect(MODULE, filepath=mod.filepath)
        for name in run_functions():
            if name not in mod.members:
                mod.set_member(name, inspected[name])
