"""``polytile analyze``: how a split divides a problem, without solving anything."""

from __future__ import annotations

import argparse

import attrs

from polytile_core.cli.commands import Subcommands
from polytile_core.config.pipeline import make_plan, read_pipeline
from polytile_core.config.schema import SplitSpec
from polytile_core.errors import InputError
from polytile_core.host.registry import Host
from polytile_core.model.analysis import ANALYSE_AT_MOST, ModelSize, analyze_split
from polytile_core.model.parts import SplitTooLarge


def add(subparsers: Subcommands) -> None:
    command = subparsers.add_parser("analyze", help="show how a split divides a pipeline's problem (no solving)")
    command.add_argument("pipeline", help="the pipeline TOML file")
    command.add_argument(
        "--first", type=int, default=5, metavar="N", help="subproblems shown in full, with f (default 5)"
    )
    command.add_argument(
        "--scan",
        type=int,
        default=1000,
        metavar="N",
        help="subproblems looked at for removals and sizes (default 1000; all of them when there are fewer)",
    )
    command.add_argument("--method", help="split method (default: the file's [split], else checkerboard)")
    command.set_defaults(func=analyze)


def _size(size: ModelSize) -> str:
    free = "" if size.f is None else f", f = {size.f}"
    return f"m = {size.m}, n = {size.n}{free}"


def analyze(arguments: argparse.Namespace, host: Host) -> int:
    for flag in ("first", "scan"):
        if getattr(arguments, flag) < 0:
            raise InputError(f"--{flag} expects 0 or more, got {getattr(arguments, flag)}")
    try:
        pipeline = read_pipeline(arguments.pipeline)
        method = arguments.method or (pipeline.split.method if pipeline.split else "checkerboard")
        plan = make_plan(attrs.evolve(pipeline, split=SplitSpec(method=method)), host)
        if plan.problem != "tiling":
            raise InputError(f"a split applies to tiling problems, not {plan.problem!r}", path="problem")
        assert plan.split is not None  # make_plan registers the split the pipeline names
        bound = plan.tiling_problem().placements_at_most()
        if bound > ANALYSE_AT_MOST:
            print(f"{arguments.pipeline}: split {method!r}")
            print(
                f"too many to analyse: the model could have {bound:,} placements "
                f"(polytile analyze builds at most {ANALYSE_AT_MOST:,}); solving needs no analysis"
            )
            return 0
        original = plan.build()
        split = plan.split.provides.split(
            plan.tiling_problem(), original, plan.build, plan.split.options, jobs=plan.jobs
        )
    except SplitTooLarge as exc:
        print(f"{arguments.pipeline}: split {method!r}\ntoo many to analyse: {exc.message}")
        return 0
    except InputError as exc:
        raise exc.with_source(arguments.pipeline) from None
    analysis = analyze_split(split, original, first=arguments.first, scan=arguments.scan)
    print(f"{arguments.pipeline}: split {method!r}")
    for key, value in analysis.summary.items():
        print(f"  {key}: {value}")
    print(f"original: {_size(analysis.original)}")
    if analysis.impossible:
        print(f"subproblems: 0\n{analysis.impossible}")
    else:
        total = "unknown" if analysis.total is None else f"{analysis.total:,}"
        scanned_all = analysis.total is not None and analysis.scanned >= analysis.total
        whole = "all" if scanned_all else f"the first {analysis.scanned:,}"
        print(f"subproblems: {total}; removed before search: {analysis.removed:,} (of {whole})")
    print(f"classification: {analysis.classification}")
    for part in analysis.first:
        shown = _size(part.size) if part.size is not None else f"removed before search: {part.removed}"
        print(f"  {part.key}: {shown}")
    return 0
