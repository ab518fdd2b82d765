"""``polytile render``: draw a result file as a picture (svg, png, txt: any renderer plugin).

The picture's format comes from the output file's extension.  Everything that can fail
(unknown format, bad option, existing file) is checked before drawing, and before
solving when ``polytile solve --render`` uses the same checks.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import attrs

from polytile_core.cli.commands import Subcommands
from polytile_core.cli.flags import given_flags
from polytile_core.cli.stdout import is_stdout, write_stdout
from polytile_core.convert import structure
from polytile_core.errors import InputError
from polytile_core.host.contracts import Renderer
from polytile_core.host.registry import Host
from polytile_core.output.drawable import check_drawable
from polytile_core.output.reading import read_result
from polytile_core.output.resultfile import refuse_existing
from polytile_core.output.results import Result


def add(subparsers: Subcommands) -> None:
    command = subparsers.add_parser("render", help="draw a result file as a picture (svg, png, txt)")
    command.add_argument("result", help="a result file written by `polytile solve -o` (.json, .toml or .jsonl)")
    command.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="the picture; its extension picks the format; '-' = stdout",
    )
    command.add_argument("--format", help="the render format (default: the extension; see `polytile plugins`)")
    command.add_argument("--force", action="store_true", help="replace the picture if it exists")
    # The renderer's options as flags (--cell-size ...) come from the plugins: cli/flags.py.
    command.set_defaults(func=render)


@attrs.frozen
class Drawing:
    """A picture checked and ready to draw: ``draw(result)`` writes it.  ``keep`` is how
    many solutions it shows (the renderer's ``limit`` option, None for all), so that a
    large result file need not be read whole."""

    draw: Callable[[Result], None]
    keep: int | None


def prepare_renderer(
    host: Host,
    path: str,
    *,
    tables: dict[str, dict] | None = None,
    flags: dict | None = None,
    force: bool = False,
    fmt: str | None = None,
) -> Drawing:
    """Check the picture's format, options and file name now; return what draws it later.

    The renderer's options are the pipeline's table named after its plugin
    (``[options.render]`` for svg and png) from ``tables``, with ``flags`` on top.
    """
    picture = Path(path)
    fmt = (fmt or picture.suffix.lstrip(".")).lower()
    if not fmt:
        raise InputError("the picture needs an extension (.svg, .png, .txt) or --format", source=str(picture))
    registration = host.get("renderers", fmt)
    option_path = f"options.{registration.plugin}"
    table = {**(tables or {}).get(registration.plugin, {}), **(flags or {})}
    options: object = None
    if registration.options is None:
        if table:
            raise InputError(f"render format {fmt!r} takes no options (got {', '.join(table)})")
    else:
        options = structure(table or {}, registration.options, path=option_path)
    if is_stdout(path):
        return Drawing(_to_stdout(registration.provides, options, fmt), getattr(options, "limit", None))
    refuse_existing(picture, replace=force)
    if not picture.absolute().parent.is_dir():
        raise InputError("no such directory", source=str(picture.parent))

    def draw(result: Result) -> None:
        # Drawn beside the target, then renamed: a failed or interrupted drawing leaves no half picture.
        temporary = picture.with_name(f".{picture.stem}.{os.getpid()}.tmp{picture.suffix}")
        try:
            registration.provides(result, temporary, options)
            os.replace(temporary, picture)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise

    return Drawing(draw, getattr(options, "limit", None))


def _to_stdout(draw_file: Renderer, options: object, fmt: str) -> Callable[[Result], None]:
    """Draw into a temporary file (renderers write files), then copy it to stdout."""

    def draw(result: Result) -> None:
        with tempfile.TemporaryDirectory() as folder:
            picture = Path(folder) / f"picture.{fmt}"
            draw_file(result, picture, options)
            write_stdout(picture.read_bytes())

    return draw


def render(arguments: argparse.Namespace, host: Host) -> int:
    flags = {
        registration.provides.option: value for registration, value in given_flags(arguments, host, command="render")
    }
    drawing = prepare_renderer(host, arguments.output, flags=flags, force=arguments.force, fmt=arguments.format)
    result = read_result(arguments.result, keep=drawing.keep)
    check_drawable(result, source=arguments.result)
    try:
        drawing.draw(result)
    except InputError as exc:  # the picture too large for its options: name the picture
        raise exc.with_source(arguments.output) from None
    return 0
