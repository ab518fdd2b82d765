"""What is particular to the SCIP backend: its counting choice, options, auxiliary
variables, errors raised in callbacks, and a run from a pipeline file."""

import threading

import pytest
from polytile_scip import ScipBackend, ScipOptions

from polytile_core.plugin import Found, InputError, SolveSettings, Termination
from polytile_core.testing import INSTANCES, ReferenceBackend, main, solve_with

FIVE_BY_SIX = next(i for i in INSTANCES if i.name == "5x6 L-trominoes")


def with_auxiliary_variable():
    """A tiling model plus a variable no constraint mentions: every tiling appears twice
    among full assignments, once among assignments of the decision variables."""
    model = FIVE_BY_SIX.model()
    model.add_variable("free auxiliary", decision=False)
    return model


def test_auto_counting_uses_scip_counting_only_when_it_counts_tilings():
    backend = ScipBackend()
    assert backend.counting_method(FIVE_BY_SIX.model(), SolveSettings(mode="count")) == "scip"
    assert backend.counting_method(with_auxiliary_variable(), SolveSettings(mode="count")) == "nogood"
    assert backend.counting_method(FIVE_BY_SIX.model(), SolveSettings(mode="all")) == "nogood"
    assert backend.counting_method(FIVE_BY_SIX.model(), SolveSettings(mode="one")) == "search"


def test_auxiliary_variables_are_projected_out():
    model = with_auxiliary_variable()
    reference, _, _ = solve_with(ReferenceBackend(), model, "count")
    for mode in ("count", "all"):
        result, streamed, _ = solve_with(ScipBackend(), model, mode)
        assert result.count == reference.count == FIVE_BY_SIX.count
        assert len({tuple(ones) for ones in streamed}) == len(streamed)


def test_scip_counting_refuses_a_model_with_auxiliary_variables():
    with pytest.raises(InputError) as error:
        solve_with(ScipBackend(ScipOptions(counting="scip")), with_auxiliary_variable(), "count")
    assert error.value.path == "options.scip.counting"


@pytest.mark.parametrize("mode", ["count", "all"])
def test_a_parameter_that_would_break_counting_is_refused(mode):
    # Probing in presolving made SCIP's counting mode count a tiling twice (issue 23).
    backend = ScipBackend(ScipOptions(parameters={"propagating/probing/maxprerounds": -1}))
    with pytest.raises(InputError) as error:
        solve_with(backend, FIVE_BY_SIX.model(), mode)
    assert error.value.path == "options.scip.parameters.propagating/probing/maxprerounds"
    result, _, _ = solve_with(backend, FIVE_BY_SIX.model(), "one")
    assert result.found == Found.FEASIBLE


def test_an_error_in_on_solution_reaches_the_caller():
    def fail(ones):
        raise RuntimeError("downstream failed")

    for mode in ("all", "one"):
        with pytest.raises(RuntimeError, match="downstream failed"):
            ScipBackend().solve(FIVE_BY_SIX.model(), SolveSettings(mode=mode), fail, threading.Event())


def test_stop_set_before_the_solve_returns_interrupted():
    stop = threading.Event()
    stop.set()
    result = ScipBackend().solve(FIVE_BY_SIX.model(), SolveSettings(mode="count"), lambda ones: None, stop)
    assert (result.termination, result.found) == (Termination.INTERRUPTED, Found.NONE)


PIPELINE = """
[region]
width = 4
height = 2

[[pieces]]
name = "L"
shape = ["#.", "#.", "##"]
count = 2

[solve]
mode = "count"
backend = "scip"

[options.scip]
counting = "{counting}"
"""


@pytest.mark.parametrize("counting", ["auto", "nogood", "scip"])
def test_a_pipeline_counts_with_scip(tmp_path, capsys, counting):
    path = tmp_path / "p.toml"
    path.write_text(PIPELINE.format(counting=counting))
    assert main(["solve", str(path)]) == 0
    assert "solutions: 2" in capsys.readouterr().out  # docs/oracles.md


def test_an_unknown_counting_choice_is_one_line_and_exit_2(tmp_path, capsys):
    path = tmp_path / "p.toml"
    path.write_text(PIPELINE.format(counting="fast"))
    assert main(["solve", str(path)]) == 2
    error = capsys.readouterr().err
    assert "options.scip.counting" in error and len(error.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("parameter", "expected"),
    [('"no/such/parameter" = 1', "no SCIP parameter has that name"), ('"limits/time" = "soon"', "of that type")],
)
def test_a_bad_raw_parameter_is_one_line_when_the_plan_is_made(tmp_path, capsys, parameter, expected):
    """As cpsat's: checked by ``polytile validate``, before anything is built or solved."""
    path = tmp_path / "p.toml"
    path.write_text(PIPELINE.format(counting="auto") + f"parameters = {{ {parameter} }}\n")
    assert main(["validate", str(path)]) == 2
    error = capsys.readouterr().err.strip()
    name = parameter.split(" = ")[0].strip('"')
    assert len(error.splitlines()) == 1 and f"{path}: options.scip.parameters.{name}: " in error, error
    assert expected in error, error


@pytest.mark.parametrize("emphasis", ["feasibility", "cpsolver"])
def test_an_emphasis_still_finds_a_valid_tiling(emphasis):
    from polytile_core.testing import tiling_problems

    model = FIVE_BY_SIX.model()
    result, streamed, _ = solve_with(ScipBackend(ScipOptions(emphasis=emphasis)), model, "one")
    assert (result.termination, result.found) == (Termination.COMPLETED, Found.FEASIBLE)
    assert tiling_problems(FIVE_BY_SIX, model, streamed[-1]) == []
