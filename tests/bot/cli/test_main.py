"""The `companion` command as a user runs it (say, memory, ingest, pool, version): a real
process, the scripted LLM server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot import __version__
from tests.fakes.openai_server import Error, ScriptedLLM

COMPANION = str(Path(sys.executable).parent / "companion")


def _run(args: list[str], env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [COMPANION, *args], input=stdin, env=env, capture_output=True, text=True, timeout=120,
        cwd=env["COMPANION_DATA_DIR"],
    )


@pytest.fixture
def env(tmp_path: Path, llm: ScriptedLLM) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    return clean | {
        "COMPANION_DATA_DIR": str(tmp_path),
        "COMPANION_LLM__PROVIDER": "openai",
        "COMPANION_LLM__BASE_URL": llm.base_url,
        "COMPANION_LLM__MAX_RETRIES": "0",
    }


def test_why_explains_a_reply_given_by_an_earlier_command(
    env: dict[str, str], llm: ScriptedLLM
) -> None:
    llm.enqueue("Swimming is lovely!")
    _run(["say", "--user", "ana", "I love swimming"], env)
    why = _run(["say", "--user", "ana", "/why"], env)  # another process
    assert why.returncode == 0, why.stderr
    assert why.stdout.startswith("Recency: 0 recent rounds\n"), why.stdout


def test_version(env: dict[str, str]) -> None:
    assert _run(["version"], env).stdout.strip() == f"companion {__version__}"


def test_say_prints_the_reply_and_remembers_it(env: dict[str, str], llm: ScriptedLLM) -> None:
    llm.enqueue("Table tennis is a great sport!")
    said = _run(["say", "--user", "ana", "I play table tennis"], env)
    assert (said.returncode, said.stdout) == (0, "Table tennis is a great sport!\n")

    shown = _run(["memory", "--user", "ana", "--json"], env)
    report = json.loads(shown.stdout)
    assert report["rounds_total"] == 1
    assert report["recent_rounds"][0]["user"] == "I play table tennis"
    assert report["recent_rounds"][0]["reply"] == "Table tennis is a great sport!"
    llm.enqueue("Hello Bo!")
    _run(["say", "--user", "bo", "Hi"], env)  # another user's round in between
    llm.enqueue("Nice!")
    _run(["say", "--user", "ana", "I won a match"], env)
    text = _run(["memory", "--user", "ana"], env).stdout
    assert "User ana: 2 rounds (2 not yet summarized), 0 topics" in text
    assert "#1 [answered] you: I play table tennis" in text  # Ana's first and second, not
    assert "#2 [answered] you: I won a match" in text  # the database's ids (3 here)
    nobody = _run(["memory", "--user", "anna"], env).stdout
    assert nobody.startswith("Nothing is stored for user 'anna'")


def test_memory_keeps_a_reply_of_several_lines_inside_its_round_and_shows_no_empty_section(
    env: dict[str, str], llm: ScriptedLLM
) -> None:
    llm.enqueue("Three ideas:\n- a walk\n\n- a book")
    _run(["say", "--user", "ana", "What could I do today?"], env)
    shown = _run(["memory", "--user", "ana"], env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.endswith(
        "Last 1 round:\n"
        "  #1 [answered] you: What could I do today?\n"
        "     companion: Three ideas:\n"
        "                - a walk\n"
        "\n"
        "                - a book\n"
        "\n"
        "Topics:\n"
        "  (none yet: topics are summarized from the rounds over time)\n")  # no "Newest 0 facts"


def test_say_dash_holds_a_conversation_from_stdin(env: dict[str, str], llm: ScriptedLLM) -> None:
    llm.enqueue("Hi Ana!", "You said your name is Ana.")
    said = _run(["say", "-"], env, stdin="My name is Ana\n\nWhat is my name?\n")
    assert said.stdout == "Hi Ana!\n\nYou said your name is Ana.\n"  # apart, not back to back
    assert "Host: My name is Ana" in llm.last_system_prompt
    assert len(llm.chat_requests) == 2  # the blank line was skipped


def test_say_json_prints_one_object_per_reply_with_the_memories_it_used(
    env: dict[str, str], llm: ScriptedLLM
) -> None:
    llm.enqueue("Lovely!", "Lea [1].")
    said = _run(["say", "--json", "-"], env,
                stdin="Remember that my sister's name is Lea\nWhat is my sister called?\n"
                      "/nosuchcommand\n")
    taught, answered, refused = [json.loads(line) for line in said.stdout.splitlines()]
    assert taught["message"] == "Remember that my sister's name is Lea"
    assert taught["reply"].startswith("Noted, I'll remember")
    assert answered["reply"] == "Lea."  # as a person reads it: the mark is out
    [cited] = [m for m in answered["memories"] if m["cited"]]
    assert cited["kind"] == "fact" and "Lea" in cited["text"] and cited["number"] == 1
    assert refused["command"] and refused["problem"].startswith("Unknown command")
    assert said.returncode == 1  # one of them could not be done


def test_model_outage_exits_nonzero_with_a_clear_message(
    env: dict[str, str], llm: ScriptedLLM
) -> None:
    llm.enqueue(Error(503))
    said = _run(["say", "are you there?"], env)
    assert said.returncode == 1
    assert "answered with an error (503)" in said.stderr
    assert "Your message is saved" in said.stderr
    assert "Traceback" not in said.stderr
    assert json.loads(_run(["memory", "--json"], env).stdout)["rounds_total"] == 1


def test_commands_work_through_say(env: dict[str, str]) -> None:
    assert "/persona [name]" in _run(["say", "/help"], env).stdout
    assert "Switched to Sam" in _run(["say", "/persona coach"], env).stdout


def test_invalid_config_fails_at_start_naming_the_setting(env: dict[str, str]) -> None:
    said = _run(["say", "hi"], env | {"COMPANION_CHAT__RECENCY_ROUNDS": "many"})
    assert said.returncode == 1
    assert "Invalid setting 'chat.recency_rounds'" in said.stderr
    assert "Traceback" not in said.stderr


@pytest.mark.real_model
def test_say_answers_with_the_packaged_offline_model(tmp_path: Path) -> None:
    """The real SmolLM2 on llama.cpp and the real MiniLM: no server, no network."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env |= {"COMPANION_DATA_DIR": str(tmp_path), "COMPANION_LLM__MAX_TOKENS": "40"}
    said = _run(["say", "--user", "ana", "Hi! My favourite sport is table tennis."], env)
    assert said.returncode == 0, said.stderr
    assert len(said.stdout.strip()) > 0
    report = json.loads(_run(["memory", "--user", "ana", "--json"], env).stdout)
    assert report["recent_rounds"][0]["reply"] == said.stdout.strip()


