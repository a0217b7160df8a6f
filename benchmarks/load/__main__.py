"""Many people at once: 1,000 users on MariaDB and a chroma server, what a message costs and
how long it waits at a steady rate.

    python -m benchmarks.load                    # 1,000 users x 20 messages, one process
    python -m benchmarks.load --processes 1,2    # and again with two processes
    python -m benchmarks.load --users 50 --messages 10 --processes 2 --steady-seconds 5  # CI

How the load is made: every user has a marker word only they say (`kiwi0042`) and arrives with
`--seed-rounds` earlier rounds (40: ten subjects of everyday life, imported as `companion
ingest` does), so that with the default `memory.summarize_every = 50` each user's first window
fills during the run and its summary job runs while messages flow. The users then send
`--messages` messages each through the front desk the Telegram and Discord frontends use, in
separate bot processes (`benchmarks.load.bot`) that share one MariaDB database and one chroma
server; message n of user u goes to process (u + n) mod P, so one person's messages reach
different processes. At most `--in-flight` messages are unanswered at any time (100); a user
reads each reply for `--think-seconds` before the next message, and every tenth user sends two
messages at once to two processes. That phase keeps the processes saturated: its messages per
second are the capacity, and the CPU each part used in it, per message, is what a message costs
(upkeep included: every user's first window is summarized then). The windows still waiting
when the messages stop are summarized alone: the CPU each part spends then, per window, is what
upkeep costs a window.

Then the steady phases (open loop): once the memory jobs are done, messages arrive at random
(Poisson) at 25%, 50% and 75% of that capacity for `--steady-seconds` each, whatever is still
unanswered, each the next message of the users in turn. Their latency is what people would see
below saturation; at saturation it is queueing by construction.

The model (`benchmarks.load.model`, its own process) streams every reply over 200 ms and
answers the memory jobs' prompts as a capable model would.

Settings are the product's defaults, with `llm.provider = "openai"` at the model server, the SQL
URL and the chroma server. Memory overhead is a reply's whole time at the front desk minus the
model's stream, as the model server timed it: the memory work, waiting for the user's turn and
for the CPU. The single-user figure is one more user (with as many earlier rounds) sending 100
messages alone, one after the other, between the saturated and the steady phases (its own
windows are summarized meanwhile, as a person's are while they chat). With 30, the p95 was
the second slowest message: two runs of one code gave 46.8 and 127.7 ms; with 100, 54.5 and
78.0. The ratio at half the capacity still moves between runs (7.99 and 3.61 for those two):
its numerator does too (436 and 281 ms).

The audit at the end: every message stored exactly once (`lost`, `duplicated`), no round left
pending, every full window summarized by exactly one job, no prompt holding the marker words of
two users (`leaked`, checked by the model server on every prompt), and no two turns of one user
at once (`overlapped`). Weak spots: one machine with two cores runs the bot processes, MariaDB,
chroma, the model server and the driver together, so they compete for the same CPU; the messages
are short and alike; nobody corrects, teaches or shares; the steady phases run after upkeep, so
no summary competes with their turns.

The last line is `lost=<n> duplicated=<n> leaked=<n> cpu_ms_per_message=<x>
p95_ratio_at_half=<y>`: sums over the runs; the CPU of the bot processes, MariaDB and the chroma
server per message at saturation, and the memory overhead p95 at half the capacity over the
single user's p95, both of the first run.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pymysql
from sqlalchemy import func, select

from benchmarks.load.model import MESSAGE_ID, REPLY, marker, message_id
from benchmarks.support import read_set, table_head, table_row
from bot.app import open_companion
from bot.settings import Settings, load_settings
from memory.sql.engine import open_engine
from memory.sql.tables import memory_jobs, rounds, topics
from memory.types import Exchange

MYSQL = {"host": "127.0.0.1", "port": 3306, "user": "root", "password": ""}
# The sentences of the upkeep study's ten subjects: what the users say, earlier and now.
SENTENCES = [s for r in read_set("upkeep_subjects").records for s in r.get("sentences", [])]
WINDOW = 50  # memory.summarize_every, the default
SOLO_MESSAGES = 100  # the single user's: enough that its p95 is not one slow message
STEADY_SHARES = (0.25, 0.5, 0.75)  # of the capacity, in the steady phases


@dataclass(frozen=True)
class Sent:
    user: int
    number: int
    process: int
    ms: float  # the whole reply at the front desk
    shown: str  # what the person read


SERVING = ("bot processes", "MariaDB", "chroma server")  # what a message costs, in CPU


@dataclass
class Steady:
    """One steady phase: messages arriving at `rate` a second (`share` of the capacity)."""

    share: float
    rate: float
    sent: list[Sent] = field(default_factory=list)
    seconds: float = 0.0
    overhead: list[float] = field(default_factory=list)
    busy: float = 0.0
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds per part

    @property
    def cpu_ms_per_message(self) -> float:
        """CPU of the bot processes, MariaDB and the chroma server per message answered."""
        used = sum(self.cpu.get(part, 0.0) for part in SERVING)
        return used * 1000 / len(self.sent) if self.sent else float("nan")


@dataclass
class Run:
    processes: int
    sent: list[Sent] = field(default_factory=list)  # the saturated phase
    seconds: float = 0.0
    in_flight: float = 0.0  # the median number of messages unanswered
    solo_overhead: list[float] = field(default_factory=list)
    overhead: list[float] = field(default_factory=list)
    audit: dict[str, int] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds per part, saturated phase
    busy: float = 0.0  # the share of the machine's cores in use, saturated phase
    steady: list[Steady] = field(default_factory=list)
    peak_mb: float = 0.0  # the most resident memory a bot process held
    drain_cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds, jobs left after it
    drain_windows: int = 0  # the windows summarized after the saturated phase

    @property
    def rate(self) -> float:
        """The capacity: messages answered a second at saturation."""
        return len(self.sent) / self.seconds if self.seconds else 0.0

    @property
    def cpu_ms_per_message(self) -> float:
        """CPU of the bot processes, MariaDB and the chroma server per message, saturated."""
        used = sum(self.cpu.get(part, 0.0) for part in SERVING)
        return used * 1000 / len(self.sent) if self.sent else float("nan")

    def steady_p95_ratio(self, share: float) -> float:
        """Memory overhead p95 at `share` of the capacity over the single user's p95."""
        for phase in self.steady:
            if phase.share == share:
                return percentile(phase.overhead, 0.95) / percentile(self.solo_overhead, 0.95)
        return float("nan")


