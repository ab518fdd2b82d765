"""polytile's one independent tiling lister and counter: its own rotations, its own
search, sharing no code with the model builder or any backend; and independent checks
of one tiling."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from polytile_core.model.geometry import Cell
from polytile_core.model.problem import PieceType
from polytile_core.model.zero_one import Model
from polytile_core.testing.instances import Instance


def _turn(cells: Iterable[Cell]) -> set[Cell]:
    return {(-y, x) for x, y in cells}


def _mirror(cells: Iterable[Cell]) -> set[Cell]:
    return {(-x, y) for x, y in cells}


def _at_origin(cells: Iterable[Cell]) -> frozenset[Cell]:
    cells = list(cells)
    low_x, low_y = min(x for x, _ in cells), min(y for _, y in cells)
    return frozenset((x - low_x, y - low_y) for x, y in cells)


def own_orientations(cells: Iterable[Cell], kind: str) -> set[frozenset[Cell]]:
    """The orientations of a shape, computed here without polytile's geometry module."""
    current = set(cells)
    found = set()
    for _ in range(1 if kind == "fixed" else 4):
        for mirrored in (False, True) if kind == "free" else (False,):
            found.add(_at_origin(_mirror(current) if mirrored else current))
        current = _turn(current)
    return found


Tiling = frozenset[tuple[str, frozenset[Cell]]]


def tilings_brute_force(region_cells: Iterable[Cell], pieces: Iterable[PieceType]) -> Iterator[Tiling]:
    """Every tiling, as a set of (piece name, cells), by covering the first empty cell (top
    row first) in every way.

    Independent of the model builder and of every backend: its own orientations, its
    own search, multiplicities checked at the end (``maximum`` None is unlimited); a
    branch stops early only when the cells left are fewer than the copies still needed cover.
    """
    pieces = list(pieces)
    shapes = [sorted(own_orientations(piece.cells, piece.kind), key=sorted) for piece in pieces]
    used = [0] * len(pieces)
    placed: list[tuple[str, frozenset[Cell]]] = []

    def search(empty: frozenset[Cell]) -> Iterator[Tiling]:
        needed = sum(max(piece.minimum - used[i], 0) * len(piece.cells) for i, piece in enumerate(pieces))
        if len(empty) < needed:
            return
        if not empty:
            yield frozenset(placed)
            return
        first_x, first_y = min(empty, key=lambda cell: (cell[1], cell[0]))
        for index, piece in enumerate(pieces):
            if piece.maximum is not None and used[index] >= piece.maximum:
                continue
            for shape in shapes[index]:
                anchor_x, anchor_y = min(shape, key=lambda cell: (cell[1], cell[0]))
                cells = frozenset((x - anchor_x + first_x, y - anchor_y + first_y) for x, y in shape)
                if cells <= empty:
                    used[index] += 1
                    placed.append((piece.name, cells))
                    yield from search(empty - cells)
                    placed.pop()
                    used[index] -= 1

    return search(frozenset(region_cells))


def count_tilings_brute_force(region_cells: Iterable[Cell], pieces: Iterable[PieceType]) -> int:
    """Number of tilings (``tilings_brute_force``, counted)."""
    return sum(1 for _ in tilings_brute_force(region_cells, pieces))


def _plane_symmetries() -> list:
    """The eight symmetries of the square as maps on sets of cells: four turns, each
    with and without a mirror."""
    maps = []
    for turns in range(4):
        for mirrored in (False, True):

            def move(cells: Iterable[Cell], turns: int = turns, mirrored: bool = mirrored) -> set[Cell]:
                cells = _mirror(cells) if mirrored else set(cells)
                for _ in range(turns):
                    cells = _turn(cells)
                return cells

            maps.append(move)
    return maps


