"""One decision, whatever the front end: the table the `hooks` binary's front ends are held to
(hooks-cli/tests/front_ends), decided by ``hooks.load`` as the guard decides it, under the same
managed file."""

import json
import pathlib
import shutil

import hooks

FIXTURE = pathlib.Path(__file__).resolve().parents[2] / "hooks-cli" / "tests" / "front_ends"


def verdict_of(result):
    return {"deny": "deny", "ask_user": "ask"}.get(result.action, "allow")


def test_the_python_package_decides_as_the_table_says(tmp_path, monkeypatch, run):
    table = json.loads((FIXTURE / "cases.json").read_text())
    shutil.copytree(FIXTURE / "managed", tmp_path / "managed")
    shutil.copytree(FIXTURE / "project", tmp_path / "project")
    monkeypatch.setenv("HOOKS_MANAGED_DIR", str(tmp_path / "managed"))
    registry = hooks.load(tmp_path / "project" / "hooks.yaml")

    decided = 0
    for case in table["cases"]:
        # The package's sessions' state is its own, in memory: a session's remembered answer
        # from elsewhere is not there to settle a question.
        if case.get("session"):
            continue
        data = {
            "tool_name": "Bash",
            "tool_input": {"command": case["command"]},
            "session_id": "front-ends",
            "cwd": str(tmp_path / "project"),
        }
        result = run(registry.emit("tool:pre", data))
        assert verdict_of(result) == case["verdict"], (case["name"], result)
        # The reference's merge keeps no rewrite beside a question (an ask's data is the
        # event's): the command is compared where the call goes ahead.
        if case["verdict"] == "allow" and case.get("runs") is not None:
            assert result.data["tool_input"]["command"] == case["runs"], (case["name"], result)
        decided += 1
    assert decided >= 6


def test_a_managed_rule_holds_over_a_file_loaded_with_its_layers(tmp_path, monkeypatch, run):
    shutil.copytree(FIXTURE / "managed", tmp_path / "managed")
    (tmp_path / "hooks.yaml").write_text("hooks: {}\n")
    monkeypatch.setenv("HOOKS_MANAGED_DIR", str(tmp_path / "managed"))
    curl = {"tool_name": "Bash", "tool_input": {"command": "curl https://example.com"}}

    layered = hooks.load(tmp_path / "hooks.yaml")
    assert run(layered.emit("tool:pre", curl)).action == "deny"

    alone = hooks.load(tmp_path / "hooks.yaml", layers=False)
    assert run(alone.emit("tool:pre", curl)).action == "continue"
