"""Furmanek's enclosure ILP, made exact: place every piece so the fence encloses the most cells.

Variables, all 0-1:

- ``x[p]`` one per placement (a piece in one orientation at one translation on the board);
- ``b[c]`` boundary: ``b[c] = sum of x[p] covering c`` (so pieces never overlap);
- ``i[c]`` interior, only for cells whose every neighbour lies on the board: the cells
  off the board are the forced-exterior frame, which stops the "inside-out" answer.

Constraints: each piece used at most its count on the board (the rest are parked far
away, where they change nothing); ``i[c] + b[c] <= 1``; and closure,
``i[c] <= i[n] + b[n]`` for every neighbour ``n`` (8 neighbours under the classic rule,
where the outside leaks through corners; 4 under Furmanek's literal rule).  A closed set
of interior cells cannot reach the frame, so every cell marked interior is enclosed; and
maximising ``sum i`` marks every enclosed cell.  With ``score = "region"`` the interior
must also be one connected pocket, which a single-commodity flow from one root enforces.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import attrs

from polytile_core.plugin import (
    SQUARE_SYMMETRIES,
    Cell,
    Cells,
    InputError,
    Model,
    PieceType,
    Placement,
    Region,
    kind_symmetries,
    normalise,
    placements,
)
from polytile_enclosure.check import steps
from polytile_enclosure.options import MAX_BOARD_CELLS, EncloseOptions, check_board_cells

RULES = {
    8: "classic: 8 neighbours, the outside leaks through corners (pieces close a fence edge to edge)",
    4: "4 neighbours: a corner contact closes the fence (Furmanek's literal rule)",
}
SCORES = {"pockets": "pockets: every enclosed cell counts", "region": "region: one connected enclosed region"}


@attrs.frozen
class EnclosureProblem:
    """The problem as stated, for the fence backend (``Model.problem``): it searches the
    plane and then moves its fence onto the model's board."""

    pieces: tuple[PieceType, ...]
    neighbours: int
    score: str
    # An automatic board sized for every pocket holds every fence (docs/enclosure.md).
    board_holds_every_fence: bool
    # List every optimal fence up to the pieces' symmetries, not just one.
    list_optimal: bool = False
    # The fence finder's (sets too large for the proof): its checkpoint file and the
    # rounds of the relaxed bound.
    checkpoint: str | None = None
    bound_rounds: int = 40


def fence_cells(pieces: Sequence[PieceType]) -> int:
    return sum(piece.area * (piece.maximum or 0) for piece in pieces)  # build() refuses unlimited pieces


def loop_cells(width: int, height: int, neighbours: int) -> int:
    """The fewest fence cells around a pocket whose bounding box is width × height.

    Classic rule: the fence must hold an edge-joined closed loop spanning (w + 2) × (h + 2),
    so 2w + 2h + 4 cells.  4-neighbour rule: a corner-joined loop (a diamond is the
    thriftiest), at least 2·max(w, h) + 2 cells.
    """
    if neighbours == 8:
        return 2 * width + 2 * height + 4
    return 2 * max(width, height) + 2


def least_board_cells(pieces: Sequence[PieceType], neighbours: int, least_area: int = 1) -> int:
    """A lower bound on the automatic board's cells, cheap where ``auto_board`` is not: that
    board holds the box of the largest square pocket the pieces can fence in."""
    cells = fence_cells(pieces)
    side = (cells - 4) // 4 if neighbours == 8 else (cells - 2) // 2  # loop_cells(side, side) <= cells
    if side < 1 or side * side < least_area:
        return 0
    return (side + 2) ** 2


def longest_side(pieces: Sequence[PieceType]) -> int:
    return max(
        max(max(x for x, _ in shape), max(y for _, y in shape)) + 1
        for piece in pieces
        for shape in piece.orientations()
    )


def fence_boxes(pieces: Sequence[PieceType], neighbours: int, least_area: int = 1) -> set[tuple[int, int]]:
    """Every width × height a fence around a pocket of at least ``least_area`` cells can
    span (docs/enclosure.md, "The board").

    A pocket with a w × h bounding box needs a loop of ``loop_cells(w, h)`` cells in a
    (w + 2) × (h + 2) box.  The pieces touching the loop stick out of that box by at most
    ``longest - 1`` on each side; sticking out ``ex`` columns and ``ey`` rows in all takes
    at least ``ex + ey`` cells beyond the loop, and only the cells left over are there.
    """
    cells, reach = fence_cells(pieces), 2 * (longest_side(pieces) - 1)
    boxes = set()
    for width in range(1, cells):
        for height in range(1, cells):
            spare = cells - loop_cells(width, height, neighbours)
            if spare < 0 or width * height < least_area:
                continue
            for out_x in range(min(spare, reach) + 1):
                boxes.add((width + 2 + out_x, height + 2 + min(spare - out_x, reach)))
    return boxes


