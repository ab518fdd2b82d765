"""``polytile validate``: check a pipeline file without solving it."""

from __future__ import annotations

from polytile_core.config.pipeline import load_plan
from polytile_core.errors import InputError
from polytile_core.host.registry import Host


def add(subparsers):
    command = subparsers.add_parser("validate", help="check a pipeline file and report the model size")
    command.add_argument("pipeline", help="the pipeline TOML file")
    command.set_defaults(func=validate)


def validate(arguments) -> int:
    plan = load_plan(arguments.pipeline, Host(autoload=not arguments.no_autoload))
    try:
        model = plan.build()
    except InputError as exc:
        raise exc.with_source(arguments.pipeline) from None
    pieces = len(plan.pieces)
    region = ""
    if plan.region is not None:
        parts = len(plan.region.components())
        region = f", a region of {plan.region.area} cells" + (f" in {parts} separate parts" if parts > 1 else "")
    print(
        f"{arguments.pipeline}: ok — {plan.problem}, {pieces} piece type{'s' * (pieces != 1)}{region}, "
        f"{model.num_variables} variables, {len(model.constraints)} constraints"
    )
    return 0
