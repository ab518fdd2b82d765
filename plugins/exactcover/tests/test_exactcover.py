"""The exactcover backend against published counts (docs/oracles.md), a second backend
(CP-SAT) and the core's conformance suite.  Raw counts and counts up to symmetry come
from docs/oracles.md; where a count up to symmetry is not published, two
independent ways of getting it (symmetry broken in the search, Burnside on fixed-solution
models, keeping the smallest image) must agree."""

from __future__ import annotations

import importlib.util
import threading
import time

import polytile_exactcover
import pytest
from polytile_exactcover import ExactCoverBackend, ExactCoverOptions
from polytile_exactcover.cover import cover_problem

from polytile_core.plugin import Found, InputError, Model, Region, SolveSettings, Termination, placement_symmetries
from polytile_core.testing import (
    LARGE,
    BackendConformance,
    api,
    build_tiling,
    canonical_key,
    fresh_host,
    optimisation_instance,
    solve_with,
)

HAS_CHECKERBOARD = importlib.util.find_spec("polytile_checkerboard") is not None
L_TROMINO = ["#.", "##"]
L_TETROMINO = ["###", "#.."]
CORNERLESS_9X9 = ["#########"] * 8 + ["########."]
RING_8X8 = ["########"] * 3 + ["###..###"] * 2 + ["########"] * 3


def solve(region, pieces, mode, *, distinct=False, options=None, **solve_keys):
    plan = api.plan(
        region,
        pieces,
        mode=mode,
        backend="exactcover",
        distinct=distinct,
        options={"exactcover": options} if options else None,
        **solve_keys,
    )
    return api.solve(plan)


# 6×10 with a corner moved across: no symmetry to search less of, 7,263 pentomino tilings
# (dancing links and the bitboards agree), seconds to count on every kernel.
LOPSIDED = [".#########.", *["##########."] * 4, "###########"]


def pentomino_model(rows_or_size) -> Model:
    plan = api.plan(rows_or_size, [api.family("pentominoes")], backend="exactcover")
    return build_tiling(plan.pieces, plan.region)


class TestConformance(BackendConformance):
    backend_name = "exactcover"
    plugin = polytile_exactcover

    def long_problem(self):
        """The memo counts 8×8 dominoes at once, and the frontier a board of the 12
        pentominoes in under half a second: each pentomino twice on 12×10 takes long
        enough to limit (its count is not known)."""
        plan = api.plan((12, 10), [api.family("pentominoes", count=2)], backend="exactcover")
        return build_tiling(plan.pieces, plan.region), None


def test_an_optimisation_is_refused_not_guessed():
    """An exact-cover engine does not optimise (it declares no mode optimize): it says so."""
    model, _ = optimisation_instance()
    with pytest.raises(InputError, match="exactcover"):
        solve_with(polytile_exactcover.ExactCoverBackend(None), model, "optimize")


class TestConformanceOnDancingLinks(TestConformance):
    options = {"counter": "search", "kernel": "dlx"}


class TestConformanceOnBitboards(TestConformance):
    options = {"counter": "search", "kernel": "bitboard"}


class TestConformanceCountingByTheMemo(TestConformance):
    options = {"counter": "memo"}


@pytest.mark.parametrize("n, expected", [(2, 2), (4, 36), (6, 6728), (8, 12_988_816)])
def test_square_dominoes(n, expected):
    """OEIS A004003; the memo counts 8×8 without listing, well under a second."""
    started = time.perf_counter()
    result = solve((n, n), [api.piece("D", ["##"], unlimited=True)], "count")
    assert (result.termination, result.count) == (Termination.COMPLETED, expected)
    assert time.perf_counter() - started < 3


@pytest.mark.parametrize("n", [2, 4, 6])
def test_square_dominoes_listed(n):
    expected = {2: 2, 4: 36, 6: 6728}[n]
    result = solve((n, n), [api.piece("D", ["##"], unlimited=True)], "all", keep=0)
    assert (result.termination, result.count) == (Termination.COMPLETED, expected)


@pytest.mark.parametrize(
    "n, expected",
    [
        (1, 0),
        (2, 72),
        (3, 384),
        (4, 8544),
        pytest.param(5, 76_800, marks=pytest.mark.slow),
        pytest.param(6, 1_168_512, marks=pytest.mark.slow),
    ],
)
def test_l_trominoes_5_by_3n(n, expected):
    """OEIS A084478, by the memo and (up to 3n = 12) by dancing links."""
    pieces = [api.piece("L", L_TROMINO, unlimited=True)]
    assert solve((3 * n, 5), pieces, "count").count == expected
    if n <= 4:
        assert solve((3 * n, 5), pieces, "count", options={"counter": "search", "kernel": "dlx"}).count == expected


