"""Coloured variants of a piece on the checkerboard (cell (x, y) black when x + y is even).

A placement covers black and white cells; its *coloured variant* is its shape together
with those colours, up to the symmetries the piece's kind allows.  Every placement has
exactly one variant.  A piece has at most two variants: the allowed symmetries move any
orientation onto any other, so only the two colourings of one orientation can differ.
"""

from __future__ import annotations

import attrs

from polytile_core.plugin import SQUARE_SYMMETRIES, Cells, Kind, PieceType, Region, kind_symmetries, placements

# A coloured shape: its normalised cells and which of them are black.
ColouredShape = tuple[Cells, Cells]


@attrs.frozen
class Variant:
    """One coloured variant of a piece, with every placement of it in the region."""

    name: str
    piece: PieceType
    black: int
    white: int
    placements: tuple[Cells, ...]

    @property
    def parity(self) -> int:
        return self.black - self.white


def canonical_colouring(placed: Cells, kind: Kind) -> ColouredShape:
    """The same value for two placements exactly when they are the same coloured variant.

    The images under the allowed symmetries keep each cell's colour; an image is put
    back on the board by a translation that keeps colours (even dx + dy).
    """
    images = []
    for transform in (SQUARE_SYMMETRIES[symmetry] for symmetry in kind_symmetries(kind)):
        moved = [transform(x, y) for x, y in placed]
        colour = {transform(x, y): (x + y) % 2 == 0 for x, y in placed}
        min_x = min(x for x, _ in moved)
        min_y = min(y for _, y in moved)
        shifted = sorted((x - min_x, y - min_y, colour[(x, y)]) for x, y in moved)
        images.append((tuple((x, y) for x, y, _ in shifted), tuple((x, y) for x, y, black in shifted if black)))
    return min(images)


def coloured_variants(piece: PieceType, region: Region, *, with_placements: bool = True) -> list[Variant]:
    """The piece's coloured variants (one or two), each with its placements in the region.

    Names: ``F+``/``F-`` for an unbalanced piece (more black / more white cells),
    ``L:a``/``L:b`` for a balanced piece with two variants, the piece's own name when a
    symmetry swaps the colours (one variant: domino, I-tetromino, square, ...).
    Without ``with_placements`` the variants have none (their parities need no region).
    """
    grouped: dict[ColouredShape, list[Cells]] = {}
    for orientation in piece.orientations():
        # Both colourings of every orientation, so a variant with no placement still exists.
        by_shift = [canonical_colouring(tuple((x + shift, y) for x, y in orientation), piece.kind) for shift in (0, 1)]
        for key in by_shift:
            grouped.setdefault(key, [])
        (x0, y0) = orientation[0]
        for placed in placements([orientation], region) if with_placements else ():
            grouped[by_shift[(placed[0][0] + placed[0][1] - x0 - y0) % 2]].append(placed)
    keys = sorted(grouped, key=lambda key: (-(2 * len(key[1]) - len(key[0])), key))
    if len(keys) == 1:
        names = [piece.name]
    elif 2 * len(keys[0][1]) != len(keys[0][0]):
        names = [f"{piece.name}+", f"{piece.name}-"]
    else:
        names = [f"{piece.name}:a", f"{piece.name}:b"]
    return [
        Variant(name, piece, len(key[1]), len(key[0]) - len(key[1]), tuple(grouped[key]))
        for name, key in zip(names, keys, strict=True)
    ]


def region_colours(region: Region) -> tuple[int, int]:
    """(black, white) cells of the region."""
    black = sum(1 for x, y in region.cells if (x + y) % 2 == 0)
    return black, region.area - black
