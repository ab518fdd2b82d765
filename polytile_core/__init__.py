"""polytile: tile, count and enclose with polyominoes, through plugins."""

from importlib.metadata import PackageNotFoundError, version

import pluggy

hookimpl = pluggy.HookimplMarker("polytile")

try:
    __version__ = version("polytile")  # one source of truth: pyproject.toml, as installed
except PackageNotFoundError:  # the source tree on sys.path without being installed
    __version__ = "unknown"

__all__ = ["hookimpl", "__version__"]