def holds(width: int, height: int, boxes: Iterable[tuple[int, int]], pieces: Sequence[PieceType]) -> bool:
    """Whether a width × height board holds every box, turned if need be when every piece
    may turn (a fence of fixed pieces cannot be turned)."""
    turn = all(piece.kind != "fixed" for piece in pieces)
    return all((w <= width and h <= height) or (turn and h <= width and w <= height) for w, h in boxes)


def auto_board(pieces: Sequence[PieceType], neighbours: int, least_area: int = 1) -> tuple[int, int]:
    """The smallest board (fewest cells, width <= height) that holds every fence box and
    every piece: no fence enclosing ``least_area`` or more is too big for it."""
    boxes = fence_boxes(pieces, neighbours, least_area) | {(longest_side(pieces),) * 2}
    side = max(max(box) for box in boxes)
    best = (side, side)
    for width in range(1, side + 1):
        height = next((h for h in range(width, side + 1) if holds(width, h, boxes, pieces)), None)
        if height is not None and width * height < best[0] * best[1]:
            best = (width, height)
    return best


def symmetry_group(pieces: Sequence[PieceType], board: Region) -> list[int]:
    """The board symmetries that also map every piece's allowed orientations onto themselves."""
    kinds = {piece.kind for piece in pieces}
    return [s for s in board.symmetries() if all(s in kind_symmetries(kind) for kind in kinds)]


def pinned_orientations(pieces: Sequence[PieceType], group: list[int]) -> tuple[str, list[Cells]] | None:
    """One piece used exactly once whose orientations the group moves freely, with one
    orientation per orbit: fixing it there removes the board's symmetry."""
    if len(group) < 2:
        return None
    for piece in pieces:
        if piece.minimum != 1 or piece.maximum != 1:
            continue
        shapes = piece.orientations()
        orbits: dict[frozenset[Cells], Cells] = {}
        free = True
        for shape in shapes:
            images = [normalise(SQUARE_SYMMETRIES[s](x, y) for x, y in shape) for s in group]
            if len(set(images)) != len(group):
                free = False
                break
            orbits.setdefault(frozenset(images), shape)
        if free:
            return piece.name, list(orbits.values())
    return None


def build(
    pieces: tuple[PieceType, ...], region: Region | None, options: EncloseOptions | None, rows: bool = True
) -> Model:
    """The grid model, or with ``rows=False`` the statement alone (the board, the
    problem, the details) for the fence backend, which adds the variables of its answers."""
    options = options or EncloseOptions()
    for piece in pieces:
        if piece.maximum is None:
            raise InputError(
                f"piece {piece.name!r} is unlimited; an enclosure needs a fixed number of pieces", path="pieces"
            )
        if piece.minimum != piece.maximum:
            raise InputError(f"piece {piece.name!r} needs an exact count (count = k) in an enclosure", path="pieces")
    board, how, rectangle = _board(pieces, region, options)
    if not interior_cells(board.cells, options.neighbours):
        raise InputError(
            f"the board ({how}) has no cell away from its edge, so nothing can be enclosed", path="options.enclose"
        )
    for piece in pieces:
        if not any(_fits(shape, board.cells) for shape in piece.orientations()):
            raise InputError(f"piece {piece.name!r} does not fit on the board ({how})", path="options.enclose")
    if options.list_optimal and rows:
        raise InputError(
            "list_optimal lists fences with the fence backend (the default for enclose); "
            "the grid model finds one best fence",
            path="options.enclose.list_optimal",
        )
    model = Model(name="enclose")
    broken = _write_grid(model, pieces, board, rectangle, options) if rows else []
    if not rows:
        model.objective = {}  # the fence backend adds the interior cells of its answers
    model.maximize = True
    model.board = frozenset(board.cells)
    automatic = region is None and options.width is None and options.height is None and options.size_for_area <= 1
    model.problem = EnclosureProblem(
        pieces,
        options.neighbours,
        options.score,
        board_holds_every_fence=automatic,
        list_optimal=options.list_optimal,
        checkpoint=options.finder_checkpoint,
        bound_rounds=options.bound_rounds,
    )
    model.details = {
        "rule": RULES[options.neighbours],
        "score": SCORES[options.score],
        "board": how,
        "fence cells": fence_cells(pieces),
        "parking": "a piece touching no pocket's fence may be left off the board (it could lie anywhere outside)",
    }
    # The bound first: with many pieces fence_boxes and auto_board take minutes.
    least = least_board_cells(pieces, options.neighbours, options.size_for_area)
    if least > board.width * board.height or not holds(
        board.width, board.height, fence_boxes(pieces, options.neighbours, options.size_for_area), pieces
    ):
        safe = (
            "×".join(map(str, auto_board(pieces, options.neighbours, options.size_for_area)))
            if least <= MAX_BOARD_CELLS
            else f"no board of {MAX_BOARD_CELLS} cells"
        )
        model.details["warning"] = (
            f"the board cannot hold every fence the pieces can make ({safe} can): the best fence may not fit"
            if options.size_for_area <= 1
            else f"the board cannot hold every fence enclosing {options.size_for_area} or more ({safe} can): "
            "such a fence may not fit"
        )
    if broken:
        model.details["symmetry"] = "; ".join(broken)
    return model


