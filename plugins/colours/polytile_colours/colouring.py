"""The k-colouring of the board and the coloured variants of a piece on it.

Cell (x, y) has colour (x + shift·y) mod k: the colours cycle along every row and every
column (Garvie's cyclic C-colouring, Mathematics 13:1013, 2025; k = 2, shift = 1 is the
checkerboard).  A placement's *coloured variant* is its shape together with the colour
of each cell, up to the symmetries the piece's kind allows: two placements are the same
variant when an allowed symmetry, then a translation, carries one onto the other with
every cell's colour kept.  Every placement has exactly one variant; each orientation of a
piece has k colourings (one per colour of its first cell), so a piece has at most k times
as many variants as orientations.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from polytile_core.plugin import SQUARE_SYMMETRIES, Cell, Cells, Kind, PieceType, Region, kind_symmetries, placements

# A coloured shape: its normalised cells, and the colour of each in that order.
ColouredShape = tuple[Cells, tuple[int, ...]]


@attrs.frozen
class Colouring:
    """Colour (x + shift·y) mod colours."""

    colours: int
    shift: int = 1

    def __call__(self, x: int, y: int) -> int:
        return (x + self.shift * y) % self.colours

    def counts(self, cells: Iterable[Cell]) -> tuple[int, ...]:
        """How many of the cells have each colour."""
        found = [0] * self.colours
        for x, y in cells:
            found[self(x, y)] += 1
        return tuple(found)

    def describe(self) -> str:
        shift = "y" if self.shift == 1 else f"{self.shift}·y"
        return f"colour of (x, y) = (x + {shift}) mod {self.colours}"


@attrs.frozen
class Variant:
    """One coloured variant of a piece, with every placement of it in the region."""

    name: str
    piece: PieceType
    counts: tuple[int, ...]  # cells of each colour
    placements: tuple[Cells, ...]


def canonical_colouring(placed: Cells, kind: Kind, colouring: Colouring) -> ColouredShape:
    """The same value for two placements exactly when they are the same coloured variant:
    the least, over the allowed symmetries, of the image's normalised cells with each
    cell's colour on the board carried along (a translation that keeps colours is then
    the one that makes the carried colours the colours of the cells it lands on)."""
    images = []
    for transform in (SQUARE_SYMMETRIES[symmetry] for symmetry in kind_symmetries(kind)):
        moved = sorted((*transform(x, y), colouring(x, y)) for x, y in placed)
        min_x = min(x for x, _, _ in moved)
        min_y = min(y for _, y, _ in moved)
        shifted = sorted((x - min_x, y - min_y, colour) for x, y, colour in moved)
        images.append((tuple((x, y) for x, y, _ in shifted), tuple(colour for _, _, colour in shifted)))
    return min(images)


def coloured_variants(
    piece: PieceType, region: Region, colouring: Colouring, *, by_counts: bool = False
) -> list[Variant]:
    """The piece's coloured variants, each with its placements in the region (a variant
    with none is kept: it is still a choice the equations may not make).  ``by_counts``:
    variants with the same colour counts are one (the equations cannot tell them apart).

    Names: the piece's name when it has one variant; else its colour counts, ``F[2,1,2]``,
    with ``:a``, ``:b``, ... when variants share their counts."""
    grouped: dict[ColouredShape, list[Cells]] = {}
    for orientation in piece.orientations():
        # Every colouring of the orientation: its first cell on each colour in turn.
        by_colour = [
            canonical_colouring(tuple((x + step, y) for x, y in orientation), piece.kind, colouring)
            for step in range(colouring.colours)
        ]
        for key in by_colour:
            grouped.setdefault(key, [])
        x0, y0 = orientation[0]
        base = colouring(x0, y0)
        for placed in placements([orientation], region):
            grouped[by_colour[(colouring(*placed[0]) - base) % colouring.colours]].append(placed)
    if by_counts:
        merged: dict[ColouredShape, list[Cells]] = {}
        for key, placed_all in grouped.items():
            counts = colouring_counts(key, colouring.colours)
            merged.setdefault(((), tuple(c for c, n in enumerate(counts) for _ in range(n))), []).extend(placed_all)
        grouped = merged
    keys = sorted(grouped, key=lambda key: (colouring_counts(key, colouring.colours), key))
    if len(keys) == 1:
        return [Variant(piece.name, piece, colouring_counts(keys[0], colouring.colours), tuple(grouped[keys[0]]))]
    variants = []
    for key in keys:
        counts = colouring_counts(key, colouring.colours)
        same = [other for other in keys if colouring_counts(other, colouring.colours) == counts]
        name = f"{piece.name}[{','.join(map(str, counts))}]"
        if len(same) > 1:
            index = same.index(key)
            name += f":{'abcdefghijklmnopqrstuvwxyz'[index] if len(same) <= 26 else index + 1}"
        variants.append(Variant(name, piece, counts, tuple(grouped[key])))
    return variants


def colouring_counts(key: ColouredShape, colours: int) -> tuple[int, ...]:
    found = [0] * colours
    for colour in key[1]:
        found[colour] += 1
    return tuple(found)
