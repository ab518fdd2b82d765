"""A tiling problem with its geometry resolved: the region and each piece's orientations.

The pipeline file says *what* the user wants (a family name, ASCII rows, a kind);
a ``TilingProblem`` says it in cells, ready for a model builder or a decomposer.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import attrs

from polytile_core.model.geometry import Cell, Cells, Kind, Region, normalise, orientations, placements


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
        return list(_orientations(self.cells, self.kind))


@functools.lru_cache(maxsize=1024)
def _orientations(cells: Cells, kind: Kind) -> tuple[Cells, ...]:
    """A piece's orientations, made once: a run asks for them at each step (the build,
    the bound on its size, a split's parts)."""
    return tuple(orientations(cells, kind))


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

    def placements_at_most(self) -> int:
        """An upper bound on the placements of the problem's model, known before building it."""
        return sum(len(piece.orientations()) for piece in self.pieces) * self.region.area

    def tiling_errors(self, placements: Iterable[tuple[str, Cells]]) -> list[str]:
        """What is wrong with a tiling given as (piece name, cells), cell by cell: a cell
        outside the region or covered twice, a cell left bare, a shape that is no allowed
        orientation of its piece, a number of copies out of bounds.  Empty: it is a tiling.
        It uses no model, so it checks what a tiler without one reports."""
        errors: list[str] = []
        by_name = {piece.name: piece for piece in self.pieces}
        shapes = {piece.name: set(piece.orientations()) for piece in self.pieces}
        copies = dict.fromkeys(by_name, 0)
        covered: set[Cell] = set()
        for name, cells in placements:
            if name not in by_name:
                errors.append(f"a placement of {name!r}, which is no piece of the problem")
                continue
            copies[name] += 1
            if normalise(cells) not in shapes[name]:
                errors.append(f"{name} on {sorted(cells)} is no allowed orientation of {name}")
            for cell in cells:
                if cell not in self.region.cells:
                    errors.append(f"{name} covers {cell}, outside the region")
                elif cell in covered:
                    errors.append(f"{cell} is covered twice")
                covered.add(cell)
            if len(errors) > 10:
                return errors
        bare = len(self.region.cells) - len(covered & self.region.cells)
        if bare:
            errors.append(f"{bare} cells of the region are not covered")
        for name, piece in by_name.items():
            if copies[name] < piece.minimum or (piece.maximum is not None and copies[name] > piece.maximum):
                errors.append(f"{copies[name]} copies of {name}, allowed {piece.minimum}..{piece.maximum}")
        return errors
