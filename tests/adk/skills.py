"""The skills the ADK tests serve, as a flat tree any BackendHarness can store."""

from __future__ import annotations

from collections.abc import Mapping

from backends.testing import skill_md

FORM_GUIDE = "# Forms\n\nAlways sign at the bottom.\n"

FILL_PY = """\
import sys
print(f"filled form for {' '.join(sys.argv[1:])}")
"""

TREE: Mapping[str, bytes] = {
    "pdf/SKILL.md": skill_md("pdf", "Fill PDF forms.", "# PDF\n\nRead references/forms.md.\n"),
    "pdf/references/forms.md": FORM_GUIDE.encode(),
    "pdf/scripts/fill.py": FILL_PY.encode(),
    "notes/SKILL.md": skill_md("notes", "Take meeting notes."),
}


def flat(name: str, files: Mapping[str, str]) -> dict[str, bytes]:
    """``{"name/path": bytes}`` for one skill."""
    return {f"{name}/{path}": data.encode() for path, data in files.items()}
