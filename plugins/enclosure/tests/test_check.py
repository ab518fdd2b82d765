"""The flood-fill checker on fences drawn by hand, whose enclosed areas are counted by eye."""

import pytest
from polytile_enclosure.check import EnclosureCheckError, check_fence, enclosed_area, enclosed_pockets

from polytile_core.plugin import Region


def fence_of(rows):
    """'#' is fence, '+' a cell drawn as enclosed (ignored by the checker), '.' empty."""
    return [(x, y) for y, row in enumerate(rows) for x, char in enumerate(row) if char == "#"]


def marked(rows):
    return [(x, y) for y, row in enumerate(rows) for x, char in enumerate(row) if char == "+"]


BOARD = Region.rectangle(12, 12).cells

RING = ["#####", "#+++#", "#+++#", "#+++#", "#####"]
DIAMOND = [".#.", "#+#", ".#."]
CORNER_GAP = ["###.", "#++#", "#++#", "####"]
TWO_ROOMS = ["#######", "#+++#+#", "#+++###", "#####.."]
OPEN = ["####", "#..#", "#...", "####"]


@pytest.mark.parametrize(
    "rows, classic, literal",
    [(RING, 9, 9), (DIAMOND, 0, 1), (CORNER_GAP, 0, 4), (TWO_ROOMS, 7, 7), (OPEN, 0, 0)],
)
def test_hand_drawn_fences(rows, classic, literal):
    assert enclosed_area(fence_of(rows), BOARD, 8) == classic
    assert enclosed_area(fence_of(rows), BOARD, 4) == literal


def test_region_score_counts_the_largest_pocket_only():
    pockets = enclosed_pockets(fence_of(TWO_ROOMS), BOARD, 8)
    assert [len(pocket) for pocket in pockets] == [6, 1]
    assert enclosed_area(fence_of(TWO_ROOMS), BOARD, 8, "region") == 6


def test_pockets_joined_through_a_corner_are_one_region_under_the_classic_rule():
    # Two 1-cell pockets touching diagonally: one 8-connected pocket, two 4-connected ones.
    rows = ["####.", "#+##.", "##+##", ".##+#", "..###"]
    assert [len(p) for p in enclosed_pockets(fence_of(rows), BOARD, 8)] == [3]
    assert [len(p) for p in enclosed_pockets(fence_of(rows), BOARD, 4)] == [1, 1, 1]


def test_cells_off_the_board_are_outside():
    # The ring's interior is enclosed on a big board; with the board cut through the
    # ring the outside flows in from where the board ends.
    cut = {(x, y) for x, y in BOARD if x < 3}
    assert enclosed_area(fence_of(RING), BOARD, 8) == 9
    assert enclosed_area([c for c in fence_of(RING) if c in cut], cut, 8) == 0


def test_check_accepts_the_right_answer_and_rejects_wrong_ones():
    fence = fence_of(CORNER_GAP)
    check_fence(fence, marked(CORNER_GAP), 4, BOARD, 4, "pockets")
    check_fence(fence, [], 0, BOARD, 8, "pockets")
    with pytest.raises(EnclosureCheckError, match="flood fill finds 0"):
        check_fence(fence, marked(CORNER_GAP), 4, BOARD, 8, "pockets")
    with pytest.raises(EnclosureCheckError, match="objective is 5"):
        check_fence(fence, marked(CORNER_GAP), 5, BOARD, 4, "pockets")
    with pytest.raises(EnclosureCheckError, match="enclosed but unmarked"):
        check_fence(fence, marked(CORNER_GAP)[:2], 2, BOARD, 4, "pockets")
    with pytest.raises(EnclosureCheckError, match="overlap"):
        check_fence(fence + fence[:1], marked(CORNER_GAP), 4, BOARD, 4, "pockets")


def test_check_of_a_region_wants_one_whole_pocket():
    fence = fence_of(TWO_ROOMS)
    check_fence(fence, marked(TWO_ROOMS)[:3] + marked(TWO_ROOMS)[4:7], 6, BOARD, 8, "region")
    with pytest.raises(EnclosureCheckError, match="not one pocket"):
        check_fence(fence, marked(TWO_ROOMS), 7, BOARD, 8, "region")
