"""``skillfs keygen -o KEYFILE [--json]``: an Ed25519 key pair for ``skillfs publish --sign``.

Writes the private key to KEYFILE (PKCS#8 PEM, mode 0600) and the public key beside it,
KEYFILE.pub (SubjectPublicKeyInfo PEM), the file readers trust (``skillfs list --trust``).
Each file is written whole to a temporary file created with its final mode, then linked into
place: the private key is never readable by others, not even for a moment, and an existing
file is never overwritten (exit 2, nothing written).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
from pathlib import Path

from skills_core.cli import exits
from skills_core.cli.output import add_json_flag, print_json
from skills_core.cli.terminal import print_message, printable

PUBLIC_SUFFIX = ".pub"
"""The public key's file is the private key's, plus this."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Add ``-o/--output`` and ``--json``."""
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="KEYFILE",
        type=Path,
        help="where to write the private key (mode 0600); the public key goes to KEYFILE.pub",
    )
    add_json_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Write the key pair, or explain why not (exit 2)."""
    from skills_core.trust.signing import key_id, new_key_pair, public_key

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
    """Write ``path``, which must not exist, with ``mode``, whole or not at all.

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
