"""An MPS file written by polytile, read by a second reader (OR-Tools' MPS parser), keeps
its size, its binaries and its optimum."""

from ortools.linear_solver.python import model_builder

from polytile_core.testing import mps_text, optimisation_instance, reference_optimum, variable_index


def test_ortools_reads_the_mps_file_and_finds_the_reference_optimum():
    model, _ = optimisation_instance()
    builder = model_builder.ModelBuilder()
    assert builder.import_from_mps_string(mps_text(model))
    assert (builder.num_variables, builder.num_constraints) == (model.num_variables, len(model.constraints))
    variables = builder.get_variables()
    assert all(v.is_integral and (v.lower_bound, v.upper_bound) == (0, 1) for v in variables)
    assert sorted(variable_index(v.name) for v in variables) == list(range(model.num_variables))
    solver = model_builder.Solver("sat")
    assert solver.solve(builder) == model_builder.SolveStatus.OPTIMAL
    assert solver.objective_value == reference_optimum()
    ones = [variable_index(v.name) for v in variables if solver.value(v) > 0.5]
    assert model.check(ones) == []
