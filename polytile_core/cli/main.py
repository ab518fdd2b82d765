"""The ``polytile`` command.  Each subcommand lives in ``polytile_core/cli/commands/<name>.py``
with an ``add(subparsers)`` function; bad input ends in one line and exit code 2.

The plugins are loaded (into one ``Host``, handed to the command) before the command line
is read, because plugins add flags to it (``polytile_register_flags``); only
``--no-autoload`` is read first, since it says which plugins to load.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
import time
from types import FrameType

from polytile_core import __version__
from polytile_core.cli.flags import add_plugin_flags
from polytile_core.errors import InputError
from polytile_core.host.registry import Host

COMMANDS = ("solve", "validate", "plugins", "schema", "render", "pieces", "export", "analyze")

EXIT_INPUT_ERROR = 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a killed writer
EXIT_INTERRUPTED = 130  # the shell's code for a SIGINT death; SIGTERM ends the same way


def parser(host: Host) -> argparse.ArgumentParser:
    """The whole command line: the core's subcommands, with the flags ``host``'s plugins add."""
    main_parser = argparse.ArgumentParser(prog="polytile", description="Tile, count and enclose with polyominoes.")
    _program_flags(main_parser)
    subparsers = main_parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"polytile_core.cli.commands.{name}").add(subparsers)
        add_plugin_flags(subparsers.choices[name], host, command=name)
    return main_parser


def _program_flags(program: argparse.ArgumentParser) -> None:
    program.add_argument(
        "--no-autoload", action="store_true", help="load only the built-in plugins, not installed ones"
    )
    program.add_argument("--version", action="version", version=f"polytile {__version__}")


def autoload(argv: list[str] | None) -> bool:
    """Whether to load the installed plugins (no ``--no-autoload``), read before the rest;
    ``--version`` is answered here, so that a plugin that fails to load cannot hide it."""
    early = argparse.ArgumentParser(prog="polytile", add_help=False)
    _program_flags(early)
    known, _ = early.parse_known_args(argv)
    return not known.no_autoload


def _terminate_like_ctrl_c(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (``kill``, ``timeout``, a batch system) does what Ctrl-C does: the search
    stops and what it found is written, marked ``interrupted``; a second one abandons."""
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signum, frame)


def process_started() -> float:
    """When this process started, on ``time.monotonic()``'s clock, so that a time limit
    covers the interpreter's start and the imports too (Linux: ``/proc/self/stat``'s
    start time); where that cannot be read, now."""
    now = time.monotonic()
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            ticks = int(stat.read().rsplit(")", 1)[1].split()[19])  # field 22, after the name
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - min(max(age, 0.0), now)


def main(argv: list[str] | None = None) -> int:
    started = process_started()  # a solve's time limit counts from here (``run(started=)``)
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate_like_ctrl_c) if in_main_thread else None
    try:
        return _main(argv, started)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main(argv: list[str] | None, started: float) -> int:
    try:
        host = Host(autoload=autoload(argv))
        arguments = parser(host).parse_args(argv)
        arguments.started = started
        code: int = arguments.func(arguments, host)
        return code
    except InputError as exc:
        print(f"polytile: error: {exc}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except KeyboardInterrupt:
        # Ctrl-C (or SIGTERM) while loading plugins or building the model; during the
        # search itself run() catches it and the result is written, marked interrupted.
        print("polytile: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`polytile ... | head`): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
