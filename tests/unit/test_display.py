"""Notebook pictures: through the installed svg renderer, or ASCII without one."""

from __future__ import annotations

import re

import attrs
import pytest

from polytile_core import api
from polytile_core.errors import InputError
from polytile_core.output import notebook
from polytile_core.output.picture import ascii_picture
from polytile_core.output.results import Found, PlacedPiece, Result, Solution, Termination

DOMINOES = Solution((PlacedPiece("D", ((0, 0), (1, 0))), PlacedPiece("E", ((0, 1), (1, 1)))))
RESULT = Result(
    Termination.COMPLETED, Found.FEASIBLE, mode="all", backend="cpsat", count=30, solutions=(DOMINOES,) * 30,
    region=((0, 0), (1, 0), (0, 1), (1, 1)),
)  # fmt: skip


def test_a_result_a_solution_and_a_family_draw_as_svg_once():
    assert RESULT._repr_svg_().count('class="piece"') == 12 * 4  # a gallery of at most 12
    assert "12 of 30 solutions shown" in RESULT._repr_svg_()
    # The picture is stored once in a notebook: no HTML copy of the SVG beside it.
    assert RESULT._repr_html_() is None and DOMINOES._repr_html_() is None
    assert repr(RESULT).startswith("Result: completed, feasible (cpsat) · 30 solutions")
    assert DOMINOES._repr_svg_().count('class="piece"') == 4
    tetrominoes = api.family("tetrominoes")._repr_svg_()
    assert tetrominoes.count('class="piece"') == 5 * 4
    # Each cell names its piece, in data-piece and in a title a viewer shows on hover.
    assert sorted(set(re.findall(r'data-piece="(\w)"', tetrominoes))) == ["I", "L", "O", "S", "T"]
    assert tetrominoes.count("<title>T</title>") == 4
    assert api.piece("L", ["#.", "##"])._repr_svg_().count('class="piece"') == 3


def test_a_gallery_has_a_cap():
    shown = api.gallery([DOMINOES] * 5, limit=2, columns=2)._repr_svg_()
    assert shown.count('class="piece"') == 2 * 4 and "2 of 5 solutions shown" in shown


def test_without_an_svg_renderer_the_ascii_picture_is_shown(monkeypatch):
    monkeypatch.setattr(notebook, "_find_svg_renderer", lambda: None)
    assert RESULT._repr_svg_() is None
    page = RESULT._repr_html_()
    assert page is not None
    assert "<pre>DD\nEE\n\nDD" in page and "(12 of 30 solutions shown)" in page
    assert api.piece("L", ["#.", "##"])._repr_html_() == "<pre>L\nLL</pre>"
    assert repr(api.gallery([DOMINOES] * 3, limit=1)) == "DD\nEE\n\n(1 of 3 solutions shown)"


@pytest.mark.parametrize("options", [{"limit": 0}, {"columns": "two"}])
def test_bad_gallery_options_are_refused(options):
    with pytest.raises(InputError, match="limit|columns"):
        notebook.svg_of(RESULT, **options)


def test_the_repr_of_a_large_result_is_short():
    many = attrs.evolve(RESULT, count=1_000_000, solutions=(DOMINOES,) * 100_000)
    shown = repr(many)
    assert shown == "Result: completed, feasible (cpsat) · 1,000,000 solutions · 0.00 s\nDD\nEE\n… and 99,999 more"


def test_ascii_letters_never_repeat_another_pieces_initial():
    # Two L pieces side by side need two letters; the spare one is not A (the first spare
    # letter), because A is another piece's own initial here.
    cells = {"L1": ((0, 0), (0, 1), (1, 1)), "L2": ((1, 0), (2, 0), (2, 1)), "A": ((3, 0), (3, 1))}
    solution = Solution(tuple(PlacedPiece(name[0], shape) for name, shape in cells.items()))
    assert ascii_picture(solution) == "LBBA\nLLBA"


def test_an_enclosure_is_drawn_without_the_empty_board_around_it():
    # Four dominoes fence in one cell on a 10×10 board: the picture is the fence's 3×3
    # box, not the board's other 91 cells.
    fence = (
        PlacedPiece("D", ((0, 0), (1, 0))),
        PlacedPiece("E", ((2, 0), (2, 1))),
        PlacedPiece("F", ((1, 2), (2, 2))),
        PlacedPiece("G", ((0, 1), (0, 2))),
    )
    board = tuple((x, y) for x in range(10) for y in range(10))
    assert ascii_picture(Solution(fence, objective=1, interior=((1, 1),)), board) == "DDE\nG+E\nGFF"
