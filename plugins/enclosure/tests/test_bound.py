"""The relaxed bound (bound.py), which needs no table per set of pieces: it must never
fall below a fence that exists, whatever the groups of its tally, the prices or the
level it is asked to prove.  Checked against the boundary search's proved optimum (a
second method) on random small sets, and against the known optima of oracles.md and
docs/enclosure.md."""

import itertools
import random
from collections import Counter
from collections.abc import Iterator

import attrs
import pytest
from polytile_enclosure import bound
from polytile_enclosure.bound import grouped_bound, needed_types, relaxed_bound, widest_layer
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


def random_sets(trials: int, most: int = 4) -> Iterator[tuple[random.Random, tuple[PieceType, ...], int, str]]:
    """``trials`` random sets of 2 to ``most`` small pieces, each with a random rule, the
    generator and what a failure should print (a fresh seed each run)."""
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    for trial in range(trials):
        pieces = tuple(random_piece(rng, f"p{k}") for k in range(rng.randint(2, most)))
        neighbours = rng.choice([8, 4])
        yield rng, pieces, neighbours, f"seed {seed}, trial {trial}: {pieces}, rule {neighbours}"


def test_the_bound_is_never_below_the_proved_optimum_of_random_small_sets():
    for _, pieces, neighbours, said in random_sets(8):
        optimum = BoundarySearch(pieces, neighbours).solve().bound
        found = relaxed_bound(pieces, neighbours, rounds=30)
        assert found is not None and found.bound >= optimum, said


def test_any_starting_prices_give_a_bound_never_below_the_proved_optimum():
    for rng, pieces, neighbours, said in random_sets(4):
        optimum = BoundarySearch(pieces, neighbours).solve().bound
        prices = [rng.uniform(0, 5) for _ in pieces]
        found = relaxed_bound(pieces, neighbours, rounds=3, prices=prices)
        assert found is not None and found.bound >= optimum, f"{said}, prices {prices}"


def test_each_bound_without_a_piece_is_at_least_the_optimum_without_it():
    tetrominoes = resolve_pieces([PieceSpec(family="tetrominoes")], Host())
    whole = relaxed_bound(tetrominoes, 8, rounds=60)
    assert whole is not None
    without = dict(needed_types(tetrominoes, 8, above=9, prices=whole.prices))
    for kind, piece in enumerate(tetrominoes):
        rest = tetrominoes[:kind] + tetrominoes[kind + 1 :]
        assert without[piece.name] >= BoundarySearch(rest, 8).solve().bound


@pytest.mark.parametrize("neighbours, optimum", [(8, 9), (4, 15)])
def test_the_bound_for_the_tetrominoes_is_at_least_their_optimum(neighbours, optimum):
    # oracles.md: 9 (classic rule); 15 under the 4-neighbour rule (docs/enclosure.md).
    tetrominoes = resolve_pieces([PieceSpec(family="tetrominoes")], Host())
    found = relaxed_bound(tetrominoes, neighbours, rounds=60)
    assert found is not None and optimum <= found.bound <= optimum + 1


def test_no_prices_beat_a_bound_at_its_limit():
    # The rounds stop when their cutting planes show that no prices do better
    # (at_limit): one round at prices near those, or anywhere, never gives less.
    for rng, pieces, neighbours, said in random_sets(4):
        groups = random_groups(rng, len(pieces))
        limit = relaxed_bound(pieces, neighbours, rounds=500, groups=groups)
        assert limit is not None and limit.at_limit, f"{said}, groups {groups}"
        for _ in range(5):
            spread = rng.choice([0.01, 0.3, 3.0])
            prices = [max(0.0, price + rng.uniform(-spread, spread)) for price in limit.prices]
            other = relaxed_bound(pieces, neighbours, rounds=1, prices=prices, groups=groups)
            assert other is not None and other.bound >= limit.bound, f"{said}, groups {groups}, prices {prices}"


def test_a_time_limit_too_short_for_one_round_gives_no_bound():
    pentominoes = resolve_pieces([PieceSpec(family="pentominoes")], Host())
    assert relaxed_bound(pentominoes, 8, rounds=5, time_limit=1e-4) is None


@pytest.mark.slow
def test_the_bound_for_the_pentominoes_is_at_least_128():
    # oracles.md: Knuth's 128, proved optimal.
    pentominoes = resolve_pieces([PieceSpec(family="pentominoes")], Host())
    found = relaxed_bound(pentominoes, 8, rounds=60)
    assert found is not None and 128 <= found.bound <= 140


