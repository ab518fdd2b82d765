"""The checkerboard split against oracles.md and independent brute forces."""

import itertools
import threading
import time

import polytile_checkerboard
import polytile_cpsat
import pytest
from polytile_checkerboard import CheckerboardOptions, CheckerboardSplit
from polytile_checkerboard.variants import coloured_variants
from polytile_cpsat import CpsatBackend

from polytile_core.plugin import (
    CLASSIC_FAMILIES,
    Found,
    PieceType,
    Region,
    SolveSettings,
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
    make_plan,
    run,
)

SPLIT = CheckerboardSplit()


def split_of(problem: TilingProblem, options: CheckerboardOptions | None = None):
    """The checkerboard split of a problem, its parts made from the tiling model."""

    def build(part: TilingProblem):
        return build_tiling(part.pieces, part.region)

    return SPLIT.split(problem, build(problem), build, options)


# Only the plugins under test: others may be half-installed while they are being written.
HOST = Host(autoload=False, plugins=[polytile_checkerboard, polytile_cpsat])
PENTOMINOES = CLASSIC_FAMILIES["pentominoes"]
TETROMINOES = CLASSIC_FAMILIES["tetrominoes"]
L4 = ["#.", "#.", "##"]
NINE_MINUS_CORNER = ["########."] + ["#########"] * 8


def piece(name, rows, copies=1, kind="free"):
    return PieceType(name, normalise(cells_from_rows(rows)), kind, copies, copies)


def pentominoes(copies=1):
    return tuple(piece(name, rows, copies) for name, rows in PENTOMINOES.items())


def free_polyominoes(size):
    """The free polyominoes of a size, grown cell by cell (independent of polytile)."""

    def canonical(cells):
        images = []
        for turn in range(4):
            for mirror in (False, True):
                shape = [((-x if mirror else x), y) for x, y in cells]
                for _ in range(turn):
                    shape = [(y, -x) for x, y in shape]
                mx, my = min(x for x, _ in shape), min(y for _, y in shape)
                images.append(tuple(sorted((x - mx, y - my) for x, y in shape)))
        return min(images)

    shapes = {((0, 0),)}
    for _ in range(size - 1):
        grown = set()
        for shape in shapes:
            for x, y in shape:
                for cell in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                    if cell not in shape:
                        grown.add(canonical(shape + (cell,)))
        shapes = grown
    return sorted(shapes)


def test_pentomino_variants_have_the_papers_parities():
    parities = {
        name: sorted(variant.parity for variant in coloured_variants(p, Region.rectangle(10, 6)))
        for name, p in ((p.name, p) for p in pentominoes())
    }
    assert parities.pop("X") == [-3, 3]
    assert all(value == [-1, 1] for value in parities.values())


@pytest.mark.parametrize(
    "rows, variants",
    [(["##"], 1), (["####"], 1), (["##", "##"], 1), (["###", "###"], 1), (L4, 2), (["###", ".#."], 2)],
)
def test_a_symmetry_that_swaps_colours_leaves_one_variant(rows, variants):
    assert len(coloured_variants(piece("P", rows), Region.rectangle(6, 6))) == variants


def test_every_placement_is_in_exactly_one_variant():
    region = Region.from_rows(NINE_MINUS_CORNER)
    for kind in ("free", "one-sided", "fixed"):
        p = piece("L", L4, 20, kind)
        variants = coloured_variants(p, region)
        placed = [cells for variant in variants for cells in variant.placements]
        whole = TilingProblem(region, (p,)).placements()
        assert sorted(placed) == sorted(cells for _, cells in whole)
        assert len(variants) == 2


@pytest.mark.parametrize(
    "region, pieces, total",
    [
        (Region.rectangle(10, 6), pentominoes(), 660),
        (Region.rectangle(4, 2), (piece("L", L4, 2),), 3),
        (Region.from_rows(NINE_MINUS_CORNER), (piece("L", L4, 20),), 21),
    ],
)
def test_number_of_subproblems_from_oracles(region, pieces, total):
    split = split_of(TilingProblem(region, pieces))
    assert split.total == total
    keys = [part.key for part in split.parts]
    assert len(keys) == len(set(keys)) == total


