"""The skills of the design's example flow, as a flat tree any BackendHarness can store."""

from __future__ import annotations

from collections.abc import Mapping

from backends.testing import skill_md

PDF_BODY = (
    "# PDF processing\n\n"
    "Read references/api_docs.md, then run scripts/extract_text.py with the file.\n"
)
API_DOCS = "# extract_text.py\n\n`--file PATH` prints the text of the document.\n"
EXTRACT_TEXT = """\
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--file", required=True)
parser.add_argument("--pages")
options = parser.parse_args()
with open(options.file, encoding="utf-8") as document:
    print(document.read().strip())
print(f"pages: {options.pages}")
"""

PDF_DESCRIPTION = "Extract text and tables from PDF files, fill forms, merge documents."
SCRAPER_DESCRIPTION = "Extract content from websites <efficiently> & ethically."

TREE: Mapping[str, bytes] = {
    "pdf-processing/SKILL.md": skill_md("pdf-processing", PDF_DESCRIPTION, PDF_BODY),
    "pdf-processing/references/api_docs.md": API_DOCS.encode(),
    "pdf-processing/scripts/extract_text.py": EXTRACT_TEXT.encode(),
    "web-scraper/SKILL.md": skill_md("web-scraper", SCRAPER_DESCRIPTION),
}

CSV_SKILL = {"csv-insights/SKILL.md": skill_md("csv-insights", "Summarise CSV files.")}