@pytest.mark.parametrize(
    ("name", "value", "named"),
    [
        ("COMPANION_SQL__URL", "mysql+aiomysql://root@127.0.0.1:1/nothing", "sql.url"),
        ("COMPANION_SQL__URL", "not a url", "sql.url"),
        ("COMPANION_VECTOR__URL", "http://127.0.0.1:1", "vector.url"),
    ],
)
def test_unreachable_stores_are_reported_without_a_trace(
    env: dict[str, str], name: str, value: str, named: str
) -> None:
    said = _run(["say", "hi"], env | {name: value})
    assert said.returncode == 1
    assert f"setting '{named}'" in said.stderr
    assert "Traceback" not in said.stderr


def _jsonl(path: Path, lines: list[dict[str, str]]) -> str:
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return str(path)


def test_ingest_then_upkeep_commands(env: dict[str, str], tmp_path: Path) -> None:
    env = env | {"COMPANION_MEMORY__SUMMARIZE_EVERY": "5",
                 "COMPANION_MEMORY__SUMMARIZER": "extractive"}
    lines = []
    for i in range(12):
        lines += [{"role": "user", "text": f"I play table tennis at the club, session {i}."},
                  {"role": "assistant", "text": "Nice!"}]
    ingested = _run(["ingest", _jsonl(tmp_path / "chat.jsonl", lines), "--user", "ana"], env)
    assert "Imported 12 rounds for ana." in ingested.stdout
    assert "summarized 2 windows" in ingested.stdout
    report = json.loads(_run(["memory", "--user", "ana", "--json"], env).stdout)
    assert (report["rounds_total"], report["rounds_unsummarized"]) == (12, 2)
    assert [t["label"] for t in report["topics"]] == ["hobbies", "hobbies"]
    assert "merged 0 labels" in _run(["memory", "merge", "--user", "ana"], env).stdout
    undo = _run(["memory", "unmerge", "nothing-here", "--user", "ana"], env)
    assert undo.returncode == 1 and "No merged topic nothing-here" in undo.stderr