def test_9x9_minus_corner_with_20_l_tetrominoes():
    """1,709,594 (oracles.md), counted by the frontier scan well under a second."""
    started = time.perf_counter()
    result = solve(CORNERLESS_9X9, [api.piece("L", L_TETROMINO, count=20)], "count")
    assert (result.termination, result.count) == (Termination.COMPLETED, 1_709_594)
    assert result.raw_status.startswith("frontier")
    assert time.perf_counter() - started < 5  # about 0.2 s on an idle core


def test_2x4_with_two_l_tetrominoes():
    result = solve((4, 2), [api.piece("L", L_TETROMINO, count=2)], "all", distinct=True)
    assert (result.count, result.distinct_count, len(result.solutions)) == (2, 1, 1)


@pytest.mark.slow
def test_6x10_pentominoes_up_to_symmetry():
    """9,356 tilings, 2,339 up to symmetry: the 2,339 are listed, one per class."""
    result = solve((10, 6), [api.family("pentominoes")], "all", distinct=True)
    assert (result.termination, result.count, result.distinct_count) == (Termination.COMPLETED, 9356, 2339)
    assert len(result.solutions) == 2339
    region = Region.rectangle(10, 6)
    assert len({canonical_key(region, solution) for solution in result.solutions}) == 2339
    assert "anchor" in result.raw_status


def test_6x10_pentominoes_counted_up_to_symmetry():
    result = solve((10, 6), [api.family("pentominoes")], "count", distinct=True)
    assert (result.count, result.distinct_count) == (9356, 2339)


@pytest.mark.slow
def test_6x10_pentominoes_all():
    result = solve((10, 6), [api.family("pentominoes")], "all", keep=0)
    assert (result.termination, result.count) == (Termination.COMPLETED, 9356)


@pytest.mark.parametrize("mode", ["count", pytest.param("all", marks=pytest.mark.slow)])
def test_5x12_pentominoes_up_to_symmetry(mode):
    """The X pentomino on the middle row is fixed by a reflection: the anchor is another piece."""
    result = solve((12, 5), [api.family("pentominoes")], mode, distinct=True, keep=0)
    assert (result.count, result.distinct_count) == (4040, 1010)


@pytest.mark.parametrize(
    "mode, symmetry",
    [
        ("all", "search"),
        ("count", "search"),
        ("count", "burnside"),
        pytest.param("all", "burnside", marks=pytest.mark.slow),
    ],
)
def test_8x8_minus_centre_up_to_symmetry(mode, symmetry):
    """Dana Scott's 520 / 65; 8 symmetries, so some anchor placements lie on a diagonal."""
    result = solve(RING_8X8, [api.family("pentominoes")], mode, distinct=True, options={"symmetry": symmetry})
    assert (result.termination, result.count, result.distinct_count) == (Termination.COMPLETED, 520, 65)
    if mode == "all":
        region = Region.from_rows(RING_8X8)
        assert len({canonical_key(region, solution) for solution in result.solutions}) == 65


def test_distinct_of_a_square_agrees_three_ways_and_with_cpsat():
    """6×6 dominoes up to the square's 8 symmetries: no anchor row exists, so the count
    goes by Burnside and the listing keeps smallest images; CP-SAT goes through the
    run's generic path (filter in mode all, Burnside with CP-SAT in mode count)."""
    pieces = [api.piece("D", ["##"], unlimited=True)]
    counted = solve((6, 6), pieces, "count", distinct=True)
    listed = solve((6, 6), pieces, "all", distinct=True, keep=0)
    assert counted.count == listed.count == 6728
    assert counted.distinct_count == listed.distinct_count
    small = [api.piece("D", ["##"], unlimited=True)]
    for mode in ("all", "count"):
        ours = solve((4, 4), small, mode, distinct=True)
        theirs = api.solve(api.plan((4, 4), small, mode=mode, backend="cpsat", distinct=True))
        assert (ours.count, ours.distinct_count) == (theirs.count, theirs.distinct_count) == (36, ours.distinct_count)
        assert ours.distinct_count is not None and ours.distinct_count < 36


def test_distinct_in_search_matches_smallest_image_filter_on_l_trominoes():
    """A region with two symmetries and pieces used many times, against CP-SAT's
    generic path (which filters listed tilings by their smallest image)."""
    pieces = [api.piece("L", L_TROMINO, unlimited=True)]
    ours = solve((9, 5), pieces, "count", distinct=True)
    theirs = api.solve(api.plan((9, 5), pieces, mode="all", backend="cpsat", distinct=True, keep=0))
    assert ours.count == theirs.count == 384
    assert ours.distinct_count == theirs.distinct_count


