"""JSON Schemas generated from the attrs classes, so the schema can never drift from
the code: ``polytile schema pipeline|result`` prints them, ``schemas/`` holds copies
and a test keeps those fresh.

Besides the types, a schema holds the constraints the loader checks that JSON Schema
can say: a field's bounds (``doc(..., minimum=1)``), the keys a table needs, and which
keys go together (``RULES``: the forms of a region and of a piece's multiplicity).  An
editor then flags what ``polytile validate`` would refuse.  Descriptions are plain text.
"""

from __future__ import annotations

import enum
import inspect
import re
import types
import typing

import attrs

from polytile_core.config.schema import PieceSpec, Pipeline, RegionSpec
from polytile_core.host.registry import Host
from polytile_core.output.reading import StoredSolution
from polytile_core.output.resultfile import RunHeader
from polytile_core.output.results import Result

DIALECT = "https://json-schema.org/draft/2020-12/schema"
# Names, not addresses: the files live in schemas/ (examples point there with #:schema).
SCHEMA_IDS = {
    "pipeline": "urn:polytile:schema:pipeline",
    "result": "urn:polytile:schema:result",
    "result-lines": "urn:polytile:schema:result-lines",
}
_SCALARS = {int: "integer", float: "number", str: "string", bool: "boolean"}


def _has(*keys: str) -> dict:
    return {"required": list(keys)}


def _none_of(*keys: str) -> dict:
    return {"not": {"anyOf": [_has(key) for key in keys]}}


_UNLIMITED = {"properties": {"unlimited": {"const": True}}, "required": ["unlimited"]}
_NOT_UNLIMITED = {"not": _UNLIMITED}

# Rules between the keys of a table, as polytile_core.config.pipeline enforces them.
RULES: dict[type, dict] = {
    Pipeline: {
        "required": ["pieces"],
        # A tiling (the default problem) needs its region.
        "if": {"properties": {"problem": {"const": "tiling"}}},
        "then": {"required": ["region"]},
    },
    RegionSpec: {
        "oneOf": [
            {"description": "ASCII rows", **_has("rows"), **_none_of("width", "height")},
            {"description": "a width x height rectangle", **_has("width", "height"), **_none_of("rows")},
        ]
    },
    PieceSpec: {
        "allOf": [
            {
                "description": "the piece's cells: exactly one of shape, cells or family",
                "oneOf": [_has("shape"), _has("cells"), _has("family")],
            },
            {
                "description": "the multiplicity: count; or min and/or max; or unlimited = true; or none (once)",
                "oneOf": [
                    {**_has("count"), "allOf": [_none_of("min", "max"), _NOT_UNLIMITED]},
                    {"anyOf": [_has("min"), _has("max")], "allOf": [_none_of("count"), _NOT_UNLIMITED]},
                    {**_UNLIMITED, **_none_of("count", "min", "max")},
                    {"allOf": [_none_of("count", "min", "max"), _NOT_UNLIMITED]},
                ],
            },
            {"description": "a family names its own pieces", "if": _has("family"), "then": _none_of("name")},
            {"description": "n belongs to a family", "if": _has("n"), "then": _has("family")},
        ]
    },
}


def plain(text: str) -> str:
    """A docstring's reStructuredText as plain text: ``code`` and `code` lose their
    marks, lines join into one."""
    text = re.sub(r":\w+:`([^`]*)`", r"\1", text)
    text = re.sub(r"`{1,2}([^`]*)`{1,2}", r"\1", text)
    return " ".join(text.split())


def _constrained(schema: dict, constraints: dict) -> dict:
    """``schema`` with the field's constraints; ``items`` constraints join the items' type."""
    merged = dict(schema)
    for key, value in constraints.items():
        merged[key] = {**merged[key], **value} if isinstance(value, dict) and key in merged else value
    return merged


