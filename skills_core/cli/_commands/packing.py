"""Commands that pack what a source serves: bundle, publish, and keygen for signing.

Told in docs/cli.md. Both packers write nothing when a skill is refused (unless
``--skip-invalid``) or when the source's skills all sit in hidden or nested folders.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import sys
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, Generic, NamedTuple, TypeVar

from backends._index.document import INDEX_PATH
from backends._remote.output_folder import write_bytes
from backends._remote.urls import join_location
from skills_core._bundle.publish import (
    SIGNATURE_PATH,
    Publication,
    build_publication,
    write_publication,
)
from skills_core._bundle.writer import Bundle, build_bundle, check_output
from skills_core._catalog.loading import Progress
from skills_core._errors import InvalidSkillsError
from skills_core._format.models import SkillProblem
from skills_core._trust.policy import TrustPolicy
from skills_core.cli import _exits as exits
from skills_core.cli._output import (
    plural,
    print_json,
    print_message,
    print_problems,
    printable,
    problems_record,
    progress_bar,
)
from skills_core.cli._source import (
    add_flags,
    add_url_argument,
    elsewhere_hint,
    open_source,
    run,
    skill_folders_elsewhere,
)

P = TypeVar("P", bound=Bundle | Publication)


class Misplaced(NamedTuple):
    """The source holds no skill, but these folders of it do: nothing was written."""

    folders: Sequence[str]


class Packing(NamedTuple, Generic[P]):
    """How one command builds, writes (``store``: to a ``folder`` or a file) and reports."""

    build: Callable[..., Awaitable[P]]
    store: Callable[[P, str], Awaitable[P]]
    folder: bool
    empty: str
    summary: Callable[[P], str]
    record: Callable[[P], dict[str, Any]]


def _configure_packing(
    parser: argparse.ArgumentParser, *, verb: str, output: str, sign: bool = False
) -> None:
    """Add the URL, ``-o/--output``, ``--sign`` if asked, and the options every packer takes."""
    add_url_argument(parser)
    parser.add_argument("-o", "--output", required=True, metavar="OUT", help=output)
    if sign:
        parser.add_argument(
            "--sign",
            metavar="KEY",
            type=Path,
            help="sign the index with the Ed25519 private key in the file KEY ('skillfs "
            f"keygen'); the signature goes to OUT/{SIGNATURE_PATH}",
        )
    parser.add_argument(
        "--strict",
        action="store_true",
        help=f"{verb} what 'skillfs validate' passes: any spec violation refuses a skill "
        "(default: what 'skillfs list' serves, skills with warnings included)",
    )
    parser.add_argument(
        "--skip-invalid",
        action="store_true",
        help="leave refused skills out (each problem printed as a warning) instead of stopping",
    )
    add_flags(parser, "lock", "json", "quiet")


def _run_packing(args: argparse.Namespace, packing: Packing[P]) -> int:
    """Build and write, then report; exit 1, writing nothing, when a skill is refused."""
    source = open_source(args.url)
    out: str = args.output

    async def pack(progress: Progress | None) -> P | Misplaced:
        await asyncio.to_thread(check_output, out, source.location, folder=packing.folder)
        built = await packing.build(
            source,
            strict=args.strict,
            skip_invalid=args.skip_invalid,
            progress=progress,
            trust=TrustPolicy(lock=args.lock),
        )
        if not built.skills and not built.skipped:
            folders = await skill_folders_elsewhere(source)
            if folders:
                return Misplaced(folders)
        return await packing.store(built, out)

    try:
        with progress_bar(sys.stderr, quiet=args.quiet) as progress:
            packed = run(pack(progress))
    except InvalidSkillsError as exc:
        print_problems(exc.problems)
        refused = plural(len(_subjects(exc.problems)), "invalid skill")
        print_message(
            "error",
            source.location,
            f"nothing written: {refused}; fix them, or pass --skip-invalid to leave them out",
        )
        return exits.INVALID
    if isinstance(packed, Misplaced):
        hint = elsewhere_hint(source.location, packed.folders)
        print_message("error", source.location, f"nothing written: no skills found; {hint}")
        return exits.USAGE
    print_problems((), (*packed.skipped, *packed.warnings))
    if not packed.skills:
        print_message("warning", source.location, packing.empty)
    if args.json:
        record = {"source": source.location, **packing.record(packed)}
        skipped, warnings = problems_record(packed.skipped), problems_record(packed.warnings)
        print_json({**record, "skipped": skipped, "warnings": warnings})
    else:
        print(packing.summary(packed))
    return exits.OK


def _skipped_suffix(skipped: Iterable[SkillProblem]) -> str:
    """``; skipped 2 invalid skills: a, b`` for a summary line, or ``""``."""
    names = _subjects(skipped)
    if not names:
        return ""
    return f"; skipped {plural(len(names), 'invalid skill')}: {', '.join(map(printable, names))}"


def _subjects(problems: Iterable[SkillProblem]) -> list[str]:
    """The skills ``problems`` are about, sorted."""
    return sorted({problem.subject for problem in problems})


async def _store_bundle(bundle: Bundle, out: str) -> Bundle:
    return replace(bundle, location=await write_bytes(out, bundle.data))


def _bundle_summary(bundle: Bundle) -> str:
    return (
        f"wrote {printable(bundle.location or '')}: {plural(len(bundle.skills), 'skill')}, "
        f"{plural(bundle.files, 'file')}, {plural(len(bundle.data), 'byte')}, "
        f"sha256 {bundle.sha256}{_skipped_suffix(bundle.skipped)}"
    )


def _bundle_record(bundle: Bundle) -> dict[str, Any]:
    return {
        "location": bundle.location,
        "skills": list(bundle.skills),
        "files": bundle.files,
        "bytes": len(bundle.data),
        "sha256": bundle.sha256,
    }


BUNDLING = Packing(
    build_bundle,
    _store_bundle,
    folder=False,
    empty="the bundle holds no skills",
    summary=_bundle_summary,
    record=_bundle_record,
)


def run_publish(args: argparse.Namespace) -> int:
    """Publish and summarize; exit 1, writing nothing, when a skill is refused."""
    if args.sign is None:
        return _run_packing(args, PUBLISHING)
    from skills_core._trust.signing import private_key, read_key_file

    key = private_key(read_key_file(args.sign), location=str(args.sign))
    return _run_packing(
        args, PUBLISHING._replace(build=partial(build_publication, signing_key=key))
    )


def _publication_summary(published: Publication) -> str:
    index = join_location(published.location or "", INDEX_PATH)
    signed = SIGNATURE_PATH in published.files
    artifacts = len(published.files) - 1 - signed
    size = sum(len(data) for data in published.files.values())
    what = "the index, its signature" if signed else "the index"
    removed = published.removed
    gone = f"; removed {plural(len(removed), 'file')} it no longer lists" if removed else ""
    return (
        f"published {plural(len(published.skills), 'skill')} to {printable(index)}: "
        f"{what} and {plural(artifacts, 'artifact')}, {plural(size, 'byte')}"
        f"{gone}{_skipped_suffix(published.skipped)}"
    )


def _publication_record(published: Publication) -> dict[str, Any]:
    return {
        "location": published.location,
        "index": join_location(published.location or "", INDEX_PATH),
        "skills": list(published.skills),
        "files": {path: len(data) for path, data in published.files.items()},
        "removed": list(published.removed),
    }


PUBLISHING = Packing(
    build_publication,
    write_publication,
    folder=True,
    empty="the index lists no skills",
    summary=_publication_summary,
    record=_publication_record,
)

PUBLIC_SUFFIX = ".pub"
"""The public key's file is the private key's, plus this."""


def configure_keygen(parser: argparse.ArgumentParser) -> None:
    """Add ``-o/--output`` and ``--json``."""
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="KEYFILE",
        type=Path,
        help="where to write the private key (mode 0600); the public key goes to KEYFILE.pub",
    )
    add_flags(parser, "json")


def run_keygen(args: argparse.Namespace) -> int:
    """Write the key pair, or explain why not (exit 2)."""
    from skills_core._trust.signing import key_id, new_key_pair, public_key

    private: Path = args.output
    public = private.with_name(private.name + PUBLIC_SUFFIX)
    for path in (private, public):
        if os.path.lexists(path):
            print_message("error", str(path), "already exists: nothing written")
            return exits.USAGE
    secret, shared = new_key_pair()
    try:
        _write_new(private, secret, 0o600)
        _write_new(public, shared, 0o644)
    except OSError as exc:
        print_message("error", str(exc.filename or private), str(exc.strerror or exc))
        return exits.USAGE
    identity = key_id(public_key(shared))
    if args.json:
        print_json({"private_key": str(private), "public_key": str(public), "key_id": identity})
        return exits.OK
    print(f"wrote the private key {printable(str(private))} (mode 0600: keep it secret)")
    print(f"wrote the public key {printable(str(public))} ({identity}): give it to readers")
    return exits.OK


def _write_new(path: Path, data: bytes, mode: int) -> None:
    """Write ``path``, which must not exist, with ``mode``, whole or not at all (never replaced).

    Raises:
        FileExistsError: ``path`` appeared meanwhile (the file there is left alone).
    """
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            os.fchmod(handle.fileno(), mode)  # whatever the umask, exactly this mode
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.link(temporary, path)  # fails, never replaces, when path exists
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


HANDLERS = {
    "bundle": (
        partial(
            _configure_packing,
            verb="bundle",
            output="the zip to create or replace: a local path or any fsspec URL "
            "(s3://bucket/skills.zip)",
        ),
        partial(_run_packing, packing=BUNDLING),
    ),
    "publish": (
        partial(
            _configure_packing,
            verb="publish",
            output="the folder or bucket to publish to: a local folder or any fsspec URL "
            "(s3://bucket/site); the index goes to OUT/" + INDEX_PATH,
            sign=True,
        ),
        run_publish,
    ),
    "keygen": (configure_keygen, run_keygen),
}
