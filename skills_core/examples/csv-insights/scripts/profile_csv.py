#!/usr/bin/env python3
"""Profile a CSV file: per-column types, missing values, ranges and common values, as JSON.

Standard library only. Usage: python profile_csv.py FILE [--limit N] [--encoding ENC]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from collections.abc import Callable
from datetime import date
from pathlib import Path

MISSING = {"", "na", "n/a", "null", "none", "nan", "-"}
BOOLEANS = {"true", "false", "yes", "no", "y", "n"}
TOP_VALUES = 5
DELIMITERS = ",;\t|"


def detect_delimiter(header_line: str) -> str:
    """The candidate delimiter that occurs most often in the header line (comma on a tie)."""
    return max(DELIMITERS, key=header_line.count)


def infer_type(values: list[str]) -> str:
    """The narrowest type every present value fits."""
    if not values:
        return "text"
    for name, convert in (("integer", int), ("number", float), ("date", date.fromisoformat)):
        if all(_parses(convert, value) for value in values):
            return name
    if all(value.lower() in BOOLEANS for value in values):
        return "boolean"
    return "text"


def _parses(convert: Callable[[str], object], value: str) -> bool:
    try:
        convert(value)
    except ValueError:
        return False
    return True


def profile_column(raw: list[str]) -> dict[str, object]:
    """Statistics for one column's values."""
    present = [value.strip() for value in raw if value.strip().lower() not in MISSING]
    kind = infer_type(present)
    column: dict[str, object] = {
        "type": kind,
        "missing": len(raw) - len(present),
        "distinct": len(set(present)),
        "top_values": dict(Counter(present).most_common(TOP_VALUES)),
    }
    if kind in ("integer", "number") and present:
        convert = int if kind == "integer" else float
        numbers = [convert(value) for value in present]
        mean = round(sum(numbers) / len(numbers), 4)
        column.update(min=min(numbers), max=max(numbers), mean=mean)
    elif kind == "date" and present:
        column.update(min=min(present), max=max(present))
    return column


def profile(path: Path, *, limit: int | None, encoding: str) -> dict[str, object]:
    """Read the file and profile every column."""
    with path.open(newline="", encoding=encoding) as handle:
        delimiter = detect_delimiter(handle.readline())
        handle.seek(0)
        reader = csv.reader(handle, delimiter=delimiter)
        header = next(reader, [])
        columns: list[list[str]] = [[] for _ in header]
        ragged = 0
        rows = 0
        for row in reader:
            if limit is not None and rows >= limit:
                break
            rows += 1
            if len(row) != len(header):
                ragged += 1
            for index, values in enumerate(columns):
                values.append(row[index] if index < len(row) else "")
    return {
        "file": str(path),
        "delimiter": delimiter,
        "rows": rows,
        "ragged_rows": ragged,
        "columns": {
            name: profile_column(values) for name, values in zip(header, columns, strict=True)
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--limit", type=int, help="profile only the first N rows")
    parser.add_argument("--encoding", default="utf-8-sig")
    args = parser.parse_args()
    try:
        result = profile(args.file, limit=args.limit, encoding=args.encoding)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        print(f"profile_csv: {args.file}: {exc}", file=sys.stderr)
        return 1
    json.dump(result, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
