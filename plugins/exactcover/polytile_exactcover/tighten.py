"""Tighten the piece counts by the area: the options chosen cover every item exactly once,
so their sizes add up to the number of items.

On a 9×9 board less three cells with I5 ×6, Y5 ×2, O4 ×4–6, I3 ×3, L5 ×0–2 and T4 ×1, the
78 cells leave room for exactly five O4 and one L5.  Told so, the search prunes at once
where it otherwise places a sixth O4 and fails only at the board's end (docs/exactcover.md,
"Counts tightened by the area": 91 s to 15 s by search, and the frontier scan's peak from
8.6 to 5.0 million states).

The equation: every chosen option covers ``size`` items (its cells and its piece's item
when the piece is used once), each item once, so Σ size = n_items.  A group's options (a
counted piece) all have the group's size; an item that only options outside any group
cover, all of one size, and no option covers twice with another such item (a piece used
once) adds its size exactly once; any other option outside a group may be chosen any
number of times (an unlimited piece).  For each group, the counts it may end with are
those the others can complete to n_items within their bounds.  Relaxing the unlimited and
the others' holes only lets more counts through, so no tiling is lost.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from polytile_core.plugin import check_build_limits

# Past this many items times groups squared the sums take longer than they save (a
# bitset of n_items bits, shifted a few dozen times per group and per other group).
MOST_WORK = 50_000_000

Option = tuple[tuple[int, ...], tuple[tuple[int, int], ...]]


def tightened_groups(
    n_items: int, options: Sequence[Option], groups: Sequence[tuple[int, int]]
) -> tuple[tuple[int, int], ...]:
    """``groups`` with each (lo, hi) narrowed to the least and most copies that the area
    allows; unchanged when the model is not of this shape (a weight other than 1, an
    option in two groups, a group of mixed sizes), too large, or has no tiling at all
    (the kernels then show that themselves)."""
    groups = tuple(groups)
    if not groups or n_items * len(groups) ** 2 > MOST_WORK:
        return groups
    group_size: list[int | None] = [None] * len(groups)
    outside: list[int] = []  # options in no group
    for k, (items, memberships) in enumerate(options):
        if not memberships:
            outside.append(k)
            continue
        if len(memberships) != 1 or memberships[0][1] != 1:
            return groups
        g = memberships[0][0]
        if group_size[g] not in (None, len(items)):
            return groups
        group_size[g] = len(items)
    check_build_limits()
    fixed, free = _outside_sizes(n_items, options, outside)
    target = n_items - fixed
    full = (1 << (n_items + 1)) - 1
    base = 1
    for size in free:
        base = _closure(base, size, n_items, full)
    ranges = []  # per group: its least and most copies, and its options' size
    for (lo, hi), own in zip(groups, group_size, strict=True):
        if own is None:  # no option left in it: it ends at 0
            ranges.append((0, 0, 1))
        else:
            ranges.append((lo, min(hi, target // own), own))
    tightened = []
    for g, (lo, hi) in enumerate(groups):
        check_build_limits()
        others = base
        for h, (low, high, size) in enumerate(ranges):
            if h != g:
                others = _progression(others, size, low, high, full)
        low, high, size = ranges[g]
        allowed = [
            count for count in range(low, high + 1) if target >= count * size and others >> (target - count * size) & 1
        ]
        if not allowed:
            return groups
        tightened.append((max(lo, allowed[0]), min(hi, allowed[-1])))
    return tuple(tightened)


def _outside_sizes(n_items: int, options: Sequence[Option], outside: list[int]) -> tuple[int, set[int]]:
    """(the items the pieces used once must cover, the sizes of the options free to be
    chosen any number of times).  An item is a piece's used once when only options outside
    any group cover it, all of one size, and none of them covers another such item."""
    in_group = set(itertools.chain.from_iterable(items for items, memberships in options if memberships))
    on: dict[int, list[int]] = {}
    for k in outside:
        for item in options[k][0]:
            on.setdefault(item, []).append(k)
    fixed = 0
    bound: set[int] = set()  # options that cover a chosen item
    for item, covering in on.items():
        if item in in_group or any(k in bound for k in covering):
            continue
        sizes = {len(options[k][0]) for k in covering}
        if len(sizes) == 1:
            fixed += sizes.pop()
            bound.update(covering)
    free = {len(options[k][0]) for k in outside if k not in bound}
    return fixed, free


def _closure(reach: int, size: int, most: int, full: int) -> int:
    """``reach`` plus any number of ``size``: shifted by size, 2·size, 4·size … (each
    doubling the multiples covered)."""
    step = size
    while step <= most:
        reach = (reach | reach << step) & full
        step *= 2
    return reach


def _progression(reach: int, size: int, low: int, high: int, full: int) -> int:
    """``reach`` plus ``size`` times any count from ``low`` to ``high``."""
    if high < low:
        return 0
    reach = reach << (size * low) & full
    covered, extra = 0, high - low  # reach holds the sums with 0..covered more copies
    while covered < extra:
        step = min(covered + 1, extra - covered)
        reach = (reach | reach << (size * step)) & full
        covered += step
    return reach
