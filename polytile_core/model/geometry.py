"""Cells, shapes, orientations, regions and placements on the square grid.

A cell is ``(x, y)`` with x growing to the right and y growing downward, so the
ASCII row ``i`` of a picture is ``y = i``.  Shapes are stored normalised (smallest
x and y are 0) as sorted tuples, which makes them hashable and comparable.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sequence
from typing import Literal, cast

import attrs

Cell = tuple[int, int]
Cells = tuple[Cell, ...]
Kind = Literal["free", "one-sided", "fixed"]
# Far beyond what an exact solver can tile, and small enough to refuse a typo such as
# width = 100000000 before building it fills the memory.
MAX_REGION_CELLS = 1_000_000

# The eight symmetries of the square, as maps on (x, y).  The first four are rotations.
SQUARE_SYMMETRIES = (
    lambda x, y: (x, y),
    lambda x, y: (-y, x),
    lambda x, y: (-x, -y),
    lambda x, y: (y, -x),
    lambda x, y: (-x, y),
    lambda x, y: (y, x),
    lambda x, y: (x, -y),
    lambda x, y: (-y, -x),
)
# How many of SQUARE_SYMMETRIES (the first ones) a piece of each kind may be turned by.
SYMMETRIES_OF_KIND: dict[str, int] = {"free": 8, "one-sided": 4, "fixed": 1}


def kind_symmetries(kind: Kind) -> range:
    """The indices into ``SQUARE_SYMMETRIES`` a piece of this kind may be turned by:
    the identity for fixed pieces, the rotations for one-sided, all eight for free."""
    return range(SYMMETRIES_OF_KIND[kind])


class GeometryError(ValueError):
    """A shape or region that cannot be used (empty, disconnected piece, bad characters)."""


def normalise(cells: Iterable[Cell]) -> Cells:
    """Translate cells so the smallest x and y are 0; return them sorted."""
    cells = list(cells)
    if not cells:
        raise GeometryError("a shape needs at least one cell")
    min_x = min(x for x, _ in cells)
    min_y = min(y for _, y in cells)
    return tuple(sorted({(x - min_x, y - min_y) for x, y in cells}))


def cells_from_rows(rows: Sequence[str]) -> Cells:
    """Cells of an ASCII picture: '#' is a cell, '.' or ' ' is empty (not normalised)."""
    cells = []
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            if char == "#":
                cells.append((x, y))
            elif char not in ". ":
                raise GeometryError(f"row {y + 1} has {char!r} at column {x + 1}: use '#' for a cell and '.' for empty")
    if not cells:
        raise GeometryError("the picture has no '#' cell")
    return tuple(cells)


def rows_from_cells(cells: Iterable[Cell], fill: str = "#", empty: str = ".") -> list[str]:
    """The ASCII picture of a set of cells."""
    cells = set(cells)
    width = max(x for x, _ in cells) + 1
    height = max(y for _, y in cells) + 1
    return ["".join(fill if (x, y) in cells else empty for x in range(width)) for y in range(height)]


def is_connected(cells: Iterable[Cell]) -> bool:
    """True when the cells form one edge-connected piece."""
    return len(components(cells)) == 1


# Moves to a neighbour: across an edge, or also across a corner (a king's moves).
EDGE_STEPS: tuple[Cell, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))
KING_STEPS: tuple[Cell, ...] = EDGE_STEPS + ((1, 1), (1, -1), (-1, 1), (-1, -1))


def components(cells: Iterable[Cell], steps: tuple[Cell, ...] = EDGE_STEPS) -> list[frozenset[Cell]]:
    """The connected components of a set of cells (edge-connected unless ``steps`` says
    otherwise), largest first, ties by their smallest cell."""
    remaining = set(cells)
    found = []
    while remaining:
        start = remaining.pop()
        component, frontier = {start}, [start]
        while frontier:
            x, y = frontier.pop()
            for dx, dy in steps:
                neighbour = (x + dx, y + dy)
                if neighbour in remaining:
                    remaining.remove(neighbour)
                    component.add(neighbour)
                    frontier.append(neighbour)
        found.append(frozenset(component))
    return sorted(found, key=lambda component: (-len(component), min(component)))


def orientations(cells: Iterable[Cell], kind: Kind = "free") -> list[Cells]:
    """The distinct orientations of a shape allowed by its kind, in a stable order.

    ``fixed`` allows translation only, ``one-sided`` the four rotations, ``free`` the
    rotations and reflections.
    """
    cells = normalise(cells)
    seen: dict[Cells, None] = {}
    for transform in (SQUARE_SYMMETRIES[symmetry] for symmetry in kind_symmetries(kind)):
        seen.setdefault(normalise(transform(x, y) for x, y in cells), None)
    return list(seen)


def parity(cells: Iterable[Cell]) -> int:
    """Black minus white cells under the checkerboard colouring (black when x + y is even)."""
    return sum(1 if (x + y) % 2 == 0 else -1 for x, y in cells)


def _cell_set(cells: Iterable[Cell]) -> frozenset[Cell]:
    """Region's converter, typed so a region can be built from any iterable of cells."""
    return frozenset(cells)


