"""The k-colour split: its parts partition the tilings (their counts, each by the exactcover
backend, add up to an independent brute force's count of the whole), every placement is
in one variant, k = 2 is the checkerboard split, and its certificate is checked by a
brute force."""

from __future__ import annotations

import random
import time

import polytile_checkerboard
import polytile_colours
import polytile_cpsat
import polytile_exactcover
import pytest
from polytile_checkerboard import CheckerboardSplit
from polytile_colours import ColoursOptions, ColoursSplit
from polytile_colours.colouring import Colouring, coloured_variants
from polytile_exactcover import ExactCoverBackend

from polytile_core.plugin import (
    CLASSIC_FAMILIES,
    Found,
    PieceType,
    Region,
    Termination,
    TilingProblem,
    cells_from_rows,
    normalise,
)
from polytile_core.testing import (
    DecomposerConformance,
    Host,
    PieceSpec,
    Pipeline,
    RegionSpec,
    SolveSpec,
    SplitSpec,
    build_tiling,
    count_tilings_brute_force,
    make_plan,
    run,
    solve_with,
)

SHAPES = {"D": ["##"], "I3": ["###"], "L3": ["##", "#."], "L4": ["###", "#.."], "T4": ["###", ".#."], "O": ["##", "##"]}


def split_of(problem: TilingProblem, options: ColoursOptions):
    def build(part: TilingProblem):
        return build_tiling(part.pieces, part.region)

    return ColoursSplit().split(problem, build(problem), build, options)


def random_problem(rng: random.Random) -> TilingProblem:
    width, height = rng.randint(2, 5), rng.randint(2, 4)
    cells = [(x, y) for x in range(width) for y in range(height)]
    region = Region(set(cells) - set(rng.sample(cells, rng.randint(0, 2))))
    pieces = []
    for name in rng.sample(sorted(SHAPES), rng.randint(1, 3)):
        least = rng.randint(0, 1)
        most = rng.choice([least, least + 1, least + 2, None])
        kind = rng.choice(["free", "free", "one-sided", "fixed"])
        pieces.append(PieceType(name, normalise(cells_from_rows(SHAPES[name])), kind, least, most))
    return TilingProblem(region, tuple(pieces))


@pytest.mark.parametrize("colours", [2, 3, 4])
@pytest.mark.parametrize("variants", ["patterns", "counts"])
def test_the_parts_partition_the_tilings_of_random_small_regions(colours, variants):
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    backend = ExactCoverBackend()
    checked = 0
    while checked < 12:
        problem = random_problem(rng)
        expected = count_tilings_brute_force(problem.region.cells, problem.pieces)
        split = split_of(problem, ColoursOptions(colours=colours, shift=rng.randint(1, 3), variants=variants))
        if split.impossible:
            assert expected == 0, f"seed {seed}: {split.impossible}"
            continue
        total = 0
        parts = 0
        for part in split.parts:
            parts += 1
            if part.empty is not None:
                continue
            result, _, _ = solve_with(backend, part.model, "count")
            assert result.termination == Termination.COMPLETED
            total += result.count
        assert parts == split.total, f"seed {seed}"
        assert total == expected, f"seed {seed}: {problem.region.rows()} {problem.pieces}"
        checked += 1


@pytest.mark.parametrize("colours", [2, 3, 4, 5])
def test_every_placement_is_in_exactly_one_variant(colours):
    region = Region.rectangle(7, 5)
    colouring = Colouring(colours)
    for kind in ("free", "one-sided", "fixed"):
        for name, rows in CLASSIC_FAMILIES["pentominoes"].items():
            piece = PieceType(name, normalise(cells_from_rows(rows)), kind, 1, 1)
            variants = coloured_variants(piece, region, colouring)
            placed = [cells for variant in variants for cells in variant.placements]
            assert len(placed) == len(set(placed)) == len(TilingProblem(region, (piece,)).placements())
            assert len({variant.name for variant in variants}) == len(variants)
            for variant in variants:
                assert all(colouring.counts(cells) == variant.counts for cells in variant.placements)