def random_groups(rng: random.Random, count: int) -> list[list[int]]:
    """A random split of ``count`` types into groups (one group to one type each)."""
    parts = rng.randint(1, count)
    groups: list[list[int]] = [[] for _ in range(parts)]
    for kind in rng.sample(range(count), count):
        groups[kind % parts if kind < parts else rng.randrange(parts)].append(kind)
    return [members for members in groups if members]


def test_a_tally_and_a_level_to_prove_never_give_a_bound_below_the_proved_optimum():
    # A split into groups, prices and a level to prove, all random: the bound may only
    # prove a level at or above the optimum (a level below it must be refuted).
    for rng, pieces, neighbours, said in random_sets(10, most=5):
        optimum = BoundarySearch(pieces, neighbours).solve().bound
        assert optimum is not None
        groups = random_groups(rng, len(pieces))
        prices = [rng.uniform(0, 4) for _ in pieces]
        prove = rng.choice([None, max(optimum - 1, 0), optimum, optimum + 1])
        found = relaxed_bound(pieces, neighbours, rounds=8, prices=prices, groups=groups, prove=prove)
        assert found is not None and found.bound >= optimum, f"{said}, groups {groups}, prices {prices}, prove {prove}"


@pytest.mark.parametrize("edges_most", [bound.EDGES_MOST, 0])
def test_a_level_to_prove_drops_no_cycle_above_it(edges_most, monkeypatch):
    # The floor prunes states and moves (bound.py) but must keep every cycle above it:
    # one round with a level to prove gives the same bound as without, whenever that
    # bound is above the level, and the level itself otherwise; whether a layer lists
    # its edges or (more of them than allowed: 0 here) runs over the moves.
    monkeypatch.setattr(bound, "EDGES_MOST", edges_most)
    for rng, pieces, neighbours, said in random_sets(10, most=5):
        groups = random_groups(rng, len(pieces))
        prices = [rng.uniform(0, 4) for _ in pieces]
        free = relaxed_bound(pieces, neighbours, rounds=1, prices=prices, groups=groups)
        assert free is not None
        for level in range(max(free.bound - 3, 0), free.bound + 2):
            held = relaxed_bound(pieces, neighbours, rounds=1, prices=prices, groups=groups, prove=level)
            assert held is not None and held.bound == max(free.bound, level), (
                f"{said}, groups {groups}, prices {prices}, level {level}"
            )


def test_a_coarser_split_drops_no_cycle_of_the_finer_one_above_the_level():
    # The coarser tallies rule out states before the finer pass (bound.py): one round with
    # a coarser split gives the same bound as without it, whenever that bound is above the
    # level, and the level itself otherwise.
    for rng, pieces, neighbours, said in random_sets(10, most=5):
        groups = random_groups(rng, len(pieces))
        order = rng.sample(range(len(groups)), len(groups))
        cut = rng.randint(1, len(groups))
        coarse = [[kind for g in part for kind in groups[g]] for part in (order[:cut], order[cut:]) if part]
        prices = [rng.uniform(0, 4) for _ in pieces]
        free = relaxed_bound(pieces, neighbours, rounds=1, prices=prices, groups=groups)
        assert free is not None
        for level in range(max(free.bound - 3, 0), free.bound + 2):
            held = relaxed_bound(pieces, neighbours, rounds=1, prices=prices, groups=groups, coarse=coarse, prove=level)
            assert held is not None and held.bound == max(free.bound, level), (
                f"{said}, groups {groups}, coarse {coarse}, prices {prices}, level {level}"
            )


def test_a_coarser_split_must_hold_each_group_whole():
    tetrominoes = resolve_pieces([PieceSpec(family="tetrominoes")], Host())
    with pytest.raises(ValueError, match="coarser split"):
        relaxed_bound(tetrominoes, 8, rounds=1, groups=[[0, 1], [2, 3, 4]], coarse=[[0, 2], [1, 3, 4]], prove=8)


def test_one_type_a_group_is_as_strong_as_the_boundary_search():
    # Groups of one type each, copies 1: the tally is the set of types used, so no prices
    # are needed and the bound is the boundary search's first level (its bound before the walk).
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    for trial in range(4):
        pieces = tuple(attrs.evolve(random_piece(rng, f"p{k}"), minimum=1, maximum=1) for k in range(rng.randint(2, 4)))
        search = BoundarySearch(pieces, 8)
        optimum = search.solve().bound
        first_level = search.closings[0][0] // 2 if search.closings else 0
        found = relaxed_bound(pieces, 8, rounds=1, groups=[[k] for k in range(len(pieces))])
        assert found is not None and optimum <= found.bound == first_level, f"seed {seed}, trial {trial}: {pieces}"


