"""Pictures in notebooks: what ``_repr_svg_`` / ``_repr_html_`` of a Result, a Solution,
a piece or a family return.

Jupyter asks an object for ``_repr_svg_`` / ``_repr_html_``; ``Result`` answers with
``svg_of`` and ``html_of`` below.  The picture comes from whichever plugin registers the
``svg`` render format (the render plugin); without one, the ASCII picture is shown as
HTML.  Only one of the two is given, so a saved notebook holds each picture once (with
the short text repr beside it).

Plugins are found by the host, a room above this one: the host hands its lookup down
with ``use_svg_renderer`` (``host/registry.py`` does, once, when it is imported).  This
is the one thing a higher room tells this one; without a host there is no svg renderer
and pictures are text.  This module knows Results only as values, so ``results.py``
can call it.
"""

from __future__ import annotations

import html
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from polytile_core.convert import structure
from polytile_core.output.picture import ascii_picture

if TYPE_CHECKING:  # results.py draws with this module: no import cycle at run time
    from polytile_core.output.results import Result

# Most solutions a gallery draws unless asked for more.
GALLERY_LIMIT = 12


def _no_svg_renderer() -> Any:
    return None


# Returns the installed svg renderer's registration (``provides``, ``options``), or None.
_find_svg_renderer: Callable[[], Any] = _no_svg_renderer


def use_svg_renderer(find: Callable[[], Any]) -> None:
    """Set how pictures find the svg renderer (the host does, when it is imported)."""
    global _find_svg_renderer
    _find_svg_renderer = find


def svg_of(result: Result, **options: object) -> str | None:
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
        return ascii_picture(None, result.region)
    pictures = [ascii_picture(solution, result.region) for solution in result.solutions[:limit]]
    if len(result.solutions) > limit:
        pictures.append(f"({limit} of {len(result.solutions):,} solutions shown)")
    return "\n\n".join(pictures)


def html_of(result: Result, *, limit: int = GALLERY_LIMIT) -> str | None:
    """The ASCII picture as HTML when there is no svg renderer; None when there is one
    (the SVG is the picture then, and a notebook should not store it twice)."""
    if _find_svg_renderer() is not None:
        return None
    return f"<pre>{html.escape(text_of(result, limit))}</pre>"
