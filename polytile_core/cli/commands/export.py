"""``polytile export``: write the model of a pipeline file as a CPLEX LP or an MPS file,
for any other solver."""

from __future__ import annotations

import argparse
from pathlib import Path

from polytile_core.cli.commands import Subcommands
from polytile_core.cli.stdout import is_stdout, write_stdout
from polytile_core.config.pipeline import load_plan
from polytile_core.errors import InputError
from polytile_core.host.registry import Host
from polytile_core.model.zero_one import Model
from polytile_core.output.export import FORMATS, Format, export_model, model_text


def add(subparsers: Subcommands) -> None:
    command = subparsers.add_parser(
        "export", help="write a pipeline's model (whole, unsplit) as an LP or MPS file for another solver"
    )
    command.add_argument("pipeline", help="the pipeline TOML file")
    command.add_argument("--format", choices=FORMATS, help="lp (CPLEX LP) or mps; default: from the file's extension")
    command.add_argument("-o", "--output", metavar="FILE", required=True, help="the file to write; '-' = stdout")
    command.add_argument("--force", action="store_true", help="replace the output file if it exists")
    command.set_defaults(func=export)


def export(arguments: argparse.Namespace, host: Host) -> int:
    if is_stdout(arguments.output):
        if arguments.format is None:
            raise InputError("-o - (stdout) has no extension to tell the format; pass --format lp or mps")
        write_stdout(model_text(build_model(arguments.pipeline, host), arguments.format))
        return 0
    path = export_pipeline(arguments.pipeline, arguments.output, arguments.format, replace=arguments.force, host=host)
    print(f"wrote {path}")
    return 0


def export_pipeline(
    pipeline: str | Path,
    path: str | Path,
    fmt: Format | None = None,
    *,
    replace: bool = False,
    host: Host | None = None,
) -> Path:
    """Build the (unsplit) model of a pipeline file and write it as LP or MPS."""
    return export_model(build_model(pipeline, host or Host()), path, fmt, replace=replace)


def build_model(pipeline: str | Path, host: Host) -> Model:
    plan = load_plan(pipeline, host)
    try:
        return plan.build()
    except InputError as exc:
        raise exc.with_source(str(pipeline)) from None