def test_ingest_keeps_the_files_times_and_a_companion_that_spoke_first(
    env: dict[str, str], tmp_path: Path
) -> None:
    env = env | {"COMPANION_MEMORY__SUMMARIZE_EVERY": "2",
                 "COMPANION_MEMORY__SUMMARIZER": "extractive"}
    lines = [{"role": "assistant", "text": "Welcome back! How was Xiamen?",
              "timestamp": "2023-05-08T13:56:00Z"},
             {"role": "user", "text": "I went to Xiamen with my sister Lea.",
              "timestamp": "2023-05-08T13:57:00+00:00"},
             {"role": "assistant", "text": "You should try the peanut soup there."}]
    ingested = _run(["ingest", _jsonl(tmp_path / "chat.jsonl", lines), "--user", "ana"], env)
    assert "Imported 2 rounds for ana." in ingested.stdout
    report = json.loads(_run(["memory", "--user", "ana", "--json"], env).stdout)
    assert [(r["at"][:16], r["user"], r["reply"]) for r in report["recent_rounds"]] == [
        ("2023-05-08T13:56", "", "Welcome back! How was Xiamen?"),
        ("2023-05-08T13:57", "I went to Xiamen with my sister Lea.",
         "You should try the peanut soup there."),
    ]
    assert {(f["said_by"], f["said_at"][:16], f["text"]) for f in report["newest_facts"]} == {
        ("user", "2023-05-08T13:57", "I went to Xiamen with my sister Lea."),
        ("companion", "2023-05-08T13:57", "You should try the peanut soup there."),
    }


def test_ingest_refuses_a_bad_file_naming_every_bad_line(
    env: dict[str, str], tmp_path: Path
) -> None:
    path = _jsonl(tmp_path / "bad.jsonl", [{"role": "user", "text": "hi"}])
    with open(path, "a") as out:
        out.write('{"role": "robot", "text": "beep"}\n{"role": "user", "text": "ok"}\n'
                  '    {"role": "user" "text": "no comma"}\n')
    refused = _run(["ingest", path], env)
    assert refused.returncode == 1
    assert "bad.jsonl: Line 2: role must be 'user' or 'assistant'" in refused.stderr
    assert "Line 4: not JSON (Expecting ',' delimiter)" in refused.stderr
    assert "line 1" not in refused.stderr and "column" not in refused.stderr  # the file's lines
    assert json.loads(_run(["memory", "--json"], env).stdout)["rounds_total"] == 0


def test_ingesting_a_file_again_stores_only_what_is_new(
    env: dict[str, str], tmp_path: Path
) -> None:
    lines = [{"role": "user", "text": "I adopted a cat", "timestamp": "2024-03-01T10:00:00Z"},
             {"role": "assistant", "text": "What is her name?"},
             {"role": "user", "text": "Miso", "timestamp": "2024-03-01T10:01:00Z"}]
    path = _jsonl(tmp_path / "chat.jsonl", lines)
    assert "Imported 2 rounds for ana." in _run(["ingest", path, "--user", "ana"], env).stdout
    lines.append({"role": "user", "text": "She sleeps a lot", "timestamp": 1709287320})
    again = _run(["ingest", _jsonl(tmp_path / "chat.jsonl", lines), "--user", "ana"], env)
    assert ("Imported 1 round for ana; skipped 2 rounds stored before (the same message at "
            "the same time).") in again.stdout
    assert json.loads(_run(["memory", "--user", "ana", "--json"], env).stdout)[
        "rounds_total"] == 3


def _scripted_pool_model(body: dict) -> str:
    """A capable model for `pool grow`: writes a question, answers it, scores it with the
    first kind the rubric names."""
    said = body["messages"][-1]["content"]
    if said.startswith("Here is the rubric"):
        kinds = said.split("exactly one of: ", 1)[1].split(".", 1)[0]
        return f"score: 90\nkind: {kinds.split(', ')[0]}"
    if said.startswith("You are "):
        kind = said.split('of the kind "', 1)[1].split('"', 1)[0]
        return f"Could you help me with a {kind}, please? I'm Ana from Leeds."
    return "Here is a careful answer, Ana."


