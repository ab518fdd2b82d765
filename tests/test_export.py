"""The LP/MPS writer and `polytile export` (the files are read back by SCIP in plugins/scip/tests)."""

import pytest

from polytile_core.cli.main import main
from polytile_core.errors import InputError
from polytile_core.model.zero_one import Model
from polytile_core.output.export import lp_text, model_text, mps_text, variable_index, variable_name
from polytile_core.testing import TWO_L_TETROMINOES

PIPELINE = TWO_L_TETROMINOES


def small_model():
    model = Model(name="small")
    a = model.add_variable("piece A-1 (x)")
    b = model.add_variable("B")
    model.add_constraint([(a, 1), (b, -2)], ">=", -1, "mixed signs")
    model.add_constraint([], "==", 1, "cell nobody covers")
    model.objective = {a: 3, b: 1}
    model.maximize = False
    return model


def test_names_keep_the_variable_index_and_lose_forbidden_characters():
    model = small_model()
    assert variable_name(model, 0) == "x0_piece_A_1__x_"
    assert variable_index(variable_name(model, 0)) == 0
    with pytest.raises(ValueError):
        variable_index("y3")


def test_lp_text_has_every_section_and_keeps_an_empty_row():
    text = lp_text(small_model())
    lines = text.splitlines()
    assert lines[1:3] == ["Minimize", " obj: 3 x0_piece_A_1__x_ + x1_B"]
    assert " c0_mixed_signs: x0_piece_A_1__x_ - 2 x1_B >= -1" in lines
    assert " c1_cell_nobody_covers: 0 x0_piece_A_1__x_ = 1" in lines
    assert lines[-3:] == ["Binaries", " x0_piece_A_1__x_ x1_B", "End"]


def test_long_rows_are_wrapped():
    model = Model()
    variables = [model.add_variable(f"v{i}") for i in range(50)]
    model.add_constraint([(v, 1) for v in variables], "<=", 7, "long")
    assert max(len(line) for line in lp_text(model).splitlines()) < 255


def test_mps_text_lists_rows_columns_rhs_and_binary_bounds():
    lines = mps_text(small_model()).splitlines()
    assert " G  c0_mixed_signs" in lines and " E  c1_cell_nobody_covers" in lines
    assert "    x1_B  c0_mixed_signs  -2" in lines
    assert "    RHS  c0_mixed_signs  -1" in lines
    assert " BV BND  x1_B" in lines
    assert "OBJSENSE" not in lines  # minimise is the default
    assert lines[-1] == "ENDATA"


def test_unknown_format_and_empty_model_are_input_errors():
    with pytest.raises(InputError):
        model_text(small_model(), "xls")
    with pytest.raises(InputError):
        lp_text(Model())


def test_cli_writes_and_refuses_to_overwrite(tmp_path, capsys):
    pipeline = tmp_path / "p.toml"
    pipeline.write_text(PIPELINE)
    target = tmp_path / "model.lp"
    assert main(["export", str(pipeline), "-o", str(target)]) == 0
    assert target.read_text().startswith("\\ polytile model tiling")
    assert main(["export", str(pipeline), "-o", str(target)]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["export", str(pipeline), "--format", "mps", "-o", str(target), "--force"]) == 0
    assert "ENDATA" in target.read_text()


def test_cli_needs_a_format_it_can_tell(tmp_path, capsys):
    pipeline = tmp_path / "p.toml"
    pipeline.write_text(PIPELINE)
    assert main(["export", str(pipeline), "-o", str(tmp_path / "model.txt")]) == 2
    assert "--format" in capsys.readouterr().err
    assert main(["export", str(tmp_path / "missing.toml"), "-o", str(tmp_path / "m.lp")]) == 2