@attrs.frozen
class Region:
    """A finite set of grid cells: any shape, holes and several components allowed."""

    cells: frozenset[Cell] = attrs.field(converter=_cell_set)

    @classmethod
    def rectangle(cls, width: int, height: int) -> Region:
        if width < 1 or height < 1:
            raise GeometryError(f"a rectangle needs a positive width and height, got {width}×{height}")
        if width * height > MAX_REGION_CELLS:
            raise GeometryError(f"{width}×{height} is more than the {MAX_REGION_CELLS} cells a region may have")
        return cls((x, y) for x in range(width) for y in range(height))

    @classmethod
    def from_rows(cls, rows: Sequence[str]) -> Region:
        cells = cells_from_rows(rows)
        if len(cells) > MAX_REGION_CELLS:
            raise GeometryError(f"{len(cells)} cells is more than the {MAX_REGION_CELLS} cells a region may have")
        return cls(cells)

    @property
    def width(self) -> int:
        return max(x for x, _ in self.cells) + 1

    @property
    def height(self) -> int:
        return max(y for _, y in self.cells) + 1

    @property
    def area(self) -> int:
        return len(self.cells)

    def rows(self) -> list[str]:
        return rows_from_cells(self.cells)

    def components(self) -> list[frozenset[Cell]]:
        return components(self.cells)

    def symmetries(self) -> list[int]:
        """Indices into SQUARE_SYMMETRIES of the maps that carry the region onto itself."""
        own = normalise(self.cells)
        return [
            index
            for index, transform in enumerate(SQUARE_SYMMETRIES)
            if normalise(transform(x, y) for x, y in self.cells) == own
        ]

    def map_onto_itself(self, symmetry: int, cells: Iterable[Cell]) -> Cells:
        """Apply one of the region's own symmetries to cells inside it, keeping them in place."""
        transform = SQUARE_SYMMETRIES[symmetry]
        dx, dy = _symmetry_shift(self, symmetry)
        return tuple(sorted((tx + dx, ty + dy) for tx, ty in (transform(x, y) for x, y in cells)))


@functools.lru_cache(maxsize=64)
def _symmetry_shift(region: Region, symmetry: int) -> Cell:
    """The translation that puts the region's image back in place (cached: it is needed
    once per placement, and computing it walks the whole region)."""
    transform = SQUARE_SYMMETRIES[symmetry]
    moved = [transform(x, y) for x, y in region.cells]
    return (
        min(x for x, _ in region.cells) - min(x for x, _ in moved),
        min(y for _, y in region.cells) - min(y for _, y in moved),
    )


def placements(shape_orientations: Iterable[Cells], region: Region) -> list[Cells]:
    """Every translation of every orientation whose cells all lie in the region, made of
    the region's own cell tuples (a 100×100 board has 606,000 pentomino placements), in
    the order of their anchor (the shape's first cell) in ``sorted(region.cells)``.

    The anchors that fit are found all at once: the region is a bit mask, and an anchor
    fits where the mask shifted by each of the shape's cells has a bit (a few big-integer
    operations per orientation, not one look-up per anchor and cell)."""
    found: list[Cells] = []
    for shape in shape_orientations:
        grid = _grid(region, max(PAD, max(y for _, y in shape) - min(y for _, y in shape)))
        anchor_x, anchor_y = shape[0]
        deltas = [(x - anchor_x) * grid.stride + (y - anchor_y) for x, y in shape]
        fits = grid.mask
        for delta in deltas:
            fits &= grid.mask >> delta if delta >= 0 else grid.mask << -delta
        flags = bin(fits)[:1:-1].encode("ascii").translate(_BIT_FLAGS)  # byte i: 1 where bit i is
        anchors = list(itertools.compress(range(len(flags)), flags))
        cell_at = grid.cell_at.__getitem__
        # Each anchor's cells, found by C loops: one map per cell of the shape, zipped.
        placed = zip(*(map(cell_at, map(delta.__add__, anchors)) for delta in deltas), strict=True)
        found.extend(cast(Iterable[Cells], placed))  # no None: every cell of a fitting anchor is in the region
    return found


_BIT_FLAGS = bytes.maketrans(b"01", b"\x00\x01")

# The empty bits above and below a region's columns in its bit mask (``_grid``): enough
# for any shape up to 9 cells tall, so that one mask serves them all.
PAD = 8


@attrs.frozen(eq=False)
class _Grid:
    """A region as a bit mask: cell ``(x, y)`` is bit ``(x - left) * stride + (y - top +
    pad)``, so bits grow in ``sorted(cells)`` order, and ``pad`` empty bits above and below
    each column keep a shape that sticks out of one column from reaching the next."""

    mask: int
    stride: int
    cell_at: list[Cell | None]


@functools.lru_cache(maxsize=8)
def _grid(region: Region, pad: int) -> _Grid:
    left = min(x for x, _ in region.cells)
    top = min(y for _, y in region.cells)
    stride = region.height - top + 2 * pad
    cell_at: list[Cell | None] = [None] * ((region.width - left + 1) * stride)
    bits = bytearray(b"0") * len(cell_at)  # bit i of the mask, in ASCII
    for cell in region.cells:
        index = (cell[0] - left) * stride + cell[1] - top + pad
        cell_at[index] = cell
        bits[index] = ord("1")
    bits.reverse()
    mask = int(bits, 2)
    return _Grid(mask, stride, cell_at)