class CpuMeter:
    """CPU seconds of named processes and the machine's busy share between two readings, from
    /proc (Linux): where the time of the loaded phase went."""

    def __init__(self, pids: dict[str, list[int]]) -> None:
        self._pids = pids
        self._start = self._read()

    def stop(self) -> tuple[dict[str, float], float]:
        end = self._read()
        used = {name: end[0][name] - self._start[0][name] for name in self._pids}
        busy, total = (b - a for a, b in zip(self._start[1], end[1], strict=True))
        return used, busy / total if total else 0.0

    def _read(self) -> tuple[dict[str, float], tuple[int, int]]:
        seconds = {name: sum(_cpu_seconds(pid) for pid in pids)
                   for name, pids in self._pids.items()}
        ticks = [int(n) for n in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = ticks[3] + ticks[4]  # idle and iowait
        return seconds, (sum(ticks) - idle, sum(ticks))


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def peak_resident_mb(pid: int) -> float:
    """The most resident memory the process held so far (VmHWM), from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def mariadb_pids() -> list[int]:
    found = subprocess.run(["pidof", "mariadbd"], capture_output=True, text=True).stdout
    return [int(pid) for pid in found.split()]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(url: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


@contextmanager
def process(args: Sequence[str], ready_url: str, env: dict[str, str] | None = None,
            *, quiet: bool = False) -> Iterator[subprocess.Popen[bytes]]:
    """A child process, up once `ready_url` answers, stopped (SIGTERM) when the block ends."""
    output = subprocess.DEVNULL if quiet else None
    child = subprocess.Popen(args, env=env, stdout=output, stderr=output)
    try:
        wait_for(ready_url)
        yield child
    finally:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(60)
        except subprocess.TimeoutExpired:
            child.kill()


@contextmanager
def chroma_server(url: str | None) -> Iterator[tuple[str, list[int]]]:
    """The chroma server's URL, and its process when this benchmark started it."""
    if url:
        yield url, []
        return
    port = free_port()
    with tempfile.TemporaryDirectory() as folder, process(
        [str(Path(sys.executable).parent / "chroma"), "run", "--path", folder, "--host",
         "127.0.0.1", "--port", str(port)], f"http://127.0.0.1:{port}/api/v2/heartbeat",
        quiet=True,
    ) as child:
        yield f"http://127.0.0.1:{port}", [child.pid]


@contextmanager
def mysql_database(name: str) -> Iterator[str]:
    admin = pymysql.connect(**MYSQL, autocommit=True)  # type: ignore[arg-type]
    with admin.cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {name}")
        cursor.execute(f"CREATE DATABASE {name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
    try:
        yield f"mysql://root@127.0.0.1:3306/{name}"
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {name}")
        admin.close()


def settings_values(sql_url: str, vector_url: str, model_url: str, data_dir: str) -> dict[str, str]:
    """The environment of every bot process: defaults, but for where things are."""
    return {
        "COMPANION_DATA_DIR": data_dir,
        "COMPANION_SQL__URL": sql_url,
        "COMPANION_VECTOR__URL": vector_url,
        "COMPANION_VECTOR__COLLECTION": f"load{uuid.uuid4().hex[:8]}",
        "COMPANION_LLM__PROVIDER": "openai",
        "COMPANION_LLM__BASE_URL": model_url,
        "COMPANION_LLM__MODEL": "load",
    }


def user_id(user: int) -> str:
    return f"load:{user}"


def message(user: int, number: int) -> str:
    sentence = SENTENCES[(user * 7 + number) % len(SENTENCES)]
    return f"{sentence} ({message_id(user, number)}, my code word is {marker(user)})"


def seed_exchanges(user: int, count: int) -> list[Exchange]:
    return [Exchange(f"{SENTENCES[(user + n) % len(SENTENCES)]} My code word is {marker(user)}.",
                     "Tell me more!") for n in range(count)]


async def seed(settings: Settings, users: int, rounds_each: int) -> None:
    async with open_companion(settings) as companion:
        for user in range(users + 1):  # the last one is the single user
            await companion.ingest(user_id(user), seed_exchanges(user, rounds_each),
                                   run_jobs=False)


class Driver:
    """Sends the users' messages to the bot processes, at most `in_flight` at a time."""

    def __init__(self, ports: list[int], in_flight: int, think_seconds: float) -> None:
        self._ports = ports
        self._slots = asyncio.Semaphore(in_flight)
        self._think = think_seconds
        self.sent: list[Sent] = []
        self._in_flight = 0
        self.in_flight_seen: list[int] = []  # how many were unanswered as each one was sent

    async def user(self, session: aiohttp.ClientSession, user: int, messages: int,
                   *, pairs: bool) -> None:
        number = 0
        while number < messages:
            together = 2 if pairs and number + 1 < messages else 1
            await asyncio.gather(*(self._send(session, user, n)
                                   for n in range(number, number + together)))
            number += together
            await asyncio.sleep(self._think * together)  # never over the rate limit

    async def _send(self, session: aiohttp.ClientSession, user: int, number: int) -> None:
        async with self._slots:
            self._in_flight += 1
            self.in_flight_seen.append(self._in_flight)
            try:
                self.sent.append(await post(session, self._ports, user, number))
            finally:
                self._in_flight -= 1


async def post(session: aiohttp.ClientSession, ports: list[int], user: int, number: int
               ) -> Sent:
    """Message `number` of `user`, to process (user + number) mod P, answered."""
    index = (user + number) % len(ports)
    url = f"http://127.0.0.1:{ports[index]}/message"
    said = {"user": user_id(user), "text": message(user, number)}
    async with session.post(url, json=said) as response:
        answer = await response.json()
    return Sent(user, number, index, answer["ms"], "\n".join(answer["messages"]))


def _session() -> aiohttp.ClientSession:
    return aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None),
                                 connector=aiohttp.TCPConnector(limit=0))