def interior_cells(cells: frozenset[Cell], neighbours: int) -> list[Cell]:
    """The cells that can be enclosed: every neighbour on the board (off it is outside)."""
    moves = steps(neighbours)
    return sorted(c for c in cells if all((c[0] + dx, c[1] + dy) in cells for dx, dy in moves))


def _fits(shape: Cells, cells: frozenset[Cell]) -> bool:
    anchor_x, anchor_y = shape[0]
    return any(all((x + bx - anchor_x, y + by - anchor_y) in cells for x, y in shape) for bx, by in cells)


def _write_grid(
    model: Model, pieces: Sequence[PieceType], board: Region, rectangle: bool, options: EncloseOptions
) -> list[str]:
    """Furmanek's ILP made exact (the module's docstring); returns the symmetry broken."""
    moves = steps(options.neighbours)
    cells = board.cells
    group = symmetry_group(pieces, board) if options.symmetry_breaking else [0]
    pinned = pinned_orientations(pieces, group)
    covering: dict[Cell, list[int]] = {cell: [] for cell in cells}
    for piece in pieces:
        shapes = pinned[1] if pinned and pinned[0] == piece.name else piece.orientations()
        variables = []
        for number, placed in enumerate(placements(shapes, board)):
            var = model.add_variable(f"{piece.name}#{number}", placement=Placement(piece.name, placed))
            variables.append(var)
            for cell in placed:
                covering[cell].append(var)
        # Copies left off the board are parked far away, where they cannot change any pocket.
        model.add_constraint([(var, 1) for var in variables], "<=", piece.minimum, f"piece {piece.name}")

    enclosable = interior_cells(cells, options.neighbours)
    needs_boundary = set(enclosable) | {(x + dx, y + dy) for x, y in enclosable for dx, dy in moves}
    boundary: dict[Cell, int] = {}
    for cell in sorted(needs_boundary):
        var = model.add_variable(f"boundary {cell[0]},{cell[1]}", decision=False)
        boundary[cell] = var
        model.add_constraint([(var, 1)] + [(p, -1) for p in covering[cell]], "==", 0, f"boundary {cell[0]},{cell[1]}")
    for cell in sorted(cells - needs_boundary):
        if len(covering[cell]) > 1:
            model.add_constraint([(p, 1) for p in covering[cell]], "<=", 1, f"no overlap {cell[0]},{cell[1]}")

    interior: dict[Cell, int] = {}
    for cell in enclosable:
        var = model.add_variable(f"interior {cell[0]},{cell[1]}")
        interior[cell] = var
        model.interior[var] = cell
    for (x, y), var in interior.items():
        model.add_constraint([(var, 1), (boundary[(x, y)], 1)], "<=", 1, f"interior or fence {x},{y}")
        for dx, dy in moves:
            near = (x + dx, y + dy)
            terms = [(var, 1), (boundary[near], -1)]
            if near in interior:
                terms.append((interior[near], -1))
            model.add_constraint(terms, "<=", 0, f"closure {x},{y} to {near[0]},{near[1]}")

    pinned_to_edges = rectangle and options.symmetry_breaking
    if pinned_to_edges:
        top_row, left_column = min(y for _, y in cells), min(x for x, _ in cells)
        top = {p for (_, y), ps in covering.items() if y == top_row for p in ps}
        left = {p for (x, _), ps in covering.items() if x == left_column for p in ps}
        model.add_constraint([(p, 1) for p in sorted(top)], ">=", 1, "fence touches the top edge")
        model.add_constraint([(p, 1) for p in sorted(left)], ">=", 1, "fence touches the left edge")

    if options.score == "region":
        _connect(model, interior, moves, len(enclosable))
    model.objective = {var: 1 for var in interior.values()}
    broken = [f"piece {pinned[0]} in {len(pinned[1])} of its orientations"] if pinned else []
    if pinned_to_edges:
        broken.append("fence touches the board's top and left edges")
    return broken


