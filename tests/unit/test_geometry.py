import random

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


def test_placements_are_every_translation_that_fits_in_anchor_order():
    """Against a plain look-up of every anchor and cell: random regions with holes, off
    the origin (negative cells too), random shapes up to 12 cells long (taller than the
    bit mask's padding), every kind.  Each placement is made of the region's own cell
    tuples, anchors in ``sorted(region.cells)`` order."""
    seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    for _ in range(300):
        left, top = rng.randint(-6, 6), rng.randint(-6, 6)
        width, height = rng.randint(1, 14), rng.randint(1, 14)
        cells = {(left + x, top + y) for x in range(width) for y in range(height) if rng.random() < 0.85}
        if not cells:
            continue
        region = Region(cells)
        shape, size = {(0, 0)}, rng.randint(1, 12)
        while len(shape) < size:
            x, y = rng.choice(sorted(shape))
            dx, dy = rng.choice([(1, 0), (-1, 0), (0, 1), (0, -1)])
            shape.add((x + dx, y + dy))
        own = {cell: cell for cell in region.cells}
        for orientation in orientations(shape, rng.choice(["free", "one-sided", "fixed"])):
            ax, ay = orientation[0]
            expected = [
                tuple((x + dx - ax, y + dy - ay) for dx, dy in orientation)
                for x, y in sorted(region.cells)
                if all((x + dx - ax, y + dy - ay) in region.cells for dx, dy in orientation)
            ]
            placed = placements([orientation], region)
            assert placed == expected, seed
            assert all(cell is own[cell] for cells in placed for cell in cells), seed


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
