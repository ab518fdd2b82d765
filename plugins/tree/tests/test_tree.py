"""The search-tree split: its parts partition the tilings, whatever the instance.

Counts come from the brute force in ``polytile_core.testing`` (its own orientations and
search, no model) or from docs/oracles.md; the listings of the parts are checked
against each other (no tiling in two parts) and against the whole model's rows.
"""

from __future__ import annotations

import random
import threading
import time

import attrs
import polytile_cpsat
import polytile_exactcover
import polytile_tree
import pytest
from polytile_cpsat import make_backend as cpsat_backend
from polytile_exactcover import ExactCoverBackend
from polytile_exactcover.cover import whole_cover
from polytile_exactcover.outcome import Limits
from polytile_exactcover.search import listing_kernel
from polytile_tree import TreeOptions, TreeSplit

from polytile_core.plugin import (
    Constraint,
    InputError,
    Model,
    PieceType,
    Region,
    SolveSettings,
    Termination,
    TilingProblem,
)
from polytile_core.testing import (
    INSTANCES,
    Checkpoint,
    DecomposerConformance,
    PieceSpec,
    Pipeline,
    RegionSpec,
    SolveSpec,
    SplitSpec,
    build_tiling,
    cells_of_table,
    count_tilings_brute_force,
    fresh_host,
    make_plan,
    pieces_of_table,
    run,
    solve_with,
    structure,
    tilings_brute_force,
)
from polytile_core.testing import random_instance as random_table

HOST = fresh_host(polytile_tree, polytile_exactcover, polytile_cpsat)

SHAPES = {
    "domino": ["##"],
    "I3": ["###"],
    "L3": ["#.", "##"],
    "L4": ["#.", "#.", "##"],
    "S4": [".##", "##."],
    "T4": ["###", ".#."],
    "O4": ["##", "##"],
    "monomino": ["#"],
}


