"""``polytile solve``: run a pipeline file and report (and write) the result."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

import attrs

from polytile_core.cli.commands import Subcommands
from polytile_core.cli.commands.render import Drawing, prepare_renderer
from polytile_core.cli.flags import given_flags
from polytile_core.cli.progress import ProgressLine
from polytile_core.config.pipeline import Chosen, Plan, load_plan, read_pipeline
from polytile_core.errors import InputError
from polytile_core.host.capabilities import AUTO, model_features
from polytile_core.host.registry import Host, Registration
from polytile_core.output.picture import ascii_picture
from polytile_core.output.resultfile import (
    ResultJson,
    ResultLines,
    RunHeader,
    check_result_suffix,
    refuse_existing,
    remove_stale_temporaries,
    result_text,
    write_result,
)
from polytile_core.output.results import Result, Termination
from polytile_core.solve.checkpoint import Checkpoint
from polytile_core.solve.race import HEAD_START
from polytile_core.solve.route import choose
from polytile_core.solve.run import SMALL_MODEL, run

# A summary prints the first tiling as text up to this many cells a side (a terminal's
# width); a larger one is left to ``polytile render``.
LARGEST_PICTURE = 200
# Solutions a streamed run (-o FILE.jsonl) keeps in memory, for the summary and --render.
STREAMED_KEEP = 12

# A run that ends in an error (a part that failed) gives no complete answer: scripts must see it.
EXIT_CODES = {Termination.ERROR: 1, Termination.INTERRUPTED: 130}


def add(subparsers: Subcommands) -> None:
    command = subparsers.add_parser("solve", help="solve a pipeline file")
    command.add_argument("pipeline", help="the pipeline TOML file")
    command.add_argument("--mode", choices=("one", "all", "count"), help="find one, list all, or count")
    command.add_argument("--backend", help="backend plugin, or auto: polytile chooses (overrides solve.backend)")
    command.add_argument("--time-limit", type=float, metavar="S", help="seconds before giving up")
    command.add_argument("--distinct", action="store_true", help="also count solutions up to the region's symmetry")
    command.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="parts of a split, or routes of a race, at once (default: the usable cores with backend auto, else 1)",
    )
    command.add_argument(
        "--executor",
        help="executor plugin for the parts of a split (default auto: threads when the backend searches "
        "outside the GIL, else processes)",
    )
    command.add_argument(
        "--checkpoint", metavar="FILE", help="record each finished part of a split run in FILE (JSON lines)"
    )
    command.add_argument(
        "--resume", action="store_true", help="with --checkpoint: skip the parts FILE holds, count them in"
    )
    command.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the result as .json, .toml or .jsonl (streamed, a line per solution); '-' = JSON on stdout",
    )
    command.add_argument("--force", action="store_true", help="replace the output file if it exists")
    command.add_argument(
        "--render", metavar="FILE", help="also draw the result: .svg, .png or .txt (options: [options.render])"
    )
    command.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors (no progress line)")
    command.add_argument(
        "--explain", action="store_true", help="print the routes backend auto would take, and why, without solving"
    )
    command.set_defaults(func=solve)


def overrides(arguments: argparse.Namespace, host: Host) -> dict[str, object]:
    """The [solve] keys given on the command line.  A plugin's executor flag picks the
    plugin's executor, unless ``--executor`` names one."""
    given = {
        "mode": arguments.mode,
        "backend": arguments.backend,
        "time_limit": arguments.time_limit,
        "jobs": arguments.jobs,
        "executor": arguments.executor,
    }
    if arguments.distinct:
        given["distinct"] = True
    flags = given_flags(arguments, host, command="solve")
    if flags and not arguments.executor:
        plugin = flags[0][0].plugin
        owned = [name for name, executor in host.registry["executors"].items() if executor.plugin == plugin]
        if len(owned) == 1:
            given["executor"] = owned[0]
    return {key: value for key, value in given.items() if value is not None}


def with_flags(plan: Plan, flags: list[tuple[Registration, object]]) -> Plan:
    """The plugins' executor flags set their options of the executor the run uses
    (``--scheduler`` sets the dask executor's ``scheduler``)."""
    if not flags:
        return plan
    executor = plan.executor
    # An attrs instance when the executor has the options, checked below.
    options: Any = executor.options if isinstance(executor, Chosen) else None
    options_class = type(options)
    taken = attrs.fields_dict(options_class) if attrs.has(options_class) else {}
    for flag, _ in flags:
        if flag.provides.option not in taken:
            named = executor.name if isinstance(executor, Chosen) else AUTO
            raise InputError(f"the {named!r} executor takes no {flag.provides.option} option", path=flag.name)
    assert isinstance(executor, Chosen)
    given = {flag.provides.option: value for flag, value in flags}
    return attrs.evolve(plan, executor=attrs.evolve(executor, options=attrs.evolve(options, **given)))


