"""A Griffe extension for the API reference (mkdocs.yml): the run functions of :mod:`gaugecli.api`.

They are made on first use from the experiments' specs (``gaugecli.api.run_function``: its
``__signature__`` from the parameter declarations), so a static reading of ``api.py`` does not see
them; this extension makes each one, sets it on the module, and adds it as Griffe's inspection of
the module finds it (signature and docstring), so that ``::: gaugecli.api.simulate`` renders as a
function written out would. Its keyword table follows it on the page (tools/api_reference.py).
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
        import gaugecli.api as api

        for name in api.run_functions():  # made on first use: make them, where inspection looks
            setattr(api, name, getattr(api, name))
        inspected = griffe.inspect(MODULE, filepath=mod.filepath)
        for name in api.run_functions():
            if name not in mod.members:
                mod.set_member(name, inspected[name])
