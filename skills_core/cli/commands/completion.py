"""``skillfs completion bash|zsh|fish``: the script that makes a shell complete ``skillfs``.

Install it once: ``eval "$(skillfs completion bash)"`` in ``~/.bashrc`` (``zsh`` likewise in
``~/.zshrc``), ``skillfs completion fish | source`` in ``~/.config/fish/config.fish``. See
:mod:`skills_core.cli.completion` for what it completes.
"""

from __future__ import annotations

import argparse

from skills_core.cli import exits
from skills_core.cli.completion import SHELLS, shell_script


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the shell."""
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete skillfs in")
    parser.epilog = (
        'install: eval "$(skillfs completion bash)" in ~/.bashrc, eval "$(skillfs completion '
        'zsh)" in ~/.zshrc, or skillfs completion fish | source in ~/.config/fish/config.fish'
    )


def run(args: argparse.Namespace) -> int:
    """Print the script."""
    print(shell_script(args.shell))
    return exits.OK
