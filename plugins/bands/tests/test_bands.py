"""The bands sweep: every tiling it reports passes the core's cell-by-cell check
(``TilingProblem.tiling_errors``, which shares no code with the sweep), and it says
"infeasible" only with a counting proof, which a brute force confirms."""

from __future__ import annotations

import random
import threading
import time

import polytile_bands
import pytest
from polytile_bands import BandsTiler, impossibility, not_served, tile_large

from polytile_core.plugin import CLASSIC_FAMILIES, PieceType, Region, TilingProblem, cells_from_rows, normalise
from polytile_core.testing import count_tilings_brute_force, fresh_host


def family(name: str, minimum: int = 0, maximum: int | None = None) -> tuple[PieceType, ...]:
    return tuple(
        PieceType(piece, normalise(cells_from_rows(rows)), "free", minimum, maximum)
        for piece, rows in CLASSIC_FAMILIES[name].items()
    )


def holed_square(side: int, holes: int, rng: random.Random) -> Region:
    cells = [(x, y) for x in range(side) for y in range(side)]
    return Region(set(cells) - set(rng.sample(cells, holes)))


def tiled(problem: TilingProblem, seconds: float = 30) -> tuple:
    found = tile_large(problem, deadline=time.monotonic() + seconds)
    assert found.status == "found", (found.status, found.message, found.details)
    assert problem.tiling_errors(found.placements) == []
    return found.placements


def test_random_holed_squares_with_unlimited_pentominoes_are_tiled_and_checked():
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    for side, holes in ((30, 5), (45, 10)):
        region = holed_square(side, holes, rng)
        problem = TilingProblem(region, family("pentominoes"))
        if impossibility(problem):
            continue  # a pocket the holes closed off: the proof is tested below
        print(f"seed {seed}: {side}x{side} minus {holes}")
        tiled(problem)


def test_ranges_and_required_copies_are_kept():
    """Tetrominoes with the square limited to 3 copies and the T required 12 times; and
    pentominoes where the X (which tiles no rectangle) is required 8 times."""
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    pieces = tuple(
        PieceType(piece.name, piece.cells, "free", 12 if piece.name == "T" else 0, 3 if piece.name == "O" else None)
        for piece in family("tetrominoes")
    )
    placements = tiled(TilingProblem(Region.rectangle(28, 24), pieces))
    names = [name for name, _ in placements]
    assert names.count("O") <= 3 and names.count("T") >= 12, f"seed {seed}"
    pieces = tuple(
        PieceType(piece.name, piece.cells, "free", 8 if piece.name == "X" else 0, None)
        for piece in family("pentominoes")
    )
    region = holed_square(30, 5, rng)
    problem = TilingProblem(region, pieces)
    if not impossibility(problem):
        names = [name for name, _ in tiled(problem)]
        assert names.count("X") >= 8, f"seed {seed}"


def test_a_region_with_a_round_hole_is_covered_by_one_sided_trominoes():
    """The L tromino turned but not mirrored, around a round hole: the windows next to the
    hole are searched, the others filled with its 2x3 block."""
    region = Region((x, y) for x in range(63) for y in range(41) if (x - 31) ** 2 + (y - 20) ** 2 > 25)
    problem = TilingProblem(region, (PieceType("L", ((0, 0), (0, 1), (1, 1)), "one-sided", 0, None),))
    assert impossibility(problem) is None
    tiled(problem)


def test_infeasible_only_with_a_counting_proof_that_a_brute_force_confirms():
    """On random small regions and pieces, whenever ``impossibility`` gives a proof, the
    brute force finds no tiling; a cell cut off by holes is found."""
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    shapes = [["##"], ["###"], ["##", "#."], ["###", "#.."], ["##", "##"]]
    proofs = 0
    for _ in range(60):
        width, height = rng.randint(2, 5), rng.randint(2, 4)
        cells = [(x, y) for x in range(width) for y in range(height)]
        region = Region(set(cells) - set(rng.sample(cells, rng.randint(0, 3))))
        pieces = tuple(
            PieceType(f"p{k}", normalise(cells_from_rows(rows)), "free", 0, rng.choice([None, 1, 2]))
            for k, rows in enumerate(rng.sample(shapes, rng.randint(1, 2)))
        )
        problem = TilingProblem(region, pieces)
        if impossibility(problem):
            proofs += 1
            assert count_tilings_brute_force(region.cells, pieces) == 0, f"seed {seed}: {region.rows()} {pieces}"
    assert proofs, f"seed {seed}: no instance had a proof"
    pocket = Region(set((x, y) for x in range(40) for y in range(40)) - {(1, 0), (0, 1), (5, 5), (9, 9), (13, 13)})
    reason = impossibility(TilingProblem(pocket, family("pentominoes")))
    assert reason and "(0, 0) has 1 cells" in reason


def test_a_region_it_cannot_tile_ends_by_its_deadline_and_never_says_infeasible():
    """Only X pentominoes (no tiling of a 30x30 square exists, but no count proves it)."""
    problem = TilingProblem(Region.rectangle(30, 30), tuple(p for p in family("pentominoes") if p.name == "X"))
    assert impossibility(problem) is None
    started = time.monotonic()
    found = tile_large(problem, deadline=started + 1.0)
    assert found.status in ("time_limit", "gave_up") and not found.placements
    assert time.monotonic() - started < 3


def test_the_stop_event_ends_a_sweep():
    stop = threading.Event()
    stop.set()
    found = tile_large(TilingProblem(Region.rectangle(40, 40), family("pentominoes")), stop=stop)
    assert found.status == "interrupted"


def test_which_problems_it_serves_and_its_registration():
    big = Region.rectangle(40, 40)
    assert not_served(TilingProblem(big, family("pentominoes")), "one") is None
    assert "mode one" in not_served(TilingProblem(big, family("pentominoes")), "count")
    assert "below" in not_served(TilingProblem(Region.rectangle(6, 10), family("pentominoes")), "one")
    assert "fixed number" in not_served(TilingProblem(big, family("pentominoes", 1, 1)), "one")
    registration = fresh_host(polytile_bands).get("tilers", "bands")
    assert isinstance(registration.provides, BandsTiler)


@pytest.mark.slow
@pytest.mark.parametrize(("side", "holes", "seconds"), [(100, 5, 10), (300, 30, 60)])
def test_the_issue_targets(side, holes, seconds):
    seed = random.randrange(1 << 30)
    region = holed_square(side, holes, random.Random(seed))
    problem = TilingProblem(region, family("pentominoes"))
    if impossibility(problem):
        pytest.skip(f"seed {seed}: {impossibility(problem)}")
    started = time.monotonic()
    tiled(problem, seconds)
    assert time.monotonic() - started < seconds, f"seed {seed}"
