"""ASCII pictures of solutions: one letter per piece, '.' for a region cell left empty
and ' ' outside the region; an enclosure's fence and interior ('+') without the empty
board around them."""

from __future__ import annotations

import string
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # results.py draws its repr with this module: no import cycle at run time
    from polytile_core.output.results import Solution

_SPARE_LETTERS = string.ascii_uppercase + string.ascii_lowercase + string.digits


def ascii_picture(solution: Solution | None, region_cells: Collection[Sequence[int]] = ()) -> str:
    """Each placed piece drawn with a letter: its name's first letter when that keeps
    neighbouring pieces apart, otherwise a spare letter that is no piece's initial here
    (so an F in the picture is always an F piece).  No solution: the bare region."""
    placements = solution.placements if solution is not None else ()
    letters: dict[tuple[int, int], str] = {}
    owner: dict[tuple[int, int], int] = {}
    for index, placed in enumerate(placements):
        for x, y in placed.cells:
            owner[(x, y)] = index
    chosen: dict[int, str] = {}
    initials = {placed.piece[:1] for placed in placements}
    spare = [letter for letter in _SPARE_LETTERS if letter not in initials]
    for index, placed in enumerate(placements):
        taken = set()
        for x, y in placed.cells:
            for neighbour in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                other = owner.get(neighbour)
                if other is not None and other != index and other in chosen:
                    taken.add(chosen[other])
        preferred = placed.piece[:1] or "?"
        candidates = [preferred] + spare
        chosen[index] = next((c for c in candidates if c not in taken), "?")
    for cell, index in owner.items():
        letters[cell] = chosen[index]
    interior = set(map(tuple, solution.interior or ())) if solution is not None else set()
    # An enclosure's board is far larger than its fence: draw the fence and what it encloses.
    cells = set(letters) | interior if interior else set(letters) | {tuple(c) for c in region_cells}
    if not cells:
        return ""
    min_x = min(x for x, _ in cells)
    min_y = min(y for _, y in cells)
    width = max(x for x, _ in cells) - min_x + 1
    height = max(y for _, y in cells) - min_y + 1
    region = {tuple(c) for c in region_cells}
    rows = []
    for y in range(min_y, min_y + height):
        row = ""
        for x in range(min_x, min_x + width):
            if (x, y) in letters:
                row += letters[(x, y)]
            elif (x, y) in interior:
                row += "+"
            elif (x, y) in region:
                row += "."
            else:
                row += " "
        rows.append(row.rstrip())
    return "\n".join(rows)
