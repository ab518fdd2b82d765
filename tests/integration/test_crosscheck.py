"""Every way polytile counts, against one independent brute force, on fixed examples.

Each example is a small random region (holes, several components) with one to three
pieces (free, one-sided or fixed; exactly once, an exact count, a range, or unlimited),
drawn by ``polytile_core.testing.random_pipeline(seed)``: the same examples on every run
and every Python, so the check cannot pass by luck.  Every route that counts must agree with
``polytile_core.testing``'s brute force on the number of tilings and on the number of
pictures up to symmetry: the default backend, CP-SAT, SCIP both ways, the exactcover
backend with every value of each of its options, listing (mode all), and checkerboard
split runs.  A failure prints the pipeline file that reproduces it.

The default run checks ``DEFAULT_EXAMPLES`` examples, the slow suite (``-m slow``)
``SLOW_EXAMPLES`` more; docs/counting.md records how long they take.
"""

from __future__ import annotations

import typing

import attrs
import pytest
import tomli_w

from polytile_core.config.pipeline import make_plan
from polytile_core.config.schema import Pipeline
from polytile_core.convert import structure
from polytile_core.host.registry import Host
from polytile_core.output.results import Found, Termination
from polytile_core.solve.run import run
from polytile_core.testing import (
    cells_of_table,
    picture_symmetries,
    pieces_of_table,
    random_pipeline,
    tilings_brute_force,
)

DEFAULT_EXAMPLES = 400
SLOW_EXAMPLES = 3000
HOST = Host()

# Examples from bug reports, checked on every run before the random ones.
FIXED_EXAMPLES = {
    # Issue 23: SCIP's counting mode said 2 (probing fixed every variable in presolving).
    "4x4 with holes, 5 dominoes and a fixed I-tromino": {
        "region": {"rows": ["####", "#.##", "##.#", ".###"]},
        "pieces": [
            {"name": "D", "shape": ["##"], "count": 5},
            {"name": "I", "shape": ["###"], "kind": "fixed", "count": 1},
        ],
    },
    # A free L and a free J are the same free piece under two names, and keep their names
    # under every symmetry.  The 2 tilings of 2×4 by two L shapes, each with the names
    # either way round, are 4 tilings; a half-turn swaps the two places of a tiling and a
    # reflection swaps the tilings: 1 picture.
    "2x4, a free L and a free J tetromino": {
        "region": {"rows": ["####", "####"]},
        "pieces": [{"name": "L", "shape": ["#.", "#.", "##"]}, {"name": "J", "shape": [".#", ".#", "##"]}],
    },
    # Two P under two names and one Q: a reflection would give two Q and one P, so it does
    # not count, however the names are matched; the turns do.
    "4x4, one-sided P pentominoes named P1 and P2, a Q and a monomino": {
        "region": {"rows": ["####"] * 4},
        "pieces": [
            {"name": "P1", "shape": ["##", "##", "#."], "kind": "one-sided"},
            {"name": "P2", "shape": ["##", "##", "#."], "kind": "one-sided"},
            {"name": "Q", "shape": ["##", "##", ".#"], "kind": "one-sided"},
            {"name": "M", "shape": ["#"]},
        ],
    },
    # Issue 23: 4 tilings, 2 pictures (a reflection turns every P into a Q).
    "5x4, two one-sided P and two Q pentominoes": {
        "region": {"rows": ["#####"] * 4},
        "pieces": [
            {"name": "P", "shape": ["##", "##", "#."], "kind": "one-sided", "count": 2},
            {"name": "Q", "shape": ["##", "##", ".#"], "kind": "one-sided", "count": 2},
        ],
    },
}


@attrs.frozen
class Truth:
    """What the brute force says about an example."""

    tilings: frozenset
    picture_of: dict  # tiling -> its class (the smallest image under the picture symmetries)

    @property
    def count(self) -> int:
        return len(self.tilings)

    @property
    def pictures(self) -> int:
        return len(set(self.picture_of.values()))


def brute_force(table: dict) -> Truth:
    region, pieces = cells_of_table(table), pieces_of_table(table)
    symmetries = picture_symmetries(region, pieces)
    tilings = frozenset(tilings_brute_force(region, pieces))

    def picture(tiling):
        return min(tuple(sorted((name, tuple(sorted(cells))) for name, cells in act(tiling))) for act in symmetries)

    return Truth(tilings, {tiling: picture(tiling) for tiling in tilings})


def literal_choices(options_class: type, field: str) -> tuple:
    return typing.get_args(typing.get_type_hints(options_class)[field])


