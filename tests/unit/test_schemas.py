"""The committed JSON Schemas are fresh, accept every example and refuse unknown keys."""

import json
import tomllib
from pathlib import Path

import jsonschema
import pytest

from polytile_core.cli.main import main
from polytile_core.config.pipeline import make_plan
from polytile_core.config.schema import Pipeline
from polytile_core.config.schemagen import pipeline_schema, result_lines_schema, result_schema
from polytile_core.convert import structure
from polytile_core.errors import InputError
from polytile_core.host.registry import Host

ROOT = Path(__file__).parents[2]
SCHEMAS = ROOT / "schemas"
EXAMPLES = sorted((ROOT / "examples").rglob("*.toml"))
REGENERATE = "regenerate with: .venv/bin/polytile schema {0} > schemas/{0}.schema.json"


def committed(name):
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text())


def test_pipeline_schema_is_fresh():
    assert committed("pipeline") == pipeline_schema(Host()), REGENERATE.format("pipeline")


def test_result_schema_is_fresh():
    assert committed("result") == result_schema(), REGENERATE.format("result")


def test_result_lines_schema_is_fresh():
    assert committed("result-lines") == result_lines_schema(), REGENERATE.format("result-lines")


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.name)
def test_every_example_is_valid(example):
    jsonschema.validate(tomllib.loads(example.read_text()), committed("pipeline"))


def test_an_unknown_key_is_rejected():
    data = tomllib.loads((ROOT / "examples" / "pentomino-6x10.toml").read_text())
    data["solve"]["speed"] = "fast"
    with pytest.raises(jsonschema.ValidationError, match="speed"):
        jsonschema.validate(data, committed("pipeline"))


def test_an_unknown_plugin_option_is_rejected():
    data = {"region": {"width": 2, "height": 1}, "pieces": [{"shape": ["##"]}], "options": {"cpsat": {"speed": 1}}}
    with pytest.raises(jsonschema.ValidationError, match="speed"):
        jsonschema.validate(data, committed("pipeline"))


def test_a_result_file_is_valid(tmp_path):
    out = tmp_path / "result.json"
    assert main(["solve", str(ROOT / "examples" / "l-tetromino-2x4.toml"), "-q", "-o", str(out)]) == 0
    jsonschema.validate(json.loads(out.read_text()), committed("result"))


def test_schema_command_prints_the_pipeline_schema(capsys):
    assert main(["schema", "pipeline"]) == 0
    assert json.loads(capsys.readouterr().out)["title"] == "polytile pipeline"


def test_the_schemas_have_ids():
    assert committed("pipeline")["$id"] == "urn:polytile:schema:pipeline"
    assert committed("result")["$id"] == "urn:polytile:schema:result"


def test_descriptions_are_plain_text():
    text = json.dumps(committed("pipeline"))
    assert "``" not in text and "`" not in text


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.name)
def test_every_example_names_its_schema_for_editors(example):
    first = example.read_text().splitlines()[0]
    assert first.startswith("#:schema "), "Taplo and Even Better TOML read a #:schema comment on the first line"
    assert (example.parent / first.removeprefix("#:schema ")).resolve() == (SCHEMAS / "pipeline.schema.json")


PIECE = {"shape": ["##"]}
REGION = {"width": 2, "height": 1}


def pipeline(*, region=REGION, piece=None, solve=None, **top):
    data = {"region": region, "pieces": [piece or PIECE], **top}
    if region is None:
        del data["region"]
    if solve is not None:
        data["solve"] = solve
    return data


# The loader's own bad-input cases that JSON Schema can say (polytile_core/config/pipeline.py).
REFUSED = {
    "width 0": pipeline(region={"width": 0, "height": 1}),
    "negative height": pipeline(region={"width": 2, "height": -3}),
    "width without height": pipeline(region={"width": 2}),
    "rows and width": pipeline(region={"rows": ["##"], "width": 2}),
    "empty rows": pipeline(region={"rows": []}),
    "a stray character in rows": pipeline(region={"rows": ["#x"]}),
    "a tiling without a region": pipeline(region=None),
    "no pieces": {"region": REGION, "pieces": []},
    "neither shape nor family": pipeline(piece={"name": "D"}),
    "shape and family": pipeline(piece={"shape": ["##"], "family": "dominoes"}),
    "a cell that is not [x, y]": pipeline(piece={"cells": [[0, 0], [1]]}),
    "a named family": pipeline(piece={"family": "dominoes", "name": "D"}),
    "n without a family": pipeline(piece={"shape": ["##"], "n": 2}),
    "negative count": pipeline(piece={"shape": ["##"], "count": -1}),
    "count and min": pipeline(piece={"shape": ["##"], "count": 1, "min": 1}),
    "unlimited and max": pipeline(piece={"shape": ["##"], "unlimited": True, "max": 3}),
    "negative min": pipeline(piece={"shape": ["##"], "min": -1}),
    "negative time limit": pipeline(solve={"time_limit": -1.0}),
    "zero time limit": pipeline(solve={"time_limit": 0}),
    "jobs = 0": pipeline(solve={"jobs": 0}),
    "workers = 0": pipeline(solve={"workers": 0}),
    "negative seed": pipeline(solve={"seed": -1}),
    "seed 2**31": pipeline(solve={"seed": 2**31}),
    "negative keep": pipeline(solve={"keep": -1}),
    "unknown mode": pipeline(solve={"mode": "fast"}),
    "a memo budget of 0": pipeline(solve={"backend": "exactcover"}, options={"exactcover": {"memo_budget": 0}}),
    "a tree of 0 parts": pipeline(split={"method": "tree"}, solve={"mode": "count"}, options={"tree": {"parts": 0}}),
}

ACCEPTED = {
    "rows": pipeline(region={"rows": ["##", "#."]}, piece={"shape": ["#"], "count": 3}),
    "min only": pipeline(piece={"shape": ["##"], "min": 1}),
    "max only": pipeline(piece={"shape": ["##"], "max": 1}),
    "min and max": pipeline(piece={"shape": ["##"], "min": 0, "max": 2}),
    "unlimited": pipeline(piece={"shape": ["##"], "unlimited": True}),
    "unlimited = false and a count": pipeline(piece={"shape": ["##"], "unlimited": False, "count": 1}),
    "a family with n": pipeline(region={"width": 3, "height": 1}, piece={"family": "n-ominoes", "n": 3}),
    "an enclosure needs no region": pipeline(region=None, problem="enclose"),
}


def loader_accepts(data) -> bool:
    try:
        make_plan(structure(data, Pipeline), Host())
    except InputError:
        return False
    return True


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_the_schema_refuses_what_the_loader_refuses(case):
    data = REFUSED[case]
    assert not loader_accepts(data), "the loader accepts it: not a bad-input case"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, committed("pipeline"))


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_the_schema_accepts_what_the_loader_accepts(case):
    assert loader_accepts(ACCEPTED[case])
    jsonschema.validate(ACCEPTED[case], committed("pipeline"))
