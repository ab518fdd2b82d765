"""The exactcover kernels against each other and against an independent brute force.

Every count here comes from ``polytile_core.testing.count_tilings_brute_force`` (its own
orientations and search, sharing no code with the model builder or this backend) or
from another kernel of this backend: the frontier scan, the memo, bitboards and dancing
links must agree, and the two listing kernels must list the same tilings.  The random
instances are drawn once from a fixed seed, so every run checks the same ones.
"""

from __future__ import annotations

import random
import threading
from pathlib import Path

import attrs
import polytile_exactcover
import pytest
from polytile_exactcover import ExactCoverBackend, ExactCoverOptions
from polytile_exactcover.cover import cover_problem
from polytile_exactcover.frontier import Pockets, Pruning, frontier, layout
from polytile_exactcover.outcome import Limits
from polytile_exactcover.search import enumerate_covers

from polytile_core.plugin import Region, SolveSettings, Termination
from polytile_core.testing import (
    SolveSpec,
    api,
    build_tiling,
    count_tilings_brute_force,
    fresh_host,
    make_plan,
    read_pipeline,
    tilings_brute_force,
)

SHAPES = {
    "D": ["##"],
    "I3": ["###"],
    "L3": ["#.", "##"],
    "L4": ["###", "#.."],
    "T4": ["###", ".#."],
    "S4": [".##", "##."],
    "O4": ["##", "##"],
    "P5": ["##", "##", "#."],
}
HOST = fresh_host(polytile_exactcover)  # no entry points to load: planning thousands stays quick
MULTIPLICITIES = ("once", "count", "range", "at least", "unlimited")


def random_instance(rng: random.Random):
    """(region rows, pieces): a board of up to 5×4 with up to three holes, one to three
    shapes, each free, one-sided or fixed, used once, k times, within a range, at least k
    times, or any number of times; often dominoes as a filler."""
    width, height = rng.randint(2, 5), rng.randint(2, 4)
    cells = [(x, y) for y in range(height) for x in range(width)]
    holes = set(rng.sample(cells, rng.randint(0, min(3, len(cells) - 2))))
    rows = ["".join("." if (x, y) in holes else "#" for x in range(width)) for y in range(height)]
    pieces = []
    for name in rng.sample(sorted(SHAPES), rng.randint(1, 3)):
        kind = rng.choice(("free", "one-sided", "fixed"))
        multiplicity = rng.choice(MULTIPLICITIES)
        low = rng.randint(0, 2)
        spec = {
            "once": {},
            "count": {"count": rng.randint(1, 3)},
            "range": {"min": low, "max": low + rng.randint(0, 3)},
            "at least": {"min": rng.randint(1, 2)},
            "unlimited": {"unlimited": True},
        }[multiplicity]
        pieces.append(api.piece(name, SHAPES[name], kind=kind, **spec))
    if rng.random() < 0.6 and "D" not in {piece.name for piece in pieces}:  # a filler, so that many tile
        pieces.append(api.piece("D", SHAPES["D"], **rng.choice(({"unlimited": True}, {"max": 8}, {"min": 1}))))
    return rows, pieces


def instances(seed: int, number: int):
    """``number`` instances whose pieces can match the area (the others are proved
    impossible before any kernel runs)."""
    rng = random.Random(seed)
    drawn = []
    while len(drawn) < number:
        rows, pieces = random_instance(rng)
        if api.plan(rows, pieces, backend="exactcover", host=HOST).tiling_problem().area_problem():
            continue
        drawn.append((rows, pieces))
    return drawn


def solve(model, mode, **options):
    found = []
    result = ExactCoverBackend(ExactCoverOptions(**options)).solve(
        model, SolveSettings(mode=mode), lambda ones: found.append(tuple(sorted(ones))), threading.Event()
    )
    assert result.termination == Termination.COMPLETED, result.raw_status
    return result, found