async def drive(ports: list[int], users: Sequence[int], messages: int, in_flight: int,
                think_seconds: float) -> tuple[list[Sent], float, float]:
    """What was sent, in how many seconds, and the median number in flight."""
    driver = Driver(ports, in_flight, think_seconds)
    async with _session() as session:
        started = time.perf_counter()
        await asyncio.gather(*(driver.user(session, user, messages, pairs=user % 10 == 0)
                               for user in users))
        seconds = time.perf_counter() - started
    return driver.sent, seconds, float(percentile(driver.in_flight_seen, 0.5))


async def drive_steady(ports: list[int], users: int, first_number: int, rate: float,
                       seconds: float, rng: random.Random) -> tuple[list[Sent], float]:
    """Messages arriving at random (Poisson) at `rate` a second for about `seconds`, however
    many are unanswered (open loop): arrival k is message `first_number + k // users` of user
    `k mod users`. What was sent, and in how many seconds until the last answer."""
    count = max(1, round(rate * seconds))
    arrivals = list(itertools.accumulate(rng.expovariate(rate) for _ in range(count)))
    async with _session() as session:
        started = time.perf_counter()
        sending = []
        for k, at in enumerate(arrivals):
            await asyncio.sleep(max(0.0, started + at - time.perf_counter()))
            sending.append(asyncio.create_task(
                post(session, ports, k % users, first_number + k // users)))
        sent = await asyncio.gather(*sending)
        return list(sent), time.perf_counter() - started


async def model_records(model_url: str, *, forget: bool = False) -> dict[str, Any]:
    base = model_url.removesuffix("/v1")
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{base}/records") as response:
            records: dict[str, Any] = await response.json()
        if forget:
            async with session.post(f"{base}/forget") as response:
                await response.read()
    return records


def overheads(sent: Sequence[Sent], streams: dict[str, list[float]]) -> list[float]:
    """Each reply's whole time minus its model stream, where the model streamed it."""
    result = []
    for one in sent:
        stream = streams.get(message_id(one.user, one.number))
        if stream is not None:
            result.append(one.ms - (stream[1] - stream[0]) * 1000)
    return result


async def wait_for_jobs(settings: Settings, timeout: float = 900) -> int:
    """Wait while memory jobs are pending or running; the number left when time is up."""
    engine = open_engine(settings.sql_url)
    deadline = time.monotonic() + timeout
    try:
        while True:
            async with engine.connect() as conn:
                left = (await conn.execute(
                    select(func.count()).select_from(memory_jobs)
                    .where(memory_jobs.c.status.in_(["pending", "running"])))).scalar_one()
            if left == 0 or time.monotonic() > deadline:
                return int(left)
            await asyncio.sleep(2)
    finally:
        await engine.dispose()


async def windows_summarized(settings: Settings) -> int:
    """The summary jobs done so far."""
    engine = open_engine(settings.sql_url)
    try:
        async with engine.connect() as conn:
            return int((await conn.execute(
                select(func.count()).select_from(memory_jobs)
                .where((memory_jobs.c.kind == "summarize") & (memory_jobs.c.status == "done"))
            )).scalar_one())
    finally:
        await engine.dispose()


async def audit(settings: Settings, users: int, seed_rounds: int, sent: Sequence[Sent],
                records: dict[str, Any]) -> dict[str, int]:
    """What the database and the model server say of the messages `sent` to `users` users."""
    engine = open_engine(settings.sql_url)
    try:
        async with engine.connect() as conn:
            stored = (await conn.execute(select(rounds.c.user_id, rounds.c.user_text,
                                                rounds.c.status))).all()
            jobs = (await conn.execute(
                select(memory_jobs.c.user_id, memory_jobs.c.status, memory_jobs.c.first_round_id,
                       memory_jobs.c.last_round_id).where(memory_jobs.c.kind == "summarize"))).all()
            # A job that ran twice would have written its topics twice.
            twice = (await conn.execute(
                select(func.count()).select_from(
                    select(topics.c.source_job_id, topics.c.description)
                    .where(topics.c.source_job_id.is_not(None))
                    .group_by(topics.c.source_job_id, topics.c.description)
                    .having(func.count() > 1).subquery()))).scalar_one()
    finally:
        await engine.dispose()
    counts: dict[str, int] = {}
    for row in stored:
        for user, number in _ids(row.user_text):
            counts[message_id(user, number)] = counts.get(message_id(user, number), 0) + 1
    expected = {message_id(one.user, one.number) for one in sent}
    done = [job for job in jobs if job.status == "done"]
    per_user: dict[str, int] = {}
    for job in done:
        per_user[job.user_id] = per_user.get(job.user_id, 0) + 1
    said = Counter(one.user for one in sent)
    windows = {user_id(u): (seed_rounds + said[u]) // WINDOW for u in range(users)}
    return {
        "lost": len(expected - counts.keys()),
        "duplicated": sum(count - 1 for key, count in counts.items() if key in expected),
        "pending": sum(1 for row in stored if row.status == "pending"),
        "failed": sum(1 for row in stored if row.status == "failed"),
        "windows_expected": sum(windows.values()),
        "windows_summarized": sum(min(per_user.get(user, 0), count)
                                  for user, count in windows.items()),
        "windows_twice": sum(max(0, per_user.get(user, 0) - count)
                             for user, count in windows.items()) + int(twice),
        "jobs_not_done": sum(1 for job in jobs if job.status != "done"),
        "leaked": len(records["leaked"]),
        "overlapped": len(records["overlapped"]),
    }


def _ids(text: str) -> list[tuple[int, int]]:
    return [(int(u), int(n)) for u, n in MESSAGE_ID.findall(text)]


async def run_once(processes: int, args: argparse.Namespace, vector_url: str,
                   model_url: str, others: dict[str, list[int]]) -> Run:
    run = Run(processes)
    with mysql_database(f"companion_load_{processes}") as sql_url, \
            tempfile.TemporaryDirectory() as data_dir:
        env = settings_values(sql_url, vector_url, model_url, data_dir)
        settings = with_environment(env)
        await seed(settings, args.users, args.seed_rounds)
        ports = [free_port() for _ in range(processes)]
        bots = [process([sys.executable, "-m", "benchmarks.load.bot", "--port", str(port)],
                        f"http://127.0.0.1:{port}/ready", {**os.environ, **env})
                for port in ports]
        with _all(bots) as children:
            meter = CpuMeter({"bot processes": [child.pid for child in children], **others,
                              "this driver": [os.getpid()]})
            run.sent, run.seconds, run.in_flight = await drive(
                ports, range(args.users), args.messages, args.in_flight, args.think_seconds)
            run.cpu, run.busy = meter.stop()
            # The jobs left when the messages stop, alone: what upkeep costs a window.
            summarized = await windows_summarized(settings)
            print(f"  {len(run.sent)} messages answered; the memory jobs left ...", flush=True)
            meter = CpuMeter({"bot processes": [child.pid for child in children], **others})
            left = await wait_for_jobs(settings)
            run.drain_cpu, _ = meter.stop()
            run.drain_windows = await windows_summarized(settings) - summarized
            # Alone on warm processes, as the steady phases find them.
            solo, _, _ = await drive(ports[:1], [args.users], SOLO_MESSAGES, 1, 0.0)
            left += await wait_for_jobs(settings)
            await run_steady(run, ports, args,
                             {"bot processes": [child.pid for child in children], **others})
            run.peak_mb = max(peak_resident_mb(child.pid) for child in children)
        records = await model_records(model_url, forget=True)
        run.solo_overhead = overheads(solo, records["streams"])
        run.overhead = overheads(run.sent, records["streams"])
        for phase in run.steady:
            phase.overhead = overheads(phase.sent, records["streams"])
        everything = run.sent + [one for phase in run.steady for one in phase.sent]
        run.audit = await audit(settings, args.users, args.seed_rounds, everything, records)
        run.audit["jobs_left"] = left + await wait_for_jobs(settings)
    return run


async def run_steady(run: Run, ports: list[int], args: argparse.Namespace,
                     parts: dict[str, list[int]]) -> None:
    """The steady phases, at shares of the capacity the saturated phase measured; `parts`:
    the processes whose CPU each phase counts."""
    if args.steady_seconds <= 0:
        return
    rng = random.Random(7)
    number = args.messages  # each user's next message
    for share in STEADY_SHARES:
        phase = Steady(share, share * run.rate)
        print(f"  steady: {phase.rate:.1f} messages a second ({share:.0%} of capacity) ...",
              flush=True)
        meter = CpuMeter(parts)
        phase.sent, phase.seconds = await drive_steady(
            ports, args.users, number, phase.rate, args.steady_seconds, rng)
        phase.cpu, phase.busy = meter.stop()
        number += -(-len(phase.sent) // args.users)
        run.steady.append(phase)


@contextmanager
def _all(managers: list[Any]) -> Iterator[list[Any]]:
    with ExitStack() as stack:
        yield [stack.enter_context(manager) for manager in managers]


def with_environment(env: dict[str, str]) -> Settings:
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        return load_settings()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def percentile(values: Sequence[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def shown_wrong(sent: Sequence[Sent]) -> int:
    """Replies that are not the model's: an apology, a "slow down", a refusal."""
    return sum(1 for s in sent if REPLY not in s.shown)


def print_runs(runs: list[Run]) -> None:
    print("\nSaturated: at most --in-flight messages unanswered; msg/s is the capacity.")
    print(table_head("processes", "messages", "in flight", "msg/s",
                     "memory p50 / p95 / p99 ms", "single-user p95 ms",
                     "reply p50 / p95 / p99 ms", "errors", align="rrrrrrrr"))
    for run in runs:
        replies = [s.ms for s in run.sent]
        print(table_row(run.processes, len(run.sent), f"{run.in_flight:.0f}", f"{run.rate:.1f}",
                        _three(run.overhead), f"{percentile(run.solo_overhead, 0.95):.1f}",
                        _three(replies), shown_wrong(run.sent)))
    print_steady(runs)
    print("\nAudit:")
    for run in runs:
        print(f"  {run.processes} process(es): "
              + " ".join(f"{key}={value}" for key, value in run.audit.items()))
    print("\nWhere the CPU went while saturated (CPU ms per message; the machine has "
          f"{os.cpu_count()} cores):")
    for run in runs:
        parts = ", ".join(f"{name} {seconds * 1000 / max(1, len(run.sent)):.1f}"
                          for name, seconds in run.cpu.items())
        print(f"  {run.processes} process(es): {parts}; machine busy {run.busy:.0%}; "
              f"serving a message (bot, MariaDB, chroma): {run.cpu_ms_per_message:.1f}")
    for run in runs:
        if run.drain_windows:
            parts = ", ".join(f"{name} {seconds * 1000 / run.drain_windows:.0f}"
                              for name, seconds in run.drain_cpu.items())
            print(f"  {run.processes} process(es): the {run.drain_windows} windows summarized "
                  f"after the saturated phase cost, in CPU ms a window: {parts}")
    for run in runs:
        print(f"  {run.processes} process(es): a bot process held at most {run.peak_mb:.0f} MB "
              "of resident memory")
    if len(runs) == 2 and runs[0].rate:
        print(f"\nTwo processes serve {runs[1].rate / runs[0].rate:.2f}x the messages per second "
              "of one.")


def print_steady(runs: list[Run]) -> None:
    if not any(run.steady for run in runs):
        return
    print("\nSteady: messages arriving at random at a share of the capacity (open loop).")
    print(table_head("processes", "share", "msg/s asked", "messages", "memory p50 / p95 / p99 ms",
                     "p95 / single user", "reply p50 / p95 / p99 ms", "machine busy",
                     "CPU ms a message (bot, MariaDB, chroma)", "errors", align="rrrrrrrrrr"))
    for run in runs:
        for phase in run.steady:
            print(table_row(run.processes, f"{phase.share:.0%}", f"{phase.rate:.1f}",
                            len(phase.sent), _three(phase.overhead),
                            f"{run.steady_p95_ratio(phase.share):.1f}x",
                            _three([s.ms for s in phase.sent]), f"{phase.busy:.0%}",
                            _serving(phase), shown_wrong(phase.sent)))


def _serving(phase: Steady) -> str:
    parts = ", ".join(f"{phase.cpu.get(part, 0.0) * 1000 / len(phase.sent):.1f}"
                      for part in SERVING) if phase.sent else "-"
    return f"{phase.cpu_ms_per_message:.1f} ({parts})"


def _three(values: Sequence[float]) -> str:
    return " / ".join(f"{percentile(values, share):.0f}" for share in (0.5, 0.95, 0.99))


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--messages", type=int, default=20)
    parser.add_argument("--processes", default="1", help="runs, e.g. 1,2")
    parser.add_argument("--in-flight", type=int, default=100)
    parser.add_argument("--think-seconds", type=float, default=3.0)
    parser.add_argument("--seed-rounds", type=int, default=40)
    parser.add_argument("--steady-seconds", type=float, default=60.0,
                        help="each steady phase (0: none)")
    parser.add_argument("--stream-ms", type=float, default=200.0)
    parser.add_argument("--vector-url", default="", help="a running chroma server")
    return parser.parse_args(argv)


async def run_all(args: argparse.Namespace) -> list[Run]:
    port = free_port()
    with chroma_server(args.vector_url) as (vector_url, chroma), process(
        [sys.executable, "-m", "benchmarks.load.model", "--port", str(port),
         "--stream-ms", str(args.stream_ms)], f"http://127.0.0.1:{port}/records",
    ) as model:
        others = {"MariaDB": mariadb_pids(), "chroma server": chroma, "model server": [model.pid]}
        model_url = f"http://127.0.0.1:{port}/v1"
        runs = []
        for count in (int(p) for p in args.processes.split(",")):
            print(f"{count} process(es): {args.users} users x {args.messages} messages ...",
                  flush=True)
            runs.append(await run_once(count, args, vector_url, model_url, others))
        return runs


def main() -> None:
    args = parse_args()
    runs = asyncio.run(run_all(args))
    print_runs(runs)
    total = {key: sum(run.audit[key] for run in runs) for key in ("lost", "duplicated", "leaked")}
    first = runs[0]
    print(f"lost={total['lost']} duplicated={total['duplicated']} leaked={total['leaked']} "
          f"cpu_ms_per_message={first.cpu_ms_per_message:.1f} "
          f"p95_ratio_at_half={first.steady_p95_ratio(0.5):.2f}")


if __name__ == "__main__":
    main()