def test_two_colours_are_the_checkerboard_split():
    problem = TilingProblem(
        Region.rectangle(10, 6),
        tuple(
            PieceType(n, normalise(cells_from_rows(r)), "free", 1, 1)
            for n, r in CLASSIC_FAMILIES["pentominoes"].items()
        ),
    )
    model = build_tiling(problem.pieces, problem.region)
    ours = ColoursSplit().split(problem, model, None, ColoursOptions(colours=2))
    theirs = CheckerboardSplit().split(problem, model, None)
    assert ours.total == theirs.total == 660  # oracles.md
    first = [part.model.num_variables for part, _ in zip(ours.parts, range(20), strict=False)]
    assert first == [part.model.num_variables for part, _ in zip(theirs.parts, range(20), strict=False)]


def test_three_colours_prove_what_two_cannot():
    """Straight trominoes in a 5x5 square minus the cell (1, 1): 24 cells, and the
    checkerboard has no objection, but every I3 covers one cell of each colour of
    (x + y) mod 3 and the region has 8, 9, 7 of them.  The brute force agrees."""
    cells = {(x, y) for x in range(5) for y in range(5)} - {(1, 1)}
    problem = TilingProblem(Region(cells), (PieceType("I3", ((0, 0), (1, 0), (2, 0)), "free", 0, None),))
    assert count_tilings_brute_force(problem.region.cells, problem.pieces) == 0
    assert CheckerboardSplit().split(problem, build_tiling(problem.pieces, problem.region), None).impossible is None
    split = split_of(problem, ColoursOptions(colours=3))
    assert split.total == 0 and "3-colouring" in split.impossible and "[8, 9, 7]" in split.impossible


def test_a_problem_too_large_for_the_tables_is_one_part_in_seconds():
    pieces = tuple(
        PieceType(n, normalise(cells_from_rows(r)), "free", 0, None) for n, r in CLASSIC_FAMILIES["pentominoes"].items()
    )
    problem = TilingProblem(Region.rectangle(30, 30), pieces)
    started = time.monotonic()
    split = ColoursSplit().split(problem, None, None, ColoursOptions(colours=4))  # type: ignore[arg-type]
    parts = list(split.parts)
    assert time.monotonic() - started < 10
    assert split.total == 1 and [part.key for part in parts] == ["whole"] and "whole problem" in split.summary["parts"]


HOST = Host(autoload=False, plugins=[polytile_colours, polytile_checkerboard, polytile_cpsat, polytile_exactcover])


@pytest.mark.parametrize("backend", ["exactcover", pytest.param("cpsat", marks=pytest.mark.slow)])
def test_a_run_finds_a_tiling_part_by_part(backend):
    """6x10 with one of each pentomino split by 3 colours (variants by counts)."""
    pipeline = Pipeline(
        region=RegionSpec(width=10, height=6),
        pieces=[PieceSpec(family="pentominoes")],
        solve=SolveSpec(mode="one", backend=backend, time_limit=60),
        split=SplitSpec(method="colours"),
        options={"colours": {"colours": 3, "variants": "counts"}},
    )
    result = run(make_plan(pipeline, HOST))
    assert result.found == Found.FEASIBLE
    placed = [(p.piece, p.cells) for p in result.solutions[0].placements]
    pieces = tuple(
        PieceType(n, normalise(cells_from_rows(r)), "free", 1, 1) for n, r in CLASSIC_FAMILIES["pentominoes"].items()
    )
    assert TilingProblem(Region.rectangle(10, 6), pieces).tiling_errors(placed) == []


@pytest.mark.parametrize("backend", ["exactcover", "cpsat"])
def test_a_split_run_counts_as_oracles_md_says(backend):
    """2x4 with two L tetrominoes: 2 tilings (oracles.md), over 4 colours' parts."""
    pipeline = Pipeline(
        region=RegionSpec(width=4, height=2),
        pieces=[PieceSpec(name="L", shape=["#.", "#.", "##"], count=2)],
        solve=SolveSpec(mode="count", backend=backend),
        split=SplitSpec(method="colours"),
        options={"colours": {"colours": 4}},
    )
    result = run(make_plan(pipeline, HOST))
    assert (result.termination, result.count) == (Termination.COMPLETED, 2)


class TestColoursKit(DecomposerConformance):
    """The decomposer kit: on random small regions the parts partition the tilings, and a proof that there is none is right."""

    decomposer_name = "colours"
    plugin = polytile_colours
    options = {"colours": 3}
