"""The enclosure checker: a flood fill of the outside, independent of the model.

It looks only at the fence cells and the board: every cell off the board is outside,
the outside spreads to any neighbour that is not fence (8 neighbours under the classic
rule, so it leaks through a corner where two fence cells touch only diagonally; 4 under
the literal rule), and what it cannot reach, minus the fence, is enclosed.
"""

from __future__ import annotations

from collections.abc import Iterable

from polytile_core.plugin import EDGE_STEPS, KING_STEPS, Cell, components


class EnclosureCheckError(AssertionError):
    """The model's answer disagrees with the flood fill: a bug, never bad input."""


def steps(neighbours: int) -> tuple[Cell, ...]:
    """The moves of the outside (and of connectivity inside) under a rule."""
    return KING_STEPS if neighbours == 8 else EDGE_STEPS


def enclosed_pockets(fence: Iterable[Cell], board: Iterable[Cell], neighbours: int = 8) -> list[frozenset[Cell]]:
    """The pockets the fence encloses on the board, largest first.

    A pocket is a connected set (under the same neighbour rule as the leak) of board
    cells that are not fence and that the outside cannot reach.
    """
    fence, board = set(fence), set(board)
    moves = steps(neighbours)
    xs = [x for x, _ in board | fence]
    ys = [y for _, y in board | fence]
    low_x, high_x, low_y, high_y = min(xs) - 1, max(xs) + 1, min(ys) - 1, max(ys) + 1

    def inside_box(cell: Cell) -> bool:
        return low_x <= cell[0] <= high_x and low_y <= cell[1] <= high_y

    outside = {
        (x, y)
        for x in range(low_x, high_x + 1)
        for y in range(low_y, high_y + 1)
        if (x, y) not in board and (x, y) not in fence
    }
    frontier = list(outside)
    while frontier:
        x, y = frontier.pop()
        for dx, dy in moves:
            cell = (x + dx, y + dy)
            if inside_box(cell) and cell not in outside and cell not in fence:
                outside.add(cell)
                frontier.append(cell)
    return components(board - fence - outside, moves)


def enclosed_area(fence: Iterable[Cell], board: Iterable[Cell], neighbours: int = 8, score: str = "pockets") -> int:
    """The score of a fence: all enclosed cells (``pockets``) or the largest pocket (``region``)."""
    pockets = enclosed_pockets(fence, board, neighbours)
    if score == "region":
        return len(pockets[0]) if pockets else 0
    return sum(len(pocket) for pocket in pockets)


def check_fence(
    fence: Iterable[Cell],
    interior: Iterable[Cell],
    objective: int | None,
    board: Iterable[Cell],
    neighbours: int,
    score: str,
) -> None:
    """Raise ``EnclosureCheckError`` unless the model's interior and objective are what the
    flood fill finds: every pocket (``pockets``), or exactly one whole pocket (``region``)."""
    fence, interior = list(fence), frozenset(interior)
    if len(set(fence)) != len(fence):
        raise EnclosureCheckError("two pieces of the fence overlap")
    pockets = enclosed_pockets(fence, board, neighbours)
    if objective != len(interior):
        raise EnclosureCheckError(f"the objective is {objective} but the model marks {len(interior)} cells interior")
    if score == "region":
        if interior not in pockets and (interior or pockets):
            sizes = [len(pocket) for pocket in pockets]
            raise EnclosureCheckError(
                f"the model's region ({len(interior)} cells) is not one pocket of the fence (pockets: {sizes})"
            )
        return
    truth = frozenset().union(*pockets)
    if interior != truth:
        raise EnclosureCheckError(
            f"the model says {len(interior)} cells are enclosed, the flood fill finds {len(truth)} "
            f"({len(interior - truth)} marked but open, {len(truth - interior)} enclosed but unmarked)"
        )