def random_instance(rng: random.Random) -> tuple[Region, tuple[PieceType, ...]]:
    """A small board with a few holes, and two or three piece types of random kinds and
    multiplicities (exactly n, a range, unlimited)."""
    width, height = rng.randint(2, 5), rng.randint(2, 4)
    cells = {(x, y) for x in range(width) for y in range(height)}
    for _ in range(rng.randint(0, 3)):
        if len(cells) > 4:
            cells.discard(rng.choice(sorted(cells)))
    pieces = []
    for name in rng.sample(sorted(SHAPES), rng.randint(2, 3)):
        rows = SHAPES[name]
        shape = tuple(sorted((x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "#"))
        kind = rng.choice(["free", "one-sided", "fixed"])
        most = len(cells) // len(shape)
        how = rng.choice(["exact", "range", "unlimited"])
        if how == "exact":
            low = high = rng.randint(0, most)
        elif how == "range":
            low = rng.randint(0, max(0, most - 1))
            high = rng.randint(low, most)
        else:
            low, high = rng.randint(0, 1), None
        pieces.append(PieceType(name, shape, kind, low, high))
    return Region(frozenset(cells)), tuple(pieces)


def tree_split(model: Model, parts: int | None = None):
    return TreeSplit().split(
        TilingProblem(Region(frozenset()), ()), model, lambda problem: model, TreeOptions(parts=parts)
    )


def listings_of_parts(model: Model, parts) -> list[set[frozenset[int]]]:
    """Every tiling of every part (exact cover on the pinned model), as sets of variables."""
    backend = ExactCoverBackend()
    listings = []
    for part in parts:
        answer, streamed, _ = solve_with(backend, model.pinned(part.fixed), "all")
        assert answer.termination == Termination.COMPLETED
        assert answer.count == len(streamed)
        listings.append({frozenset(ones) for ones in streamed})
    return listings


@pytest.mark.parametrize("seed", range(60))
def test_parts_of_random_instances_are_disjoint_and_add_up_to_the_brute_force(seed):
    rng = random.Random(seed)
    region, pieces = random_instance(rng)
    model = build_tiling(pieces, region)
    expected = count_tilings_brute_force(region.cells, pieces)
    split = tree_split(model, rng.randint(2, 12))
    if split.impossible:
        assert expected == 0, split.impossible
        return
    parts = list(split.parts)
    assert len(parts) == split.total
    assert len({part.fixed for part in parts}) == len(parts)
    listings = listings_of_parts(model, parts)
    union: set[frozenset[int]] = set()
    for part, listing in zip(parts, listings, strict=True):
        assert not union & listing, f"a tiling is in two parts (seed {seed})"
        union |= listing
        for ones in listing:
            assert set(part.fixed) <= ones
            assert model.check(ones) == []
    assert len(union) == expected


def symmetric_instance(rng: random.Random) -> tuple[Region, tuple[PieceType, ...]]:
    """A rectangle or square with holes placed symmetrically (so the region keeps two,
    four or eight symmetries), and one piece type used exactly once (an anchor) beside
    others of random kinds and multiplicities."""
    width = rng.randint(3, 5)
    height = width if rng.random() < 0.5 else rng.randint(2, 5)
    cells = {(x, y) for x in range(width) for y in range(height)}
    for _ in range(rng.randint(0, 1)):
        x, y = rng.randrange(width), rng.randrange(height)
        cells -= {(x, y), (width - 1 - x, y), (x, height - 1 - y), (width - 1 - x, height - 1 - y)}
        if width == height:
            cells -= {(y, x), (height - 1 - y, x), (y, width - 1 - x), (height - 1 - y, width - 1 - x)}
    names = rng.sample(sorted(SHAPES), 3)
    pieces = []
    for number, name in enumerate(names):
        rows = SHAPES[name]
        shape = tuple(sorted((x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "#"))
        kind = rng.choice(["free", "one-sided", "fixed"])
        if number == 0:
            pieces.append(PieceType(name, shape, kind, 1, 1))
        elif rng.random() < 0.5:
            pieces.append(PieceType(name, shape, kind, 0, None))
        else:
            pieces.append(PieceType(name, shape, kind, 0, rng.randint(1, 4)))
    return Region(frozenset(cells)), tuple(pieces)


@pytest.mark.parametrize("seed", range(60))
def test_parts_with_images_hold_every_tiling_exactly_once(seed):
    """On symmetric boards the tree starts from one anchor placement per orbit; each part's
    tilings and their images under the part's symmetries are every tiling of the brute
    force, each exactly once."""
    rng = random.Random(seed)
    region, pieces = symmetric_instance(rng)
    model = build_tiling(pieces, region)
    expected = {frozenset(tiling) for tiling in tilings_brute_force(region.cells, pieces)}
    split = TreeSplit().split(
        TilingProblem(region, pieces), model, lambda problem: model, TreeOptions(rng.randint(1, 9))
    )
    if split.impossible:
        assert not expected, split.impossible
        return
    parts = list(split.parts)
    found: list[frozenset] = []
    for part, listing in zip(parts, listings_of_parts(model, parts), strict=True):
        for ones in listing:
            for image in part.images or (tuple(range(model.num_variables)),):
                placed = model.placements
                found.append(frozenset((placed[image[var]].piece, frozenset(placed[image[var]].cells)) for var in ones))
    assert len(found) == len(set(found)), f"a tiling came out twice (seed {seed})"
    assert set(found) == expected


def test_6x10_parts_stand_for_their_images():
    pentominoes = plan(width=10, height=6)
    model = pentominoes.build()
    split = TreeSplit().split(pentominoes.tiling_problem(), model, lambda problem: model, TreeOptions(parts=16))
    parts = list(split.parts)
    assert "4 symmetries" in split.summary["symmetry"] and all(len(part.images) == 4 for part in parts)


@pytest.mark.parametrize("seed", range(30))
def test_any_pins_count_as_a_second_backend_counts_them(seed):
    """Pins the tree would never make too (two placements on one cell, a variable no
    tiling can use, a model pinned twice): exact cover's cover made from the whole
    model's agrees with CP-SAT reading the pinned rows."""
    rng = random.Random(1000 + seed)
    region, pieces = random_instance(rng)
    model = build_tiling(pieces, region)
    if model.num_variables == 0:
        return
    first = tuple(rng.sample(range(model.num_variables), rng.randint(1, min(2, model.num_variables))))
    pinned = model.pinned(first)
    if rng.random() < 0.5:
        pinned = pinned.pinned([rng.randrange(model.num_variables)])
    assert pinned.pinned_on() is not None and pinned.pinned_on().base is model
    exact, listed, _ = solve_with(ExactCoverBackend(), pinned, "all")
    reference, _, _ = solve_with(cpsat_backend(None), pinned, "count")
    assert exact.termination == reference.termination == Termination.COMPLETED
    assert exact.count == len(listed) == reference.count, f"seed {seed}"
    assert all(pinned.check(ones) == [] for ones in listed)


def test_a_model_changed_after_pinning_is_read_from_its_rows():
    """5 tilings of 2×4 by dominoes (Fibonacci, oracles.md); the leftmost vertical one is
    in 3 of them, and with the rightmost too in 2."""
    model = build_tiling((PieceType("D", ((0, 0), (1, 0)), "free", 0, None),), Region.rectangle(4, 2))
    left = next(var for var, placed in model.placements.items() if set(placed.cells) == {(0, 0), (0, 1)})
    right = next(var for var, placed in model.placements.items() if set(placed.cells) == {(3, 0), (3, 1)})
    pinned = model.pinned([left])
    assert solve_with(ExactCoverBackend(), pinned, "count")[0].count == 3
    changed = attrs.evolve(pinned, constraints=[*pinned.constraints, Constraint(((right, 1),), "==", 1, "right")])
    assert changed.pinned_on() is None  # the pins no longer say it all: the backend reads the rows
    assert solve_with(ExactCoverBackend(), changed, "count")[0].count == 2
    model.add_constraint([(right, 1)], "==", 1, "right")  # the whole model changed after it was read
    assert solve_with(ExactCoverBackend(), model.pinned([left]), "count")[0].count == 2


def test_a_subtree_is_counted_by_search_and_the_whole_by_the_table():
    """5×15 with L-trominoes, 76,800 tilings (OEIS A084478, oracles.md): too many for the
    short dancing-links probe, so counter auto counts the whole by the frontier table;
    each tree part, told it is a subtree, by search."""
    model = build_tiling((PieceType("L", ((0, 0), (0, 1), (1, 1)), "free", 0, None),), Region.rectangle(15, 5))
    stop = threading.Event()
    whole = ExactCoverBackend().solve(model, SolveSettings(mode="count"), lambda ones: None, stop)
    assert whole.count == 76_800 and whole.work == "table"
    total = 0
    for part in tree_split(model, 8).parts:
        settings = SolveSettings(mode="count", subtree=True)
        answer = ExactCoverBackend().solve(model.pinned(part.fixed), settings, lambda ones: None, stop)
        assert answer.work == "search" and answer.details["exactcover_kernel"] in ("dlx", "bitboard")
        total += answer.count
    assert total == 76_800


def test_a_split_run_tells_the_backend_its_parts_are_subtrees(monkeypatch):
    seen = []
    solve = ExactCoverBackend.solve

    def recording(self, model, settings, on_solution, stop):
        seen.append(settings.subtree)
        return solve(self, model, settings, on_solution, stop)

    monkeypatch.setattr(ExactCoverBackend, "solve", recording)
    assert run(plan(**L5X6, options={"parts": 6})).count == 72
    assert seen and all(seen)


def test_a_board_with_more_parts_asked_than_it_has_nodes_is_split_into_its_leaves():
    """2×4 with two L-tetrominoes: 2 tilings (oracles.md); asking for 50 parts branches to
    the leaves and stops there."""
    instance = next(i for i in INSTANCES if i.name == "2x4, two L-tetrominoes")
    model = instance.model()
    split = tree_split(model, 50)
    listings = listings_of_parts(model, list(split.parts))
    assert sum(map(len, listings)) == instance.count == 2


def test_a_dead_root_is_impossible_without_parts():
    region = Region.from_rows(["#.#", "###"])
    pieces = (PieceType("I", ((0, 0), (1, 0), (2, 0)), "fixed", 0, None),)  # cell (1, 0) is a hole: corners fit nothing
    split = tree_split(build_tiling(pieces, region))
    assert split.total == 0 and split.impossible and "dead ends" in split.impossible


def test_parts_are_handed_out_largest_estimate_first():
    model = build_tiling((PieceType("D", ((0, 0), (1, 0)), "free", 0, None),), Region.rectangle(6, 5))
    brancher = polytile_tree.Brancher(model)
    nodes, _ = polytile_tree.grow(brancher, [brancher.node(())], 40)
    estimates = [node.estimate for node in nodes]
    assert len(nodes) >= 40 and estimates == sorted(estimates, reverse=True)


def test_without_parts_asked_it_makes_32_per_job():
    model = build_tiling((PieceType("D", ((0, 0), (1, 0)), "free", 0, None),), Region.rectangle(6, 5))
    for jobs in (1, 3):
        split = TreeSplit().split(TilingProblem(Region(frozenset()), ()), model, lambda problem: model, None, jobs=jobs)
        assert 32 * jobs <= split.total <= 32 * jobs + 3  # the last branching adds at most 3: 4 dominoes on a cell


def test_options_are_checked():
    with pytest.raises(InputError, match=r"^options\.tree\.parts: expected 1 or more, got 0$"):
        structure({"parts": 0}, TreeOptions, path="options.tree")


def test_an_optimisation_model_is_refused():
    model = Model(objective={0: 1})
    model.add_variable("x")
    model.add_constraint([(0, 1)], "==", 1, "row")
    with pytest.raises(InputError, match="not optimisation"):
        tree_split(model)


# --------------------------------------------------------------------------- whole runs


def plan(
    rows=None,
    width=None,
    height=None,
    pieces=None,
    mode="count",
    backend="exactcover",
    executor="thread",
    jobs=2,
    options=None,
    distinct=False,
):
    pipeline = Pipeline(
        region=RegionSpec(rows=rows, width=width, height=height),
        pieces=pieces or [PieceSpec(family="pentominoes")],
        solve=SolveSpec(mode=mode, backend=backend, executor=executor, jobs=jobs, distinct=distinct),
        split=SplitSpec(method="tree"),
        options={"tree": options or {}},
    )
    return make_plan(pipeline, HOST)


L5X6 = dict(width=6, height=5, pieces=[PieceSpec(shape=["#.", "##"], name="L", unlimited=True)])


@pytest.mark.parametrize("executor", ["thread", "process"])
@pytest.mark.parametrize("backend", ["exactcover", "cpsat"])
def test_a_split_run_counts_the_5x6_l_trominoes(executor, backend):
    """72 tilings (OEIS A084478, oracles.md), on either backend: the split is kernel-agnostic."""
    result = run(plan(**L5X6, executor=executor, backend=backend, options={"parts": 12}))
    assert result.termination == Termination.COMPLETED
    assert result.count == 72
    assert result.details["split"] == "tree" and result.details["parts_solved"] == result.details["subproblems"] >= 12


def test_a_split_run_lists_every_tiling_once():
    result = run(plan(**L5X6, mode="all", options={"parts": 20}))
    assert result.count == len(result.solutions) == 72
    tilings = {frozenset((p.piece, p.cells) for p in solution.placements) for solution in result.solutions}
    assert len(tilings) == 72
    assert all(solution.part for solution in result.solutions)


def test_mode_one_finds_a_tiling():
    result = run(plan(width=10, height=6, mode="one", executor="process"))
    assert result.termination == Termination.COMPLETED and len(result.solutions) == 1
    assert sorted(cell for p in result.solutions[0].placements for cell in p.cells) == sorted(
        (x, y) for x in range(10) for y in range(6)
    )


def test_distinct_is_counted_the_generic_way():
    """Up to symmetry, as the whole problem counts it in the search (a second route)."""
    whole = run(attrs.evolve(plan(**L5X6, distinct=True), split=None))
    for mode in ("count", "all"):
        split = run(plan(**L5X6, mode=mode, distinct=True, options={"parts": 10}))
        assert split.count == whole.count == 72
        assert split.distinct_count == whole.distinct_count is not None


def test_a_checkpointed_split_run_resumes_to_the_same_count(tmp_path):
    path = tmp_path / "run.ckpt"
    first = plan(**L5X6, options={"parts": 8})
    result = run(first, checkpoint=Checkpoint.open(path, first, resume=False))
    assert result.count == 72
    lines = path.read_text().splitlines(keepends=True)
    assert len(lines) == 1 + result.details["subproblems"]
    path.write_text("".join(lines[:4]))  # as if killed after three parts
    again = plan(**L5X6, options={"parts": 8})
    resumed = run(again, checkpoint=Checkpoint.open(path, again, resume=True))
    assert resumed.count == 72 and resumed.details["parts_from_checkpoint"] == 3


# A 9×9 board with three holes and six kinds of piece with copies: 287,263 tilings, a
# search of about a minute on one core (docs/benchmarks/random.md, "e1").
NINE = dict(
    rows=["#########", "#########", "#########", ".########", "#.#######", "#########", "#.#######", "#########"]
    + ["#########"],
    pieces=[
        PieceSpec(name="V5", shape=["#..", "#..", "###"], count=1),
        PieceSpec(name="L4", shape=["###", "#.."], count=2),
        PieceSpec(name="T4", shape=["###", ".#."], count=5),
        PieceSpec(name="W5", shape=["#..", "##.", ".##"], count=4),
        PieceSpec(name="L5", shape=["####", "#..."], count=2),
        PieceSpec(name="U5", shape=["#.#", "###"], count=3),
    ],
)


def test_a_stopped_split_run_is_interrupted_with_a_partial_count():
    stop = threading.Event()
    threading.Timer(1.0, stop.set).start()
    started = time.perf_counter()
    result = run(plan(**NINE, executor="process", options={"parts": 64}), stop=stop)
    assert time.perf_counter() - started < 15
    assert result.termination == Termination.INTERRUPTED
    assert result.count < 287_263


def test_progress_knows_the_parts():
    seen = []
    run(plan(**L5X6, options={"parts": 12}), on_progress=seen.append)
    assert seen[-1].parts_total is not None and seen[-1].parts_done == seen[-1].parts_total >= 12


def test_each_worker_gets_the_model_about_once():
    result = run(plan(**L5X6, executor="process", options={"parts": 40}))
    assert result.count == 72
    # The parts in flight before a worker answered, and one miss per worker and part in its queue.
    assert result.details["models_sent"] <= 3 * 2 * 2
    assert result.details["part_prepare_seconds_max"] < 0.05


# --------------------------------------------------------------------------- the default route


def default_plan(width: int, height: int, shape: list[str], jobs: int = 2, backend: str | None = None):
    """Copies of one shape on a board counted on ``jobs`` jobs, with no [split] (and by
    default no backend) named."""
    solve = (
        SolveSpec(mode="count", jobs=jobs) if backend is None else SolveSpec(mode="count", jobs=jobs, backend=backend)
    )
    pipeline = Pipeline(
        region=RegionSpec(width=width, height=height),
        pieces=[PieceSpec(shape=shape, name="P", unlimited=True)],
        solve=solve,
        options={"exactcover": {"counter": "search", "kernel": "dlx"}},
    )
    return make_plan(pipeline, HOST)


def test_a_small_count_stays_whole():
    result = run(default_plan(4, 4, ["##"]))
    assert result.count == 36  # dominoes, OEIS A004003
    assert result.details["when_long"] == "whole: the probe finished it by a short search"
    assert "split" not in result.details


def test_a_count_that_needs_a_search_is_split_at_once():
    """exactcover answers probes: told to count by search, it makes none in the probe,
    and the default route splits at once (no search made twice): 5×15 with L-trominoes,
    76,800 (OEIS A084478)."""
    started = time.perf_counter()
    result = run(default_plan(15, 5, ["#.", "##"], backend="exactcover"))
    assert result.count == 76_800 and result.termination == Termination.COMPLETED
    assert result.details["split"] == "tree" and result.details["when_long"].startswith("split by the tree on 2 jobs")
    assert result.details["when_long"].endswith("could not count it by a table: it needs a search")
    assert result.details["probe_seconds"] < (time.perf_counter() - started) / 2


def test_a_long_listing_is_split_after_an_estimate_not_a_listing():
    """5×15 with L-trominoes, 76,800 tilings (OEIS A084478): the probe estimates the
    listing (its search and its tilings) as long and leaves it to the split at once, so
    no tiling is listed twice; the split's parts list each exactly once."""
    keys = default_plan(15, 5, ["#.", "##"], backend="exactcover")
    result = run(attrs.evolve(keys, settings=attrs.evolve(keys.settings, mode="all"), keep=0))
    assert result.count == 76_800 and result.termination == Termination.COMPLETED
    assert result.details["when_long"] == (
        "split by the tree on 2 jobs: the probe of the whole problem found its listing long by an estimate of its search"
    )


def test_a_short_listing_is_listed_whole_by_the_probe():
    """4×4 with dominoes, 36 tilings (OEIS A004003): the short search of the estimate
    finishes it, and the probe lists it whole."""
    keys = default_plan(4, 4, ["##"], backend="exactcover")
    result = run(attrs.evolve(keys, settings=attrs.evolve(keys.settings, mode="all")))
    assert result.count == 36 == len(result.solutions)
    assert result.details["when_long"] == "whole: the probe finished it as a short listing"


def test_a_listing_from_a_table_is_listed_whole_not_split():
    """5×15 with L-trominoes, 76,800 tilings (OEIS A084478), listed from the frontier's
    table (``counter = "frontier"``) by the probe, which hands them on as it lists them:
    not held and made again, nor split and searched; each tiling reaches the result once."""
    pipeline = Pipeline(
        region=RegionSpec(width=15, height=5),
        pieces=[PieceSpec(shape=["#.", "##"], name="L", unlimited=True)],
        solve=SolveSpec(mode="all", jobs=2, backend="exactcover", keep=100_000),
        options={"exactcover": {"counter": "frontier"}},
    )
    result = run(make_plan(pipeline, HOST))
    assert result.count == 76_800 == len({solution.placements for solution in result.solutions})
    assert result.termination == Termination.COMPLETED and "split" not in result.details
    assert result.details["when_long"] == "whole: the probe finished it from its table"
    assert result.details["exactcover_kernel"] == "frontier"


def test_a_long_count_by_a_table_is_never_cut_short():
    """A count by a table of the whole problem is not split into search subtrees, nor
    cut short and made again: 5×12 with the 12 pentominoes, 4,040 tilings (oracles.md),
    counted by the frontier scan in the probe, which has no time limit of its own."""
    pipeline = Pipeline(
        region=RegionSpec(width=12, height=5),
        pieces=[PieceSpec(family="pentominoes")],
        solve=SolveSpec(mode="count", jobs=2, backend="exactcover"),
        options={"exactcover": {"counter": "frontier"}},
    )
    result = run(make_plan(pipeline, HOST))
    assert result.count == 4_040 and result.termination == Termination.COMPLETED
    assert "split" not in result.details
    assert result.details["when_long"] == "whole: the probe finished it by its tables"


def test_one_job_or_a_named_split_takes_no_probe():
    assert default_plan(4, 4, ["##"], jobs=1).split_when_long is None
    assert plan(**L5X6).split_when_long is None


def test_analyze_measures_the_tree_parts(tmp_path, capsys):
    from polytile_core.testing import main

    path = tmp_path / "run.toml"
    path.write_text(
        '[region]\nwidth = 6\nheight = 5\n\n[[pieces]]\nshape = ["#.", "##"]\nname = "L"\nunlimited = true\n'
        '\n[split]\nmethod = "tree"\n\n[options.tree]\nparts = 12\n',
        encoding="utf-8",
    )
    assert main(["analyze", str(path), "--first", "2"]) == 0
    out = capsys.readouterr().out
    assert "split 'tree'" in out and "branching: the first open cell in the order a cell-filling search takes" in out


# 5×5 with eight L-trominoes and one monomino: the monomino is the anchor, the square's
# eight symmetries its images (the centre placement is fixed by all of them).
L_AND_MONOMINO = dict(
    width=5,
    height=5,
    pieces=[PieceSpec(shape=["#.", "##"], name="L", unlimited=True), PieceSpec(shape=["#"], name="M", count=1)],
)


@pytest.mark.parametrize("mode", ["count", "all"])
def test_parts_with_images_count_and_list_as_the_whole_does(mode):
    """Against the whole problem (the frontier scan or the plain listing: a second route),
    raw and up to symmetry."""
    split = run(plan(**L_AND_MONOMINO, mode=mode, distinct=True, options={"parts": 12}))
    whole = run(attrs.evolve(plan(**L_AND_MONOMINO, mode=mode, distinct=True), split=None))
    assert "8 symmetries" in split.details["split_symmetry"]
    assert split.count == whole.count > 0 and split.distinct_count == whole.distinct_count
    if mode == "all":  # every tiling, each once (distinct listings keep different members of a class)
        split = run(plan(**L_AND_MONOMINO, mode=mode, options={"parts": 12}))
        whole = run(attrs.evolve(plan(**L_AND_MONOMINO, mode=mode), split=None))
        tilings = [frozenset((p.piece, p.cells) for p in solution.placements) for solution in split.solutions]
        assert len(tilings) == len(set(tilings)) == whole.count
        assert set(tilings) == {frozenset((p.piece, p.cells) for p in s.placements) for s in whole.solutions}


class TestTreeKit(DecomposerConformance):
    """The decomposer kit: on random small regions the parts partition the tilings, and a proof that there is none is right."""

    decomposer_name = "tree"
    plugin = polytile_tree


def bitboard_search(problem) -> tuple[int, int]:
    """(tilings, nodes) of exactcover's bitboard kernel on ``problem``, made as the
    backend makes it (a part's fixed options placed first)."""
    board, _ = listing_kernel(problem, "bitboard", Limits(threading.Event(), None))
    status, count = board.run(None, 0, 0.0)
    assert status == "completed"
    return count, board.nodes


@pytest.mark.parametrize("draw", range(8))
def test_parts_are_subtrees_of_the_bitboard_search(draw):
    """Branching as the kernel that searches the parts does, and placing a part's fixed
    options before its search, the parts' searches add up to at most the whole search:
    no part repeats the top of the tree.  (Branching on the fewest candidates instead, the parts of one or
    two draws in eight searched more than the whole tree.)"""
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    table = random_table(rng, rng.randint(30, 60))
    model = build_tiling(pieces_of_table(table), Region(frozenset(cells_of_table(table))))
    whole = whole_cover(model)
    count, nodes = bitboard_search(whole.problem)
    split = tree_split(model, rng.randint(4, 40))
    parts = [] if split.impossible else list(split.parts)
    searched = [bitboard_search(pinned) for part in parts if (pinned := whole.pinned(part.fixed)) is not None]
    assert sum(found for found, _ in searched) == count, f"seed {seed}"
    assert sum(work for _, work in searched) <= nodes, f"seed {seed}: {len(parts)} parts"
