"""One table decides what a model receives for each kind of file, and the docs show it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from skills_core.tools._content import FILE_KINDS, OTHER_BINARY, Delivery, resource_result
from tests.collections.shapes import PDF_HEADER, PNG_HEADER, TTF_HEADER, anthropics, binary

DOCS = Path(__file__).resolve().parents[2] / "docs" / "adk.md"
BLOB = binary(b"\xff\xfe\x00", 300)

CASES = [
    ("references/guide.md", b"# Guide\n", "text", Delivery.TEXT),
    ("ooxml/schemas/wml.xsd", b'<?xml version="1.0"?>\n<xsd:schema/>\n', "text", Delivery.TEXT),
    ("assets/icon.svg", b"<svg xmlns='http://www.w3.org/2000/svg'/>", "text", Delivery.TEXT),
    ("assets/logo.png", binary(PNG_HEADER, 300), "image", Delivery.INLINE),
    ("assets/photo.webp", BLOB, "image", Delivery.INLINE),
    ("theme-showcase.pdf", binary(PDF_HEADER, 300), "pdf", Delivery.INLINE),
    ("assets/chime.wav", BLOB, "audio", Delivery.INLINE),
    ("assets/clip.mp4", BLOB, "video", Delivery.INLINE),
    ("canvas-fonts/Lora-Regular.ttf", binary(TTF_HEADER, 300), "font", Delivery.DESCRIBED),
    ("fonts/Inter.woff2", BLOB, "font", Delivery.DESCRIBED),
    ("assets/template.zip", BLOB, "archive", Delivery.DESCRIBED),
    ("assets/data.tar.gz", BLOB, "archive", Delivery.DESCRIBED),
    ("bin/tool.exe", BLOB, "executable", Delivery.DESCRIBED),
    ("lib/libfast.so", BLOB, "executable", Delivery.DESCRIBED),
    ("scripts/run.wasm", BLOB, "executable", Delivery.DESCRIBED),
    ("assets/model.onnx", BLOB, "binary", Delivery.DESCRIBED),
    ("assets/no-extension", BLOB, "binary", Delivery.DESCRIBED),
]


@pytest.mark.parametrize(("path", "data", "kind", "delivery"), CASES)
def test_each_type_is_delivered_as_the_table_says_where_files_go_inline(
    path: str, data: bytes, kind: str, delivery: Delivery
) -> None:
    result = resource_result("skill", path, data, inline=True)
    assert result.get("delivery", Delivery.TEXT) == delivery
    assert result.get("kind", "text") == kind
    assert ("content" in result) == (delivery is Delivery.TEXT)
    assert ("content_base64" in result) == (delivery is Delivery.INLINE)
    assert ("sha256" in result) == (delivery is Delivery.DESCRIBED)


@pytest.mark.parametrize(("path", "data", "kind", "delivery"), CASES)
def test_the_shared_tool_describes_every_binary_file(
    path: str, data: bytes, kind: str, delivery: Delivery
) -> None:
    result = resource_result("skill", path, data)
    expected = Delivery.TEXT if delivery is Delivery.TEXT else Delivery.DESCRIBED
    assert result.get("delivery", Delivery.TEXT) == expected
    assert result.get("kind", "text") == kind
    assert "content_base64" not in result


@pytest.mark.parametrize(("path", "data", "kind", "delivery"), CASES)
def test_bytes_asked_for_are_bytes(path: str, data: bytes, kind: str, delivery: Delivery) -> None:
    result = resource_result("skill", path, data, as_bytes=True)
    expected = Delivery.TEXT if delivery is Delivery.TEXT else Delivery.BYTES
    assert result.get("delivery", Delivery.TEXT) == expected


def test_the_anthropics_font_reply_shrinks_from_a_base64_dump() -> None:
    font = anthropics().tree["skills/canvas-design/canvas-fonts/Lora-Regular.ttf"]
    described = resource_result("canvas-design", "canvas-fonts/Lora-Regular.ttf", font)
    asked = resource_result("canvas-design", "canvas-fonts/Lora-Regular.ttf", font, as_bytes=True)
    assert len(str(described)) < 700
    assert len(str(asked)) > 32_000


def test_the_docs_table_lists_every_kind() -> None:
    section = DOCS.read_text().split("## What the model receives for each file", 1)[1]
    rows = re.findall(r"^\| ([a-z ,]+?) \|", section.split("\n## ", 1)[0], re.MULTILINE)
    documented = {name.strip() for row in rows for name in row.split(",")}
    assert {"text", OTHER_BINARY.name, *(kind.name for kind in FILE_KINDS)} <= documented
