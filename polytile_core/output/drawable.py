"""What ``polytile render`` checks before it draws a result file: a hand-edited file could
otherwise be drawn as a tiling it is not (an overlapped piece simply vanishes).

Each solution must place real pieces: no cell listed twice, each piece in one edge-joined
piece, and every piece of a name in the same shape (up to rotation and reflection: a
result file does not say how a piece may turn) as in the first solution that uses the
name.  A tiling (a solution with no enclosed interior) covers each cell of the region
exactly once; an enclosure's fence and interior lie on its board and do not overlap.
Every failure is one ``InputError`` naming the file, the solution and a cell.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from polytile_core.errors import InputError
from polytile_core.model.geometry import Cell, Cells, components, normalise, orientations, rows_from_cells
from polytile_core.output.results import Result, Solution

# The largest box of cells a picture may span: 2,000 × 2,000, far beyond any region
# polytile solves (geometry.MAX_REGION_CELLS), so a larger one is a coordinate gone
# wrong, such as 10**12 typed into a file; the picture of such a box cannot be made.
MAX_DRAWN_CELLS = 4_000_000


def check_drawable(result: Result, *, source: str) -> None:
    """Refuse a result whose solutions are not tilings (or fences) of its region."""
    where = _solution_keys(source)
    region = {(x, y) for x, y in result.region}
    _check_box(region, source, "region")
    shapes: dict[str, tuple[Cells, int]] = {}
    for index, solution in enumerate(result.solutions):
        try:
            _check_solution(solution, region, shapes, index, where)
        except InputError as exc:
            raise InputError(exc.message, source=source, path=where(index)) from None
        _check_box(_drawn_cells(solution), source, where(index))


def _solution_keys(source: str) -> Callable[[int], str]:
    """How a message names solution ``index``: its key, or its line in a .jsonl file
    (line 1 is the header)."""
    if source.endswith(".jsonl"):
        return lambda index: f"line {index + 2}"
    return lambda index: f"solutions[{index}]"


def _check_solution(
    solution: Solution, region: set[Cell], shapes: dict, index: int, where: Callable[[int], str]
) -> None:
    owner: dict[Cell, int] = {}  # the index of the placed piece covering each cell
    names = [placed.piece for placed in solution.placements]
    for number, placed in enumerate(solution.placements):
        name = placed.piece
        if not placed.cells:
            raise InputError(f"piece {name} has no cell")
        for x, y in placed.cells:
            cell = (x, y)
            if owner.get(cell) == number:
                raise InputError(f"cell {_show(cell)} is listed twice in piece {name}")
            if cell in owner:
                raise InputError(f"cell {_show(cell)} is covered by two pieces, {names[owner[cell]]} and {name}")
            owner[cell] = number
            if region and cell not in region:
                raise InputError(f"piece {name} covers cell {_show(cell)}, which is not in the region")
    for placed in solution.placements:
        name, cells = placed.piece, [(x, y) for x, y in placed.cells]
        parts = components(cells)
        if len(parts) > 1:
            raise InputError(f"piece {name} is not one piece: cell {_show(min(parts[-1]))} is not joined to the rest")
        shape = min(orientations(cells, "free"))
        first = shapes.setdefault(name, (shape, index))
        if first[0] != shape:
            there, here = ("/".join(rows_from_cells(cells)) for cells in (first[0], normalise(cells)))
            raise InputError(
                f"piece {name} at cell {_show(min(cells))} does not have the shape {name} has in {where(first[1])} "
                f"({there} there, {here} here)"
            )
    if solution.interior is None:
        uncovered = sorted(region - owner.keys(), key=lambda cell: (cell[1], cell[0]))
        if uncovered:
            raise InputError(f"cell {_show(uncovered[0])} of the region is covered by no piece")
        return
    for x, y in solution.interior:
        if (x, y) in owner:
            raise InputError(f"cell {_show((x, y))} is both enclosed and covered by piece {names[owner[(x, y)]]}")
        if region and (x, y) not in region:
            raise InputError(f"enclosed cell {_show((x, y))} is not on the board (the region)")


def _drawn_cells(solution: Solution) -> list[Cell]:
    return [(x, y) for placed in solution.placements for x, y in placed.cells] + [
        (x, y) for x, y in solution.interior or ()
    ]


def _check_box(cells: Iterable[Cell], source: str, path: str) -> None:
    """Refuse cells spread over a box too large to draw (before any renderer tries)."""
    cells = list(cells)
    if not cells:
        return
    width = max(x for x, _ in cells) - min(x for x, _ in cells) + 1
    height = max(y for _, y in cells) - min(y for _, y in cells) + 1
    if width * height > MAX_DRAWN_CELLS:
        raise InputError(
            f"the cells span {width} × {height}, more than the {MAX_DRAWN_CELLS:,} cells a picture may show",
            source=source,
            path=path,
        )


def _show(cell: Cell) -> str:
    return f"[{cell[0]}, {cell[1]}]"