@pytest.mark.parametrize("neighbours, optimum", [(8, 9), (4, 15)])
def test_the_grouped_bound_proves_the_tetrominoes(neighbours, optimum):
    tetrominoes = resolve_pieces([PieceSpec(family="tetrominoes")], Host())
    found = grouped_bound(tetrominoes, neighbours, prove=optimum, rounds=60)
    assert found is not None and found.bound == optimum
    refuted = grouped_bound(tetrominoes, neighbours, prove=optimum - 1, rounds=30)
    assert refuted is not None and refuted.bound >= optimum


def test_the_grouped_bound_proves_128_for_the_pentominoes():
    # oracles.md: Knuth's 128, proved optimal; the plain rounds alone stop at 130.
    pentominoes = resolve_pieces([PieceSpec(family="pentominoes")], Host())
    found = grouped_bound(pentominoes, 8, prove=128, rounds=100)
    assert found is not None and found.bound == 128 and found.groups > 1


def test_a_finer_tally_at_the_limit_proves_the_4_neighbour_pentominoes():
    # 161: proved by the boundary search (docs/enclosure.md).  3 groups stop at their
    # limit, 162.25; halving a group twice proves 161, and 160 stays refuted.
    pentominoes = resolve_pieces([PieceSpec(family="pentominoes")], Host())
    found = grouped_bound(pentominoes, 4, prove=161, rounds=100)
    assert found is not None and found.bound == 161 and found.groups > 3
    refuted = grouped_bound(pentominoes, 4, prove=160, rounds=100)
    assert refuted is not None and refuted.bound >= 161


def test_the_widest_layer_counts_the_tallies_of_each_layer():
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    for _ in range(20):
        copies = [rng.randint(1, 3) for _ in range(rng.randint(1, 6))]
        split = random_groups(rng, len(copies))
        rooms = [range(sum(copies[kind] for kind in members) + 1) for members in split]
        layers = Counter(sum(tally) for tally in itertools.product(*rooms))
        assert widest_layer(split, copies) == max(layers.values()), f"seed {seed}: {copies}, {split}"


@pytest.mark.slow
@pytest.mark.parametrize(
    "spec, neighbours, optimum",
    [  # docs/enclosure.md: both proved by the boundary search
        (PieceSpec(family="n-ominoes", n=5, kind="one-sided"), 8, 308),
        (PieceSpec(family="n-ominoes", n=5, kind="one-sided"), 4, 382),
    ],
)
def test_the_grouped_bound_proves_the_optima_of_larger_sets(spec, neighbours, optimum):
    pieces = resolve_pieces([spec], Host())
    refuted = grouped_bound(pieces, neighbours, prove=optimum - 1, rounds=100)
    assert refuted is not None and refuted.bound >= optimum
    found = grouped_bound(pieces, neighbours, prove=optimum, rounds=100)
    assert found is not None and found.bound == optimum


def test_the_dearest_types_in_small_groups_never_bound_below_the_optimum():
    # oracles.md: 5 free tetrominoes enclose 9 (classic rule), 12 pentominoes 128.
    tetrominoes = resolve_pieces([PieceSpec(family="tetrominoes")], Host())
    found = grouped_bound(tetrominoes, 8, prove=8, rounds=30, dearest=(1, 2))
    assert found is not None and found.bound >= 9
    pentominoes = resolve_pieces([PieceSpec(family="pentominoes")], Host())
    found = grouped_bound(pentominoes, 8, prove=127, rounds=40, dearest=(2, 2, 2, 2))
    assert found is not None and found.bound >= 128
    with pytest.raises(ValueError, match="dearest"):
        grouped_bound(tetrominoes, 8, prove=8, rounds=2, dearest=(2, 3))


@pytest.mark.slow
def test_the_recorded_prices_bound_the_hexominoes_by_1598():
    # docs/benchmarks/hexominoes-bound-1598.json: one tallied round at those prices and
    # groups bounds the 35 hexominoes' pocket by 1,598 (about 20 s); never below the
    # fence of 1,597 that the finder found (docs/benchmarks/fences/hexominoes-1597.json).
    import json
    from pathlib import Path

    recorded = json.loads(
        (Path(__file__).parents[3] / "docs" / "benchmarks" / "hexominoes-bound-1598.json").read_text()
    )
    pieces = resolve_pieces([PieceSpec(family="n-ominoes", n=6)], Host())
    kind = {piece.name: number for number, piece in enumerate(pieces)}
    groups = [[kind[name] for name in group] for group in recorded["groups"]]
    prices = [recorded["prices"][piece.name] for piece in pieces]
    found = relaxed_bound(pieces, 8, rounds=1, prices=prices, groups=groups)
    assert found is not None and found.bound == 1598
