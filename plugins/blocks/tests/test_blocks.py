"""The blocks split: its cuts, its block problems, and tilings checked independently."""

from pathlib import Path

import attrs
import polytile_blocks
import polytile_checkerboard
import polytile_cpsat
import polytile_exactcover
import pytest
from polytile_blocks import BlocksSplit, cuts, share

from polytile_core.plugin import (
    CLASSIC_FAMILIES,
    Found,
    InputError,
    PieceType,
    Region,
    Termination,
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
    count_tilings_brute_force,
    make_plan,
    own_orientations,
    read_pipeline,
    run,
)

HOST = Host(autoload=False, plugins=[polytile_blocks, polytile_cpsat])
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
PENTOMINOES = CLASSIC_FAMILIES["pentominoes"]
T4 = ["###", ".#."]
# Garvie & Burkardt 2020, Figure 10a: a 16x24 rectangle without its bottom-left 8x16 block.
L_REGION = ["#" * 24] * 8 + ["." * 16 + "#" * 8] * 8


def solve(pieces: dict, rows: list[str], mode: str = "one"):
    pipeline = Pipeline(
        region=RegionSpec(rows=rows),
        pieces=[PieceSpec(name=name, shape=shape, count=count) for name, (shape, count) in pieces.items()],
        solve=SolveSpec(mode=mode, backend="cpsat", jobs=1, executor="thread", time_limit=60),
        split=SplitSpec(method="blocks"),
    )
    return run(make_plan(pipeline, HOST))


def tiling_faults(solution, pieces: dict, rows: list[str]) -> list[str]:
    """What is wrong with a tiling, checked without polytile's geometry or models."""
    region = {(x, y) for y, row in enumerate(rows) for x, char in enumerate(row) if char == "#"}
    faults, covered, used = [], [], dict.fromkeys(pieces, 0)
    for placed in solution.placements:
        used[placed.piece] += 1
        low_x, low_y = min(x for x, _ in placed.cells), min(y for _, y in placed.cells)
        shape = frozenset((x - low_x, y - low_y) for x, y in placed.cells)
        rows_of_piece = pieces[placed.piece][0]
        if shape not in own_orientations(cells_from_rows(rows_of_piece), "free"):
            faults.append(f"{placed.piece} at {placed.cells} is not that piece")
        covered += placed.cells
    if sorted(covered) != sorted(region):
        faults.append("the pieces do not cover the region exactly once")
    faults += [f"{name} used {used[name]} times" for name, (_, count) in pieces.items() if used[name] != count]
    return faults


def test_cuts_partition_the_region_into_congruent_blocks():
    region = Region.from_rows(L_REGION)
    found = {(cut.width, cut.height): cut for cut in cuts(region)}
    assert sorted(found[8, 8].origins) == [(0, 0), (8, 0), (16, 0), (16, 8)]
    for cut in found.values():
        blocks = [{(ox + x, oy + y) for x in range(cut.width) for y in range(cut.height)} for ox, oy in cut.origins]
        assert set().union(*blocks) == region.cells
        assert sum(map(len, blocks)) == region.area
    assert (16, 8) not in found  # a 16-wide grid cuts the 8-wide foot in half
    sizes = [cut.width * cut.height for cut in cuts(region)]
    assert sizes == sorted(sizes)


def test_a_region_not_made_of_rectangles_has_only_single_cells():
    assert [(cut.width, cut.height) for cut in cuts(Region.from_rows(["##.", ".##"]))] == [(1, 1)]


def test_each_block_gets_a_share_that_adds_up_to_an_allowed_count():
    piece = PieceType("P", normalise(cells_from_rows(["##"])), "free", 3, 9)
    assert (share(piece, 2).minimum, share(piece, 2).maximum) == (2, 4)
    assert share(PieceType("P", piece.cells, "free", 3, 3), 2) is None
    assert share(PieceType("P", piece.cells, "free", 0, None), 8).maximum is None


