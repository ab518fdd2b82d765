"""A model exported by polytile's pure-Python writer and read back by SCIP keeps its tilings."""

import pyscipopt
import pytest

from polytile_core.testing import INSTANCES, count_tilings_brute_force, export_model, tiling_problems, variable_index


def tilings_read_back(path):
    """Every solution of the file, listed by re-solving with a no-good cut after each one
    (a different route from the backend's own enumerator)."""
    scip = pyscipopt.Model()
    scip.hideOutput()
    scip.readProblem(str(path))
    found = []
    while True:
        scip.optimize()
        if scip.getStatus() != "optimal":
            assert scip.getStatus() == "infeasible"
            return found
        solution = scip.getBestSol()
        variables = scip.getVars()
        ones = [var for var in variables if scip.getSolVal(solution, var) > 0.5]
        zeros = [var for var in variables if scip.getSolVal(solution, var) <= 0.5]
        found.append(sorted(variable_index(var.name) for var in ones))
        scip.freeTransform()
        scip.addCons(pyscipopt.quicksum(ones) - pyscipopt.quicksum(zeros) <= len(ones) - 1)


@pytest.mark.parametrize("fmt", ["lp", "mps"])
def test_two_l_tetrominoes_in_2x4_come_back_as_the_same_two_tilings(tmp_path, fmt):
    (instance,) = [i for i in INSTANCES if i.name == "2x4, two L-tetrominoes"]
    model = instance.model()
    path = export_model(model, tmp_path / f"l-tetrominoes.{fmt}")
    tilings = tilings_read_back(path)
    # 2 tilings: docs/oracles.md (Garvie & Burkardt 2022), and the brute force agrees.
    assert len(tilings) == 2 == count_tilings_brute_force(instance.region.cells, instance.pieces)
    assert len({tuple(t) for t in tilings}) == 2
    for ones in tilings:
        assert tiling_problems(instance, model, ones) == []


def test_an_objective_survives_the_round_trip(tmp_path):
    from polytile_core.testing import optimisation_instance, reference_optimum

    model, _ = optimisation_instance()
    for fmt in ("lp", "mps"):
        scip = pyscipopt.Model()
        scip.hideOutput()
        scip.readProblem(str(export_model(model, tmp_path / f"objective.{fmt}")))
        scip.optimize()
        assert scip.getObjectiveSense() == "maximize"
        assert scip.getObjVal() == pytest.approx(reference_optimum())


@pytest.mark.parametrize("fmt", ["lp", "mps"])
def test_every_battery_instance_read_back_keeps_its_count(tmp_path, fmt):
    """Long rows (wrapped over several lines), <= and >= rows, several piece types."""
    for number, instance in enumerate(i for i in INSTANCES if i.model().num_variables):
        scip = pyscipopt.Model()
        scip.hideOutput()
        scip.readProblem(str(export_model(instance.model(), tmp_path / f"{number}.{fmt}")))
        scip.setParamsCountsols()
        scip.setBoolParam("misc/allowstrongdualreds", False)
        scip.setBoolParam("misc/allowweakdualreds", False)
        scip.count()
        assert scip.getNCountedSols() == instance.count, instance.name
