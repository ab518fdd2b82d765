"""The SVG and PNG renderers, checked by reading the pictures back."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import attrs
import pytest
from PIL import Image
from polytile_render import RenderOptions, render_png, render_svg

from polytile_core.plugin import Found, InputError, PlacedPiece, Result, Solution, Termination, components

SVG = "{http://www.w3.org/2000/svg}"

# Tilings found by `polytile solve` (cpsat) and copied here: 6×10 with the twelve
# pentominoes, and Dana Scott's 8×8 board with its centre 2×2 left out ('.').
SIX_BY_TEN = [
    "ZZWPPPFVVV",
    "YZWWPPFFFV",
    "YZZWWLLFXV",
    "YYNNNTLXXX",
    "YNNTTTLUXU",
    "IIIIITLUUU",
]
SCOTT = [
    "LLLLNNPP",
    "LXNNNTPP",
    "XXXTTTPI",
    "UXU..TWI",
    "UUU..WWI",
    "VVVZWWFI",
    "VZZZYFFI",
    "VZYYYYFF",
]


def solution_from_picture(rows, *, name=None, interior="+"):
    """Pieces are the edge-connected groups of one letter; ``interior`` marks enclosed cells."""
    by_letter: dict[str, set] = {}
    enclosed = []
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            if char == interior:
                enclosed.append((x, y))
            elif char not in ". ":
                by_letter.setdefault(char, set()).add((x, y))
    placed = [
        PlacedPiece(name or letter, tuple(sorted(group)))
        for letter, cells in sorted(by_letter.items())
        for group in components(cells)
    ]
    return Solution(tuple(placed), interior=tuple(sorted(enclosed)) if enclosed else None)


def result_of(*solutions, region=None, **fields):
    region = region if region is not None else sorted({tuple(c) for p in solutions[0].placements for c in p.cells})
    return Result(
        termination=Termination.COMPLETED, found=Found.FEASIBLE, mode="one", backend="test",
        solutions=solutions, region=tuple(region), **fields,
    )  # fmt: skip


def svg_cells(path):
    """Every drawn cell: (x, y) → (class, fill); fails on a cell drawn twice."""
    cells = {}
    root = ET.parse(path).getroot()
    for rect in root.iter(f"{SVG}rect"):
        if "data-cell" in rect.attrib:
            x, y = map(int, rect.get("data-cell").split(","))
            assert (x, y) not in cells, f"cell {(x, y)} drawn twice"
            cells[(x, y)] = (rect.get("class"), rect.get("fill"))
    return root, cells


def assert_one_colour_per_piece(solution, cells):
    fill_of = []
    for placed in solution.placements:
        fills = {cells[tuple(cell)][1] for cell in placed.cells}
        assert len(fills) == 1, f"piece {placed.piece} drawn in {fills}"
        fill_of.append(fills.pop())
    owner = {tuple(c): i for i, p in enumerate(solution.placements) for c in p.cells}
    for (x, y), index in owner.items():
        for neighbour in ((x + 1, y), (x, y + 1)):
            other = owner.get(neighbour)
            if other is not None and other != index:
                assert fill_of[index] != fill_of[other], f"neighbours {index} and {other} share {fill_of[index]}"
    return fill_of


def test_svg_draws_every_cell_of_the_region_once_with_one_colour_per_piece(tmp_path):
    solution = solution_from_picture(SIX_BY_TEN)
    assert len(solution.placements) == 12 and all(len(p.cells) == 5 for p in solution.placements)
    path = tmp_path / "tiling.svg"
    render_svg(result_of(solution), path)
    _, cells = svg_cells(path)
    region = {(x, y) for x in range(10) for y in range(6)}
    assert set(cells) == region
    fills = assert_one_colour_per_piece(solution, cells)
    assert len(set(fills)) == 12  # twelve different pentomino names, twelve colours


def test_holes_stay_blank_and_the_hole_is_outlined(tmp_path):
    solution = solution_from_picture(SCOTT)
    region = [c for p in solution.placements for c in p.cells]
    path = tmp_path / "scott.svg"
    render_svg(result_of(solution, region=region), path)
    root, cells = svg_cells(path)
    hole = {(3, 3), (4, 3), (3, 4), (4, 4)}
    assert set(cells) == {(x, y) for x in range(8) for y in range(8)} - hole
    assert_one_colour_per_piece(solution, cells)
    # The hole's four sides are thick lines (the outline), at the cell size (24) grid.
    thick = [line for line in root.iter(f"{SVG}line") if float(line.get("stroke-width")) >= 3]
    margin = 12
    left, top = margin + 3 * 24, margin + 3 * 24
    hole_top = [line for line in thick if line.get("y1") == line.get("y2") == str(top)]
    assert any(float(line.get("x1")) <= left and float(line.get("x2")) >= left + 48 for line in hole_top)


def test_a_monohedral_tiling_still_gets_distinct_neighbour_colours(tmp_path):
    dominoes = solution_from_picture(["abbc", "addc", "effg", "ehhg"], name="D")
    path = tmp_path / "dominoes.svg"
    render_svg(result_of(dominoes), path)
    _, cells = svg_cells(path)
    assert len(cells) == 16
    assert_one_colour_per_piece(dominoes, cells)


def test_an_enclosure_shows_its_interior_filled(tmp_path):
    # Four L-tetrominoes fencing in a 3×3 field, drawn by hand.
    fence = solution_from_picture(
        [
            "AAABB",
            "A+++B",
            "D+++B",
            "D+++C",
            "DDCCC",
        ],
        name="L",
    )
    board = [(x, y) for x in range(-2, 7) for y in range(-2, 7)]
    result = Result(
        termination=Termination.COMPLETED, found=Found.OPTIMAL, mode="optimize", backend="test",
        solutions=(fence,), region=tuple(board), objective=len(fence.interior),
    )  # fmt: skip
    path = tmp_path / "fence.svg"
    render_svg(result, path)
    root, cells = svg_cells(path)
    interior = {c for c, (kind, _) in cells.items() if kind == "interior"}
    assert interior == set(fence.interior)
    interior_fills = {cells[c][1] for c in interior}
    piece_fills = set(assert_one_colour_per_piece(fence, cells))
    assert len(interior_fills) == 1 and not interior_fills & piece_fills
    # The board around the fence is not drawn as cells, and the caption gives the area.
    assert set(cells) == set(fence.interior) | {tuple(c) for p in fence.placements for c in p.cells}
    assert any(f"area {len(fence.interior)}" in (text.text or "") for text in root.iter(f"{SVG}text"))


def test_a_gallery_draws_each_solution_and_says_how_many_it_left_out(tmp_path):
    first = solution_from_picture(["AAB", "CCB"], name="D")
    second = solution_from_picture(["ABC", "ABC"], name="D")
    third = solution_from_picture(["AAB", "CCB"][::-1], name="D")
    first, second = (attrs.evolve(solution, part="D:a=2 D:b=1") for solution in (first, second))
    result = result_of(first, second, third, count=3)
    path = tmp_path / "gallery.svg"
    render_svg(result, path, RenderOptions(columns=2, limit=2, cell_size=10))
    root = ET.parse(path).getroot()
    rects = [r for r in root.iter(f"{SVG}rect") if "data-cell" in r.attrib]
    assert len(rects) == 2 * 6  # two pictures of six cells
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert texts[:2] == ["#1  part D:a=2 D:b=1", "#2  part D:a=2 D:b=1"] and "2 of 3 solutions shown" in texts
    # Two columns: the second picture starts to the right of the first.
    xs = sorted({float(r.get("x")) for r in rects})
    assert xs[-1] > 3 * 10


def test_png_has_the_scene_size_and_the_svg_colours(tmp_path):
    solution = solution_from_picture(SCOTT)
    result = result_of(solution)
    render_png(result, tmp_path / "scott.png", RenderOptions(cell_size=20))
    render_svg(result, tmp_path / "scott.svg", RenderOptions(cell_size=20))
    image = Image.open(tmp_path / "scott.png").convert("RGB")
    margin = 10  # half a cell
    assert image.size == (2 * margin + 8 * 20, 2 * margin + 8 * 20)
    _, cells = svg_cells(tmp_path / "scott.svg")
    for (x, y), (_, fill) in cells.items():
        pixel = image.getpixel((margin + x * 20 + 6, margin + y * 20 + 6))
        assert "#{:02x}{:02x}{:02x}".format(*pixel) == fill
    hole_pixel = image.getpixel((margin + 3 * 20 + 10, margin + 3 * 20 + 10))
    assert hole_pixel == (255, 255, 255)


def test_checkerboard_shading_darkens_the_black_cells(tmp_path):
    solution = solution_from_picture(["IIII"])
    path = tmp_path / "shaded.svg"
    render_svg(result_of(solution), path, RenderOptions(checkerboard=True))
    _, cells = svg_cells(path)

    def brightness(fill):
        return sum(int(fill[i : i + 2], 16) for i in (1, 3, 5))

    assert brightness(cells[(0, 0)][1]) < brightness(cells[(1, 0)][1])
    assert cells[(0, 0)][1] == cells[(2, 0)][1]


def test_no_solution_draws_the_bare_region_and_nothing_at_all_is_an_error(tmp_path):
    empty = Result(
        termination=Termination.COMPLETED, found=Found.INFEASIBLE, mode="one", backend="test",
        region=((0, 0), (1, 0), (0, 1)),
    )  # fmt: skip
    render_svg(empty, tmp_path / "empty.svg")
    root, cells = svg_cells(tmp_path / "empty.svg")
    assert {kind for kind, _ in cells.values()} == {"empty"} and len(cells) == 3
    assert "no solution (proved infeasible)" in [t.text for t in root.iter(f"{SVG}text")]
    with pytest.raises(InputError):
        render_svg(
            Result(termination=Termination.COMPLETED, found=Found.NONE, mode="one", backend="t"), tmp_path / "x.svg"
        )


def test_a_picture_too_large_to_draw_is_refused_before_drawing(tmp_path):
    rows = ["#" * 60] * 60  # 60 cells of 200 pixels: 12,000 pixels a side
    huge = Result(
        termination=Termination.COMPLETED, found=Found.INFEASIBLE, mode="one", backend="test",
        region=tuple((x, y) for y, row in enumerate(rows) for x in range(len(row))),
    )  # fmt: skip
    with pytest.raises(InputError, match="lower cell_size"):
        render_png(huge, tmp_path / "huge.png", RenderOptions(cell_size=200))
    assert not (tmp_path / "huge.png").exists()