def test_pool_grow_adds_scored_candidates_and_the_demo_model_cannot(
    env: dict[str, str], llm: ScriptedLLM
) -> None:
    llm.responder = _scripted_pool_model
    grown = _run(["pool", "grow", "--rounds", "3"], env)
    assert grown.returncode == 0, grown.stderr
    assert "Asked 3: 3 kept, 0 scored too low, 0 unusable" in grown.stdout
    for name in ("tutor", "coach", "companion"):
        assert f"{name}/" in grown.stdout and "candidate" in grown.stdout
    listed = _run(["say", "/admin pool"], env)
    assert "3 candidate" in listed.stdout
    assert "Ana" not in listed.stdout and "Leeds" not in listed.stdout  # scrubbed
    assert "Retriever in use: plain cosine" in _run(["pool"], env).stdout

    demo = env | {"COMPANION_LLM__PROVIDER": "local"}
    refused = _run(["pool", "grow", "--rounds", "1"], demo)
    assert refused.returncode == 1 and "needs a capable model" in refused.stderr


HEAVY = ["sklearn", "chromadb", "presidio_analyzer", "spacy", "onnxruntime", "openai",
         "jobs.worker", "bot.commands.layer", "bot.app", "llama_cpp", "textual"]


# Loaded only when a text is scrubbed for the pool, a summary clustered or a retriever trained.
LOADED_WHEN_USED = ["sklearn", "scipy", "presidio_analyzer", "spacy"]


def _loaded_by(commands: list[tuple[list[str], int]], env: dict[str, str] | None = None,
               heavy: list[str] = HEAVY) -> str:
    """Run each command in one fresh interpreter, check its exit code, and say which of the
    `heavy` modules it loaded."""
    probe = ("import sys\nfrom click.testing import CliRunner\nfrom bot.cli.main import main\n"
             f"for args, code in {commands!r}:\n"
             "    result = CliRunner().invoke(main, args)\n"
             "    assert result.exit_code == code, (args, result.output)\n"
             f"print([m for m in {heavy!r} if m in sys.modules])")
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, env=env, cwd=env and env["COMPANION_DATA_DIR"]
                          ).stdout.strip()


def test_version_and_help_do_not_load_the_stores_or_the_models() -> None:
    # They started in 3.1 s when the command layer (scikit-learn, chromadb, presidio, the
    # memory jobs) came in with the CLI; people run them first, to see that it works.
    assert _loaded_by([(["version"], 0), (["--help"], 0), (["memory", "--help"], 0)]) == "[]"


def test_a_companion_opened_loads_no_scrubber_and_no_learner_until_one_is_used(
    env: dict[str, str]
) -> None:
    # Presidio with spaCy, and scikit-learn with SciPy, were 1.5 s of the 4.8 s a companion
    # took to import, and about 130 MB.
    assert _loaded_by([(["say", "/help"], 0), (["memory"], 0)], env, LOADED_WHEN_USED) == "[]"


def test_cheap_commands_and_mistakes_are_answered_without_loading_the_models(
    env: dict[str, str]
) -> None:
    # Each took 5-10 s (and `memory jobs` 535 MB) when every command opened the whole
    # companion: listing jobs reads SQL only; a missing flag or token, or an empty message,
    # is refused before anything is loaded.
    tokenless = {k: v for k, v in env.items() if not k.endswith("_BOT_TOKEN")}
    cheap = [(["memory", "jobs"], 0), (["run"], 1), (["run", "--telegram"], 1), (["say", ""], 1),
             (["say", "x" * 5000], 1)]
    assert _loaded_by(cheap, tokenless) == "[]"
    assert _run(["memory", "jobs"], env).stdout == "No memory jobs waiting, running or failed.\n"
    refused = _run(["say", ""], env)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.strip() == "Your message was empty. Type something to chat, or /help."
    as_json = _run(["say", "--json", ""], env)
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout)["problem"].startswith("Your message was empty.")
    assert "Say which frontends to run" in _run(["run"], tokenless).stderr
    assert "TELEGRAM_BOT_TOKEN" in _run(["run", "--telegram"], tokenless).stderr


@pytest.mark.parametrize("command", ["/forget nosuchid", "/nosuchcommand", "/persona nobody",
                                     "/share maybe", "/admin stats"])
def test_a_command_that_cannot_be_done_exits_nonzero_saying_why(
    env: dict[str, str], command: str
) -> None:
    result = _run(["say", "--user", "bob", command], env)  # bob is no admin
    assert result.returncode == 1
    assert result.stdout == ""
    [why] = result.stderr.strip().splitlines()  # one line that says why, and no log line
    assert "WARNING" not in why and "Traceback" not in why
    assert _run(["say", "/help"], env).returncode == 0
