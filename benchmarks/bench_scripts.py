"""What isolation costs: one trivial script run through each runner, medians side by side.

Run: ``python -m benchmarks.bench_scripts [--runs 41]``. Each round runs the same script
(``print('ok')``, a Python file; and an ``echo`` bash script) once through every runner, in turns,
so machine noise falls on all of them alike; the table gives each runner's median wall time per
call and its difference from a bare ``asyncio`` subprocess (no supervisor, no sandbox).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from skills_core.tools._policy import ScriptPolicy, ScriptRun, ScriptRunner
from skills_core.tools._runners.process import ProcessRunner, run_process
from skills_core.tools._runners.sandbox import SandboxRunner

SCRIPTS = {"python": ("trivial.py", "print('ok')\n"), "bash": ("trivial.sh", "echo ok\n")}
INTERPRETERS = {"python": (sys.executable,), "bash": ("bash",)}


def make_run(folder: Path, kind: str) -> ScriptRun:
    name, _ = SCRIPTS[kind]
    return ScriptRun(
        folder=str(folder),
        script=f"scripts/{name}",
        interpreter=INTERPRETERS[kind],
        arguments=(),
        files=(f"scripts/{name}",),
        policy=ScriptPolicy(timeout=30, max_workspace_bytes=1 << 20, max_scratch_bytes=1 << 20),
        env={"PATH": "/usr/bin:/bin"},
    )


async def bare(run: ScriptRun) -> None:
    outcome = await run_process(
        run.command(run.folder),
        cwd=run.folder,
        env=run.env,
        time_limit=run.policy.timeout,
        max_output_bytes=run.policy.max_output_bytes,
    )
    assert outcome.stdout.data == b"ok\n", outcome


async def through(runner: ScriptRunner, run: ScriptRun) -> None:
    outcome = await runner.run(run)
    assert outcome.stdout.data == b"ok\n", outcome


async def measure(folder: Path, kind: str, runs: int) -> dict[str, list[float]]:
    run = make_run(folder, kind)
    cases = {"bare subprocess": lambda: bare(run), "process": lambda: through(ProcessRunner(), run)}
    if shutil.which("bwrap"):
        sandbox = SandboxRunner()
        cases["sandbox"] = lambda: through(sandbox, run)
    times: dict[str, list[float]] = {name: [] for name in cases}
    for case in cases.values():  # warm up caches (interpreter, page cache, cgroup)
        await case()
    for _ in range(runs):
        for name, case in cases.items():
            started = time.perf_counter()
            await case()
            times[name].append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=41)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    folder = Path(tempfile.mkdtemp(prefix="skillfs-bench-"))
    (folder / "scripts").mkdir()
    for name, text in SCRIPTS.values():
        (folder / "scripts" / name).write_text(text)
    try:
        for kind in SCRIPTS:
            times = asyncio.run(measure(folder, kind, args.runs))
            base = statistics.median(times["bare subprocess"])
            print(f"\n{kind} script, {args.runs} runs each, medians")
            print(f"| {'runner':<16} | {'ms per call':>11} | {'over bare':>9} |")
            print(f"|{'-' * 18}|{'-' * 13}|{'-' * 11}|")
            for name, samples in times.items():
                median = statistics.median(samples)
                extra = (median - base) * 1000
                print(f"| {name:<16} | {median * 1000:>11.1f} | {extra:>+9.1f} |")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
