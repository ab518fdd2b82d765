"""Notebook pictures: through the installed svg renderer, or ASCII without one."""

from __future__ import annotations

import pytest

from polytile_core import api
from polytile_core.errors import InputError
from polytile_core.output import notebook
from polytile_core.output.results import Found, PlacedPiece, Result, Solution, Termination

DOMINOES = Solution((PlacedPiece("D", ((0, 0), (1, 0))), PlacedPiece("E", ((0, 1), (1, 1)))))
RESULT = Result(
    Termination.COMPLETED, Found.FEASIBLE, "all", "cpsat", count=30, solutions=(DOMINOES,) * 30,
    region=((0, 0), (1, 0), (0, 1), (1, 1)),
)  # fmt: skip


def test_a_result_a_solution_and_a_family_draw_as_svg():
    assert RESULT._repr_svg_().count('class="piece"') == 12 * 4  # a gallery of at most 12
    assert "12 of 30 solutions shown" in RESULT._repr_svg_()
    assert "completed, feasible (cpsat) · 30 solutions" in RESULT._repr_html_()
    assert DOMINOES._repr_svg_().count('class="piece"') == 4
    tetrominoes = api.family("tetrominoes")._repr_svg_()
    assert tetrominoes.count('class="piece"') == 5 * 4
    assert (
        len(
            {
                tag.split('data-piece="')[1].split('"')[0]
                for tag in tetrominoes.split("<rect")[1:]
                if "data-piece" in tag
            }
        )
        == 5
    )
    assert api.piece("L", ["#.", "##"])._repr_svg_().count('class="piece"') == 3


def test_a_gallery_has_a_cap():
    shown = api.gallery([DOMINOES] * 5, limit=2, columns=2)._repr_svg_()
    assert shown.count('class="piece"') == 2 * 4 and "2 of 5 solutions shown" in shown


def test_without_an_svg_renderer_the_ascii_picture_is_shown(monkeypatch):
    monkeypatch.setattr(notebook, "_find_svg_renderer", lambda: None)
    assert RESULT._repr_svg_() is None
    page = RESULT._repr_html_()
    assert "<pre>DD\nEE\n\nDD" in page and "(12 of 30 solutions shown)" in page
    assert api.piece("L", ["#.", "##"])._repr_html_() == "<pre>L\nLL</pre>"
    assert repr(api.gallery([DOMINOES] * 3, limit=1)) == "DD\nEE\n\n(1 of 3 solutions shown)"


@pytest.mark.parametrize("options", [{"limit": 0}, {"columns": "two"}])
def test_bad_gallery_options_are_refused(options):
    with pytest.raises(InputError, match="limit|columns"):
        notebook.svg_of(RESULT, **options)
