"""``polytile schema pipeline|result``: print a JSON Schema."""

from __future__ import annotations

import json

from polytile_core.config.schemagen import pipeline_schema, result_lines_schema, result_schema
from polytile_core.host.registry import Host


def add(subparsers):
    command = subparsers.add_parser("schema", help="print the JSON Schema of pipeline or result files")
    command.add_argument(
        "which", choices=("pipeline", "result", "result-lines"), help="result-lines: a line of a .jsonl file"
    )
    command.set_defaults(func=show_schema)


def show_schema(arguments) -> int:
    if arguments.which == "pipeline":
        schema = pipeline_schema(Host(autoload=not arguments.no_autoload))
    elif arguments.which == "result":
        schema = result_schema()
    else:
        schema = result_lines_schema()
    print(json.dumps(schema, indent=2))
    return 0
