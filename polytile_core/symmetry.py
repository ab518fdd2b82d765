"""Counting solutions up to the symmetry of the region."""

from __future__ import annotations

from collections.abc import Iterable

from polytile_core.geometry import Region
from polytile_core.results import Solution


def canonical_key(region: Region, solution: Solution) -> tuple:
    """The same key for a solution and all its images under the region's symmetries."""
    images = []
    for symmetry in region.symmetries():
        images.append(
            tuple(sorted((placed.piece, region.map_onto_itself(symmetry, placed.cells)) for placed in solution.placements))
        )
    return min(images)


def distinct_count(region: Region, solutions: Iterable[Solution]) -> int:
    """How many of the solutions are different up to the region's symmetries."""
    return len({canonical_key(region, solution) for solution in solutions})
