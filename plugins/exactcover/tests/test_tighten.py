"""Piece counts tightened by the area (``tighten.py``): never past what a tiling uses,
and as tight as the area alone makes them.

The tilings come from ``polytile_core.testing.tilings_brute_force`` (its own orientations
and search); each tiling's copies of each piece must lie within the bounds the cover
reader now gives that piece's group.  The random boards are drawn from a fresh seed each
run, printed on failure.
"""

from __future__ import annotations

import random
from collections import Counter

import polytile_exactcover
import pytest
from polytile_exactcover.cover import cover_problem
from polytile_exactcover.frontier import layout
from polytile_exactcover.tighten import tightened_groups

from polytile_core.testing import api, build_tiling, fresh_host, tilings_brute_force

HOST = fresh_host(polytile_exactcover)
SHAPES = {
    "D": ["##"],
    "I3": ["###"],
    "L3": ["#.", "##"],
    "O4": ["##", "##"],
    "T4": ["###", ".#."],
    "L4": ["###", "#.."],
    "P5": ["##", "##", "#."],
}
SEED = random.randrange(2**32)


def _groups_by_piece(model, problem):
    """Each counted piece's (lo, hi) as the cover reader gives it."""
    by_piece = {}
    for (_, memberships), var in zip(problem.options, problem.variables, strict=True):
        for group, _ in memberships:
            by_piece[model.placements[var].piece] = problem.groups[group]
    return by_piece


def test_the_issue_board_leaves_room_for_exactly_five_squares_and_one_l():
    """9×9 less three cells: 78 cells.  I5 ×6, Y5 ×2, I3 ×3 and T4 ×1 cover 30 + 10 + 9 + 4
    = 53, so 4·(O4 copies) + 5·(L5 copies) = 25 with O4 from 4 to 6 and L5 from 0 to 2:
    only 5 and 1 (4·4 = 16 and 4·6 = 24 leave 9 and 1, no multiple of 5)."""
    rows = ["#########"] * 3 + ["####.####", "######.##", "#########", "#########", "########.", "#########"]
    pieces = [
        api.piece("I5", ["#####"], count=6),
        api.piece("Y5", [".#..", "####"], count=2),
        api.piece("O4", ["##", "##"], min=4, max=6),
        api.piece("I3", ["###"], count=3),
        api.piece("L5", ["####", "#..."], min=0, max=2),
        api.piece("T4", ["###", ".#."], count=1),
    ]
    plan = api.plan(rows, pieces, backend="exactcover", host=HOST)
    model = build_tiling(plan.pieces, plan.region)
    bounds = _groups_by_piece(model, cover_problem(model))
    assert bounds["O4"] == (5, 5)
    assert bounds["L5"] == (1, 1)
    assert bounds["I5"] == (6, 6) and bounds["I3"] == (3, 3)
    # The corner cell beside the hole is covered only with its neighbour; the pocket
    # check tells them apart by the neighbour's own placements and still runs.
    assert "closed pockets" in layout(cover_problem(model)).pruned_by()


def test_unlimited_pieces_and_pieces_used_once_enter_the_sum():
    """Items 1..10: a group of size-3 options counted 0 to 3, a piece used once (item 10,
    options of size 4 with it) and free options of size 2.  3·c + 4 + 2·k = 10 needs c
    even: 0 or 2."""
    options = [((1, 2, 3), ((0, 1),)), ((4, 5, 6), ((0, 1),)), ((7, 8, 9), ((0, 1),))]
    options += [((1, 2, 3, 10), ()), ((7, 8, 9, 10), ())]
    options += [((1, 2), ()), ((3, 4), ())]
    assert tightened_groups(10, options, [(0, 3)]) == ((0, 2),)
    # Without the free pairs: 3·c + 4 = 10, so c = 2.
    assert tightened_groups(10, options[:5], [(0, 3)]) == ((2, 2),)
    # A weight other than 1 or an option in two groups: left as it is.
    assert tightened_groups(10, [((1, 2, 3), ((0, 2),))], [(0, 3)]) == ((0, 3),)


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
def test_no_tiling_uses_a_count_outside_the_tightened_bounds(number):
    rng = random.Random(SEED + number)
    checked = 0
    for _ in range(60):
        rows, pieces = _random_board(rng)
        plan = api.plan(rows, pieces, backend="exactcover", host=HOST)
        model = build_tiling(plan.pieces, plan.region)
        bounds = _groups_by_piece(model, cover_problem(model))
        for tiling in tilings_brute_force(plan.region.cells, plan.pieces):
            copies = Counter(name for name, _ in tiling)
            for name, (lo, hi) in bounds.items():
                assert lo <= copies[name] <= hi, (SEED, number, rows, pieces, name, (lo, hi), copies)
            checked += 1
    assert checked, f"seed {SEED}: no tiling drawn"
