"""Counting without listing: a memoised first-empty-cell search.

Items are put in a scan order (for a tiling: the region's cells, column by column along
its shorter side, then the piece rows).  The search always covers the first uncovered
item, so the state is just (covered items, group totals), and the number of ways to
finish from a state is computed once.  On a narrow frontier with few piece kinds (8×8
dominoes, 9×9 with L-tetrominoes) states recur massively and millions of tilings are
counted in milliseconds; with many distinct pieces (the 12 pentominoes) they hardly
recur, the table grows without paying off, and ``MemoTooLarge`` tells the caller to
fall back to dancing links.  The search keeps its own stack (no Python recursion, so no
recursion limit to raise on a large region).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

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
    for number, (items, memberships) in enumerate(problem.options):
        if not number % 4096:
            _check(stop, deadline, 0, 0, budget, probe)  # 606,000 options on 100×100: 0.6 s
        mask = 0
        for item in items:
            mask |= bit[item]
        starting[(mask & -mask).bit_length() - 1].append((mask, memberships))
    lows = tuple(lo for lo, _ in problem.groups)
    highs = tuple(hi for _, hi in problem.groups)

    def moves(covered: int, totals: tuple[int, ...]) -> Iterator[tuple[int, tuple[int, ...]]]:
        """The states one option on the first uncovered item leads to."""
        first = (~covered & (covered + 1)).bit_length() - 1
        for mask, memberships in starting[first]:
            if mask & covered:
                continue
            if not memberships:
                yield covered | mask, totals
                continue
            moved = list(totals)
            for group, weight in memberships:
                moved[group] += weight
            if all(moved[group] <= highs[group] for group, _ in memberships):
                yield covered | mask, tuple(moved)

    # An explicit stack instead of recursion (a region of n cells would need n frames):
    # each frame is [state, its moves not yet counted, the ways counted so far].
    if full == 0:
        return int(all(lo <= 0 for lo in lows))
    table: dict[tuple[int, tuple[int, ...]], int] = {}
    hits = opened = 0
    root = (0, tuple(0 for _ in problem.groups))
    stack: list[list[Any]] = [[root, moves(*root), 0]]
    while True:
        frame = stack[-1]
        for state in frame[1]:
            covered, totals = state
            if covered == full:
                frame[2] += int(all(total >= lo for total, lo in zip(totals, lows, strict=True)))
                continue
            known = table.get(state)
            if known is None:
                stack.append([state, moves(*state), 0])
                opened += 1
                if opened & 1023 == 0:
                    _check(stop, deadline, len(table), hits, budget, probe)
                break
            hits += 1
            frame[2] += known
        else:
            stack.pop()
            table[frame[0]] = frame[2]
            if not stack:
                return frame[2]
            stack[-1][2] += frame[2]


def _check(stop: threading.Event, deadline: float | None, states: int, hits: int, budget: float, probe: bool) -> None:
    """Raise ``Stopped`` or ``MemoTooLarge`` when it is time to give up."""
    if stop.is_set():
        raise Stopped("interrupted")
    if deadline is not None and time.monotonic() > deadline:
        raise Stopped("time_limit")
    if states > budget or (probe and states >= PROBE_STATES and 4 * hits < states):
        raise MemoTooLarge
