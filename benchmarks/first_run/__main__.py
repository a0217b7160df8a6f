"""What a newcomer waits for: a clean clone set up, the first reply, and each cheap command.

    python -m benchmarks.first_run              # clone HEAD into a temporary folder, set it up
    python -m benchmarks.first_run --here       # time the commands of this checkout's .venv

A clean clone of the repository's committed HEAD (`git clone`, so nothing uncommitted and no
`.venv`) is set up with the README's own command (`bash .ci/setup`), and its time is printed,
with whether llama.cpp's wheel was already in the cache (`~/.cache/companion/wheels`: the first
setup on a machine builds it, about 5 minutes on 2 cores; later ones reuse it). Then, on a fresh
data folder with the default settings (the bundled demo model, offline): the first reply
(`companion say` of one message, from start to exit: loading the models, the first migrations,
the reply), a second reply on the same folder, and each command that should answer at once
(`--help`, `version`, `memory jobs`, `run` with no flag, `run --telegram` with a token of the
wrong shape, `say ""`), each run three times, with its median wall time and the most resident
memory it reached.

Weak spots: times are of one machine at one moment (a shared 2-core machine drifts by 10-20%);
the setup time depends on the package registry's speed and pip's own cache, which a newcomer's
machine does not have; a run with llama.cpp's wheel cached says so and is not the first setup.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.support import table_head, table_row

ROOT = Path(__file__).resolve().parents[2]
WHEELS = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "companion" / "wheels"
RUNS = 3
CHEAP = {
    "--help": ["--help"],
    "version": ["version"],
    "memory jobs": ["memory", "jobs"],
    "run (no flag)": ["run"],
    "run --telegram (token of the wrong shape)": ["run", "--telegram"],
    'say ""': ["say", ""],
}


@dataclass(frozen=True, slots=True)
class Timed:
    seconds: float
    peak_mb: float
    exit_code: int


def timed(argv: list[str], cwd: Path, env: dict[str, str], stdin: str = "") -> Timed:
    """Wall time and the child's peak resident memory (wait4's rusage, in KB on Linux)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    assert process.stdin is not None
    process.stdin.write(stdin)
    process.stdin.close()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return Timed(time.perf_counter() - start, usage.ru_maxrss / 1024, process.returncode)


def clean_clone(folder: Path) -> tuple[Path, float, bool]:
    """HEAD cloned into `folder` and set up; the setup's seconds and whether llama.cpp's wheel
    was cached before."""
    cached = any(WHEELS.glob("*/llama_cpp_python-*.whl"))
    clone = folder / "companion"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    start = time.perf_counter()
    subprocess.run(["bash", ".ci/setup"], cwd=clone, check=True)
    return clone, time.perf_counter() - start, cached


def environment(data_dir: Path) -> dict[str, str]:
    """The machine's environment with the offline defaults: no COMPANION_ setting, a fresh
    data folder, and a token of the wrong shape for `run --telegram`."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    return kept | {"COMPANION_DATA_DIR": str(data_dir), "TELEGRAM_BOT_TOKEN": "not-a-token"}


def main(here: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="first-run-") as temporary:
        folder = Path(temporary)
        if here:
            checkout, setup_seconds, cached = ROOT, float("nan"), True
        else:
            checkout, setup_seconds, cached = clean_clone(folder)
        companion = str(checkout / ".venv" / "bin" / "companion")
        env = environment(folder / "data")
        rows = []
        first = timed([companion, "say", "-"], folder, env, "Hi, I'm Ana and I live in Porto.\n")
        second = timed([companion, "say", "-"], folder, env, "Where do I live?\n")
        rows.append(("first reply (say, fresh data folder)", first))
        rows.append(("second reply (say, same folder)", second))
        cheap_seconds: list[float] = []
        for label, args in CHEAP.items():
            runs = [timed([companion, *args], folder, env) for _ in range(RUNS)]
            median = Timed(statistics.median(r.seconds for r in runs),
                           max(r.peak_mb for r in runs), runs[0].exit_code)
            cheap_seconds.append(median.seconds)
            rows.append((label, median))
    print(f"setup of a clean clone: {setup_seconds:.0f} s "
          f"(llama.cpp's wheel {'cached' if cached else 'built'})\n")
    print(table_head("command", "seconds", "peak MB", "exit code"))
    for label, result in rows:
        print(table_row(label, f"{result.seconds:.2f}", f"{result.peak_mb:.0f}",
                        result.exit_code))
    print(f"\nsetup_s={setup_seconds:.0f} first_reply_s={first.seconds:.1f} "
          f"slowest_cheap_command_s={max(cheap_seconds):.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--here", action="store_true",
                        help="time this checkout's .venv instead of setting up a clean clone")
    main(parser.parse_args().here)