def test_two_blocks_with_one_of_each_pentomino_tile_the_12x10_rectangle():
    pieces = {name: (shape, 2) for name, shape in PENTOMINOES.items()}
    rows = ["#" * 12] * 10
    result = solve(pieces, rows)
    assert (result.termination, result.found) == (Termination.COMPLETED, Found.FEASIBLE)
    (solution,) = result.solutions
    assert solution.part.startswith("2 blocks")
    assert tiling_faults(solution, pieces, rows) == []


def test_when_no_block_has_a_tiling_the_whole_problem_decides():
    # Two T-tetrominoes cannot tile a 4x2 block, four tile the 4x4 square.
    t4 = PieceType("T", normalise(cells_from_rows(T4)), "free", 2, 2)
    assert count_tilings_brute_force(Region.rectangle(4, 2).cells, [t4]) == 0
    pieces = {"T": (T4, 4)}
    rows = ["####"] * 4
    result = solve(pieces, rows)
    assert result.found == Found.FEASIBLE
    assert result.solutions[0].part == "whole"
    assert tiling_faults(result.solutions[0], pieces, rows) == []
    searched = {report.key: report.found for report in result.subproblems}
    assert searched["2 blocks 2x4"] == Found.INFEASIBLE  # searched (it fits), no tiling


def test_no_tiling_at_all_is_still_proved():
    # oracles.md: the five tetrominoes do not tile a 4x5 rectangle.
    pieces = {
        "I": (["####"], 1),
        "O": (["##", "##"], 1),
        "T": (T4, 1),
        "S": ([".##", "##."], 1),
        "L": (["###", "#.."], 1),
    }
    result = solve(pieces, ["#####"] * 4)
    assert (result.termination, result.found) == (Termination.COMPLETED, Found.INFEASIBLE)


def test_counting_with_the_blocks_split_is_refused():
    with pytest.raises(InputError) as error:
        solve({"D": (["##"], 8)}, ["####"] * 4, mode="count")
    assert error.value.path == "split.method"
    assert "mode one" in str(error.value) or "solve.mode" in str(error.value)


def test_transposed_blocks_are_tried_once_for_free_pieces():
    plan = make_plan(
        Pipeline(
            region=RegionSpec(width=4, height=4),
            pieces=[PieceSpec(name="D", shape=["##"], count=8)],
            split=SplitSpec(method="blocks"),
        ),
        HOST,
    )
    split = BlocksSplit().split(plan.tiling_problem(), plan.build(), plan.build)
    keys = [part.key for part in split.parts]
    assert "8 blocks 1x2" in keys and "8 blocks 2x1" not in keys
    assert keys[-1] == "whole" and split.total == len(keys)


def test_the_30x40_paper_instance_is_tiled_from_6x10_blocks_with_exact_cover():
    # Garvie & Burkardt 2020, Figure 12: twenty of each pentomino in a 30x40 rectangle.
    host = Host(autoload=False, plugins=[polytile_blocks, polytile_checkerboard, polytile_exactcover])
    pipeline = read_pipeline(EXAMPLES / "paper" / "gb2020-fig12.toml")
    solve = attrs.evolve(pipeline.solve, backend="exactcover", executor="thread", time_limit=120)
    plan = make_plan(attrs.evolve(pipeline, solve=solve, split=SplitSpec(method="blocks")), host)
    result = run(plan)
    assert result.found == Found.FEASIBLE
    (solution,) = result.solutions
    assert solution.part.startswith("20 blocks")
    pieces = {name: (shape, 20) for name, shape in PENTOMINOES.items()}
    assert tiling_faults(solution, pieces, ["#" * 40] * 30) == []


class TestBlocksKit(DecomposerConformance):
    """The decomposer kit: on random small regions the parts partition the tilings, and a proof that there is none is right."""

    decomposer_name = "blocks"
    plugin = polytile_blocks
