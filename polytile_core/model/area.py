"""Each piece's copies narrowed to what the region's area leaves room for.

A tiling covers every cell once, so the pieces' areas times their copies add up to the
region's area.  On a 9×9 board less three cells with I5 ×6, Y5 ×2, O4 ×4–6, I3 ×3, L5 ×0–2
and T4 ×1, the 78 cells leave room for exactly five O4 and one L5 (4·a + 5·b = 25).  Told
so by the model's rows, a search prunes at once where it would otherwise place a sixth O4
and fail only at the board's end (the bitboard search of that board: 91 s to 15 s;
docs/method.md, "Copies narrowed by the area").

For each piece, the copies it may end with are those the other pieces can complete to the
area within their own bounds.  An unlimited piece is left unlimited: a row for it would be a
feature the model did not have (a backend that takes cell rows only would no longer take
it).  A piece with a least number of copies and no most gets the most the area leaves: it
has a row already, and a search that knows the most stops placing it there (a 46-cell
board with L3 ×1 or more, L5 ×5 and I5 ×3–5, where the area leaves exactly two L3:
dancing links took 12,578 nodes and 1.9 ms, Knuth's dlx3 1,079 nodes; with L3 ×2, 273
nodes and 0.17 ms).
"""

from __future__ import annotations

from collections.abc import Sequence

# Past this many cells times pieces squared the sums take longer than they save (a bitset
# of the area, shifted a few dozen times per piece and per other piece).
MOST_WORK = 50_000_000

Bounds = tuple[int, int | None]  # (minimum, maximum), None for no maximum


def narrowed_by_area(areas: Sequence[int], bounds: Sequence[Bounds], area: int) -> tuple[Bounds, ...]:
    """``bounds`` narrowed so that Σ areas[i] · copies[i] = ``area`` can still hold;
    unchanged when nothing can narrow (every count exact), the work would be too large, or
    no choice of copies fills the area (``TilingProblem.area_problem`` and the solvers
    report that)."""
    bounds = tuple(bounds)
    if all(low == high for low, high in bounds) or area * len(bounds) ** 2 > MOST_WORK:
        return bounds
    full = (1 << (area + 1)) - 1
    most = [
        area // size if high is None else min(high, area // size) for size, (_, high) in zip(areas, bounds, strict=True)
    ]
    narrowed = []
    for piece, ((low, high), size) in enumerate(zip(bounds, areas, strict=True)):
        if (low, high) == (0, None):
            narrowed.append((low, high))  # unlimited: no row, and none is added
            continue
        others = 1  # the sums of the other pieces' areas, as a bitset
        for other, ((other_low, _), other_size) in enumerate(zip(bounds, areas, strict=True)):
            if other != piece:
                others = _progression(others, other_size, other_low, most[other], full)
        sums = others.to_bytes(area // 8 + 1, "little")  # a bit looked up in O(1), not by shifting the whole
        fits = range(low, most[piece] + 1)
        least = next((copies for copies in fits if _holds(sums, area - copies * size)), None)
        if least is None:
            return bounds
        greatest = next(copies for copies in reversed(fits) if _holds(sums, area - copies * size))
        narrowed.append((least, greatest))
    return tuple(narrowed)


def _holds(sums: bytes, total: int) -> bool:
    """Whether the bitset ``sums`` (little-endian bytes) holds ``total``."""
    return bool(sums[total >> 3] >> (total & 7) & 1)


def _progression(reach: int, size: int, low: int, high: int, full: int) -> int:
    """``reach`` plus ``size`` times any count from ``low`` to ``high``: shifted by the
    least, then by 1, 2, 4 … more copies (each doubling the counts covered)."""
    if high < low:
        return 0
    reach = reach << (size * low) & full
    covered, extra = 0, high - low  # reach holds the sums with 0..covered more copies
    while covered < extra:
        step = min(covered + 1, extra - covered)
        reach = (reach | reach << (size * step)) & full
        covered += step
    return reach
