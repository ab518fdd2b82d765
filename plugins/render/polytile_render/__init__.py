"""polytile renderers: SVG and PNG pictures of tilings, enclosures and galleries.

One colour per piece (neighbours always differ, the same piece name keeps its colour
across a gallery), thin grid lines, thick piece outlines, holes left blank, the enclosed
field of an enclosure filled, optional checkerboard shading.  Options: ``[options.render]``.
"""

from __future__ import annotations

from pathlib import Path

from polytile_core.plugin import Flag, Register, Renderer, Result, hookimpl
from polytile_render.scene import RenderOptions, layout
from polytile_render.writers import write_png, write_svg

__all__ = ["RenderOptions", "render_png", "render_svg"]


def render_svg(result: Result, path: Path, options: RenderOptions | None = None) -> None:
    write_svg(layout(result, options), path)


def render_png(result: Result, path: Path, options: RenderOptions | None = None) -> None:
    write_png(layout(result, options), path)


@hookimpl
def polytile_register_renderers(register: Register[Renderer]) -> None:
    register("svg", render_svg, options=RenderOptions, help="an SVG picture (a gallery for several solutions)")
    register("png", render_png, options=RenderOptions, help="a PNG picture, drawn with Pillow")


@hookimpl
def polytile_register_flags(register: Register[Flag]) -> None:
    """``polytile render`` takes the most used options as flags."""
    register("--cell-size", Flag(of="renderer", option="cell_size", value=int, metavar="PX"), help="pixels per cell")
    register(
        "--checkerboard",
        Flag(of="renderer", option="checkerboard", switch=True),
        help="shade the checkerboard's black cells",
    )
    register(
        "--columns", Flag(of="renderer", option="columns", value=int, metavar="N"), help="pictures per row of a gallery"
    )
    register(
        "--limit", Flag(of="renderer", option="limit", value=int, metavar="N"), help="most solutions drawn in a gallery"
    )
