"""Counting and listing polyominoes: Redelmeier's algorithm for the fixed ones, reduced
by symmetry to the one-sided and free ones.

Redelmeier (1981) grows every fixed polyomino exactly once from a root cell, on the
half-plane of cells ``y > 0 or (y == 0 and x >= 0)``: each step adds one *untried* cell,
and only cells never offered before on the current path become untried, so no
polyomino is reached twice and no set of seen shapes is needed.  Every untried cell of
an (n-1)-omino gives a distinct n-omino, so the search stops one level early and
counts (or lists) the last cells in bulk.

A one-sided (free) polyomino is counted through its one fixed orientation that is
smallest among its 4 rotations (8 rotations and reflections): its *canonical form*,
the sorted tuple of its normalised ``(x, y)`` cells.  That test runs vectorised with
numpy over batches of fixed polyominoes, so memory stays bounded for any n.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain

import numpy as np

from polytile_core.plugin import SQUARE_SYMMETRIES, SYMMETRIES_OF_KIND

# How many of the square's symmetries (rotations first) each kind identifies.
BATCH = 200_000


def check_size(n: object) -> int:
    """The size n as an int, or a ValueError that says what n must be."""
    if n is None:
        raise ValueError("the n-ominoes family needs n, the number of cells of each piece (n = 5 for pentominoes)")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a whole number of cells, 1 or more; got {n!r}")
    return n


def check_kind(kind: object) -> str:
    if kind not in SYMMETRIES_OF_KIND:
        raise ValueError(f"kind must be one of {', '.join(SYMMETRIES_OF_KIND)}; got {kind!r}")
    return kind


def _redelmeier(n: int, visit: Callable[[list[int], list[int]], None]) -> None:
    """Call ``visit(cells, extensions)`` once per fixed (n-1)-omino on the half-plane
    lattice, where each cell in ``extensions`` completes it to a distinct fixed n-omino.

    Cells are ints ``y * width + x + n``; the root (0, 0) is ``n`` and the half-plane is
    exactly the ints ``>= n``, so one comparison keeps the search on the lattice.
    """
    width = 2 * n + 1
    root = n
    offered = bytearray(width * (n + 2))
    offered[root] = 1
    polyomino: list[int] = []
    last = n - 1

    def grow(untried: list[int]) -> None:
        size = len(polyomino) + 1
        for index, cell in enumerate(untried):
            fresh = []
            for neighbour in (cell + 1, cell + width, cell - 1, cell - width):
                if neighbour >= root and not offered[neighbour]:
                    offered[neighbour] = 1
                    fresh.append(neighbour)
            polyomino.append(cell)
            remaining = untried[index + 1 :] + fresh
            if size == last:
                visit(polyomino, remaining)
            else:
                grow(remaining)
            polyomino.pop()
            for neighbour in fresh:
                offered[neighbour] = 0

    if n == 1:
        visit([], [root])
    else:
        grow([root])


def count_fixed(n: int) -> int:
    """The number of fixed n-ominoes (OEIS A001168), without building any shape."""
    total = 0

    def visit(cells: list[int], extensions: list[int]) -> None:
        nonlocal total
        total += len(extensions)

    _redelmeier(check_size(n), visit)
    return total


def _fixed_batches(n: int, on_batch: Callable[[np.ndarray, np.ndarray], None]) -> None:
    """Every fixed n-omino, handed to ``on_batch(x, y)`` as int arrays of shape
    (polyominoes, n), at most about ``BATCH`` polyominoes at a time."""
    width = 2 * n + 1
    parents: list[tuple[int, ...]] = []
    extensions: list[list[int]] = []
    pending = 0

    def flush() -> None:
        nonlocal pending
        if not pending:
            return
        repeats = [len(more) for more in extensions]
        stem = np.repeat(np.array(parents, dtype=np.int32).reshape(len(parents), n - 1), repeats, axis=0)
        tip = np.fromiter(chain.from_iterable(extensions), dtype=np.int32, count=pending)
        cells = np.column_stack([stem, tip])
        parents.clear()
        extensions.clear()
        pending = 0
        on_batch((cells % width - n).astype(np.int16), (cells // width).astype(np.int16))

    def visit(cells: list[int], more: list[int]) -> None:
        nonlocal pending
        parents.append(tuple(cells))
        extensions.append(more)
        pending += len(more)
        if pending >= BATCH:
            flush()

    _redelmeier(n, visit)
    flush()


def sorted_codes(x: np.ndarray, y: np.ndarray, n: int) -> np.ndarray:
    """Each row's normalised cells as sorted codes ``x * n + y``: comparing these rows
    lexicographically is comparing the sorted ``(x, y)`` tuples."""
    x = x - x.min(axis=1, keepdims=True)
    y = y - y.min(axis=1, keepdims=True)
    return np.sort(x * n + y, axis=1)


def _not_greater(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise ``a <= b`` in lexicographic order."""
    differ = a != b
    first = differ.argmax(axis=1)
    rows = np.arange(len(a))
    return ~differ.any(axis=1) | (a[rows, first] < b[rows, first])


def _canonical(x: np.ndarray, y: np.ndarray, n: int, kind: str) -> np.ndarray:
    """The sorted codes of the rows that are their kind's canonical form."""
    codes = sorted_codes(x, y, n)
    keep = np.arange(len(codes))
    for transform in SQUARE_SYMMETRIES[1 : SYMMETRIES_OF_KIND[kind]]:
        moved = sorted_codes(*transform(x[keep], y[keep]), n)
        keep = keep[_not_greater(codes[keep], moved)]
    return codes[keep]


def count(n: int | None, kind: str = "free") -> int:
    """The number of n-ominoes of a kind: free A000105, one-sided A000988, fixed A001168."""
    n, kind = check_size(n), check_kind(kind)
    if kind == "fixed":
        return count_fixed(n)
    total = 0

    def on_batch(x: np.ndarray, y: np.ndarray) -> None:
        nonlocal total
        total += len(_canonical(x, y, n, kind))

    _fixed_batches(n, on_batch)
    return total


def canonical_codes(n: int, kind: str = "free") -> np.ndarray:
    """Every n-omino of a kind as the sorted codes of its canonical form (one row
    each, see ``sorted_codes``), rows in increasing order."""
    n, kind = check_size(n), check_kind(kind)
    found: list[np.ndarray] = []
    _fixed_batches(n, lambda x, y: found.append(_canonical(x, y, n, kind)))
    codes = np.concatenate(found)
    return codes[np.lexsort(codes.T[::-1])]


def decode(codes: np.ndarray, n: int) -> list[tuple[tuple[int, int], ...]]:
    """Rows of sorted codes back to shapes (sorted ``(x, y)`` tuples, cells shared)."""
    cell_of = [(code // n, code % n) for code in range(n * n)]
    return [tuple(map(cell_of.__getitem__, row)) for row in codes.tolist()]
