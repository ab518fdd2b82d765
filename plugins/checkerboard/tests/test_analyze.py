"""``polytile analyze`` and the exact rank behind f = n − rank([A|b])."""

import random
from fractions import Fraction

import pytest

from polytile_core.plugin import Model
from polytile_core.testing import TWO_L_TETROMINOES, augmented_rank, main, model_size

L4_2x4 = TWO_L_TETROMINOES


def rational_rank(model: Model) -> int:
    """Rank of [A|b] by elimination over the rationals (an independent check)."""
    rows = []
    for constraint in model.constraints:
        row = [Fraction(0)] * (model.num_variables + 1)
        for var, coefficient in constraint.terms:
            row[var] += coefficient
        row[-1] = Fraction(constraint.rhs)
        rows.append(row)
    rank = 0
    for column in range(model.num_variables + 1):
        pivot = next((r for r in range(rank, len(rows)) if rows[r][column] != 0), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for r in range(len(rows)):
            if r != rank and rows[r][column] != 0:
                factor = rows[r][column] / rows[rank][column]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[rank], strict=True)]
        rank += 1
    return rank


def test_rank_agrees_with_rational_elimination_on_random_models():
    rng = random.Random(7)
    for _ in range(30):
        model = Model()
        variables = rng.randint(1, 12)
        for index in range(variables):
            model.add_variable(f"x{index}")
        for row in range(rng.randint(1, 10)):
            terms = [(var, rng.randint(-3, 3)) for var in rng.sample(range(variables), rng.randint(1, variables))]
            model.add_constraint(terms, "==", rng.randint(-2, 2), f"r{row}")
        assert augmented_rank(model) == rational_rank(model)


def test_the_2x4_example_of_the_paper(tmp_path, capsys):
    """Paper intro: 8 variables and one free variable unsplit; three subcases of full rank."""
    path = tmp_path / "l.toml"
    path.write_text(L4_2x4)
    assert main(["--no-autoload", "analyze", str(path)]) == 2  # checkerboard is a plugin
    assert main(["analyze", str(path)]) == 0
    out = capsys.readouterr().out
    assert "original: m = 9, n = 8, f = 1" in out
    assert "subproblems: 3; removed before search: 0 (of all)" in out
    assert "L:a=1 L:b=1: m = 10, n = 8, f = 0" in out
    assert "L:a=0 L:b=2: m = 9, n = 4, f = 0" in out
    assert "classification: several subproblems of different sizes" in out


def test_impossible_and_single_subproblem_classifications(tmp_path, capsys):
    impossible = tmp_path / "t.toml"
    impossible.write_text('[region]\nwidth = 5\nheight = 4\n[[pieces]]\nfamily = "tetrominoes"\n')
    assert main(["analyze", str(impossible)]) == 0
    assert "classification: impossible: no subproblem" in capsys.readouterr().out
    dominoes = tmp_path / "d.toml"
    dominoes.write_text('[region]\nwidth = 4\nheight = 4\n[[pieces]]\nname = "D"\nshape = ["##"]\ncount = 8\n')
    assert main(["analyze", str(dominoes)]) == 0
    assert "classification: one subproblem, identical to the original" in capsys.readouterr().out


@pytest.mark.parametrize("argument", ["--first=-1", "--method=nosuch"])
def test_bad_arguments_are_one_line_errors(tmp_path, capsys, argument):
    path = tmp_path / "l.toml"
    path.write_text(L4_2x4)
    assert main(["analyze", str(path), argument]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_model_size_of_a_model_without_constraints():
    model = Model()
    model.add_variable("x")
    assert (model_size(model).m, model_size(model).n, model_size(model).f) == (0, 1, 1)
