"""An independent tiling counter for tests: its own rotations, its own search.

It shares no code with polytile, so counts it gives can check polytile's counts.
"""

from __future__ import annotations


def _shapes(rows, kind):
    cells = {(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "#"}
    found = set()
    current = cells
    for turn in range(4 if kind != "fixed" else 1):
        for mirrored in ((False, True) if kind == "free" else (False,)):
            shape = {(-x, y) for x, y in current} if mirrored else current
            mx, my = min(x for x, _ in shape), min(y for _, y in shape)
            found.add(frozenset((x - mx, y - my) for x, y in shape))
        current = {(y, -x) for x, y in current}
    return found


def count_tilings(region_cells, pieces):
    """pieces: list of (rows, kind, copies); copies None = unlimited."""
    region = set(region_cells)
    kinds = [(_shapes(rows, kind), copies) for rows, kind, copies in pieces]
    left = [copies for _, copies in kinds]

    def search(empty):
        if not empty:
            return 1 if all(c in (0, None) for c in left) else 0
        first = min(empty, key=lambda c: (c[1], c[0]))
        total = 0
        for index, (shapes, _) in enumerate(kinds):
            if left[index] == 0:
                continue
            for shape in shapes:
                ax, ay = min(shape, key=lambda c: (c[1], c[0]))
                placed = {(x - ax + first[0], y - ay + first[1]) for x, y in shape}
                if placed <= empty:
                    if left[index] is not None:
                        left[index] -= 1
                    total += search(empty - placed)
                    if left[index] is not None:
                        left[index] += 1
        return total

    return search(frozenset(region))