def _board(pieces: Sequence[PieceType], region: Region | None, options: EncloseOptions) -> tuple[Region, str, bool]:
    """The board, a description of where it came from, and whether it is a rectangle."""
    given = options.width is not None or options.height is not None
    if given and region is not None:
        raise InputError("give the board as [region] or as width/height here, not both", path="options.enclose")
    if region is not None:
        check_board_cells(region.area, f"the [region] has {region.area} cells", "region")
        full = len(region.cells) == region.width * region.height and min(region.cells) == (0, 0)
        return region, f"the [region], {region.width}×{region.height}", full
    if options.width is not None and options.height is not None:  # EncloseOptions checked their size
        return Region.rectangle(options.width, options.height), f"{options.width}×{options.height}", True
    least = least_board_cells(pieces, options.neighbours, options.size_for_area)
    too_many = "; give a smaller board as options.enclose.width and height"
    cells = fence_cells(pieces)
    check_board_cells(
        least,
        f"the pieces hold {cells} cells, so a board sized from them has at least {least} cells",
        "pieces",
        too_many,
    )
    width, height = auto_board(pieces, options.neighbours, options.size_for_area)
    check_board_cells(
        width * height,
        f"the board sized from the pieces, {width}×{height}, has {width * height} cells",
        "pieces",
        too_many,
    )
    if options.size_for_area > 1:
        return (
            Region.rectangle(width, height),
            f"{width}×{height}, sized from the pieces for pockets of at least {options.size_for_area} cells",
            True,
        )
    return Region.rectangle(width, height), f"{width}×{height}, sized from the pieces", True


def _connect(model: Model, interior: dict[Cell, int], moves: Sequence[Cell], size: int) -> None:
    """Make the interior one connected pocket: a root sends one unit of flow to every
    other interior cell along interior-to-interior steps.  Flows are integers written
    in binary with 0-1 variables, so the model stays a 0-1 program."""
    bits = max(1, math.ceil(math.log2(size + 1)))

    def integer(label: str) -> list[tuple[int, int]]:
        return [(model.add_variable(f"{label} bit {k}", decision=False), 1 << k) for k in range(bits)]

    roots = {}
    inflow: dict[Cell, list[tuple[int, int]]] = {cell: [] for cell in interior}
    outflow: dict[Cell, list[tuple[int, int]]] = {cell: [] for cell in interior}
    for cell, var in interior.items():
        root = model.add_variable(f"root {cell[0]},{cell[1]}", decision=False)
        roots[cell] = root
        model.add_constraint([(root, 1), (var, -1)], "<=", 0, f"root is interior {cell[0]},{cell[1]}")
        supply = integer(f"supply {cell[0]},{cell[1]}")
        model.add_constraint(supply + [(root, -size)], "<=", 0, f"supply only at the root {cell[0]},{cell[1]}")
        inflow[cell] += supply
        for dx, dy in moves:
            near = (cell[0] + dx, cell[1] + dy)
            if near not in interior:
                continue
            flow = integer(f"flow {cell[0]},{cell[1]} to {near[0]},{near[1]}")
            model.add_constraint(flow + [(var, -size)], "<=", 0, f"flow leaves interior {cell[0]},{cell[1]}")
            model.add_constraint(flow + [(interior[near], -size)], "<=", 0, f"flow enters interior {near[0]},{near[1]}")
            outflow[cell] += flow
            inflow[near] += flow
    model.add_constraint([(root, 1) for root in roots.values()], "<=", 1, "one root")
    for cell, var in interior.items():
        terms = inflow[cell] + [(v, -c) for v, c in outflow[cell]] + [(var, -1)]
        model.add_constraint(terms, "==", 0, f"flow balance {cell[0]},{cell[1]}")
