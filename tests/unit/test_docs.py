"""The docs stay true to the code: the pipeline reference names every key, and every
picture the docs show exists."""

from __future__ import annotations

import re
from pathlib import Path

import attrs
import pytest

from polytile_core.config import schema
from polytile_core.host.registry import Host

ROOT = Path(__file__).parents[2]
REFERENCE = (ROOT / "docs" / "pipeline.md").read_text(encoding="utf-8")


def section(title_words: str) -> str:
    """The text of the one section of docs/pipeline.md whose heading holds ``title_words``."""
    parts = re.split(r"\n(?=#{2,3} )", REFERENCE)
    found = [part for part in parts if title_words in part.splitlines()[0]]
    assert len(found) == 1, f"docs/pipeline.md needs one section headed with {title_words}"
    return found[0]


def undocumented(options_class, text: str) -> list[str]:
    return [field.name for field in attrs.fields(options_class) if f"| `{field.name}` |" not in text]


@pytest.mark.parametrize(
    ("schema_class", "heading"),
    [
        (schema.Pipeline, "Top level"),
        (schema.RegionSpec, "`[region]`"),
        (schema.PieceSpec, "`[[pieces]]`"),
        (schema.SolveSpec, "`[solve]`"),
        (schema.SplitSpec, "`[split]`"),
    ],
)
def test_the_reference_has_a_row_for_every_pipeline_key(schema_class, heading):
    assert undocumented(schema_class, section(heading)) == []


def test_the_reference_has_every_option_of_every_installed_plugin():
    missing = {}
    for capability, registrations in Host().registry.items():
        for registration in registrations.values():
            if registration.options is None:
                continue
            # Renderers share their plugin's table ([options.render]); the rest are named
            # after what they registered.
            table = registration.plugin if capability == "renderers" else registration.name
            gaps = undocumented(registration.options, section(f"`[options.{table}]`"))
            if gaps:
                missing[table] = gaps
    assert missing == {}


def test_every_picture_the_docs_show_exists():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        for target in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).is_file(), f"{page.name} shows {target}, which does not exist"