def check(rows, pieces):
    plan = api.plan(rows, pieces, backend="exactcover", host=HOST)
    model = build_tiling(plan.pieces, plan.region)
    tilings = set(tilings_brute_force(plan.region.cells, plan.pieces))
    expected = len(tilings)
    for counter in ("frontier", "memo", "auto"):
        assert solve(model, "count", counter=counter)[0].count == expected, (rows, pieces, counter)

    def as_tiling(ones):
        return frozenset((model.placements[var].piece, frozenset(model.placements[var].cells)) for var in ones)

    for kernel in ("bitboard", "dlx"):
        assert solve(model, "count", counter="search", kernel=kernel)[0].count == expected, (rows, pieces, kernel)
        # symmetry "search" lists by the anchor and the images under the symmetries, "burnside" plainly
        for symmetry in ("search", "burnside"):
            result, found = solve(model, "all", kernel=kernel, symmetry=symmetry)
            assert result.count == len(found) == len(set(found)) == expected, (rows, pieces, kernel, symmetry)
            assert {as_tiling(ones) for ones in found} == tilings, (rows, pieces, kernel, symmetry)
            assert kernel in result.details["exactcover_kernel"]
    one, found = solve(model, "one")
    assert len(found) == min(expected, 1) and {as_tiling(ones) for ones in found} <= tilings


@pytest.mark.parametrize("rows, pieces", instances(seed=17, number=300))
def test_random_small_boards_on_every_kernel(rows, pieces):
    check(rows, pieces)


@pytest.mark.slow
@pytest.mark.parametrize("rows, pieces", instances(seed=1717, number=3000))
def test_more_random_small_boards_on_every_kernel(rows, pieces):
    check(rows, pieces)


def test_the_random_instances_cover_what_they_claim():
    """Holes, every kind and every multiplicity appear, and some instances have tilings."""
    drawn = instances(seed=17, number=300)
    assert any("." in "".join(rows) for rows, _ in drawn)
    assert {piece.kind for _, pieces in drawn for piece in pieces} == {"free", "one-sided", "fixed"}
    assert any(piece.unlimited for _, pieces in drawn for piece in pieces)
    assert any(piece.max is not None and piece.min is not None for _, pieces in drawn for piece in pieces)
    tiled = sum(
        1
        for rows, pieces in drawn[:60]
        if count_tilings_brute_force(
            Region.from_rows(rows).cells, api.plan(rows, pieces, backend="exactcover", host=HOST).pieces
        )
    )
    assert tiled >= 15  # 20 of the first 60
    by_images = 0
    for rows, pieces in drawn[:60]:
        model = build_tiling(*_pieces_and_region(rows, pieces))
        by_images += "exactcover_images" in solve(model, "all")[0].details
    assert by_images >= 10  # listed by the anchor and its images: 29 of the first 60


def _pieces_and_region(rows, pieces):
    plan = api.plan(rows, pieces, backend="exactcover", host=HOST)
    return plan.pieces, plan.region


BULK = {"D": ["##"], "I3": ["###"], "I4": ["####"], "L3": ["#.", "##"]}


def pruned_instance(rng: random.Random):
    """(region rows, pieces) where the frontier's colouring invariant applies: a board of
    up to 6×4 with up to three holes, one piece with many copies (unlimited, at least k, up
    to 12, or a range) and one or two others used once, k times or within a small range."""
    width, height = rng.randint(3, 6), rng.randint(3, 4)
    cells = [(x, y) for y in range(height) for x in range(width)]
    holes = set(rng.sample(cells, rng.randint(0, 3)))
    rows = ["".join("." if (x, y) in holes else "#" for x in range(width)) for y in range(height)]
    name = rng.choice(sorted(BULK))
    many = rng.choice(({"unlimited": True}, {"min": 2}, {"max": 12}, {"min": 1, "max": 9}))
    pieces = [api.piece(name, BULK[name], kind=rng.choice(("free", "free", "fixed")), **many)]
    for other in rng.sample(sorted(set(SHAPES) - {name}), rng.randint(1, 2)):
        low = rng.randint(0, 1)
        few = rng.choice(({}, {"count": rng.randint(1, 2)}, {"min": low, "max": low + rng.randint(0, 2)}))
        pieces.append(api.piece(other, SHAPES[other], kind=rng.choice(("free", "one-sided", "fixed")), **few))
    return rows, pieces


def pruned_instances(seed: int, number: int):
    rng = random.Random(seed)
    drawn = []
    while len(drawn) < number:
        rows, pieces = pruned_instance(rng)
        if not api.plan(rows, pieces, backend="exactcover", host=HOST).tiling_problem().area_problem():
            drawn.append((rows, pieces))
    return drawn


def unpruned(plan):
    """The same scan without the colouring invariant."""
    return attrs.evolve(plan, pruning=Pruning(), options=[(*option[:4], 0, 0) for option in plan.options])