def test_one_sided_pieces_keep_only_the_rotations():
    """Mirror images of one-sided pieces are other pieces: reflections are no symmetry."""
    pieces = [api.piece("L", L_TETROMINO, count=2, kind="one-sided")]
    plan = api.plan((4, 2), pieces, backend="exactcover")
    assert len(placement_symmetries(build_tiling(plan.pieces, plan.region), plan.region, plan.pieces)) == 2
    result = api.solve(api.plan((4, 2), pieces, backend="exactcover", mode="count", distinct=True))
    assert (result.count, result.distinct_count) == (1, 1)


def test_first_solution_streams_while_searching():
    """Each tiling reaches on_solution while the search runs, not after it: the arrivals
    spread over most of the search from the first one on (listed by the X anchor and its
    images).  The time before the first (symmetries, the cover problem) is left out: on
    a busy machine it was most of the solve."""
    model = pentomino_model((10, 6))
    arrivals = []
    started = time.perf_counter()
    result = ExactCoverBackend().solve(
        model, SolveSettings(mode="all"), lambda ones: arrivals.append(time.perf_counter()), threading.Event()
    )
    ended = time.perf_counter()
    assert result.count == len(arrivals) == 9356
    assert "exactcover_images" in result.details
    assert started < arrivals[0] and arrivals[-1] - arrivals[0] > 0.5 * (ended - arrivals[0])


@pytest.mark.parametrize("kernel", ["dlx", "bitboard"])
def test_stop_event_ends_a_count_soon(kernel):
    model = pentomino_model(LOPSIDED)
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    started = time.perf_counter()
    result = ExactCoverBackend(ExactCoverOptions(counter="search", kernel=kernel)).solve(
        model, SolveSettings(mode="count"), lambda ones: None, stop
    )
    assert result.termination == Termination.INTERRUPTED
    assert time.perf_counter() - started < 2.5


def test_stop_while_listing_a_huge_enumeration():
    result, streamed, seconds = solve_with(ExactCoverBackend(), LARGE.model(), "all", stop_after=1000)
    assert result.termination == Termination.INTERRUPTED
    assert 1000 <= len(streamed) < LARGE.count and seconds < 5


def test_refuses_a_model_that_is_not_an_exact_cover():
    model = Model()
    a, b = model.add_variable("a"), model.add_variable("b")
    model.add_constraint([(a, 1)], "==", 1, "cell")
    model.add_constraint([(a, 1), (b, 1)], "<=", 1, "loose")
    with pytest.raises(InputError, match="covers no '== 1' row") as error:
        ExactCoverBackend().solve(model, SolveSettings(mode="count"), lambda ones: None, threading.Event())
    assert error.value.path == "solve.backend"
    model.constraints[1] = model.constraints[1].__class__(((a, 1), (b, -1)), "<=", 1, "negative")
    with pytest.raises(InputError, match="coefficient"):
        cover_problem(model)


def test_piece_rows_with_min_and_max_merge_into_one_group():
    """4×4 with at most 2 dominoes, 1 to 3 squares and I-tetrominoes: 68 by brute force
    (polytile_core.testing), through '>=' and '<=' rows on the same piece."""
    pieces = [
        api.piece("D", ["##"], max=2),
        api.piece("O", ["##", "##"], min=1, max=3),
        api.piece("I", ["####"], unlimited=True),
    ]
    for options in (
        {"counter": "frontier"},
        {"counter": "memo"},
        {"counter": "search", "kernel": "dlx"},
        {"counter": "search", "kernel": "bitboard"},
    ):
        assert solve((4, 4), pieces, "count", options=options).count == 68


@pytest.mark.skipif(not HAS_CHECKERBOARD, reason="the checkerboard plugin is not installed")
def test_composes_with_the_checkerboard_split():
    """Each part is an ordinary model with one '==' count row per colour variant."""
    host = fresh_host(polytile_exactcover, __import__("polytile_checkerboard"))
    plan = api.plan(
        (4, 2),
        [api.piece("L", L_TETROMINO, count=2)],
        mode="all",
        backend="exactcover",
        split="checkerboard",
        distinct=True,
        host=host,
    )
    result = api.solve(plan)
    assert (result.count, result.distinct_count, result.found) == (2, 1, Found.FEASIBLE)


@pytest.mark.slow
@pytest.mark.skipif(not HAS_CHECKERBOARD, reason="the checkerboard plugin is not installed")
def test_9x9_minus_corner_split_into_21_parts():
    host = fresh_host(polytile_exactcover, __import__("polytile_checkerboard"))
    plan = api.plan(
        CORNERLESS_9X9,
        [api.piece("L", L_TETROMINO, count=20)],
        mode="count",
        backend="exactcover",
        split="checkerboard",
        jobs=2,
        host=host,
    )
    result = api.solve(plan)
    assert (result.termination, result.count) == (Termination.COMPLETED, 1_709_594)
    assert len(result.subproblems) == 21


