"""Lay out a Result as a list of drawing primitives, shared by the SVG and PNG writers.

Both writers draw the same scene, so a picture looks the same in either format and the
tests can check the layout once (through the SVG) and the size through the PNG.
"""

from __future__ import annotations

import colorsys
import itertools
from collections.abc import Callable, Iterable

import attrs

from polytile_core.plugin import InputError, Result, Solution, doc

Cell = tuple[int, int]

# Tableau 20 without its greys (grey means "empty"), most distinct colours first, so
# the twelve pentominoes get twelve clearly different colours.
PALETTE = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#a0cbe8", "#8cd17d", "#d37295",
    "#ffbe7d", "#86bcb6", "#f1ce63", "#fabfd2", "#d4a6c8", "#d7b5a6",
)  # fmt: skip
INTERIOR = "#fdf3c4"  # the enclosed field: pale straw, lighter than any piece colour
EMPTY = "#e4e4e4"  # a region cell no piece covers
LINE = "#202020"
THIN_LINE = "#8a8a8a"
TEXT = "#202020"
BACKGROUND = "#ffffff"
# A picture larger than this (a 10,000 × 10,000 PNG takes 300 MB to draw) is refused.
MAX_PIXELS = 100_000_000


@attrs.frozen
class Rect:
    """A filled cell. ``kind`` is piece, interior or empty; ``piece`` indexes the solution's
    placements and ``name`` is that piece's name."""

    x: float
    y: float
    size: float
    fill: str
    kind: str
    cell: Cell
    piece: int | None = None
    name: str | None = None


@attrs.frozen
class Line:
    """An axis-parallel stroke with square ends (so thick outlines meet cleanly at corners)."""

    x1: float
    y1: float
    x2: float
    y2: float
    width: float
    colour: str


@attrs.frozen
class Text:
    """A caption, centred on ``x`` with its top at ``y``."""

    x: float
    y: float
    text: str
    size: float


@attrs.frozen
class Scene:
    width: int
    height: int
    items: tuple[Rect | Line | Text, ...]


