"""Glob patterns of a skill's ``paths``: when the skill applies, by the file being worked on.

A skill with ``paths`` is offered only when the caller's context path (a file relative to the
project root) matches one of them, as echo-execution's ``SkillDescriptor`` and Claude-style
skills do. The syntax is gitignore's:

- ``*`` matches within one path segment, ``?`` one character, ``[abc]`` / ``[!abc]`` one
  character of a class, ``{ts,tsx}`` either alternative;
- ``**`` as a whole segment matches any number of folders (``src/**/*.py``, ``tests/**``);
- a pattern without ``/`` also matches the file name alone (``*.py`` matches ``src/a.py``);
- a leading ``./`` or ``/`` is dropped, and a trailing ``/`` matches everything below.

A pattern that cannot work (``..``, unbalanced brackets or braces, ``**`` inside a segment)
never matches, so a skill whose patterns are all broken is offered nowhere rather than
everywhere; :func:`pattern_problem` says what is wrong and the validator reports it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

MAX_ALTERNATIVES = 64
"""Most patterns one ``{a,b}`` expansion may produce."""

_BROAD_PROBES = ("file", "dir/file.txt", "a/b/c/.hidden", "README")


class _Compiled(NamedTuple):
    regex: re.Pattern[str] | None  # None: the pattern is broken and never matches
    problem: str | None
    basename: bool  # also try the file name alone


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` can never work, or ``None`` when it is usable."""
    return _compile(pattern).problem


def is_broad(pattern: str) -> bool:
    """True when a usable pattern matches every file (``*``, ``**``, ``**/*``)."""
    regex = _compile(pattern).regex
    return regex is not None and all(_matches(pattern, probe) for probe in _BROAD_PROBES)


def validate_paths(patterns: Iterable[str]) -> list[str]:
    """Every warning about ``patterns``: broken ones and ones that match every file."""
    warnings = []
    for pattern in patterns:
        problem = pattern_problem(pattern)
        if problem is not None:
            warnings.append(f"path pattern {pattern!r} {problem}")
        elif is_broad(pattern):
            warnings.append(f"path pattern {pattern!r} matches every file")
    return warnings


def matches_context_path(patterns: Sequence[str], context_path: str) -> bool:
    """True when ``context_path`` matches one of ``patterns``; always true without patterns.

    Args:
        patterns: A skill's ``paths``.
        context_path: The file being worked on, relative to the project root; backslashes
            and a leading ``./`` are accepted.
    """
    if not patterns:
        return True
    return any(_matches(pattern, context_path) for pattern in patterns)


def normalize_context_path(path: str) -> str:
    """``./src//a.py`` -> ``src/a.py``: forward slashes, no empty or ``.`` segments."""
    parts = path.replace("\\", "/").split("/")
    return "/".join(part for part in parts if part not in ("", "."))


def _matches(pattern: str, context_path: str) -> bool:
    compiled = _compile(pattern)
    if compiled.regex is None:
        return False
    path = normalize_context_path(context_path)
    if compiled.regex.fullmatch(path):
        return True
    return compiled.basename and bool(compiled.regex.fullmatch(path.rpartition("/")[2]))


@functools.lru_cache(maxsize=4096)
def _compile(pattern: str) -> _Compiled:
    problem = _syntax_problem(pattern)
    if problem is not None:
        return _Compiled(None, problem, False)
    text = pattern[2:] if pattern.startswith("./") else pattern
    anchored = text.startswith("/")
    text = text.strip("/") + ("/**" if text.endswith("/") else "")
    try:
        alternatives = _expand_braces(text)
        regex = "|".join(_translate(alternative) for alternative in alternatives)
    except ValueError as exc:
        return _Compiled(None, str(exc), False)
    basename = not anchored and all("/" not in alternative for alternative in alternatives)
    return _Compiled(re.compile(regex, re.DOTALL), None, basename)


def _syntax_problem(pattern: str) -> str | None:
    if not pattern.strip():
        return "is empty"
    if ".." in pattern.replace("\\", "/").split("/"):
        return "contains '..', which is not allowed"
    if pattern.count("{") != pattern.count("}"):
        return "has unbalanced braces"
    if pattern.count("[") != pattern.count("]"):
        return "has unbalanced brackets"
    return None


def _expand_braces(pattern: str) -> list[str]:
    """``a.{ts,tsx}`` -> ``["a.ts", "a.tsx"]``, nested braces included."""
    results = [pattern]
    done: list[str] = []
    while results:
        text = results.pop()
        span = _first_group(text)
        if span is None:
            done.append(text)
            continue
        start, end = span
        for option in split_outside(text[start + 1 : end], _is_comma, "{", "}"):
            results.append(text[:start] + option + text[end + 1 :])
        if len(results) + len(done) > MAX_ALTERNATIVES:
            raise ValueError(f"expands to more than {MAX_ALTERNATIVES} alternatives")
    return sorted(done)


def _first_group(text: str) -> tuple[int, int] | None:
    depth, start = 0, -1
    for index, char in enumerate(text):
        if char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                raise ValueError("has unbalanced braces")
            if depth == 0:
                return start, index
    return None


def split_outside(
    text: str, is_separator: Callable[[str], bool], opening: str, closing: str
) -> list[str]:
    """Split ``text`` at the separators that stand outside ``opening``/``closing`` pairs."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == opening:
            depth += 1
        elif char == closing and depth:
            depth -= 1
        if depth == 0 and is_separator(char):
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def _is_comma(char: str) -> bool:
    return char == ","


def _translate(pattern: str) -> str:
    """One brace-free pattern as a regular expression over a normalised path."""
    segments = pattern.split("/")
    out = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            out.append(".*" if last else "(?:[^/]*/)*")
            continue
        if "**" in segment:
            raise ValueError("has '**' inside a segment; use it as a whole segment ('a/**/b')")
        out.append(_translate_segment(segment) + ("" if last else "/"))
    return "".join(out)


def _translate_segment(segment: str) -> str:
    out, index = [], 0
    while index < len(segment):
        char = segment[index]
        index += 1
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            negated = segment[index : index + 1] in ("!", "^")
            start = index + negated
            end = segment.find("]", start + 1)  # a "]" right after "[" or "[!" is literal
            if end < 0:
                raise ValueError("has an unclosed '['")
            members = re.sub(r"([\\\[\]])", r"\\\1", segment[start:end])
            out.append(f"[^/{members}]" if negated else f"[{members}]")
            index = end + 1
        elif char == "\\" and index < len(segment):
            out.append(re.escape(segment[index]))
            index += 1
        else:
            out.append(re.escape(char))
    return "".join(out)
