"""``polytile schema pipeline|result``: print a JSON Schema."""

from __future__ import annotations

import argparse
import json

from polytile_core.cli.commands import Subcommands
from polytile_core.config.schemagen import pipeline_schema, result_lines_schema, result_schema
from polytile_core.host.registry import Host


def add(subparsers: Subcommands) -> None:
    command = subparsers.add_parser("schema", help="print the JSON Schema of pipeline or result files")
    command.add_argument(
        "which", choices=("pipeline", "result", "result-lines"), help="result-lines: a line of a .jsonl file"
    )
    command.set_defaults(func=show_schema)


def show_schema(arguments: argparse.Namespace, host: Host) -> int:
    if arguments.which == "pipeline":
        schema = pipeline_schema(host)
    elif arguments.which == "result":
        schema = result_schema()
    else:
        schema = result_lines_schema()
    print(json.dumps(schema, indent=2))
    return 0
