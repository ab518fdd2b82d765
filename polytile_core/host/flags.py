"""Command-line flags that plugins add (``polytile_register_flags``).

A plugin flag is a shortcut for one key of an options table, so that a plugin's most
used option need not be written into the pipeline: ``--scheduler ADDRESS`` of the dask
plugin sets ``scheduler`` of the dask executor, ``--cell-size PX`` of the render plugin
sets ``cell_size`` of the renderer.  The core adds each flag to its command and hands
the value on; what it means stays the plugin's, and its options class checks it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import attrs

# Whose options a flag sets, and so which command takes it.
FLAG_COMMANDS = {"executor": "solve", "renderer": "render"}


@attrs.frozen
class Flag:
    """One flag, registered under its name (``register("--scheduler", Flag(...), help=...)``).

    ``of="executor"``: a flag of ``polytile solve`` that sets ``option`` of the executor
    running the parts of a split; the plugin's own executor is chosen unless ``--executor``
    names another (which must then have the option).  ``of="renderer"``: a flag of
    ``polytile render`` that sets ``option`` of the renderer drawing the picture, whichever
    it is.  ``value`` turns the text given into the option's value; ``switch`` makes a flag
    without a value, which sets the option to true.
    """

    of: Literal["executor", "renderer"] = attrs.field(validator=attrs.validators.in_(FLAG_COMMANDS))
    option: str
    value: Callable[[str], object] = str
    metavar: str | None = None
    switch: bool = False

    @property
    def command(self) -> str:
        """The subcommand that takes the flag."""
        return FLAG_COMMANDS[self.of]
