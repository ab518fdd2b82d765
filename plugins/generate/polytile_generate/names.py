"""Stable names for the n-ominoes and for their one-sided and fixed orientations.

- Free: for n <= 5 the conventional letters of ``builtin.CLASSIC_FAMILIES`` (pentominoes
  F I L N P T U V W X Y Z, tetrominoes I O T S L, ...), in that order.  For n >= 6,
  ``P{n}-{k}``, numbered from 1 in increasing canonical form and zero-padded to the
  width of the count (``P6-01`` ... ``P6-35``).
- One-sided: a free piece ``X`` is ``X`` in its reference orientation; when its mirror
  image is not one of its rotations, that mirror image (flipped left to right) is ``X'``.
- Fixed: each one-sided piece ``S`` is ``S``, ``S@90``, ``S@180``, ``S@270``, turned
  clockwise as drawn (y grows downward), as far as the turns differ.

The reference orientation is the classic picture for a lettered piece, else the
canonical form (the smallest sorted tuple of normalised cells over the 8 symmetries).
"""

from __future__ import annotations

import numpy as np

from polytile_core.plugin import CLASSIC_FAMILIES, SQUARE_SYMMETRIES, Cells, cells_from_rows, normalise, orientations
from polytile_generate.enumerate import canonical_codes, check_kind, check_size, decode, sorted_codes

ROTATIONS = SQUARE_SYMMETRIES[:4]
MIRROR = SQUARE_SYMMETRIES[4]  # (x, y) -> (-x, y): left to right

# Classic letters by piece size: {5: {"F": cells, ...}, 4: {...}, ...}
LETTERS = {
    len(cells_from_rows(next(iter(pictures.values())))): {
        name: cells_from_rows(rows) for name, rows in pictures.items()
    }
    for pictures in CLASSIC_FAMILIES.values()
}


def _named_references(n: int) -> tuple[list[str], np.ndarray]:
    """The free n-ominoes' names and their reference orientations as sorted codes."""
    forms = canonical_codes(n, "free")
    letters = LETTERS.get(n, {})
    # Letters only when the classic family is exactly the set of free n-ominoes.
    if len(letters) == len(forms):
        shapes = [normalise(cells) for cells in letters.values()]
        x, y = np.array(shapes).transpose(2, 0, 1)
        canonical_letters = sorted(min(orientations(cells, "free")) for cells in shapes)
        lettered_x, lettered_y = np.array(canonical_letters).transpose(2, 0, 1)
        if np.array_equal(sorted_codes(lettered_x, lettered_y, n), forms):
            return list(letters), sorted_codes(x, y, n)
    digits = len(str(len(forms)))
    return [f"P{n}-{number:0{digits}d}" for number in range(1, len(forms) + 1)], forms


def free_pieces(n: int) -> list[tuple[str, Cells]]:
    """The free n-ominoes, named, each in its reference orientation."""
    n = check_size(n)
    names, codes = _named_references(n)
    return list(zip(names, decode(codes, n), strict=True))


def n_ominoes(n: int | None, kind: str = "free") -> list[tuple[str, Cells]]:
    """Every n-omino of a kind as ``(name, cells)``: free, one-sided or fixed.

    The turns and mirror images of all free pieces are computed at once with numpy:
    a piece is chiral when its mirror image is none of its turns, and it has 1, 2 or 4
    distinct turns as its quarter or half turn already gives it back.
    """
    n, kind = check_size(n), check_kind(kind)
    if kind == "free":
        return free_pieces(n)
    names, codes = _named_references(n)
    x, y = codes // n, codes % n
    mirror_x, mirror_y = MIRROR(x, y)
    turns = [sorted_codes(*turn(x, y), n) for turn in ROTATIONS]
    mirror_turns = [sorted_codes(*turn(mirror_x, mirror_y), n) for turn in ROTATIONS]
    same = [(codes == turns[0]).all(axis=1) for codes in turns]
    distinct_turns = np.where(same[1], 1, np.where(same[2], 2, 4)).tolist()
    chiral = (~np.any([(mirror_turns[0] == codes).all(axis=1) for codes in turns], axis=0)).tolist()
    used = 1 if kind == "one-sided" else 4
    turn_shapes = [decode(codes, n) for codes in turns[:used]]
    mirror_shapes = [decode(codes, n) for codes in mirror_turns[:used]]
    found = []
    for index, name in enumerate(names):
        sides = [(name, turn_shapes)] + ([(f"{name}'", mirror_shapes)] if chiral[index] else [])
        for side, shapes in sides:
            for quarter in range(1 if kind == "one-sided" else distinct_turns[index]):
                found.append((side if quarter == 0 else f"{side}@{90 * quarter}", shapes[quarter][index]))
    return found
