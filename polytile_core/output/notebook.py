"""Pictures in notebooks: a Result, a Solution, a piece or a family draws itself.

Jupyter asks an object for ``_repr_svg_`` / ``_repr_html_``.  The picture comes from
whichever plugin registers the ``svg`` render format (the render plugin), found through
the plugin host like any other renderer; without one, the ASCII picture is shown as
HTML.  Only one of the two is given, so a saved notebook holds each picture once (with
the short text repr beside it).  The host sits above this room, so it hands down the
lookup (``use_svg_renderer``) when it is imported, as it is by every way of making a Result.
"""

from __future__ import annotations

import html
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs

from polytile_core.convert import structure
from polytile_core.model.geometry import Cells, normalise
from polytile_core.output.picture import ascii_picture
from polytile_core.output.results import Found, PlacedPiece, Result, Solution, Termination, draw_with

# Most solutions a gallery draws unless asked for more.
GALLERY_LIMIT = 12
# Pieces side by side on one shelf of a family's picture.
SHELF = 6


def _no_svg_renderer() -> Any:
    return None


# Returns the installed svg renderer's registration (``provides``, ``options``), or None.
_find_svg_renderer: Callable[[], Any] = _no_svg_renderer


def use_svg_renderer(find: Callable[[], Any]) -> None:
    """Set how pictures find the svg renderer (the host does, when it is imported)."""
    global _find_svg_renderer
    _find_svg_renderer = find


def svg_of(result: Result, **options) -> str | None:
    """The SVG picture of a result (a gallery for several solutions), or None without an svg renderer."""
    registration = _find_svg_renderer()
    if registration is None:
        return None
    chosen = structure(options, registration.options, path="render options") if registration.options else None
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "picture.svg"
        registration.provides(result, path, chosen)
        return path.read_text(encoding="utf-8")


def text_of(result: Result, limit: int = GALLERY_LIMIT) -> str:
    """ASCII pictures of the first ``limit`` solutions (or of the bare region)."""
    if not result.solutions:
        return ascii_picture(Solution(()), result.region)
    pictures = [ascii_picture(solution, result.region) for solution in result.solutions[:limit]]
    if len(result.solutions) > limit:
        pictures.append(f"({limit} of {len(result.solutions):,} solutions shown)")
    return "\n\n".join(pictures)


def html_of(result: Result, **options) -> str | None:
    """The ASCII picture as HTML when there is no svg renderer; None when there is one
    (the SVG is the picture then, and a notebook should not store it twice)."""
    if _find_svg_renderer() is not None:
        return None
    return f"<pre>{html.escape(text_of(result, options.get('limit', GALLERY_LIMIT)))}</pre>"


def solutions_result(solutions: Sequence[Solution], region: Iterable[tuple[int, int]] = ()) -> Result:
    """Solutions wrapped as a Result, the one thing renderers draw."""
    return Result(
        termination=Termination.COMPLETED,
        found=Found.FEASIBLE if solutions else Found.NONE,
        mode="all",
        backend="",
        count=len(solutions),
        solutions=tuple(solutions),
        region=tuple(region),
    )


def shelf_solution(shapes: Sequence[tuple[str, Cells]]) -> Solution:
    """Pieces laid out side by side, a blank column between them, ``SHELF`` to a row."""
    placed, left, top, row_height = [], 0, 0, 0
    for index, (name, cells) in enumerate(shapes):
        if index and index % SHELF == 0:
            left, top, row_height = 0, top + row_height + 1, 0
        cells = normalise(cells)
        placed.append(PlacedPiece(name, tuple((x + left, y + top) for x, y in cells)))
        left += max(x for x, _ in cells) + 2
        row_height = max(row_height, max(y for _, y in cells) + 1)
    return Solution(tuple(placed))


@attrs.frozen
class Gallery:
    """Several solutions drawn side by side, at most ``limit`` of them (the rest counted)."""

    result: Result
    limit: int = GALLERY_LIMIT
    columns: int = 4

    def _options(self) -> dict:
        return {"limit": self.limit, "columns": self.columns}

    def _repr_svg_(self) -> str | None:
        return svg_of(self.result, **self._options())

    def _repr_html_(self) -> str | None:
        return html_of(self.result, **self._options())

    def __repr__(self) -> str:
        return text_of(self.result, self.limit)


def gallery(solutions: Result | Sequence[Solution], *, limit: int = GALLERY_LIMIT, columns: int = 4) -> Gallery:
    """A gallery of a result's solutions (or of a list of solutions), for a notebook."""
    result = solutions if isinstance(solutions, Result) else solutions_result(list(solutions))
    return Gallery(result, limit, columns)


draw_with(svg=svg_of, html=html_of)
