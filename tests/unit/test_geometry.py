import pytest

from polytile_core.host.builtin import CLASSIC_FAMILIES
from polytile_core.model.geometry import (
    GeometryError,
    Region,
    cells_from_rows,
    components,
    is_connected,
    normalise,
    orientations,
    parity,
    placements,
)


def test_shapes_from_rows_are_normalised():
    assert normalise(cells_from_rows(["..#", ".##"])) == ((0, 1), (1, 0), (1, 1))


def test_bad_characters_are_named():
    with pytest.raises(GeometryError, match="row 2 has 'x' at column 1"):
        cells_from_rows(["#", "x"])


@pytest.mark.parametrize(
    "kind, expected",
    # orientation counts per kind: L-tetromino 8/4/1, S 4/2/1, T 4/4/1, O 1/1/1
    [
        ("free", {"L": 8, "S": 4, "T": 4, "O": 1, "I": 2}),
        ("one-sided", {"L": 4, "S": 2, "T": 4, "O": 1, "I": 2}),
        ("fixed", {"L": 1, "S": 1, "T": 1, "O": 1, "I": 1}),
    ],
)
def test_orientation_counts_of_the_tetrominoes(kind, expected):
    shapes = CLASSIC_FAMILIES["tetrominoes"]
    assert {name: len(orientations(cells_from_rows(rows), kind)) for name, rows in shapes.items()} == expected


def test_the_pentominoes_have_63_fixed_orientations():
    total = sum(len(orientations(cells_from_rows(rows))) for rows in CLASSIC_FAMILIES["pentominoes"].values())
    assert total == 63


def test_connectivity():
    assert is_connected(cells_from_rows(["##", ".#"]))
    assert not is_connected(cells_from_rows(["#.", ".#"]))
    assert len(components(cells_from_rows(["#.#"]))) == 2


def test_region_with_a_hole_and_its_symmetries():
    ring = Region.from_rows(["###", "#.#", "###"])
    assert ring.area == 8
    assert len(ring.symmetries()) == 8
    assert len(Region.rectangle(10, 6).symmetries()) == 4
    assert len(Region.from_rows(["##", "#."]).symmetries()) == 2


def test_placements_stay_inside_the_region():
    region = Region.rectangle(3, 2)
    domino = orientations([(0, 0), (1, 0)])
    placed = placements(domino, region)
    # 2 rows × 2 horizontal positions + 3 vertical positions
    assert len(placed) == 7
    assert all(set(p) <= region.cells for p in placed)


def test_parity():
    assert parity(cells_from_rows([".#.", "###", ".#."])) in (3, -3)
    assert parity(Region.rectangle(10, 6).cells) == 0


def test_tiling_errors_accepts_the_brute_force_tilings_and_names_each_fault():
    """``TilingProblem.tiling_errors`` (the check of a tiling made without a model) passes
    every tiling of an independent brute force, and finds a moved, a doubled, a missing and
    a misshapen piece and a copy too many."""
    from polytile_core.model.problem import PieceType, TilingProblem
    from polytile_core.testing import tilings_brute_force

    region = Region.from_rows(["####", "####", "###."])
    pieces = (
        PieceType("L", normalise(cells_from_rows(["###", "#.."])), "free", 0, None),
        PieceType("I", normalise(cells_from_rows(["###"])), "free", 0, 1),
    )
    problem = TilingProblem(region, pieces)
    tilings = [
        sorted((name, tuple(sorted(cells))) for name, cells in tiling)
        for tiling in tilings_brute_force(region.cells, pieces)
    ]
    assert tilings
    for tiling in tilings:
        assert problem.tiling_errors(tiling) == []
    tiling = sorted(tilings[0], key=lambda placed: placed[0] != "L")  # an L first
    name, cells = tiling[0]
    assert any(
        "outside" in error
        for error in problem.tiling_errors([(name, tuple((x + 9, y) for x, y in cells))] + tiling[1:])
    )
    assert any("twice" in error for error in problem.tiling_errors(tiling + [tiling[0]]))
    assert any("not covered" in error for error in problem.tiling_errors(tiling[1:]))
    assert any("orientation" in error for error in problem.tiling_errors([("I", cells)] + tiling[1:]))
    assert any("no piece" in error for error in problem.tiling_errors([("Q", cells)] + tiling[1:]))
