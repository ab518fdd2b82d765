"""The relaxed bound (bound.py), which needs no table per set of pieces: it must never
fall below a fence that exists.  Checked against the boundary search's proved optimum
(a second method) on random small sets, and against the known optima of oracles.md."""

import random

import pytest
from polytile_enclosure.bound import needed_types, relaxed_bound
from polytile_enclosure.fence import BoundarySearch

from polytile_core.plugin import PieceType
from polytile_core.testing import Host, PieceSpec, resolve_pieces


def random_piece(rng: random.Random, name: str) -> PieceType:
    cells = {(0, 0)}
    while len(cells) < rng.randint(1, 4):
        x, y = rng.choice(sorted(cells))
        dx, dy = rng.choice([(1, 0), (-1, 0), (0, 1), (0, -1)])
        cells.add((x + dx, y + dy))
    count = rng.randint(1, 2)
    return PieceType(name, tuple(sorted(cells)), kind="free", minimum=count, maximum=count)


def test_the_bound_is_never_below_the_proved_optimum_of_random_small_sets():
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    for trial in range(8):
        pieces = tuple(random_piece(rng, f"p{k}") for k in range(rng.randint(2, 4)))
        neighbours = rng.choice([8, 4])
        optimum = BoundarySearch(pieces, neighbours).solve().bound
        found = relaxed_bound(pieces, neighbours, target=optimum, rounds=30)
        assert found is not None and found.bound >= optimum, f"seed {seed}, trial {trial}: {pieces}, rule {neighbours}"


def test_any_starting_prices_give_a_bound_never_below_the_proved_optimum():
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    for trial in range(4):
        pieces = tuple(random_piece(rng, f"p{k}") for k in range(rng.randint(2, 4)))
        optimum = BoundarySearch(pieces, 8).solve().bound
        prices = [rng.uniform(0, 5) for _ in pieces]
        found = relaxed_bound(pieces, 8, target=optimum, rounds=3, prices=prices)
        assert found is not None and found.bound >= optimum, f"seed {seed}, trial {trial}: {pieces}, prices {prices}"


def test_each_bound_without_a_piece_is_at_least_the_optimum_without_it():
    tetrominoes = resolve_pieces([PieceSpec(family="tetrominoes")], Host())
    whole = relaxed_bound(tetrominoes, 8, target=9, rounds=60)
    assert whole is not None
    without = dict(needed_types(tetrominoes, 8, above=9, prices=whole.prices))
    for kind, piece in enumerate(tetrominoes):
        rest = tetrominoes[:kind] + tetrominoes[kind + 1 :]
        assert without[piece.name] >= BoundarySearch(rest, 8).solve().bound


@pytest.mark.parametrize("neighbours, optimum", [(8, 9), (4, 15)])
def test_the_bound_for_the_tetrominoes_is_at_least_their_optimum(neighbours, optimum):
    # oracles.md: 9 (classic rule); 15 under the 4-neighbour rule (docs/enclosure.md).
    tetrominoes = resolve_pieces([PieceSpec(family="tetrominoes")], Host())
    found = relaxed_bound(tetrominoes, neighbours, target=optimum, rounds=60)
    assert found is not None and optimum <= found.bound <= optimum + 1


def test_a_time_limit_too_short_for_one_round_gives_no_bound():
    pentominoes = resolve_pieces([PieceSpec(family="pentominoes")], Host())
    assert relaxed_bound(pentominoes, 8, target=128, rounds=5, time_limit=1e-4) is None


@pytest.mark.slow
def test_the_bound_for_the_pentominoes_is_at_least_128():
    # oracles.md: Knuth's 128, proved optimal.
    pentominoes = resolve_pieces([PieceSpec(family="pentominoes")], Host())
    found = relaxed_bound(pentominoes, 8, target=128, rounds=60)
    assert found is not None and 128 <= found.bound <= 140
