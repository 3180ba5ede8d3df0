#!/usr/bin/env python3
"""Collect the commits of a release range, grouped by Conventional Commits type, as JSON.

Standard library only; needs ``git`` on PATH.
Usage: python collect_commits.py [--since REF] [--until REF] [--repo DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys

SUBJECT = re.compile(r"^(?P<type>[a-z]+)(?:\((?P<scope>[^)]+)\))?(?P<bang>!)?: (?P<text>.+)$")
BREAKING_FOOTER = re.compile(r"^BREAKING[ -]CHANGE: (?P<text>.+)$", re.MULTILINE)
RECORD_END = "\x1e"
FIELD_END = "\x1f"


def git(repo: str, *args: str) -> str:
    """Run git in ``repo`` and return its standard output."""
    result = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(result.stderr.strip() or f"git {args[0]} failed")
    return result.stdout


def latest_tag(repo: str, until: str) -> str | None:
    """The most recent tag reachable from ``until``, if any."""
    try:
        return git(repo, "describe", "--tags", "--abbrev=0", until).strip()
    except RuntimeError:
        return None


def read_commits(repo: str, since: str | None, until: str) -> list[dict[str, object]]:
    """Parse ``git log`` for the range into one record per non-merge commit."""
    revision = f"{since}..{until}" if since else until
    log_format = FIELD_END.join(["%H", "%an", "%s", "%b"]) + RECORD_END
    output = git(repo, "log", "--no-merges", f"--format={log_format}", revision)
    commits = []
    for record in output.split(RECORD_END):
        if not record.strip():
            continue
        sha, author, subject, body = record.strip("\n").split(FIELD_END)
        commits.append(classify(sha, author, subject, body))
    return commits


def classify(sha: str, author: str, subject: str, body: str) -> dict[str, object]:
    """One commit with its type, scope and breaking-change note."""
    match = SUBJECT.match(subject)
    footer = BREAKING_FOOTER.search(body)
    return {
        "sha": sha[:12],
        "author": author,
        "type": match["type"] if match else "other",
        "scope": match["scope"] if match else None,
        "text": match["text"] if match else subject,
        "breaking": bool((match and match["bang"]) or footer),
        "breaking_note": footer["text"] if footer else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--since", help="previous release ref (default: the latest tag)")
    parser.add_argument("--until", default="HEAD", help="last ref to include (default: HEAD)")
    parser.add_argument("--repo", default=".", help="repository folder (default: .)")
    args = parser.parse_args()
    try:
        since = args.since or latest_tag(args.repo, args.until)
        commits = read_commits(args.repo, since, args.until)
    except (OSError, RuntimeError) as exc:
        print(f"collect_commits: {exc}", file=sys.stderr)
        return 1
    groups: dict[str, list[dict[str, object]]] = {}
    for commit in commits:
        groups.setdefault(str(commit["type"]), []).append(commit)
    result = {
        "range": {"since": since, "until": args.until},
        "total": len(commits),
        "breaking": [commit for commit in commits if commit["breaking"]],
        "groups": groups,
    }
    json.dump(result, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
