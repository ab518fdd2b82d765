"""``polytile validate``: check pipeline files without solving them, and report what a
run would prove without any search: the area count, and the certificates of the
installed splits that offer one (the checkerboard's parity and colour counts)."""

from __future__ import annotations

import argparse
import sys

from polytile_core.cli.commands import Subcommands
from polytile_core.cli.main import EXIT_INPUT_ERROR
from polytile_core.config.pipeline import Plan, load_plan
from polytile_core.convert import structure
from polytile_core.errors import InputError
from polytile_core.host.registry import Host, Registration
from polytile_core.model.zero_one import Model


def add(subparsers: Subcommands) -> None:
    command = subparsers.add_parser(
        "validate", help="check pipeline files, report the model size and what is proved without search"
    )
    command.add_argument("pipelines", nargs="+", metavar="PIPELINE", help="pipeline TOML files")
    command.set_defaults(func=validate)


def validate(arguments: argparse.Namespace, host: Host) -> int:
    """Every file is checked; a bad one gets its one-line error and the others go on."""
    failed = False
    for pipeline in arguments.pipelines:
        try:
            print(report(pipeline, host))
        except InputError as exc:
            print(f"polytile: error: {exc.with_source(pipeline)}", file=sys.stderr)
            failed = True
    return EXIT_INPUT_ERROR if failed else 0


def report(pipeline: str, host: Host) -> str:
    plan = load_plan(pipeline, host)
    try:
        model = plan.build()
        proofs = without_search(plan, model, host)
    except InputError as exc:
        raise exc.with_source(pipeline) from None
    pieces = len(plan.pieces)
    region = ""
    if plan.region is not None:
        parts = len(plan.region.components())
        region = f", a region of {plan.region.area} cells" + (f" in {parts} separate parts" if parts > 1 else "")
    lines = [
        f"{pipeline}: ok — {plan.problem}, {pieces} piece type{'s' * (pieces != 1)}{region}, "
        f"{model.num_variables} variables, {len(model.constraints)} constraints"
    ]
    return "\n".join(lines + [f"  {line}" for line in proofs])


def without_search(plan: Plan, model: Model, host: Host) -> list[str]:
    """What a run of a tiling problem proves before it searches: the area check, then
    each certificate split's proof (or why it has none)."""
    if plan.problem != "tiling" or plan.region is None:
        return []
    problem = plan.tiling_problem()
    black = sum(1 for x, y in plan.region.cells if (x + y) % 2 == 0)
    colours = f"{black} black and {plan.region.area - black} white cells"
    reason = problem.area_problem()
    if reason is not None:
        return [f"no tiling: impossible by area: {reason} (the region has {colours})"]
    lines = [f"area: the pieces can cover the region's {plan.region.area} cells ({colours})"]
    for split in host.registry["decomposers"].values():
        if not split.capabilities.certificate:
            continue
        parts = split.provides.split(problem, model, plan.build, _options(plan, split), jobs=plan.jobs)
        if parts.impossible:
            lines.append(f"no tiling: {parts.impossible}")
        else:
            counted = "" if parts.total is None else f": {parts.total:,} part{'s' * (parts.total != 1)} to search"
            lines.append(f"{split.name}: no proof without search{counted}")
    return lines


def _options(plan: Plan, split: Registration) -> object:
    """The split's options as the run would give them."""
    if plan.split is not None and plan.split.registration is split:
        return plan.split.options
    candidate = plan.candidates.named(split.name) if plan.candidates is not None else None
    if candidate is not None:
        return candidate.options
    return structure({}, split.options) if split.options is not None else None
