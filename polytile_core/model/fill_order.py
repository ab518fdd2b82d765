"""The order in which a search that fills cells one by one takes a tiling's cells.

Shared by the search kernels that fill cells in order (exactcover's bitboards) and by
the tree split, which must branch as they do: a part is then a subtree of the search,
searched once, rather than a copy of the search's top levels with a few pieces fixed
further on (measured: a split that branched on the fewest candidates made parts that
took 1.4 times the whole search in all, see docs/benchmarks/random.md).

Items are numbered 1..n (a model's ``== 1`` rows in order); ``covers[k]`` lists the
items option k covers and ``shapes[k]`` the cells its placement covers (empty when it
places no piece).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from polytile_core.model.zero_one import check_build_limits

# Covers of at most this many items are searched cell by cell, in ``scan_order``
# (exactcover's bitboards: 4 machine words); larger ones by the fewest candidates.
FILLED_IN_ORDER = 256


def scan_order(
    n_items: int, covers: Sequence[Sequence[int]], shapes: Sequence[Sequence[tuple[int, int]]]
) -> tuple[tuple[int, ...], int]:
    """(items in the order the kernels fill them, how many of them are cells): the cells
    (found as the one cell every option of a row shares) column by column along the
    shorter side of their bounding box, then the other rows."""
    # The cells every option of a row shares so far; an empty set once an option places no piece.
    shared: dict[int, set[tuple[int, int]]] = {}
    for option, (items, shape) in enumerate(zip(covers, shapes, strict=True)):
        if not option % 4096:
            check_build_limits()  # a large board takes seconds here: the run's limits hold
        for item in items:
            common = shared.get(item)
            if common is None:
                shared[item] = set(shape)
            elif len(common) == 1:  # the usual case after two options: one look-up, no new set
                if next(iter(common)) not in shape:
                    common.clear()
            elif common:
                common.intersection_update(shape)
    # Every placement covering a cell covers the cell itself: a row whose placements share
    # one cell is that cell.  Rows that share more (a cell only one placement reaches) get
    # the first cell no other row has, fewest shared first; the order is only a heuristic.
    located: dict[int, tuple[int, int]] = {}
    claimed: set[tuple[int, int]] = set()
    for item, common in sorted(shared.items(), key=lambda entry: (len(entry[1]), entry[0])):
        if not common:
            continue
        free = sorted(common - claimed)
        if free:
            located[item] = free[0]
            claimed.add(free[0])
    if not located:
        return tuple(range(1, n_items + 1)), 0
    xs = [x for x, _ in located.values()]
    ys = [y for _, y in located.values()]
    wide = max(ys) - min(ys) <= max(xs) - min(xs)  # then scan column by column

    def position(item: int) -> tuple[int, int]:
        x, y = located[item]
        return (x, y) if wide else (y, x)

    cells = sorted(located, key=position)
    return tuple(cells + [item for item in range(1, n_items + 1) if item not in located]), len(cells)


def first_branch(covers: Sequence[Sequence[int]], n_items: int) -> int:
    """The item branched on first, items numbered by their place in the scan order
    (0..n_items-1): the one with the fewest options if that is at most half as many as
    the first cell has (measured: the X pentomino restricted to 8 placements by symmetry
    breaking cuts 6×10 five-fold; unrestricted, with 32 against the corner's 37, it
    doubles the time), else the first cell."""
    reach = Counter(item for items in covers for item in items)
    fewest = min(range(n_items), key=lambda item: (reach[item], item))
    return fewest if 2 * reach[fewest] <= reach[0] else 0


def fill_order(n_items: int, covers: Sequence[Sequence[int]], shapes: Sequence[Sequence[tuple[int, int]]]) -> list[int]:
    """The items (1..n) in the order a cell-filling search branches on them: the first
    branch, then the others in scan order (each time, the first one still open)."""
    order, _ = scan_order(n_items, covers, shapes)
    position = {item: place for place, item in enumerate(order)}
    root = order[first_branch([[position[item] for item in items] for items in covers], n_items)]
    return [root, *(item for item in order if item != root)]