def test_total_is_counted_like_a_brute_force_over_variant_counts():
    """Unlimited and ranged pieces: the DP total equals listing every vector."""
    region = Region.rectangle(4, 4)
    pieces = (
        PieceType("L", normalise(cells_from_rows(L4)), "free", 0, None),
        PieceType("T", normalise(cells_from_rows(["###", ".#."])), "free", 1, 3),
        PieceType("D", normalise(cells_from_rows(["##"])), "free", 0, 8),
    )
    split = split_of(TilingProblem(region, pieces))
    brute = 0
    # L: variants parity 0, 0; T: +2, -2; D: one variant, parity 0.
    for la, lb, tp, tm, d in itertools.product(range(5), range(5), range(4), range(4), range(9)):
        area = 4 * (la + lb) + 4 * (tp + tm) + 2 * d
        if area == 16 and 1 <= tp + tm <= 3 and 2 * tp - 2 * tm == 0:
            brute += 1
    assert split.total == brute == sum(1 for _ in split.parts)


def test_every_order_lists_the_same_subproblems():
    problem = TilingProblem(Region.from_rows(NINE_MINUS_CORNER), (piece("L", L4, 20), piece("T", ["###", ".#."], 0)))
    keys = {
        order: [part.key for part in split_of(problem, CheckerboardOptions(order=order)).parts]
        for order in ("balanced", "lexicographic", "random")
    }
    assert sorted(keys["balanced"]) == sorted(keys["lexicographic"]) == sorted(keys["random"])
    assert len(set(keys["balanced"])) == 21
    assert keys["balanced"][0] == "L:a=10 L:b=10 T+=0 T-=0"
    assert keys["lexicographic"][0] == "L:a=0 L:b=20 T+=0 T-=0"


def test_the_30x40_split_starts_at_once_without_listing_its_parts():
    started = time.perf_counter()
    split = split_of(TilingProblem(Region.rectangle(40, 30), pentominoes(20)))
    first = next(split.parts)
    assert 1.0e14 < split.total < 1.1e14  # "about 1.03 × 10^14" (design notes)
    assert time.perf_counter() - started < 20
    # The balanced order begins with 10 + 10 of every piece.
    assert set(first.details["counts"].values()) == {10}


def empty_subproblems(split):
    """Subproblems with no tiling: removed before search, or proved infeasible by CP-SAT."""
    empty = 0
    for part in split.parts:
        if part.empty is not None:
            empty += 1
            continue
        answer = CpsatBackend().solve(
            part.model, SolveSettings(mode="one", workers=1), lambda ones: None, threading.Event()
        )
        assert answer.termination == Termination.COMPLETED
        empty += answer.found == Found.INFEASIBLE
    return empty


@pytest.mark.slow
def test_9x9_minus_a_corner_has_12_empty_subproblems():
    split = split_of(TilingProblem(Region.from_rows(NINE_MINUS_CORNER), (piece("L", L4, 20),)))
    assert empty_subproblems(split) == 12


def test_2x4_has_one_empty_subproblem():
    assert empty_subproblems(split_of(TilingProblem(Region.rectangle(4, 2), (piece("L", L4, 2),)))) == 1


@pytest.mark.slow
def test_6x10_has_86_empty_subproblems():
    assert empty_subproblems(split_of(TilingProblem(Region.rectangle(10, 6), pentominoes()))) == 86


def hexominoes():
    shapes = free_polyominoes(6)
    assert len(shapes) == 35  # OEIS A000105
    return tuple(PieceType(f"H{index}", shape) for index, shape in enumerate(shapes, 1))


@pytest.mark.parametrize(
    "width, height, pieces",
    [
        (14, 15, "hexominoes"),
        (10, 21, "hexominoes"),
        (5, 4, "tetrominoes"),
        (10, 2, "tetrominoes"),
    ],
)
def test_impossible_without_search(width, height, pieces):
    chosen = hexominoes() if pieces == "hexominoes" else tuple(piece(n, r) for n, r in TETROMINOES.items())
    split = split_of(TilingProblem(Region.rectangle(width, height), chosen))
    assert split.total == 0 and list(split.parts) == []
    assert "parity 0" in split.impossible


def test_a_run_ends_at_once_with_the_parity_certificate():
    pipeline = Pipeline(
        region=RegionSpec(width=5, height=4),
        pieces=[PieceSpec(name=name, shape=rows) for name, rows in TETROMINOES.items()],
        solve=SolveSpec(mode="count"),
        split=SplitSpec(method="checkerboard"),
    )
    result = run(make_plan(pipeline, HOST))
    assert (result.termination, result.found, result.count) == (Termination.COMPLETED, Found.INFEASIBLE, 0)
    assert result.message.startswith("impossible by checkerboard colouring: the region has parity 0")
    assert result.details["certificate"] == "checkerboard"
    assert result.subproblems == ()


class TestCheckerboardKit(DecomposerConformance):
    """The decomposer kit: on random small regions the parts partition the tilings, and a proof that there is none is right."""

    decomposer_name = "checkerboard"
    plugin = polytile_checkerboard
