"""Random small regions (holes, several components) and piece kinds: SCIP's two ways of
counting, CP-SAT and the independent brute force all give the same number."""

from hypothesis import HealthCheck, given, settings, strategies as st

import polytile_cpsat
from polytile_core.model.tiling import build_tiling
from polytile_core.model.geometry import Region
from polytile_core.model.problem import PieceType
from polytile_core.testing import count_tilings_brute_force, solve_with
from polytile_scip import ScipBackend, ScipOptions

SHAPES = {"domino": ((0, 0), (1, 0)), "L-tromino": ((0, 0), (0, 1), (1, 1)), "I-tromino": ((0, 0), (1, 0), (2, 0))}



@st.composite
def regions(draw):
    """A rectangle of up to 5×4 with a few cells taken out (holes, notches, or a split)."""
    width, height = draw(st.integers(2, 5)), draw(st.integers(2, 4))
    cells = sorted(Region.rectangle(width, height).cells)
    removed = draw(st.sets(st.sampled_from(cells), max_size=3))
    return Region(cell for cell in cells if cell not in removed)

KINDS = st.sampled_from(["free", "one-sided", "fixed"])
# Always a domino (in some kind), so that many regions can be tiled at all.
pieces = st.tuples(st.just("domino"), KINDS).flatmap(
    lambda domino: st.lists(st.tuples(st.sampled_from(["L-tromino", "I-tromino"]), KINDS), max_size=2,
                            unique_by=lambda piece: piece[0]).map(lambda others: [domino, *others])
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(regions(), pieces)
def test_every_backend_counts_like_the_brute_force(region, chosen):
    piece_types = tuple(PieceType(name, SHAPES[name], kind, 0, None) for name, kind in chosen)
    expected = count_tilings_brute_force(region.cells, piece_types)
    model = build_tiling(piece_types, region)
    counts = {
        "scip counting mode": solve_with(ScipBackend(ScipOptions(counting="scip")), model, "count")[0].count,
        "scip enumerator": len(solve_with(ScipBackend(), model, "all")[1]),
        "cpsat": solve_with(polytile_cpsat.CpsatBackend(), model, "count")[0].count,
    }
    assert counts == dict.fromkeys(counts, expected)