def type_schema(kind: typing.Any, *, nullable: bool) -> dict:
    """The JSON Schema of one Python type (``nullable``: may ``None`` appear as null)."""
    origin, arguments = typing.get_origin(kind), typing.get_args(kind)
    if kind in _SCALARS:
        return {"type": _SCALARS[kind]}
    if origin in (typing.Union, types.UnionType):
        options = [argument for argument in arguments if argument is not type(None)]
        schemas = [type_schema(option, nullable=nullable) for option in options]
        if nullable and len(options) < len(arguments):
            schemas.append({"type": "null"})
        return schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
    if origin is typing.Literal:
        return {"enum": list(arguments)}
    if inspect.isclass(kind) and issubclass(kind, enum.Enum):
        return {"enum": [member.value for member in kind]}
    if origin in (list, tuple, frozenset, set):
        if origin is tuple and arguments and arguments[-1] is not Ellipsis:
            items = [type_schema(argument, nullable=nullable) for argument in arguments]
            return {"type": "array", "prefixItems": items, "minItems": len(items), "maxItems": len(items)}
        return (
            {"type": "array", "items": type_schema(arguments[0], nullable=nullable)} if arguments else {"type": "array"}
        )
    if kind is dict or origin is dict:
        value = arguments[1] if arguments else typing.Any
        if value is typing.Any:
            return {"type": "object"}
        return {"type": "object", "additionalProperties": type_schema(value, nullable=nullable)}
    if attrs.has(kind):
        return class_schema(kind, nullable=nullable)
    return {}


def class_schema(cls: type, *, nullable: bool) -> dict:
    """An attrs class as a closed JSON object: unknown keys are errors, as in the loader."""
    hints = typing.get_type_hints(cls)
    properties, required = {}, []
    for field in attrs.fields(cls):
        schema = _constrained(type_schema(hints[field.name], nullable=nullable), field.metadata.get("json_schema", {}))
        if "description" in field.metadata:
            schema = {**schema, "description": plain(field.metadata["description"])}
        properties[field.name] = schema
        if field.default is attrs.NOTHING:
            required.append(field.name)
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if cls.__doc__:
        schema = {"description": plain(inspect.cleandoc(cls.__doc__).split("\n\n")[0]), **schema}
    if required:
        schema["required"] = required
    for key, rule in RULES.get(cls, {}).items():
        schema[key] = sorted({*schema.get(key, []), *rule}) if key == "required" else rule
    return schema


def pipeline_schema(host: Host) -> dict:
    """The pipeline file's schema, with each installed plugin's ``[options.<name>]`` table."""
    schema = class_schema(Pipeline, nullable=False)
    plugin_options = {}
    for capability in host.registry.values():
        for registration in capability.values():
            if registration.options is not None:
                plugin_options[registration.name] = {
                    "description": plain(registration.help),
                    **class_schema(registration.options, nullable=False),
                }
    schema["properties"]["options"] = {
        **schema["properties"]["options"],
        "type": "object",
        "properties": dict(sorted(plugin_options.items())),
        "additionalProperties": False,
    }
    return {"$schema": DIALECT, "$id": SCHEMA_IDS["pipeline"], "title": "polytile pipeline", **schema}


def _result_properties() -> dict:
    """The Result's fields as a file holds them: solutions compact, the gap computed."""
    schema = class_schema(Result, nullable=True)
    schema["properties"]["solutions"] = {
        "description": schema["properties"]["solutions"]["description"],
        "type": "array",
        "items": class_schema(StoredSolution, nullable=True),
    }
    schema["properties"]["gap"] = {
        "description": "relative gap between objective and bound",
        "anyOf": [{"type": "number"}, {"type": "null"}],
    }
    return schema


def result_schema() -> dict:
    return {"$schema": DIALECT, "$id": SCHEMA_IDS["result"], "title": "polytile result", **_result_properties()}


def _tagged(schema: dict, tag: str, description: str) -> dict:
    """An object schema with a required ``"line": tag`` key."""
    line = {"const": tag, "description": description}
    return {
        **schema,
        "properties": {"line": line, **schema["properties"]},
        "required": ["line", *[key for key in schema.get("required", []) if key != "line"]],
    }


def result_lines_schema() -> dict:
    """One line of a .jsonl result file: the header, a solution, or the closing line."""
    closing = _result_properties()
    del closing["properties"]["solutions"]
    closing["properties"]["solutions_written"] = {"type": "integer", "description": "solution lines above this one"}
    closing["required"] = [*closing["required"], "solutions_written"]
    closing["description"] = "The last line: the Result without its solutions (they are the lines above)."
    return {
        "$schema": DIALECT,
        "$id": SCHEMA_IDS["result-lines"],
        "title": "polytile result lines",
        "description": "A line of a .jsonl result file: the header first, a line per solution, the closing line last.",
        "oneOf": [
            _tagged(class_schema(RunHeader, nullable=True), "header", "the first line"),
            _tagged(class_schema(StoredSolution, nullable=True), "solution", "one solution, as it was found"),
            _tagged(closing, "end", "the last line"),
        ],
    }
