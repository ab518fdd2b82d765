"""``polytile pieces N``: how many n-ominoes there are, and what they look like (as text,
or with ``-o`` as a picture file).

The pieces come from the installed ``n-ominoes`` family (the ``polytile-generate``
plugin).  A family may offer ``count(n, kind)`` besides ``make``; ``--count-only``
uses it so large n are counted without building every shape.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Iterator, Sequence

from polytile_core.cli.commands import Subcommands
from polytile_core.cli.commands.render import prepare_renderer
from polytile_core.cli.stdout import is_stdout
from polytile_core.errors import InputError
from polytile_core.host.registry import Host
from polytile_core.model.geometry import Cells, rows_from_cells
from polytile_core.output.gallery import shelf_solution, solutions_result

FAMILY = "n-ominoes"
GAP = 3


def add(subparsers: Subcommands) -> None:
    command = subparsers.add_parser("pieces", help="count and draw every polyomino of N cells")
    command.add_argument("n", metavar="N", help="the number of cells of each piece")
    command.add_argument(
        "--kind", choices=("free", "one-sided", "fixed"), default="free", help="which orientations count as one piece"
    )
    command.add_argument("--count-only", action="store_true", help="print the count, draw nothing (for large N)")
    command.add_argument(
        "-o", "--output", metavar="FILE", help="also draw the pieces as a picture: .svg, .png or .txt; '-' = stdout"
    )
    command.add_argument("--format", help="the picture's render format (default: the extension)")
    command.add_argument("--force", action="store_true", help="replace the picture if it exists")
    command.set_defaults(func=show_pieces)


def _size(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError(f"expected a whole number of cells, 1 or more; got {text!r}", path="N") from None


def show_pieces(arguments: argparse.Namespace, host: Host) -> int:
    n = _size(arguments.n)
    make = host.get("families", FAMILY).provides
    picture = None
    if arguments.output:  # checked before the pieces are made
        picture = prepare_renderer(host, arguments.output, force=arguments.force, fmt=arguments.format)
    try:
        if arguments.count_only:
            print(make.count(n, arguments.kind) if hasattr(make, "count") else len(make(n=n, kind=arguments.kind)))
            return 0
        pieces = make(n=n, kind=arguments.kind)
    except ValueError as exc:
        raise InputError(str(exc), path="N") from None
    report = sys.stderr if is_stdout(arguments.output) else sys.stdout
    print(f"{len(pieces)} {arguments.kind} {n}-omino{'es' * (len(pieces) != 1)}", file=report)
    if picture is not None:
        picture.draw(solutions_result([shelf_solution(pieces)]))
        if not is_stdout(arguments.output):
            print(f"drawn in {arguments.output}")
        return 0
    for line in drawing(pieces, shutil.get_terminal_size().columns):
        print(line)
    return 0


def drawing(pieces: Sequence[tuple[str, Cells]], columns: int = 80) -> Iterator[str]:
    """The lines of the pieces' ASCII pictures, each under its name, side by side as
    far as ``columns`` allows, a blank line between rows of pictures."""
    shelf: list[list[str]] = []
    used = 0
    for name, cells in pieces:
        picture = [name] + rows_from_cells(cells)
        width = max(map(len, picture))
        if shelf and used + width > columns:
            yield from _side_by_side(shelf)
            yield ""
            shelf, used = [], 0
        shelf.append([row.ljust(width) for row in picture])
        used += width + GAP
    if shelf:
        yield from _side_by_side(shelf)


def _side_by_side(pictures: list[list[str]]) -> list[str]:
    height = max(map(len, pictures))
    padded = [picture + [" " * len(picture[0])] * (height - len(picture)) for picture in pictures]
    return [(" " * GAP).join(rows).rstrip() for rows in zip(*padded, strict=True)]