def test_symmetries_a_model_no_longer_has_are_refused_not_trusted():
    """A part of a split copied from the whole model may carry the region's symmetries
    although its rows no longer allow them: counting up to them would be wrong."""
    plan = api.plan((4, 2), [api.piece("L", L_TETROMINO, count=2)], backend="exactcover")
    model = build_tiling(plan.pieces, plan.region)
    model.symmetries = placement_symmetries(model, plan.region, plan.pieces)
    assert len(model.symmetries) == 4
    first_piece_row = model.constraints[0]
    model.constraints[0] = first_piece_row.__class__(first_piece_row.terms[:3], "<=", 2, "a part's restricted row")
    with pytest.raises(InputError, match="does not map the model onto itself") as error:
        ExactCoverBackend().solve(
            model, SolveSettings(mode="count", distinct=True), lambda ones: None, threading.Event()
        )
    assert error.value.path == "solve.distinct"


def listed_by_default_and_plainly(model):
    """(tilings listed with the default options, by dancing links without images, the
    default run's details), each listing checked for repeats."""
    listings, details = [], {}
    for options in (ExactCoverOptions(), ExactCoverOptions(symmetry="burnside", kernel="dlx")):
        found: list[tuple[int, ...]] = []
        result = ExactCoverBackend(options).solve(
            model, SolveSettings(mode="all"), lambda ones, found=found: found.append(tuple(ones)), threading.Event()
        )
        assert result.count == len(found) == len(set(found))
        listings.append(set(found))
        details = details or result.details
    return listings[0], listings[1], details


def test_listing_all_checks_declared_symmetries_before_making_images():
    """The same part with stale symmetries, listed in mode all (no distinct): the images
    come only from symmetries its rows allow, so the listing equals the plain one."""
    plan = api.plan((4, 4), [api.piece("L", L_TETROMINO, count=4)], backend="exactcover")
    model = build_tiling(plan.pieces, plan.region)
    model.symmetries = placement_symmetries(model, plan.region, plan.pieces)
    first_piece_row = model.constraints[0]
    model.constraints[0] = first_piece_row.__class__(first_piece_row.terms[:3], "<=", 0, "a part's restricted row")
    by_default, plainly, _ = listed_by_default_and_plainly(model)
    assert by_default == plainly and by_default


def test_parts_of_the_tree_split_are_listed_plainly_and_completely():
    """Parts of the tree split (5×12 with one X placement on the middle row pinned, as
    Model.pinned makes them) skip the images: the same tilings as dancing links list,
    and no symmetry is looked for."""
    model = pentomino_model((12, 5))
    middle_row = [
        var
        for var, placement in model.placements.items()
        if placement.piece == "X" and sorted(y for _, y in placement.cells)[2] == 2
    ]
    listed = 0
    for x_centre in middle_row[:3]:
        by_default, plainly, details = listed_by_default_and_plainly(model.pinned([x_centre]))
        assert by_default == plainly and "exactcover_images" not in details
        listed += len(by_default)
    assert listed


def test_auto_counts_a_symmetric_board_by_images_when_its_frontier_outgrows_its_budget():
    """Dana Scott's 8×8 minus the centre: 520 tilings (docs/oracles.md).  Its frontier
    (96,047 states at its peak) passes a budget of 20,000, so auto counts an eighth of
    the tree and multiplies."""
    backend = ExactCoverBackend(ExactCoverOptions(memo_budget=20_000))
    result, _, _ = solve_with(backend, pentomino_model(RING_8X8), "count")
    assert result.count == 520
    assert (
        result.raw_status.startswith("images")
        and "frontier: more than" in result.details["exactcover_counter_fallback"]
    )


def test_an_asymmetric_board_is_scanned_once_with_no_trial_for_an_image_search(monkeypatch):
    """The frontier's trial budget is for a board an image search might count faster; on
    a board with no symmetry its scan gets the whole budget at once (it was cut at the
    trial's and made again)."""
    import polytile_exactcover.count as count

    scans = []
    scan = count._Scan.__call__
    monkeypatch.setattr(count, "IMAGES_FRONTIER_STATES", 100)
    monkeypatch.setattr(count._Scan, "__call__", lambda self, budget: scans.append(budget) or scan(self, budget))
    model = pentomino_model(LOPSIDED)
    result, _, _ = solve_with(ExactCoverBackend(), model, "count")
    by_search, _, _ = solve_with(ExactCoverBackend(ExactCoverOptions(counter="search")), model, "count")
    assert result.count == by_search.count and result.raw_status == "frontier: completed"
    assert scans == [count.frontier_budget()]
    scans.clear()
    result, _, _ = solve_with(ExactCoverBackend(), pentomino_model(RING_8X8), "count")
    assert result.count == 520 and scans[0] == 100  # symmetric: the trial first
