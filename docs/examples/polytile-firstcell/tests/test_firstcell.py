"""The example decomposer tested the way a third-party author would test theirs: every
count against the brute force of ``polytile_core.testing``, never against a figure the
split itself produced."""

from __future__ import annotations

import os
import random
from importlib.metadata import entry_points
from typing import Any

import polytile_firstcell
import pytest

from polytile_core.plugin import Found, InputError, Result, Termination
from polytile_core.testing import (
    DecomposerConformance,
    Host,
    Pipeline,
    cells_of_table,
    count_tilings_brute_force,
    make_plan,
    pieces_of_table,
    random_instance,
    run,
    structure,
)

HOST = Host()  # what is installed: found through the entry point, as a user's run finds it
L_TETROMINO = ["#.", "#.", "##"]
DOMINO = ["##"]


def run_split(table: dict[str, Any], cell: str = "first", mode: str = "count") -> Result:
    """A run of ``table`` split by first-cell on one job, with ``[options.first-cell]``."""
    data = {
        **table,
        "solve": {"mode": mode, "jobs": 1, "time_limit": 30},
        "split": {"method": "first-cell"},
        "options": {"first-cell": {"cell": cell}},
    }
    return run(make_plan(structure(data, Pipeline), HOST))


def rectangle(width: int, height: int, *pieces: tuple[str, list[str]]) -> dict[str, Any]:
    rows = ["#" * width] * height
    return {
        "region": {"rows": rows},
        "pieces": [{"name": name, "shape": shape, "unlimited": True} for name, shape in pieces],
    }


class TestFirstCellConformance(DecomposerConformance):
    """The kit: on random small regions, the parts partition the tilings and a
    certificate is never wrong."""

    decomposer_name = "first-cell"
    plugin = polytile_firstcell
    options = {"cell": "fewest"}


def test_found_through_its_entry_point() -> None:
    assert "firstcell" in {entry.name for entry in entry_points(group="polytile")}
    registration = HOST.get("decomposers", "first-cell")
    assert registration.plugin == "firstcell"
    assert isinstance(registration.provides, polytile_firstcell.FirstCellSplit)


@pytest.mark.parametrize("cell", ["first", "fewest"])
@pytest.mark.parametrize(
    "table",
    [rectangle(2, 4, ("L", L_TETROMINO)), rectangle(4, 4, ("D", DOMINO)), rectangle(4, 3, ("L", L_TETROMINO))],
    ids=["2x4 L-tetrominoes", "4x4 dominoes", "4x3 L-tetrominoes"],
)
def test_the_parts_add_up_to_the_brute_force(table: dict[str, Any], cell: str) -> None:
    expected = count_tilings_brute_force(cells_of_table(table), pieces_of_table(table))
    result = run_split(table, cell)
    assert result.termination == Termination.COMPLETED
    assert (result.count, result.details["split"]) == (expected, "first-cell")


def test_random_regions_add_up_to_the_brute_force() -> None:
    seed = int(os.environ.get("POLYTILE_SEED", random.randrange(2**32)))
    rng = random.Random(seed)
    checked = 0
    while checked < 8:
        table = random_instance(rng, rng.randint(6, 14))
        if not cells_of_table(table):
            continue  # a random fill that covered nothing: no region to split
        checked += 1
        cell = rng.choice(["first", "fewest"])
        expected = count_tilings_brute_force(cells_of_table(table), pieces_of_table(table))
        result = run_split(table, cell)
        where = f"POLYTILE_SEED={seed}, cell = {cell!r}, region {table['region']['rows']}"
        assert result.termination == Termination.COMPLETED, where
        assert result.count == expected, f"{where}: {result.count} tilings, brute force {expected}"


# The area (5 = 2 + 3) allows a tiling, but no piece reaches the lone cell (3, 2).
LONE_CELL = {
    "region": {"rows": ["##..", "....", "##.#"]},
    "pieces": [{"name": "D", "shape": DOMINO, "unlimited": True}, {"name": "I", "shape": ["###"], "unlimited": True}],
}


def test_a_cell_no_piece_covers_is_a_certificate() -> None:
    assert count_tilings_brute_force(cells_of_table(LONE_CELL), pieces_of_table(LONE_CELL)) == 0
    for mode in ("one", "count"):
        result = run_split(LONE_CELL, "fewest", mode)
        assert (result.termination, result.found) == (Termination.COMPLETED, Found.INFEASIBLE)
        assert result.message == "no piece can cover cell (3, 2)"
        assert result.details["certificate"] == "first-cell"


def test_the_first_cell_is_covered_there_so_the_parts_are_searched() -> None:
    """With ``cell = "first"`` the split looks at (0, 0) only, which a domino covers: no
    certificate, and the one part's search finds no tiling."""
    result = run_split(LONE_CELL, "first")
    assert (result.count, result.details["subproblems"]) == (0, 1)
    assert "certificate" not in result.details


def test_a_wrong_choice_names_its_key() -> None:
    data = {
        **rectangle(2, 2, ("D", DOMINO)),
        "split": {"method": "first-cell"},
        "options": {"first-cell": {"cell": "last"}},
    }
    with pytest.raises(InputError, match=r"^options\.first-cell\.cell: "):
        make_plan(structure(data, Pipeline), HOST)