@pytest.mark.parametrize("rows, pieces", pruned_instances(seed=1700, number=150))
def test_the_pruned_frontier_counts_as_the_brute_force(rows, pieces):
    plan = api.plan(rows, pieces, backend="exactcover", host=HOST)
    model = build_tiling(plan.pieces, plan.region)
    expected = count_tilings_brute_force(plan.region.cells, plan.pieces)
    scan = layout(cover_problem(model))
    if not isinstance(scan, str):  # a cell only one placement covers may leave the scan no layout
        assert frontier(scan).run(1 << 62, 0.0)[1] == expected, (rows, pieces)
        assert frontier(unpruned(scan)).run(1 << 62, 0.0)[1] == expected, (rows, pieces)
        # On two threads, a forward and a backward scan met halfway, both pruned.
        assert frontier(scan).run(1 << 62, 0.0, 2, scan.n_cells // 2)[1] == expected, (rows, pieces)
    assert solve(model, "count")[0].count == expected, (rows, pieces)


def test_the_pruned_instances_exercise_the_pruning():
    """Most take the invariant, some of those have tilings, and it removes states in many."""
    active = tiled = fewer = 0
    for rows, pieces in pruned_instances(seed=1700, number=150):
        plan = api.plan(rows, pieces, backend="exactcover", host=HOST)
        scan = layout(cover_problem(build_tiling(plan.pieces, plan.region)))
        if not isinstance(scan, str) and scan.pruning.modulus:
            active += 1
            pruned, whole = frontier(scan).run(1 << 62, 0.0), frontier(unpruned(scan)).run(1 << 62, 0.0)
            tiled += pruned[1] > 0
            fewer += pruned[2] < whole[2]
    # 97, 17, 72 (124, 29, 88 before the counts were narrowed by the area, which leaves
    # some boards no other piece to prune by, or a piece no room at all)
    assert active >= 90 and tiled >= 15 and fewer >= 65, (active, tiled, fewer)


def test_a_notched_board_of_bars_is_pruned_and_counted_as_by_search():
    """7×7 minus its corners and centre: 7 I4, one I3, one L3 and two P (the 2022 paper's
    Fig. 12 in small), counted by both search kernels; the invariant (colours mod 4, nine
    functionals) leaves fewer than one state in five of the unpruned peak layer."""
    rows = [".#####.", "#######", "#######", "###.###", "#######", "#######", ".#####."]
    pieces = [
        api.piece("I4", ["####"], count=7),
        api.piece("I3", ["###"]),
        api.piece("L3", ["#.", "##"]),
        api.piece("P", ["##", "##", "#."], count=2),
    ]
    model = build_tiling(*_plan_parts(rows, pieces))
    by_search = {solve(model, "count", counter="search", kernel=kernel)[0].count for kernel in ("bitboard", "dlx")}
    scan = layout(cover_problem(model))
    assert scan.pruning.modulus == 4
    _, count, peak, _ = frontier(scan).run(1 << 62, 0.0)
    _, whole_count, whole_peak, _ = frontier(unpruned(scan)).run(1 << 62, 0.0)
    assert by_search == {count} == {whole_count}
    assert 5 * peak < whole_peak
    result, _ = solve(model, "count", counter="frontier")
    assert result.count == count
    assert result.details["exactcover_frontier_pruning"].startswith("colours mod 4 (")


def test_closed_pockets_cut_the_scan_of_5x12_pentominoes():
    """5×12 with the 12 pentominoes (oracles.md: 4,040): the scan that drops states with a
    closed pocket no piece fills gives the published count with fewer states at its peak."""
    plan = api.plan((12, 5), [api.family("pentominoes")], host=HOST)
    scan = layout(cover_problem(build_tiling(plan.pieces, plan.region)))
    assert (scan.pockets.unit, scan.pockets.smallest) == (5, 5)
    with_pockets = frontier(scan).run(1 << 62, 0.0)
    without = frontier(attrs.evolve(scan, pockets=Pockets())).run(1 << 62, 0.0)
    assert with_pockets[1] == without[1] == 4040
    assert with_pockets[2] < without[2]
    # On two threads: the backward scan alone (meeting at cell 0), and both halves.
    assert frontier(scan).run(1 << 62, 0.0, 2, 0)[1] == frontier(scan).run(1 << 62, 0.0, 2)[1] == 4040


@pytest.mark.slow
def test_the_2022_paper_fig_8_by_the_scan_and_by_the_memo():
    """The jagged 13×13 with 33 L-trominoes and 9 X (no published count): the default
    (the frontier scan) and the memo, a different algorithm, give the same count."""
    pipeline = read_pipeline(Path(__file__).parents[3] / "examples" / "paper" / "gb2022-fig08.toml")
    plan = make_plan(attrs.evolve(pipeline, split=None, solve=SolveSpec(mode="count")), HOST)
    model = build_tiling(plan.pieces, plan.region)
    by_scan, _ = solve(model, "count")
    assert by_scan.details["exactcover_kernel"] == "frontier"
    assert by_scan.count == solve(model, "count", counter="memo")[0].count == 418_440


def _plan_parts(rows, pieces):
    plan = api.plan(rows, pieces, backend="exactcover", host=HOST)
    return plan.pieces, plan.region


@pytest.mark.parametrize(
    "rows, pieces, expected",
    [
        # OEIS A004003 (8×8 is 12,988,816: counted in test_exactcover.py)
        ((6, 6), [api.piece("D", ["##"], unlimited=True)], 6728),
        # OEIS A084478, 5×3n with L-trominoes, n = 4
        ((12, 5), [api.piece("L", ["#.", "##"], unlimited=True)], 8544),
        # oracles.md: 3×3 minus one corner with dominoes (Reid's example)
        (["###", "###", "##."], [api.piece("D", ["##"], unlimited=True)], 4),
        # oracles.md: Dana Scott's 8×8 minus the central 2×2
        (["########"] * 3 + ["###..###"] * 2 + ["########"] * 3, [api.family("pentominoes")], 520),
    ],
)
def test_published_counts_on_both_listing_kernels(rows, pieces, expected):
    plan = api.plan(rows, pieces, backend="exactcover")
    model = build_tiling(plan.pieces, plan.region)
    for kernel in ("bitboard", "dlx"):
        assert solve(model, "count", counter="search", kernel=kernel)[0].count == expected
    assert solve(model, "count", counter="frontier")[0].count == expected


@pytest.mark.parametrize("kernel", ["bitboard", "dlx"])
def test_distinct_lists_one_tiling_per_class_on_both_kernels(kernel):
    """Dana Scott's 65 (oracles.md), symmetry broken in the search on either kernel."""
    rows = ["########"] * 3 + ["###..###"] * 2 + ["########"] * 3
    result = api.solve(
        api.plan(
            rows,
            [api.family("pentominoes")],
            mode="all",
            backend="exactcover",
            distinct=True,
            options={"exactcover": {"kernel": kernel}},
        )
    )
    assert (result.count, result.distinct_count, len(result.solutions)) == (520, 65, 65)
    assert kernel in result.details["exactcover_kernel"]


def test_the_frontier_says_why_it_cannot_scan():
    """A placement spanning more than 64 cells of the scan: a 9-long bar across 9-cell columns."""
    plan = api.plan((9, 9), [api.piece("I", ["#########"], unlimited=True)], backend="exactcover")
    model = build_tiling(plan.pieces, plan.region)
    assert "spans 73 cells" in layout(cover_problem(model))
    forced, _ = solve(model, "count", counter="frontier")
    assert "frontier: a placement spans 73 cells" in forced.details["exactcover_counter_fallback"]
    assert forced.count == solve(model, "count")[0].count == 2  # two tilings: all bars across, or all down


def test_a_frontier_past_its_budget_falls_back_with_a_note():
    """8×8 dominoes (OEIS A004003) with a table budget of 10 states: counted by search instead."""
    result = api.solve(
        api.plan(
            (8, 8),
            [api.piece("D", ["##"], unlimited=True)],
            mode="count",
            backend="exactcover",
            options={"exactcover": {"memo_budget": 10}},
        )
    )
    assert result.count == 12_988_816
    assert "frontier: more than 10 states" in result.details["exactcover_counter_fallback"]


DOMINOES = [api.piece("D", ["##"], unlimited=True)]


@pytest.mark.parametrize("kernel", ["bitboard", "dlx"])
def test_solutions_found_without_the_gil_are_all_handed_over_in_batches(kernel):
    """The kernels hold the solutions they find and hand them to Python in batches of up
    to 64 (``_handover.h``): every one of the 153 domino tilings of 3×8 (OEIS A001835;
    the brute force's) arrives once, a limit of 100 gives exactly 100, and a callback
    that raises on the 70th ends the run with its error and is not called again."""
    plan = api.plan(["########"] * 3, DOMINOES, backend="exactcover", host=HOST)
    model = build_tiling(plan.pieces, plan.region)
    problem = cover_problem(model)
    tilings = set(tilings_brute_force(plan.region.cells, plan.pieces))
    assert len(tilings) == 153

    def as_tiling(ones):
        return frozenset((model.placements[var].piece, frozenset(model.placements[var].cells)) for var in ones)

    def listed(limit=0, on_ones=None):
        got: list[list[int]] = []
        limits = Limits(threading.Event(), None)
        outcome = enumerate_covers(problem, on_ones or got.append, limits, limit, kernel)
        return outcome, got

    outcome, got = listed()
    assert (outcome.status, outcome.count, len(got)) == ("completed", 153, 153)
    assert {as_tiling(ones) for ones in got} == tilings
    outcome, got = listed(limit=100)
    assert (outcome.status, outcome.count, len(got)) == ("solution_limit", 100, 100)

    calls = []

    def fails_on_the_70th(ones):
        calls.append(ones)
        if len(calls) == 70:
            raise RuntimeError("the 70th")

    with pytest.raises(RuntimeError, match="the 70th"):
        listed(on_ones=fails_on_the_70th)
    assert len(calls) == 70


@pytest.mark.parametrize("kernel", ["bitboard", "dlx"])
def test_held_solutions_reach_python_while_the_search_runs(kernel):
    """Held solutions are handed over during the search, not only at its end: a caller
    that stops at its first tiling ends a listing of 5×12 pentominoes (4,040 tilings,
    oracles.md) long before the last one."""
    plan = api.plan(["############"] * 5, [api.family("pentominoes")], backend="exactcover", host=HOST)
    problem = cover_problem(build_tiling(plan.pieces, plan.region))
    stop = threading.Event()
    limits = Limits(stop, None)
    outcome = enumerate_covers(problem, lambda ones: stop.set(), limits, 0, kernel)
    assert outcome.status == "interrupted" and 0 < outcome.count < 4040


def test_secondary_items_are_covered_at_most_once_as_a_brute_force_says():
    """Dancing links with secondary items (``primary`` < ``n_items``) against a brute force
    over every subset of options, on random small instances drawn afresh each run.  As in
    Knuth's dlx1, a solution chooses options only to cover primary items: an option with
    secondary items alone is never chosen."""
    import itertools

    from polytile_exactcover._dlx import Search

    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    for _ in range(40):
        n_items = rng.randint(2, 7)
        primary = rng.randint(0, n_items)
        options = [
            tuple(sorted(rng.sample(range(1, n_items + 1), rng.randint(1, min(3, n_items)))))
            for _ in range(rng.randint(1, 9))
        ]
        expected = set()
        for size in range(len(options) + 1):
            for chosen in itertools.combinations(range(len(options)), size):
                covered = [item for option in chosen for item in options[option]]
                useful = all(min(options[option]) <= primary for option in chosen)
                if useful and len(covered) == len(set(covered)) and set(range(1, primary + 1)) <= set(covered):
                    expected.add(chosen)
        found: list[list[int]] = []
        Search(n_items, [(option, ()) for option in options], [], primary).run(found.append, 0, 0.0)
        assert {tuple(sorted(chosen)) for chosen in found} == expected, f"seed {seed}"
        assert len(found) == len(expected), f"seed {seed}"


def test_a_corner_cell_beside_a_hole_keeps_the_pocket_check():
    """Every placement covering the corner (3, 2) covers (3, 1) too (its other neighbour
    is a hole); the cell is told apart by (3, 1)'s own placements, so the pocket check
    still runs, and the count is the brute force's."""
    rows = ["####", "####", "##.#"]
    pieces = [api.piece("I3", ["###"], unlimited=True), api.piece("L3", ["#.", "##"], unlimited=True)]
    plan = api.plan(rows, pieces, backend="exactcover", host=HOST)
    model = build_tiling(plan.pieces, plan.region)
    scan = layout(cover_problem(model))
    assert scan.pockets.unit == 3
    assert frontier(scan).run(1 << 62, 0.0)[1] == count_tilings_brute_force(plan.region.cells, plan.pieces)
