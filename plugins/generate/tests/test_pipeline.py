"""The family in a pipeline and on the command line."""

import subprocess
import sys
from pathlib import Path

import polytile_cpsat
import polytile_generate
import pytest

from polytile_core.plugin import InputError, normalise, orientations
from polytile_core.testing import Host, api, load_plan, main, run


def host():
    return Host(autoload=False, plugins=[polytile_generate, polytile_cpsat])


def test_generated_pentominoes_tile_6x10_with_cpsat():
    plan = api.plan((10, 6), [api.family("n-ominoes", n=5)], mode="one", backend="cpsat", host=host())
    result = api.solve(plan)
    assert result.found.value == "feasible"
    (solution,) = result.solutions
    shapes = dict(polytile_generate.n_ominoes(5))
    covered = [tuple(cell) for placed in solution.placements for cell in placed.cells]
    assert sorted(covered) == sorted((x, y) for x in range(10) for y in range(6))
    assert sorted(placed.piece for placed in solution.placements) == sorted(shapes)
    for placed in solution.placements:
        assert normalise(map(tuple, placed.cells)) in orientations(shapes[placed.piece], "free")


def test_kind_fixed_gives_every_fixed_piece_once():
    plan = api.plan((7, 4), [api.family("n-ominoes", n=3, kind="fixed", unlimited=True)], host=host())
    assert len(plan.pieces) == 6
    assert all(len(piece.orientations()) == 1 for piece in plan.pieces)


@pytest.mark.parametrize("n, message", [(None, "needs n"), (0, "1 or more")])
def test_bad_n_is_an_error_at_the_piece_tables_n(n, message):
    with pytest.raises(InputError, match=message) as raised:
        api.plan((10, 6), [api.family("n-ominoes", n=n)], host=host())
    assert raised.value.path == "pieces[0].n"


def polytile(*arguments):
    return subprocess.run(
        [sys.executable, "-m", "polytile_core.cli.main", *arguments], capture_output=True, text=True, timeout=120
    )


def test_cli_counts_and_draws_the_pentominoes():
    completed = polytile("pieces", "5")
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[0] == "12 free 5-ominoes"
    assert "F" in lines[1].split() and ".##" in lines[2]


def test_cli_count_only(capsys):
    assert main(["pieces", "6", "--kind", "one-sided", "--count-only"]) == 0
    assert capsys.readouterr().out == "60\n"  # OEIS A000988


@pytest.mark.parametrize("bad", ["0", "five", "-2"])
def test_cli_bad_n_is_one_line_and_exit_code_2(bad, capsys):
    assert main(["pieces", bad]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("polytile: error: N: ")


def test_the_one_sided_tetromino_example_is_impossible_by_colouring():
    # The T covers 3 + 1 cells of the two colours, the other six tetrominoes 2 + 2,
    # so together they never cover 14 + 14 as a 4×7 rectangle needs.
    example = Path(__file__).parents[3] / "examples" / "tetrominoes-one-sided.toml"
    result = run(load_plan(example, Host()))
    assert (result.termination.value, result.found.value, result.count) == ("completed", "proved_infeasible", 0)


def test_a_huge_n_is_refused_at_once():
    from polytile_core.testing import main

    assert main(["pieces", "14"]) == 2
    assert main(["pieces", "17", "--count-only"]) == 2
