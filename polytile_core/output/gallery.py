"""Results made to be looked at: several solutions side by side (``api.gallery``), and
pieces laid out on shelves (``polytile pieces -o``, a family in a notebook)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from polytile_core.model.geometry import Cells, normalise
from polytile_core.output.notebook import GALLERY_LIMIT, html_of, svg_of, text_of
from polytile_core.output.results import Found, PlacedPiece, Result, Solution, Termination

# Pieces side by side on one shelf of a family's picture.
SHELF = 6


def solutions_result(solutions: Sequence[Solution], region: Iterable[tuple[int, int]] = ()) -> Result:
    """Solutions wrapped as a Result, the one thing renderers draw."""
    return Result(
        termination=Termination.COMPLETED,
        found=Found.FEASIBLE if solutions else Found.NONE,
        mode="all",
        backend="",
        count=len(solutions),
        solutions=tuple(solutions),
        region=tuple(region),
    )


def shelf_solution(shapes: Sequence[tuple[str, Cells]]) -> Solution:
    """Pieces laid out side by side, a blank column between them, ``SHELF`` to a row."""
    placed, left, top, row_height = [], 0, 0, 0
    for index, (name, cells) in enumerate(shapes):
        if index and index % SHELF == 0:
            left, top, row_height = 0, top + row_height + 1, 0
        cells = normalise(cells)
        placed.append(PlacedPiece(name, tuple((x + left, y + top) for x, y in cells)))
        left += max(x for x, _ in cells) + 2
        row_height = max(row_height, max(y for _, y in cells) + 1)
    return Solution(tuple(placed))


@attrs.frozen
class Gallery:
    """Several solutions drawn side by side, at most ``limit`` of them (the rest counted)."""

    result: Result
    limit: int = GALLERY_LIMIT
    columns: int = 4

    def _repr_svg_(self) -> str | None:
        return svg_of(self.result, limit=self.limit, columns=self.columns)

    def _repr_html_(self) -> str | None:
        return html_of(self.result, limit=self.limit)

    def __repr__(self) -> str:
        return text_of(self.result, self.limit)


def gallery(solutions: Result | Sequence[Solution], *, limit: int = GALLERY_LIMIT, columns: int = 4) -> Gallery:
    """A gallery of a result's solutions (or of a list of solutions), for a notebook."""
    result = solutions if isinstance(solutions, Result) else solutions_result(list(solutions))
    return Gallery(result, limit, columns)