def solve(arguments: argparse.Namespace, host: Host) -> int:
    plan = load_plan(arguments.pipeline, host, overrides(arguments, host))
    if arguments.explain:
        try:
            print(explain(plan))
        except InputError as exc:
            raise exc.with_source(arguments.pipeline) from None
        return 0
    plan = with_flags(plan, given_flags(arguments, host, command="solve"))
    if arguments.resume and not arguments.checkpoint:
        raise InputError("--resume needs --checkpoint FILE, the checkpoint to resume")
    refuse_shared_files(arguments)
    to_stdout = arguments.output == "-"
    report = sys.stderr if to_stdout else sys.stdout
    lines = None
    try:
        # The result file, and the picture's format, options and file, are checked now, not
        # after a long run, and before the checkpoint is started: a refusal creates nothing.
        if arguments.output and not to_stdout:
            check_result_suffix(arguments.output)
            refuse_existing(arguments.output, replace=arguments.force)
            for stale in remove_stale_temporaries(arguments.output):
                print(f"polytile: removed {stale}, left by an earlier run that was killed", file=sys.stderr)
        drawing = None
        if arguments.render:
            tables = read_pipeline(arguments.pipeline).options
            drawing = prepare_renderer(host, arguments.render, tables=tables, force=arguments.force)
        checkpoint = (
            Checkpoint.open(arguments.checkpoint, plan, resume=arguments.resume) if arguments.checkpoint else None
        )
        suffix = Path(arguments.output).suffix if arguments.output else None
        if suffix == ".jsonl" or (suffix == ".json" and plan.settings.mode == "all"):
            # Streamed: each solution goes to the file as it comes (a listing to .json waits
            # beside it as lines, ``ResultJson``); the run keeps only a few.
            streamed = ResultLines if suffix == ".jsonl" else ResultJson
            lines = streamed(arguments.output, header_of(plan), replace=arguments.force)
            if plan.keep is None:
                plan = attrs.evolve(plan, keep=STREAMED_KEEP)
        stop, abandon = threading.Event(), threading.Event()
        with ctrl_c_sets(stop, abandon):
            with ProgressLine(sys.stderr, enabled=not arguments.quiet) as progress:
                result = run(
                    plan,
                    on_progress=progress,
                    on_solution=lines.add if lines else None,
                    on_line=lines.add_lines if lines else None,
                    stop=stop,
                    abandon=abandon,
                    checkpoint=checkpoint,
                    started=arguments.started,
                )
            save(arguments, result, lines, drawing, report)
    except InputError as exc:
        if lines is not None:
            lines.discard()
        raise exc.with_source(arguments.pipeline) from None
    except BaseException:
        if lines is not None:
            lines.discard()
        raise
    return EXIT_CODES.get(result.termination, 0)


def refuse_shared_files(arguments: argparse.Namespace) -> None:
    """The pipeline, the result file, the picture and the checkpoint are four files: one
    written over another would lose it (``-o same.txt --render same.txt``)."""
    named: dict[Path, str] = {}
    for flag, name in (
        ("the pipeline", arguments.pipeline),
        ("-o", None if arguments.output == "-" else arguments.output),
        ("--render", arguments.render),
        ("--checkpoint", arguments.checkpoint),
    ):
        if name is None:
            continue
        same = named.setdefault(Path(name).resolve(), flag)
        if same != flag:
            raise InputError(f"{flag} names the same file as {same}; give each its own file", source=name)


def header_of(plan: Plan) -> RunHeader:
    """The first line of a .jsonl result file: the run's settings."""
    return RunHeader(
        line="header",
        problem=plan.problem,
        mode=plan.settings.mode,
        backend=plan.backend.name if plan.backend else AUTO,  # auto: the end line names the one that answered
        pieces=tuple(piece.name for piece in plan.pieces),
        time_limit=plan.settings.time_limit,
        distinct=plan.distinct,
        split=plan.split.name if plan.split else None,
        jobs=plan.jobs,
    )


def save(
    arguments: argparse.Namespace, result: Result, lines: ResultLines | None, drawing: Drawing | None, report: TextIO
) -> None:
    """Write the result file, the picture and the summary."""
    to_stdout = arguments.output == "-"
    saving = (arguments.output and not to_stdout) or drawing is not None
    if saving and result.termination.value == "interrupted" and not arguments.quiet:
        print("polytile: interrupted; saving what was found", file=sys.stderr, flush=True)
    if lines is not None:
        lines.finish(result)
    elif arguments.output and not to_stdout:
        write_result(result, arguments.output, replace=arguments.force)
    if to_stdout:
        sys.stdout.write(result_text(result))
    if drawing is not None:
        drawing.draw(result)
    if not arguments.quiet:
        print(summary(result), file=report)