def picture_symmetries(region_cells: Iterable[Cell], pieces: Iterable[PieceType]) -> list:
    """The symmetries that count when tilings are compared as pictures, by the published
    rule: a symmetry of the region whose image of every piece's allowed orientations is
    the allowed orientations of a piece with the same multiplicity bounds (pieces alike
    in both keep their order).  Each as a map on tilings; computed with this module's own
    geometry, for checking polytile's distinct counts."""
    region = frozenset(region_cells)
    pieces = list(pieces)
    alike: dict[tuple, list[str]] = {}
    for piece in pieces:
        key = (frozenset(own_orientations(piece.cells, piece.kind)), piece.minimum, piece.maximum)
        alike.setdefault(key, []).append(piece.name)
    found = []
    for move in _plane_symmetries():
        moved_region = move(region)
        if _at_origin(moved_region) != _at_origin(region):
            continue
        shift_x = min(x for x, _ in region) - min(x for x, _ in moved_region)
        shift_y = min(y for _, y in region) - min(y for _, y in moved_region)
        renaming: dict[str, str] = {}
        for (forms, low, high), names in alike.items():
            partners = alike.get((frozenset(_at_origin(move(form)) for form in forms), low, high), [])
            if len(partners) != len(names):
                break
            renaming.update(zip(names, partners, strict=True))
        else:

            def act(
                tiling: Tiling,
                move: Callable[[Iterable[Cell]], set[Cell]] = move,
                shift: Cell = (shift_x, shift_y),
                renaming: dict[str, str] = renaming,
            ) -> Tiling:
                return frozenset(
                    (renaming[name], frozenset((x + shift[0], y + shift[1]) for x, y in move(cells)))
                    for name, cells in tiling
                )

            found.append(act)
    return found


def count_pictures_brute_force(region_cells: Iterable[Cell], pieces: Iterable[PieceType]) -> int:
    """Number of tilings up to ``picture_symmetries``: every tiling listed, each class
    counted at its smallest member."""
    region_cells, pieces = list(region_cells), list(pieces)
    symmetries = picture_symmetries(region_cells, pieces)

    def image(tiling: Tiling) -> tuple:
        return tuple(sorted((name, tuple(sorted(cells))) for name, cells in tiling))

    return len({min(image(act(tiling)) for act in symmetries) for tiling in tilings_brute_force(region_cells, pieces)})


def tiling_problems(instance: Instance, model: Model, ones: Iterable[int]) -> list[str]:
    """What is wrong with a tiling reported as model variables (empty when it is a true
    tiling); see ``placement_problems``."""
    placed, problems = [], []
    for var in ones:
        placement = model.placements.get(var)
        if placement is None:
            problems.append(f"variable {var} is not a placement")
        else:
            placed.append((placement.piece, placement.cells))
    return problems + placement_problems(instance.region.cells, instance.pieces, placed)


def placement_problems(
    region_cells: Iterable[Cell], pieces: Iterable[PieceType], placed: Iterable[tuple[str, Iterable[Cell]]]
) -> list[str]:
    """What is wrong with a tiling given as ``(piece name, cells)`` pairs (empty when it is
    a true tiling): every cell covered once, each placement a copy of its piece in an
    allowed orientation, each piece within its multiplicity.  Shares no code with the
    model builder or any backend."""
    problems = []
    region = set(region_cells)
    covered: dict[Cell, int] = {}
    by_name = {piece.name: piece for piece in pieces}
    used = dict.fromkeys(by_name, 0)
    for name, cells in placed:
        cells = tuple(cells)
        piece = by_name.get(name)
        if piece is None:
            problems.append(f"{name!r} is not one of the pieces")
            continue
        used[name] += 1
        low_x = min(x for x, _ in cells)
        low_y = min(y for _, y in cells)
        if frozenset((x - low_x, y - low_y) for x, y in cells) not in own_orientations(piece.cells, piece.kind):
            problems.append(f"{name} at {sorted(cells)} is not a {piece.kind} orientation of it")
        for cell in cells:
            covered[cell] = covered.get(cell, 0) + 1
    twice = sorted(cell for cell, times in covered.items() if times > 1)
    missing = sorted(region - set(covered))
    outside = sorted(set(covered) - region)
    for what, cells in (("covered twice", twice), ("not covered", missing), ("outside the region", outside)):
        if cells:
            problems.append(f"cells {what}: {cells}")
    for name, times in used.items():
        piece = by_name[name]
        if times < piece.minimum or (piece.maximum is not None and times > piece.maximum):
            problems.append(f"{name} used {times} times, allowed {piece.minimum}..{piece.maximum}")
    return problems
