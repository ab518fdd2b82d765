"""Every installed plugin's options table names a bad key once, relative to the pipeline:
``options.<name>.<key>: ...``.  An options class reports paths relative to its own table
(``memo_budget``) and the core puts ``options.<name>`` in front, once.

A table is named after what it configures (``[options.exactcover]``), a renderer's after
its plugin (``[options.render]`` for svg and png), and read as the core reads it when the
plan is made (``plugin_options``) or a picture drawn (``polytile render``)."""

from __future__ import annotations

import typing
from collections.abc import Iterator
from typing import Any, Literal

import attrs
import pytest

from polytile_core.config.schema import Pipeline
from polytile_core.convert import structure
from polytile_core.errors import InputError
from polytile_core.host.registry import Host, Registration

HOST = Host()
SOURCE = "pipeline.toml"


def with_options() -> list[tuple[str, Registration]]:
    """(its table's name, registration) of everything installed that takes options."""
    return [
        (registration.plugin if capability == "renderers" else registration.name, registration)
        for capability, registrations in HOST.registry.items()
        for registration in registrations.values()
        if registration.options is not None
    ]


def wrong_values(field: attrs.Attribute, hint: Any) -> Iterator[tuple[Any, bool]]:
    """(value, whether it must be refused): past the field's declared bounds or of the
    wrong type (refused), and 0 and -1 for a number, which a check may refuse without
    declaring it."""
    schema = field.metadata.get("json_schema", {})
    if "minimum" in schema:
        yield schema["minimum"] - 1, True
    if "maximum" in schema:
        yield schema["maximum"] + 1, True
    if {int, float} & ({hint} | set(typing.get_args(hint))):
        yield 0, False
        yield -1, False
    if typing.get_origin(hint) is Literal:
        yield "no such choice", True
    elif typing.get_origin(hint) is dict:
        yield {"no_such_parameter": 1}, False
        yield "not a table", True
    else:
        yield {"not": "a value"}, True


def cases() -> Iterator[Any]:
    for table, registration in with_options():
        hints = typing.get_type_hints(registration.options)
        for field in attrs.fields(registration.options):
            for value, refused in wrong_values(field, hints[field.name]):
                case = f"{registration.name}.{field.name}={value!r}"
                yield pytest.param(table, registration.options, field.name, value, refused, id=case)


def test_every_plugin_with_options_is_covered():
    """The plugins of this repository that take options are all installed and reached."""
    tables = {table for table, _ in with_options()}
    assert {
        "exactcover",
        "scip",
        "cpsat",
        "milp",
        "first-cell",
        "tree",
        "checkerboard",
        "colours",
        "enclose",
        "render",
    } <= tables


@pytest.mark.parametrize(("table", "options", "key", "value", "refused"), list(cases()))
def test_a_wrong_option_names_its_key_once(table, options, key, value, refused):
    data = {"region": {"width": 2, "height": 1}, "pieces": [{"shape": ["#"]}], "options": {table: {key: value}}}
    pipeline = structure(data, Pipeline, source=SOURCE)
    try:
        structure(pipeline.options[table], options, path=f"options.{table}", source=SOURCE)
    except InputError as exc:
        line = str(exc)
    else:
        assert not refused, f"options.{table}.{key} = {value!r} was accepted"
        return  # a value the field may take (0 where 0 is allowed): nothing to name
    # The key set, or the one it needs beside it (width without height).
    named = [f"{SOURCE}: options.{table}.{field.name}" for field in attrs.fields(options)]
    where = next((start for start in named if line.startswith(start) and line[len(start)] in ":.["), None)
    assert where is not None, line
    assert line.count("options.") == 1 and f"{table}.{key}" not in line[len(where) :], line
