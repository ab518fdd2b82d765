"""A tiling problem with its geometry resolved: the region and each piece's orientations.

The pipeline file says *what* the user wants (a family name, ASCII rows, a kind);
a ``TilingProblem`` says it in cells, ready for a model builder or a decomposer.
"""

from __future__ import annotations

import attrs

from polytile_core.model.geometry import Cells, Kind, Region, orientations, placements


@attrs.frozen
class PieceType:
    """One piece shape with its kind and how many copies may be used.

    ``minimum``/``maximum`` bound the copies; ``maximum`` is ``None`` for unlimited.
    """

    name: str
    cells: Cells
    kind: Kind = "free"
    minimum: int = 1
    maximum: int | None = 1

    @property
    def area(self) -> int:
        return len(self.cells)

    @property
    def exact(self) -> bool:
        return self.maximum == self.minimum

    def orientations(self) -> list[Cells]:
        return orientations(self.cells, self.kind)


@attrs.frozen
class TilingProblem:
    """Cover every cell of ``region`` exactly once with copies of ``pieces``."""

    region: Region
    pieces: tuple[PieceType, ...]

    def placements(self) -> list[tuple[PieceType, Cells]]:
        """Every (piece, cells) that fits in the region, in a stable order."""
        return [(piece, placed) for piece in self.pieces for placed in placements(piece.orientations(), self.region)]

    def area_problem(self) -> str | None:
        """Why the pieces' areas cannot add up to the region's area, or None if they can."""
        least = sum(piece.area * piece.minimum for piece in self.pieces)
        unlimited = any(piece.maximum is None for piece in self.pieces)
        most = sum(piece.area * piece.maximum for piece in self.pieces if piece.maximum is not None)
        area = self.region.area
        if least > area:
            return f"the pieces cover at least {least} cells but the region has only {area}"
        if not unlimited and most < area:
            return f"the pieces cover at most {most} cells but the region has {area}"
        return None
