"""Piece counts narrowed by the area (``polytile_core.model.area``): never past what a tiling
uses, and as narrow as the area alone makes them.

The tilings come from ``polytile_core.testing.tilings_brute_force`` (its own orientations
and search, multiplicities checked as the pieces declare them); each tiling's copies of
each piece must lie within the narrowed bounds.  The random boards are drawn from a fresh
seed each run, printed on failure.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from polytile_core.model.area import narrowed_by_area
from polytile_core.testing import api, build_tiling, tilings_brute_force

SHAPES = {
    "D": ["##"],
    "I3": ["###"],
    "L3": ["#.", "##"],
    "O4": ["##", "##"],
    "T4": ["###", ".#."],
    "P5": ["##", "##", "#."],
}
SEED = random.randrange(2**32)


def test_the_issue_board_leaves_room_for_exactly_five_squares_and_one_l():
    """9×9 less three cells: 78 cells.  I5 ×6, Y5 ×2, I3 ×3 and T4 ×1 cover 30 + 10 + 9 + 4
    = 53, so 4·(O4 copies) + 5·(L5 copies) = 25 with O4 from 4 to 6 and L5 from 0 to 2:
    only 5 and 1 (4·4 = 16 and 4·6 = 24 leave 9 and 1, no multiple of 5)."""
    bounds = [(6, 6), (2, 2), (4, 6), (3, 3), (0, 2), (1, 1)]
    assert narrowed_by_area([5, 5, 4, 3, 5, 4], bounds, 78) == ((6, 6), (2, 2), (5, 5), (3, 3), (1, 1), (1, 1))
    # The model's rows say so.
    rows = ["#########"] * 3 + ["####.####", "######.##", "#########", "#########", "########.", "#########"]
    pieces = [
        api.piece("I5", ["#####"], count=6),
        api.piece("Y5", [".#..", "####"], count=2),
        api.piece("O4", ["##", "##"], min=4, max=6),
        api.piece("I3", ["###"], count=3),
        api.piece("L5", ["####", "#..."], min=0, max=2),
        api.piece("T4", ["###", ".#."], count=1),
    ]
    plan = api.plan(rows, pieces)
    rows_of = {c.name: (c.sense, c.rhs) for c in build_tiling(plan.pieces, plan.region).constraints}
    assert rows_of["piece O4"] == ("==", 5) and rows_of["piece L5"] == ("==", 1)


def test_unlimited_pieces_and_pieces_used_once_enter_the_sum():
    # 3·c + 4 + 2·k = 10 with c from 0 to 3: c even.  k = (6 - 3·c) / 2 is 3 or 0.
    assert narrowed_by_area([3, 4, 2], [(0, 3), (1, 1), (0, None)], 10) == ((0, 2), (1, 1), (0, None))
    # Without the unlimited dominoes: 3·c + 4 = 10, so c = 2.
    assert narrowed_by_area([3, 4], [(0, 3), (1, 1)], 10) == ((2, 2), (1, 1))
    # An unlimited piece stays unlimited (no row), even with no room; one with a least
    # number of copies and no most gets the most the area leaves.
    assert narrowed_by_area([3, 2], [(3, 3), (0, None)], 9) == ((3, 3), (0, None))
    assert narrowed_by_area([3, 2], [(1, None), (1, None)], 9) == ((1, 1), (3, 3))  # 3 + 2·3 only
    assert narrowed_by_area([3, 2], [(1, None), (1, 4)], 9) == ((1, 1), (3, 3))
    assert narrowed_by_area([3, 2], [(3, None), (0, 4)], 9) == ((3, 3), (0, 0))
    assert narrowed_by_area([3, 2], [(1, None), (0, 3)], 12) == ((2, 4), (0, 3))  # 3·c + 2·k = 12
    # No choice fills the area: left as declared (the area check and the solvers say so).
    assert narrowed_by_area([2, 4], [(0, 3), (1, 2)], 9) == ((0, 3), (1, 2))


def _random_board(rng: random.Random):
    width, height = rng.randint(2, 5), rng.randint(2, 5)
    cells = [(x, y) for y in range(height) for x in range(width)]
    holes = set(rng.sample(cells, rng.randint(0, 3)))
    rows = ["".join("." if (x, y) in holes else "#" for x in range(width)) for y in range(height)]
    pieces = []
    for name in rng.sample(sorted(SHAPES), rng.randint(1, 4)):
        low = rng.randint(0, 3)
        spec = rng.choice(
            (
                {},
                {"count": rng.randint(1, 3)},
                {"min": low, "max": low + rng.randint(0, 4)},
                {"min": rng.randint(1, 2)},
                {"max": rng.randint(1, 4)},
                {"unlimited": True},
            )
        )
        pieces.append(api.piece(name, SHAPES[name], kind=rng.choice(("free", "one-sided", "fixed")), **spec))
    return rows, pieces


@pytest.mark.parametrize("number", range(4))
def test_no_tiling_uses_a_count_outside_the_narrowed_bounds(number):
    rng = random.Random(SEED + number)
    checked = 0
    for _ in range(60):
        rows, pieces = _random_board(rng)
        plan = api.plan(rows, pieces)
        types = plan.tiling_problem().pieces
        bounds = narrowed_by_area(
            [piece.area for piece in types], [(piece.minimum, piece.maximum) for piece in types], plan.region.area
        )
        for tiling in tilings_brute_force(plan.region.cells, types):
            copies = Counter(name for name, _ in tiling)
            for piece, (low, high) in zip(types, bounds, strict=True):
                within = low <= copies[piece.name] and (high is None or copies[piece.name] <= high)
                assert within, (SEED, number, rows, pieces, piece.name, (low, high), copies)
            checked += 1
    assert checked, f"seed {SEED}: no tiling drawn"
