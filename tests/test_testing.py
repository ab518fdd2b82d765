"""polytile_core.testing checks itself: its brute force against published counts, its
reference backend against the conformance suite, fresh_host against installed plugins."""

import pytest

from polytile_core.errors import InputError
from polytile_core.model.geometry import Region, cells_from_rows
from polytile_core.model.problem import PieceType
from polytile_core.testing import (
    INSTANCES,
    REFERENCE_PLUGIN,
    BackendConformance,
    count_pictures_brute_force,
    count_tilings_brute_force,
    fresh_host,
    own_orientations,
)


@pytest.mark.parametrize("instance", INSTANCES, ids=[instance.name for instance in INSTANCES])
def test_the_brute_force_gives_every_listed_count(instance):
    assert count_tilings_brute_force(instance.region.cells, instance.pieces) == instance.count


@pytest.mark.parametrize("n, dominoes", [(2, 2), (4, 36), (6, 6728)])
def test_the_brute_force_counts_square_domino_tilings_like_oeis_a004003(n, dominoes):
    (domino,) = next(i for i in INSTANCES if i.name == "4x4 dominoes").pieces
    assert count_tilings_brute_force(Region.rectangle(n, n).cells, [domino]) == dominoes


def test_the_brute_force_counts_pictures_by_the_published_rule():
    # 2×4 with two L-tetrominoes: 2 tilings (oracles.md), mirror images of each other, so
    # 1 picture; with one-sided pieces the mirror is no symmetry, and the 1 tiling is 1
    # picture.  5×4 with two one-sided P and two Q pentominoes: 4 tilings, 2 pictures, a
    # reflection turning every P into a Q (issue 23).
    def piece(name, rows, kind, copies):
        return PieceType(name, cells_from_rows(rows), kind, copies, copies)

    two_by_four = Region.rectangle(4, 2).cells
    assert count_pictures_brute_force(two_by_four, [piece("L", ["#.", "#.", "##"], "free", 2)]) == 1
    assert count_pictures_brute_force(two_by_four, [piece("L", ["#.", "#.", "##"], "one-sided", 2)]) == 1
    p_and_q = [piece("P", ["##", "##", "#."], "one-sided", 2), piece("Q", ["##", "##", ".#"], "one-sided", 2)]
    assert count_tilings_brute_force(Region.rectangle(5, 4).cells, p_and_q) == 4
    assert count_pictures_brute_force(Region.rectangle(5, 4).cells, p_and_q) == 2


def test_own_orientations_give_the_tetromino_counts():
    # The 5 free tetrominoes are 7 one-sided and 19 fixed ones (OEIS A000988, A001168).
    tetrominoes = [
        [(0, 0), (1, 0), (2, 0), (3, 0)],
        [(0, 0), (1, 0), (0, 1), (1, 1)],
        [(0, 0), (1, 0), (2, 0), (1, 1)],
        [(1, 0), (2, 0), (0, 1), (1, 1)],
        [(0, 0), (1, 0), (2, 0), (0, 1)],
    ]
    free = [own_orientations(shape, "free") for shape in tetrominoes]
    one_sided = [own_orientations(shape, "one-sided") for shape in tetrominoes]
    assert sum(len(forms) for forms in free) == 19
    assert sum(len(f) // len(o) for f, o in zip(free, one_sided, strict=True)) == 7
    assert all(len(own_orientations(shape, "fixed")) == 1 for shape in tetrominoes)


def test_fresh_host_has_only_the_given_plugins():
    assert set(fresh_host().registry["backends"]) == set()
    host = fresh_host(REFERENCE_PLUGIN)
    assert set(host.registry["backends"]) == {"reference"}
    with pytest.raises(InputError):
        host.get("backends", "cpsat")


class TestReferenceBackendConformance(BackendConformance):
    backend_name = "reference"
    plugin = REFERENCE_PLUGIN


def test_the_reference_backend_runs_a_pipeline_as_a_stand_in():
    from polytile_core.config.pipeline import make_plan
    from polytile_core.config.schema import PieceSpec, Pipeline, RegionSpec, SolveSpec
    from polytile_core.solve.run import run

    pipeline = Pipeline(
        region=RegionSpec(rows=["##.", "###", "###"]),
        pieces=[PieceSpec(name="D", shape=["##"], unlimited=True)],
        solve=SolveSpec(mode="all", backend="reference"),
    )
    result = run(make_plan(pipeline, fresh_host(REFERENCE_PLUGIN)))
    assert (result.count, len(result.solutions), result.backend) == (4, 4, "reference")  # Reid's example