def mix(colour: str, other: str, amount: float) -> str:
    """``colour`` moved ``amount`` (0..1) of the way towards ``other``."""
    a = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(other[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(p + (q - p) * amount):02x}" for p, q in zip(a, b, strict=True))


def _extra_colour(index: int) -> str:
    """Colours past the palette: hues spread by the golden angle."""
    red, green, blue = colorsys.hls_to_rgb((index * 0.618034) % 1.0, 0.62, 0.55)
    return "#" + "".join(f"{round(channel * 255):02x}" for channel in (red, green, blue))


def piece_colours(solution: Solution, preferred: dict[str, int]) -> list[str]:
    """One colour per placed piece, never the colour of an edge neighbour.

    Each piece first tries the colour of its name (so the same pentomino has the same
    colour across a gallery), then the first colour no neighbour has taken yet.
    """
    owner = {tuple(cell): index for index, placed in enumerate(solution.placements) for cell in placed.cells}
    neighbours: list[set[int]] = [set() for _ in solution.placements]
    for (x, y), index in owner.items():
        for other_cell in ((x + 1, y), (x, y + 1)):
            other = owner.get(other_cell)
            if other is not None and other != index:
                neighbours[index].add(other)
                neighbours[other].add(index)
    chosen: list[int] = []
    for index, placed in enumerate(solution.placements):
        taken = {chosen[other] for other in neighbours[index] if other < index}
        first = preferred.get(placed.piece, 0)
        chosen.append(next(c for c in itertools.chain([first], itertools.count()) if c not in taken))
    return [colour_number(c) for c in chosen]


def colour_number(number: int) -> str:
    return PALETTE[number] if number < len(PALETTE) else _extra_colour(number)


def _between(low: int, high: int) -> Callable[[object, attrs.Attribute[int], int], None]:
    """A check of an option, naming its key relative to ``[options.render]`` (the core
    puts the table in front)."""

    def check(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
        if not low <= value <= high:
            raise InputError(f"expected {low} to {high}, got {value}", path=attribute.name)

    return check


@attrs.frozen
class RenderOptions:
    """Options of the SVG and PNG renderers, from ``[options.render]`` (or the flags of
    ``polytile render``)."""

    cell_size: int = attrs.field(
        default=24, validator=_between(4, 200), metadata=doc("pixels per cell (4 to 200)", minimum=4, maximum=200)
    )
    checkerboard: bool = attrs.field(
        default=False, metadata=doc("shade the black cells (x + y even) of the checkerboard colouring")
    )
    grid: bool = attrs.field(default=True, metadata=doc("thin lines between the cells inside a piece"))
    columns: int = attrs.field(
        default=4,
        validator=_between(1, 100),
        metadata=doc("pictures per row of a gallery (1 to 100)", minimum=1, maximum=100),
    )
    limit: int = attrs.field(
        default=12,
        validator=_between(1, 10_000),
        metadata=doc(
            "most solutions drawn (1 to 10,000); a gallery says how many it left out", minimum=1, maximum=10_000
        ),
    )
    captions: bool = attrs.field(
        default=True, metadata=doc("a caption under each picture of a gallery (number, split part, enclosed area)")
    )


def _bounds(cells: Iterable[Cell]) -> tuple[int, int, int, int]:
    cells = list(cells)
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    return min(xs), min(ys), max(xs), max(ys)


class _Picture:
    """One solution (or the bare region) with what each cell shows."""

    def __init__(self, solution: Solution | None, region: set[Cell], colours: list[str], caption: str):
        self.caption = caption
        self.owner: dict[Cell, int] = {}
        self.names = [placed.piece for placed in solution.placements] if solution is not None else []
        if solution is not None:
            self.owner = {(x, y): i for i, placed in enumerate(solution.placements) for x, y in placed.cells}
        self.colours = colours
        self.interior: set[Cell] = set()
        if solution is not None and solution.interior is not None:
            self.interior = {(x, y) for x, y in solution.interior}
        self.enclosure = solution is not None and solution.interior is not None
        # An enclosure's region is its whole work board: draw only the fence and the field.
        self.empty: set[Cell] = set() if self.enclosure else region - set(self.owner)
        self.min_x, self.min_y, self.max_x, self.max_y = _bounds(set(self.owner) | self.interior | self.empty)

    def label(self, cell: Cell) -> int | str | None:
        if cell in self.owner:
            return self.owner[cell]
        if cell in self.interior:
            return "interior"
        if cell in self.empty:
            return "empty"
        return None

    def size(self, cell_size: int) -> tuple[int, int]:
        return (self.max_x - self.min_x + 1) * cell_size, (self.max_y - self.min_y + 1) * cell_size

    def items(self, left: float, top: float, options: RenderOptions) -> list[Rect | Line]:
        s = options.cell_size
        thin, thick = max(1, round(s / 24)), max(2, round(s / 8))
        items: list[Rect | Line] = []
        for y in range(self.min_y, self.max_y + 1):
            for x in range(self.min_x, self.max_x + 1):
                label = self.label((x, y))
                if label is None:
                    continue
                if isinstance(label, int):
                    kind, fill = "piece", self.colours[label]
                else:
                    kind, fill = label, INTERIOR if label == "interior" else EMPTY
                if options.checkerboard and (x + y) % 2 == 0:
                    fill = mix(fill, "#000000", 0.25)
                px, py = left + (x - self.min_x) * s, top + (y - self.min_y) * s
                if isinstance(label, int):
                    items.append(Rect(px, py, s, fill, kind, (x, y), label, self.names[label]))
                else:
                    items.append(Rect(px, py, s, fill, kind, (x, y)))
        # (horizontal, the row or column the edge lies on, (start, stop) along it)
        thin_lines: list[tuple[bool, int, tuple[int, int]]] = []
        thick_lines: list[tuple[bool, int, tuple[int, int]]] = []
        # Horizontal edges lie between rows y - 1 and y; vertical ones between columns x - 1 and x.
        for horizontal in (True, False):
            outer = range(self.min_y, self.max_y + 2) if horizontal else range(self.min_x, self.max_x + 2)
            inner = range(self.min_x, self.max_x + 1) if horizontal else range(self.min_y, self.max_y + 1)
            for a in outer:
                # b == inner.stop is one past the last cell: it only closes the run still open.
                run_start, run_class = inner.start, None
                for b in [*inner, inner.stop]:
                    edge_class = None
                    if b != inner.stop:
                        before, after = ((b, a - 1), (b, a)) if horizontal else ((a - 1, b), (a, b))
                        first, second = self.label(before), self.label(after)
                        if first != second:
                            edge_class = "thick"
                        elif first is not None and options.grid:
                            edge_class = "thin"
                    if edge_class != run_class:
                        if run_class is not None:
                            segment = (run_start, b)
                            (thick_lines if run_class == "thick" else thin_lines).append((horizontal, a, segment))
                        run_start, run_class = b, edge_class
        for lines, width, colour in ((thin_lines, thin, THIN_LINE), (thick_lines, thick, LINE)):
            for horizontal, a, (start, stop) in lines:
                if horizontal:
                    line_y = top + (a - self.min_y) * s
                    start_x, stop_x = left + (start - self.min_x) * s, left + (stop - self.min_x) * s
                    items.append(Line(start_x, line_y, stop_x, line_y, width, colour))
                else:
                    line_x = left + (a - self.min_x) * s
                    start_y, stop_y = top + (start - self.min_y) * s, top + (stop - self.min_y) * s
                    items.append(Line(line_x, start_y, line_x, stop_y, width, colour))
        return items


def _captions(shown: list[Solution]) -> list[str]:
    """Number (in a gallery), split part and enclosed area: whichever apply."""
    captions = []
    for number, solution in enumerate(shown, start=1):
        words = [f"#{number}"] if len(shown) > 1 else []
        if solution.part:
            words.append(f"part {solution.part}")
        if solution.interior is not None:
            words.append(f"area {len(solution.interior)}")
        captions.append("  ".join(words))
    return captions


def text_width(text: str, size: float) -> int:
    """A generous estimate of a sans-serif caption's width (no font metrics needed)."""
    return round(len(text) * size * 0.62)


def layout(result: Result, options: RenderOptions | None = None) -> Scene:
    """The scene of a result: one picture, or a gallery when it holds several solutions."""
    options = options or RenderOptions()
    s = options.cell_size
    region = {(x, y) for x, y in result.region}
    shown = list(result.solutions[: options.limit])
    if not shown and not region:
        raise InputError("the result holds neither a solution nor a region to draw")
    names = sorted({placed.piece for solution in shown for placed in solution.placements})
    preferred = {name: number for number, name in enumerate(names)}
    if shown:
        captions = _captions(shown)
        pictures = [
            _Picture(solution, region, piece_colours(solution, preferred), caption)
            for solution, caption in zip(shown, captions, strict=True)
        ]
    else:
        kept_none = result.found.value in ("feasible", "optimal")
        why = "no solution kept" if kept_none else f"no solution ({result.found.value.replace('_', ' ')})"
        pictures = [_Picture(None, region, [], why)]
    single = len(pictures) == 1
    text_size = max(10, round(s * 0.6))
    caption_band = round(text_size * 1.8) if options.captions and any(p.caption for p in pictures) else 0
    margin = max(s // 2, 8)
    columns = min(options.columns, len(pictures))
    rows = -(-len(pictures) // columns)
    sizes = [picture.size(s) for picture in pictures]
    caption_width = max((text_width(p.caption, text_size) for p in pictures), default=0) if caption_band else 0
    cell_width = max(max(width for width, _ in sizes), caption_width)
    cell_height = max(height for _, height in sizes) + caption_band
    gap = s if not single else 0
    total = max(len(result.solutions), result.count or 0)
    footer = round(text_size * 1.8) if options.captions and total > len(shown) else 0
    width = 2 * margin + columns * cell_width + (columns - 1) * gap
    height = 2 * margin + rows * cell_height + (rows - 1) * gap + footer
    if width * height > MAX_PIXELS:
        raise InputError(
            f"the picture would be {width}×{height} pixels; lower cell_size (now {s}) or limit",
            path="options.render",
        )
    items: list[Rect | Line | Text] = []
    for index, picture in enumerate(pictures):
        row, column = divmod(index, columns)
        # Each picture sits centred in its column, its caption centred below it.
        left = margin + column * (cell_width + gap) + (cell_width - sizes[index][0]) // 2
        top = margin + row * (cell_height + gap)
        items.extend(picture.items(left, top, options))
        if caption_band:
            below = top + sizes[index][1] + text_size * 0.5
            items.append(Text(left + sizes[index][0] / 2, below, picture.caption, text_size))
    if footer:
        more = f"{len(shown)} of {total:,} solutions shown"
        items.append(Text(width / 2, height - margin - footer + text_size * 0.5, more, text_size))
    return Scene(width, height, tuple(items))