@contextlib.contextmanager
def ctrl_c_sets(stop: threading.Event, abandon: threading.Event) -> Iterator[None]:
    """Ctrl-C sets ``stop`` (the search stops, what it found is saved); a second one sets
    ``abandon`` (the run stops waiting for the backend to stop).  Ctrl-C never raises
    here, so none can come between the end of the run and the saving of what it found."""

    def on_ctrl_c(signum: int, frame: FrameType | None) -> None:
        (abandon if stop.is_set() else stop).set()

    try:
        previous = signal.signal(signal.SIGINT, on_ctrl_c)
    except ValueError:  # not the main thread: an embedding program handles its own signals
        yield
        return
    try:
        yield
    finally:
        # Once stopped, the program only exits: a Ctrl-C in that last moment (after Python
        # has dropped its own handler) would kill it with the signal instead of exit 130.
        signal.signal(signal.SIGINT, signal.SIG_IGN if stop.is_set() else previous)


def _extent(region: tuple[tuple[int, int], ...]) -> tuple[int, int]:
    """(width, height) of a result's region."""
    if not region:
        return 0, 0
    xs, ys = [x for x, _ in region], [y for _, y in region]
    return max(xs) - min(xs) + 1, max(ys) - min(ys) + 1


def summary(result: Result) -> str:
    """What a person wants to see: the status, the count, the first picture."""
    found = result.found.value.replace("_", " ")
    lines = [f"status: {result.termination.value}, {found} ({result.backend}: {result.raw_status})"]
    route = result.details.get("route")
    if isinstance(route, dict) and "how" in route:
        lines.append(f"route: {route['name']} ({route['how']})")
    if result.message:
        lines.append(result.message)
    if result.count is not None:
        exact = "" if result.termination.value == "completed" else " (so far: the run did not complete)"
        lines.append(f"solutions: {result.count}{exact}")
    if result.details.get("parts_from_checkpoint"):
        lines.append(f"parts taken from the checkpoint: {result.details['parts_from_checkpoint']}")
    if result.distinct_count is not None:
        lines.append(f"distinct up to the region's symmetry: {result.distinct_count}")
    if result.objective is not None:
        bound = f", bound {result.bound:g}" if result.bound is not None else ""
        lines.append(f"objective: {result.objective}{bound}")
    if result.solutions:
        width, height = _extent(result.region)
        if width <= LARGEST_PICTURE and height <= LARGEST_PICTURE:
            lines.append(ascii_picture(result.solutions[0], result.region))
        else:
            lines.append(
                f"(the {width}×{height} picture is not printed here: polytile render draws it from the result file)"
            )
    lines.append(f"time: {result.seconds:.2f} s")
    return "\n".join(lines)


def explain(plan: Plan) -> str:
    """The routes ``backend = "auto"`` would take for ``plan``, best first, and why."""
    if plan.candidates is None or plan.backend is not None:
        named = plan.backend.name if plan.backend else "?"
        with_split = f" with the {plan.split.name} split" if plan.split else ""
        return f"backend {named}{with_split} ({plan.backend_why}); auto chooses nothing"
    started = time.perf_counter()
    model = plan.build()
    built = time.perf_counter() - started
    features = model_features(model)
    routing = choose(plan, features, large_model=built > SMALL_MODEL)
    mode = plan.settings.mode
    described = ", ".join(sorted(features)) or "a plain exact cover"
    lines = [
        f"mode {mode}; the model has {model.num_variables} variables, {len(model.constraints)} rows: {described}; "
        f"built in {built:.2f} s"
    ]
    if routing.race:
        best, width = routing.routes[0].name, len(routing.routes)
        if built > SMALL_MODEL:
            lines.append(f"no head start (the model took over {SMALL_MODEL:g} s to build): each racer builds it again,")
        else:
            lines.append(f"first {best} in this process for {HEAD_START:g} s,")
        lines.append(f"then a race of {width} routes in processes ({plan.jobs} jobs); the first answer wins:")
    else:
        lines.append("the route:")
    lines += [f"  {number}. {route.name}: {route.why}" for number, route in enumerate(routing.routes, 1)]
    raced = {route.split.name for route in routing.routes if route.split is not None}
    for certificate in routing.certificates:
        where = "as a route" if certificate.name in raced else "here, while the racers start"
        lines.append(f"  and the impossibility certificate of {certificate.name} ({where}): a proof without search")
    if routing.passed_over:
        lines.append("passed over:")
        lines += [f"  {reason}" for reason in routing.passed_over]
    return "\n".join(lines)
