"""Counting without listing: a memoised first-empty-cell search.

Items are put in a scan order (for a tiling: the region's cells, column by column along
its shorter side, then the piece rows).  The search always covers the first uncovered
item, so the state is just (covered items, group totals), and the number of ways to
finish from a state is computed once.  On a narrow frontier with few piece kinds (8×8
dominoes, 9×9 with L-tetrominoes) states recur massively and millions of tilings are
counted in milliseconds; with many distinct pieces (the 12 pentominoes) they hardly
recur, the table grows without paying off, and ``MemoTooLarge`` tells the caller to
fall back to dancing links.
"""

from __future__ import annotations

import sys
import threading
import time

from polytile_exactcover.cover import CoverProblem

# Measured: 9×9 minus a corner with L-tetrominoes finds half its look-ups in the table at
# 16k states; 6×10 with the 12 pentominoes finds 8% (and dancing links wins there).
PROBE_STATES = 16_384


class MemoTooLarge(Exception):
    """The table passed its budget: counting this way does not pay off here."""


class Stopped(Exception):
    """The stop event was set or the time limit passed."""

    def __init__(self, reason: str):
        self.reason = reason


def memo_count(
    problem: CoverProblem,
    *,
    budget: float,
    probe: bool = True,
    stop: threading.Event,
    deadline: float | None,
) -> int:
    """The number of exact covers of ``problem``; raises ``Stopped``, or ``MemoTooLarge``
    when the table passes ``budget`` states or (with ``probe``) when, past
    ``PROBE_STATES`` states, fewer than one look-up in four finds a state already counted."""
    order = problem.order
    bit = {item: 1 << position for position, item in enumerate(order)}
    full = (1 << len(order)) - 1
    # For each position, the options whose first item (in scan order) is there.
    starting: list[list[tuple[int, tuple[tuple[int, int], ...]]]] = [[] for _ in order]
    for items, memberships in problem.options:
        mask = 0
        for item in items:
            mask |= bit[item]
        starting[(mask & -mask).bit_length() - 1].append((mask, memberships))
    lows = tuple(lo for lo, _ in problem.groups)
    highs = tuple(hi for _, hi in problem.groups)
    table: dict = {}
    calls = [0]
    hits = [0]

    def ways(covered: int, totals: tuple[int, ...]) -> int:
        if covered == full:
            return int(all(total >= lo for total, lo in zip(totals, lows, strict=True)))
        key = (covered, totals)
        known = table.get(key)
        if known is not None:
            hits[0] += 1
            return known
        calls[0] += 1
        if calls[0] & 1023 == 0:
            if stop.is_set():
                raise Stopped("interrupted")
            if deadline is not None and time.monotonic() > deadline:
                raise Stopped("time_limit")
            if len(table) > budget or (probe and len(table) >= PROBE_STATES and 4 * hits[0] < len(table)):
                raise MemoTooLarge
        first = (~covered & (covered + 1)).bit_length() - 1
        total = 0
        for mask, memberships in starting[first]:
            if mask & covered:
                continue
            if memberships:
                moved = list(totals)
                for group, weight in memberships:
                    moved[group] += weight
                if any(moved[group] > highs[group] for group, _ in memberships):
                    continue
                total += ways(covered | mask, tuple(moved))
            else:
                total += ways(covered | mask, totals)
        table[key] = total
        return total

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * len(order) + 1000))
    try:
        return ways(0, tuple(0 for _ in problem.groups))
    finally:
        sys.setrecursionlimit(limit)
