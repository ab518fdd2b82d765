"""Counts from docs/oracles.md and from an independent brute force, through CP-SAT."""

import pytest

from polytile_core.config.pipeline import make_plan
from polytile_core.config.schema import PieceSpec, Pipeline, RegionSpec, SolveSpec
from polytile_core.host.registry import Host
from polytile_core.model.geometry import Region, cells_from_rows
from polytile_core.model.problem import PieceType
from polytile_core.output.results import Found, Termination
from polytile_core.solve.run import run
from polytile_core.testing import count_tilings_brute_force

HOST = Host()


def count(region_rows=None, width=None, height=None, pieces=(), mode="count"):
    pipeline = Pipeline(
        region=RegionSpec(rows=region_rows, width=width, height=height),
        pieces=list(pieces),
        solve=SolveSpec(mode=mode, backend="cpsat"),
    )
    return run(make_plan(pipeline, HOST))


DOMINO = PieceSpec(name="D", shape=["##"], unlimited=True)
L_TROMINO = PieceSpec(name="L", shape=["#.", "##"], unlimited=True)


@pytest.mark.parametrize("n, fibonacci", [(1, 1), (2, 2), (3, 3), (4, 5), (5, 8), (6, 13), (7, 21)])
def test_2_by_n_dominoes_are_fibonacci(n, fibonacci):
    assert count(width=n, height=2, pieces=[DOMINO]).count == fibonacci


def test_3x3_minus_a_corner_with_dominoes():
    assert count(region_rows=["##.", "###", "###"], pieces=[DOMINO]).count == 4


def test_2x4_with_two_l_tetrominoes():
    result = count(width=4, height=2, pieces=[PieceSpec(name="L", shape=["#.", "#.", "##"], count=2)])
    assert (result.count, result.termination, result.found) == (2, Termination.COMPLETED, Found.FEASIBLE)


def test_4x4_dominoes():
    assert count(width=4, height=4, pieces=[DOMINO]).count == 36


def test_5x6_l_trominoes():
    assert count(width=6, height=5, pieces=[L_TROMINO]).count == 72


def test_5x3_l_trominoes_is_impossible():
    result = count(width=3, height=5, pieces=[L_TROMINO])
    assert (result.count, result.found) == (0, Found.INFEASIBLE)


@pytest.mark.parametrize("kind", ["free", "one-sided", "fixed"])
def test_kinds_change_counts_like_an_independent_brute_force(kind):
    l_rows = ["#.", "#.", "##"]
    s_rows = [".##", "##."]
    pieces = [
        PieceSpec(name="L", shape=l_rows, kind=kind, unlimited=True),
        PieceSpec(name="S", shape=s_rows, kind=kind, unlimited=True),
    ]
    region = Region.rectangle(4, 4)
    brute = [PieceType(name, cells_from_rows(rows), kind, 0, None) for name, rows in (("L", l_rows), ("S", s_rows))]
    expected = count_tilings_brute_force(region.cells, brute)
    assert count(width=4, height=4, pieces=pieces).count == expected


def test_fixed_horizontal_dominoes_tile_2xn_one_way():
    fixed = PieceSpec(name="D", shape=["##"], kind="fixed", unlimited=True)
    assert count(width=6, height=2, pieces=[fixed]).count == 1


def test_one_sided_l_tetrominoes_keep_one_2x4_tiling_and_fixed_keep_none():
    # Each tiling of 2×4 pairs an L with its half-turn; one uses the L, the other its mirror
    # image, so a one-sided L keeps one tiling and a fixed L none.
    for kind, expected in (("one-sided", 1), ("fixed", 0)):
        piece = PieceSpec(name="L", shape=["###", "#.."], kind=kind, count=2)
        assert count(width=4, height=2, pieces=[piece]).count == expected


def test_6x10_pentominoes_find_one_is_a_valid_tiling():
    result = count(width=10, height=6, pieces=[PieceSpec(family="pentominoes")], mode="one")
    assert result.found == Found.FEASIBLE
    (solution,) = result.solutions
    covered = [tuple(cell) for placed in solution.placements for cell in placed.cells]
    assert sorted(covered) == sorted(Region.rectangle(10, 6).cells)
    from polytile_core.host.builtin import CLASSIC_FAMILIES
    from polytile_core.model.geometry import normalise, orientations

    assert sorted(p.piece for p in solution.placements) == sorted(CLASSIC_FAMILIES["pentominoes"])
    for placed in solution.placements:
        shape = cells_from_rows(CLASSIC_FAMILIES["pentominoes"][placed.piece])
        assert normalise(placed.cells) in orientations(shape, "free")
