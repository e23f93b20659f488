"""Hooks files, the safety checker and the redaction module from Python."""

import textwrap

import pytest

import hooks
from hooks import HookRegistry, HookResult, safety


def write(tmp_path, text):
    path = tmp_path / "hooks.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def test_load_registers_the_files_entries(tmp_path, run):
    path = write(
        tmp_path,
        """
        hooks:
          PreToolUse:
            - type: matcher
              name: no_force_push
              match:
                tool: "Bash"
                args:
                  command: "git push --force*"
              action: block
              message: "Force pushes rewrite shared history"
        """,
    )
    registry = hooks.load(path)
    assert isinstance(registry, HookRegistry)
    assert registry.list_handlers() == {"tool:pre": ["no_force_push"]}

    pushed = {"tool_name": "Bash", "tool_input": {"command": "git push --force origin main"}}
    result = run(registry.emit("tool:pre", pushed))
    assert result.action == "deny"
    assert "history" in result.reason

    listed = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    assert run(registry.emit("tool:pre", listed)).action == "continue"


def test_load_modules_and_python_handlers_share_one_chain(tmp_path, run):
    path = write(
        tmp_path,
        f"""
        modules:
          safety:
            workspace: "{tmp_path}"
        hooks: {{}}
        """,
    )
    registry = hooks.load(path)
    seen = []

    async def audit(event, data):
        seen.append(data["tool_input"]["command"])
        return HookResult()

    registry.register("tool:pre", audit, priority=-100)
    call = {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}
    result = run(registry.emit("tool:pre", call))
    assert seen == ["rm -rf /"]
    assert result.action == "deny"


def test_load_into_an_existing_registry(tmp_path):
    path = write(
        tmp_path,
        """
        hooks:
          tool:post:
            - type: matcher
              name: note
              match: {tool: "*"}
              action: inject
              message: "checked"
        """,
    )
    registry = HookRegistry()
    assert hooks.load(path, registry=registry) is registry
    assert registry.list_handlers("tool:post") == {"tool:post": ["note"]}


def test_a_bad_hooks_file_names_the_problem(tmp_path):
    path = write(
        tmp_path,
        """
        hooks:
          PreToolUse:
            - type: teleport
        """,
    )
    with pytest.raises(ValueError, match="hooks.yaml"):
        hooks.load(path)
    with pytest.raises(ValueError):
        hooks.load(tmp_path / "missing.yaml")


def test_safety_check_denies_destructive_commands(tmp_path):
    denial = safety.check("rm -rf /", str(tmp_path))
    assert denial is not None
    assert denial.severity == "critical"
    assert denial.message
    assert str(denial) == denial.message
    assert "Denial" in repr(denial)
    assert safety.check("git status", tmp_path) is None
    assert safety.check("git reset --hard", tmp_path) is not None


def test_redact_replaces_secrets():
    key = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 4
    text = f"export ANTHROPIC_API_KEY={key}"
    clean = hooks.redact(text)
    assert key not in clean
    assert clean.startswith("export ANTHROPIC_API_KEY=")
    assert hooks.redact("nothing secret here") == "nothing secret here"


def test_a_files_hooks_that_cannot_run_deny(tmp_path, run):
    path = write(
        tmp_path,
        """
        hooks:
          PreToolUse:
            - type: matcher
              name: anything
              match: {tool: "*"}
              action: allow
        """,
    )
    registry = hooks.load(path)
    result = run(registry.emit("tool:pre", {"tool_name": "Bash", "tool_input": {"handle": object()}}))
    assert result.action == "deny"
    assert "anything" in result.reason