def literal_options(options_class: type) -> list[tuple[str, object]]:
    """Every (option, value) of an options class whose option takes one of a few words."""
    hints = typing.get_type_hints(options_class)
    return [
        (field.name, value)
        for field in attrs.fields(options_class)
        if typing.get_origin(hints[field.name]) is typing.Literal
        for value in typing.get_args(hints[field.name])
    ]


def routes() -> dict[str, dict]:
    """Every way polytile counts, as the pipeline keys that choose it.

    The exactcover backend is tried with every value of every option that takes one of
    a few words (counter, symmetry, and whatever kernels it declares), so a new kernel is
    checked as soon as it is declared.
    """
    from polytile_exactcover import ExactCoverOptions
    from polytile_scip import ScipOptions

    count = {"mode": "count", "distinct": True}
    found = {
        "default backend": {"solve": count},
        "cpsat": {"solve": {**count, "backend": "cpsat"}},
        "cpsat, mode all": {"solve": {**count, "mode": "all", "backend": "cpsat"}},
        "exactcover, mode all": {"solve": {**count, "mode": "all", "backend": "exactcover"}},
        "checkerboard split": {"solve": {**count, "executor": "thread"}, "split": {"method": "checkerboard"}},
        "checkerboard split, exactcover": {
            "solve": {**count, "executor": "thread", "backend": "exactcover"},
            "split": {"method": "checkerboard"},
        },
    }
    for value in literal_choices(ScipOptions, "counting"):
        found[f"scip, counting = {value}"] = {
            "solve": {**count, "backend": "scip"},
            "options": {"scip": {"counting": value}},
        }
    for option, value in literal_options(ExactCoverOptions):
        found[f"exactcover, {option} = {value}"] = {
            "solve": {**count, "backend": "exactcover"},
            "options": {"exactcover": {option: value}},
        }
    return found


ROUTES = routes()


def disagreements(table: dict, truth: Truth) -> list[str]:
    """What each route got wrong, each with the pipeline file that reproduces it."""
    wrong = []
    for name, keys in ROUTES.items():
        pipeline = {**table, **keys}
        result = run(make_plan(structure(pipeline, Pipeline), HOST))
        got = (result.termination, result.found, result.count, result.distinct_count)
        expected = (
            Termination.COMPLETED,
            Found.FEASIBLE if truth.count else Found.INFEASIBLE,
            truth.count,
            truth.pictures,
        )
        problems = [] if got == expected else [f"got {got}, expected {expected}"]
        if keys["solve"]["mode"] == "all":
            problems += listing_problems(result.solutions, truth)
        if problems:
            wrong.append(f"route {name!r}: {'; '.join(problems)}\n--- pipeline.toml\n{tomli_w.dumps(pipeline)}---")
    return wrong


def listing_problems(solutions, truth: Truth) -> list[str]:
    """A listing up to symmetry must give true tilings, one from each picture."""
    listed = [frozenset((placed.piece, frozenset(placed.cells)) for placed in found.placements) for found in solutions]
    if not set(listed) <= truth.tilings:
        return ["listed a tiling the brute force does not know"]
    if sorted(truth.picture_of[tiling] for tiling in listed) != sorted(set(truth.picture_of.values())):
        return ["the tilings listed are not one from each picture"]
    return []


def check(table: dict) -> None:
    truth = brute_force(table)
    wrong = disagreements(table, truth)
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name", sorted(FIXED_EXAMPLES))
def test_examples_from_bug_reports_count_alike_everywhere(name):
    check(FIXED_EXAMPLES[name])


def test_the_fixed_examples_have_the_truth_worked_out_by_hand():
    """The brute force itself on the fixed examples (issue 23 worked out two of them)."""
    truths = {name: brute_force(table) for name, table in FIXED_EXAMPLES.items()}
    assert truths["4x4 with holes, 5 dominoes and a fixed I-tromino"].count == 1
    pq = truths["5x4, two one-sided P and two Q pentominoes"]
    assert (pq.count, pq.pictures) == (4, 2)
    l_and_j = truths["2x4, a free L and a free J tetromino"]
    assert (l_and_j.count, l_and_j.pictures) == (4, 1)


@pytest.mark.parametrize("seed", range(DEFAULT_EXAMPLES))
def test_every_route_counts_like_the_brute_force(seed):
    check(random_pipeline(seed))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(DEFAULT_EXAMPLES, DEFAULT_EXAMPLES + SLOW_EXAMPLES))
def test_every_route_counts_like_the_brute_force_on_thousands_more(seed):
    check(random_pipeline(seed))
