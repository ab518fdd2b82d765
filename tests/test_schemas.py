"""The committed JSON Schemas are fresh, accept every example and refuse unknown keys."""

import json
import tomllib
from pathlib import Path

import jsonschema
import pytest

from polytile_core.cli.main import main
from polytile_core.config.schemagen import pipeline_schema, result_schema
from polytile_core.host.registry import Host

ROOT = Path(__file__).parent.parent
SCHEMAS = ROOT / "schemas"
EXAMPLES = sorted((ROOT / "examples").rglob("*.toml"))
REGENERATE = "regenerate with: .venv/bin/polytile schema {0} > schemas/{0}.schema.json"


def committed(name):
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text())


def test_pipeline_schema_is_fresh():
    assert committed("pipeline") == pipeline_schema(Host()), REGENERATE.format("pipeline")


def test_result_schema_is_fresh():
    assert committed("result") == result_schema(), REGENERATE.format("result")


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
