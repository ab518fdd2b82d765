"""Write a Scene as SVG (plain text, no dependency) or PNG (through Pillow)."""

from __future__ import annotations

import io
from pathlib import Path
from types import ModuleType
from typing import Any
from xml.sax.saxutils import escape

from polytile_core.plugin import write_atomically
from polytile_render.scene import BACKGROUND, TEXT, Line, Rect, Scene, Text


def svg_text(scene: Scene) -> str:
    """The SVG document. Each cell is a ``<rect class="piece|interior|empty">`` with its
    grid cell in ``data-cell``; a piece's cells carry its name in ``data-piece`` and a
    ``<title>`` (a viewer shows it on hover), and which placement it is in
    ``data-placement``, so tools (and tests) can read the picture back."""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{scene.width}" height="{scene.height}" '
        f'viewBox="0 0 {scene.width} {scene.height}">',
        f'<rect width="100%" height="100%" fill="{BACKGROUND}"/>',
    ]
    for item in scene.items:
        if isinstance(item, Rect):
            cell = (
                f'<rect class="{item.kind}" x="{item.x:g}" y="{item.y:g}" width="{item.size:g}" '
                f'height="{item.size:g}" fill="{item.fill}" data-cell="{item.cell[0]},{item.cell[1]}"'
            )
            if item.name is None:
                out.append(f"{cell}/>")
            else:
                name = escape(item.name, {'"': "&quot;"})
                out.append(f'{cell} data-piece="{name}" data-placement="{item.piece}"><title>{name}</title></rect>')
        elif isinstance(item, Line):
            out.append(
                f'<line x1="{item.x1:g}" y1="{item.y1:g}" x2="{item.x2:g}" y2="{item.y2:g}" '
                f'stroke="{item.colour}" stroke-width="{item.width:g}" stroke-linecap="square"/>'
            )
        elif isinstance(item, Text):
            out.append(
                f'<text x="{item.x:g}" y="{item.y + item.size:g}" font-family="sans-serif" '
                f'font-size="{item.size:g}" text-anchor="middle" fill="{TEXT}">{escape(item.text)}</text>'
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_svg(scene: Scene, path: Path) -> None:
    write_atomically(Path(path), svg_text(scene), replace=True)


def write_png(scene: Scene, path: Path) -> None:
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (scene.width, scene.height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    fonts: dict[float, ImageFont.ImageFont] = {}
    for item in scene.items:
        if isinstance(item, Rect):
            x, y = round(item.x), round(item.y)
            size = round(item.size)
            draw.rectangle((x, y, x + size - 1, y + size - 1), fill=item.fill)
        elif isinstance(item, Line):
            # A line as a rectangle half its width beyond each end: square caps, as in the SVG.
            width, back = round(item.width), round(item.width) // 2
            left, right = sorted((round(item.x1), round(item.x2)))
            top, bottom = sorted((round(item.y1), round(item.y2)))
            box = (left - back, top - back, right - back + width - 1, bottom - back + width - 1)
            draw.rectangle(box, fill=item.colour)
        elif isinstance(item, Text):
            if item.size not in fonts:
                fonts[item.size] = _font(ImageFont, item.size)
            # Centred by measuring, not by an anchor: bitmap fonts (Pillow without FreeType) have none.
            text_left, text_top, text_right, _ = draw.textbbox((0, 0), item.text, font=fonts[item.size])
            centred = item.x - (text_right - text_left) / 2 - text_left
            draw.text((centred, item.y - text_top), item.text, fill=TEXT, font=fonts[item.size])
    encoded = io.BytesIO()
    image.save(encoded, format="PNG")
    write_atomically(Path(path), encoded.getvalue(), replace=True)


def _font(image_font: ModuleType, size: float) -> Any:
    """Pillow's own TrueType font at ``size``; its small bitmap font when Pillow was built
    without FreeType."""
    try:
        return image_font.load_default(size=size)
    except ImportError:
        return image_font.load_default()
