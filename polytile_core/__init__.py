"""polytile: tile, count and enclose with polyominoes, through plugins."""

import pluggy

hookimpl = pluggy.HookimplMarker("polytile")

__all__ = ["hookimpl"]
