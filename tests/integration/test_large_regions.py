"""Large regions by default (issues 29 and 31): no backend or split named, one tiling of a
large region with pieces to spare is found part by part with no whole model, and checked
here cell by cell, independently of polytile's own check.  Regions come from a fresh seed
each run (printed on failure)."""

from __future__ import annotations

import random

import pytest

from polytile_core import api
from polytile_core.errors import InputError
from polytile_core.host.builtin import CLASSIC_FAMILIES
from polytile_core.output.results import Found
from polytile_core.testing import own_orientations

PENTOMINO_SHAPES = {
    frozenset(shape)
    for rows in CLASSIC_FAMILIES["pentominoes"].values()
    for shape in own_orientations([(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "#"], "free")
}


def holed_square(side: int, holes: int, rng: random.Random) -> list[str]:
    removed = set()
    while len(removed) < holes:
        removed.add((rng.randrange(side), rng.randrange(side)))
    return ["".join("." if (x, y) in removed else "#" for x in range(side)) for y in range(side)]


def problems(solution, rows: list[str]) -> list[str]:
    region = {(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "#"}
    seen: set = set()
    found = []
    for placed in solution.placements:
        cells = frozenset(placed.cells)
        x0, y0 = min(x for x, _ in cells), min(y for _, y in cells)
        if frozenset((x - x0, y - y0) for x, y in cells) not in PENTOMINO_SHAPES:
            found.append(f"{placed.piece} at {sorted(cells)} is no pentomino")
        if cells & seen or not cells <= region:
            found.append(f"{placed.piece} at {sorted(cells)} overlaps or leaves the region")
        seen |= cells
    if seen != region:
        found.append(f"{len(region - seen)} cells bare")
    return found


@pytest.mark.parametrize("side, holes", [(30, 5), (100, 5), (100, 0)])
def test_large_holed_squares_are_tiled_by_default(side, holes):
    seed = random.SystemRandom().randrange(2**32)
    rows = holed_square(side, holes, random.Random(seed))
    if sum(row.count("#") for row in rows) % 5:
        return  # no tiling by area: another test's business
    result = api.solve(api.plan(rows, [api.family("pentominoes", unlimited=True)], time_limit=60))
    where = f"seed {seed}, {side}x{side} less {holes}"
    if result.found == Found.FEASIBLE:
        assert not problems(result.solutions[0], rows), where
        assert result.details["route"]["name"] == "bands", where
    else:  # a region a hole makes untileable: never a wrong proof
        assert result.found != Found.INFEASIBLE or "impossible" in result.message, where


def test_a_whole_model_too_large_is_refused_with_its_key():
    """Counting needs a whole model: 1000×1000 with the pentominoes would have 63 million
    placements, refused at once rather than built for minutes."""
    plan = api.plan((1000, 1000), [api.family("pentominoes", unlimited=True)], mode="count", time_limit=5)
    with pytest.raises(InputError, match="too large for a whole model") as raised:
        api.solve(plan)
    assert raised.value.path == "region"


@pytest.mark.slow
@pytest.mark.parametrize("side, holes", [(300, 30), (1000, 0)])
def test_very_large_squares_are_tiled_by_default(side, holes):
    seed = random.SystemRandom().randrange(2**32)
    rows = holed_square(side, holes, random.Random(seed))
    if sum(row.count("#") for row in rows) % 5:
        return
    result = api.solve(api.plan(rows, [api.family("pentominoes", unlimited=True)], time_limit=60))
    assert result.found == Found.FEASIBLE, f"seed {seed}"
    assert not problems(result.solutions[0], rows), f"seed {seed}"
