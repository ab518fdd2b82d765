"""The symmetries a search may use, and the anchor it breaks them on (``model.symmetry``),
shared by exact cover's image search and the tree split.  The expected numbers are
worked out by hand from the boards' geometry."""

from polytile_core.host.builtin import CLASSIC_FAMILIES
from polytile_core.model.geometry import Region, cells_from_rows
from polytile_core.model.problem import PieceType
from polytile_core.model.symmetry import choose_anchor, search_symmetries
from polytile_core.model.tiling import build_tiling


def test_a_reflection_that_turns_p_into_q_counts_only_when_the_pieces_are_known():
    # 5×4 with two one-sided P and two one-sided Q pentominoes: a rectangle has 4
    # symmetries; the half turn keeps each piece, the two reflections swap P and Q.
    pieces = (
        PieceType("P", cells_from_rows(["##", "##", "#."]), "one-sided", 2, 2),
        PieceType("Q", cells_from_rows(["##", "##", ".#"]), "one-sided", 2, 2),
    )
    model = build_tiling(pieces, Region.rectangle(5, 4))
    identity = tuple(range(model.num_variables))
    with_pieces = search_symmetries(model, pieces)
    same_piece = search_symmetries(model)
    assert (len(with_pieces), len(same_piece)) == (4, 2)
    assert with_pieces[0] == same_piece[0] == identity
    assert set(same_piece) < set(with_pieces)


def test_the_anchor_of_6x10_pentominoes_is_the_x_with_eight_placements_none_fixed():
    # The X's centre has 8 × 4 = 32 places on 6×10.  Each of the rectangle's 4 symmetries
    # moves every centre (10 - 1 - x ≠ x, 6 - 1 - y ≠ y), so the 32 fall into 8 orbits of 4.
    pieces = tuple(
        PieceType(name, cells_from_rows(rows), "free", 1, 1) for name, rows in CLASSIC_FAMILIES["pentominoes"].items()
    )
    model = build_tiling(pieces, Region.rectangle(10, 6))
    group = search_symmetries(model, pieces)
    assert len(group) == 4
    rows = [row for row, constraint in enumerate(model.constraints) if constraint.sense == "=="]
    anchor = choose_anchor(model, rows, group)
    assert anchor is not None
    assert len(anchor.variables) == 32 and len(anchor.free) == 8 and anchor.fixed == ()
    assert {model.placements[var].piece for var in anchor.variables} == {"X"}
    # Placements that no solution can use are no representatives.
    usable = set(range(model.num_variables)) - set(anchor.free[:2])
    assert len(choose_anchor(model, [anchor.row], group, usable).free) == 6


def test_no_symmetry_is_claimed_for_pieces_that_are_not_the_models():
    model = build_tiling((PieceType("D", ((0, 0), (1, 0)), "free", 0, None),), Region.rectangle(4, 2))
    assert len(search_symmetries(model)) == 4
    assert search_symmetries(model, ()) == []
