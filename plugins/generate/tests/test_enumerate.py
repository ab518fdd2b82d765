"""Counts and shapes of the n-ominoes against OEIS and against a brute force that
shares no code with the generator."""

import pytest
from polytile_generate import count, n_ominoes

from polytile_core.plugin import is_connected, orientations

# docs/oracles.md (OEIS), n = 1..10.
OEIS = {
    "free": [1, 1, 2, 5, 12, 35, 108, 369, 1285, 4655],  # A000105
    "one-sided": [1, 1, 2, 7, 18, 60, 196, 704, 2500, 9189],  # A000988
    "fixed": [1, 2, 6, 19, 63, 216, 760, 2725, 9910, 36446],  # A001168
}


@pytest.mark.parametrize("kind", sorted(OEIS))
def test_counts_match_oeis(kind):
    assert [count(n, kind) for n in range(1, 11)] == OEIS[kind]


@pytest.mark.parametrize("kind", sorted(OEIS))
@pytest.mark.parametrize("n", range(1, 9))
def test_built_pieces_are_as_many_distinct_connected_n_ominoes(n, kind):
    pieces = n_ominoes(n, kind)
    assert len(pieces) == OEIS[kind][n - 1]
    assert len({name for name, _ in pieces}) == len(pieces)
    assert all(len(cells) == n and is_connected(cells) for _, cells in pieces)
    # No two pieces are the same under the symmetries the kind identifies.
    assert len({min(orientations(cells, kind)) for _, cells in pieces}) == len(pieces)


def brute_force_fixed(n):
    """Every fixed n-omino, grown cell by cell from the monomino, deduplicated by set."""
    shapes = {frozenset({(0, 0)})}
    for _ in range(n - 1):
        grown = set()
        for shape in shapes:
            for x, y in shape:
                for cell in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                    if cell not in shape:
                        bigger = shape | {cell}
                        dx, dy = min(a for a, _ in bigger), min(b for _, b in bigger)
                        grown.add(frozenset((a - dx, b - dy) for a, b in bigger))
        shapes = grown
    return shapes


@pytest.mark.parametrize("n", range(1, 8))
def test_fixed_shapes_are_exactly_the_brute_force_ones(n):
    expected = brute_force_fixed(n)
    generated = {frozenset(cells) for _, cells in n_ominoes(n, "fixed")}
    assert generated == expected


@pytest.mark.parametrize("n", range(1, 8))
def test_free_and_one_sided_shapes_cover_every_fixed_one(n):
    fixed = brute_force_fixed(n)
    for kind in ("free", "one-sided"):
        covered = {frozenset(o) for _, cells in n_ominoes(n, kind) for o in orientations(cells, kind)}
        assert covered == fixed


def test_fixed_count_beyond_the_oracle_table():
    assert count(11, "fixed") == 135268  # OEIS A001168


@pytest.mark.parametrize("bad", [None, 0, -3, 2.5, True])
def test_bad_n_is_a_value_error_that_says_what_n_is(bad):
    with pytest.raises(ValueError, match="n"):
        n_ominoes(bad)
    with pytest.raises(ValueError, match="n"):
        count(bad)


def test_bad_kind_is_a_value_error():
    with pytest.raises(ValueError, match="kind must be one of free, one-sided, fixed"):
        n_ominoes(4, "mirror")
