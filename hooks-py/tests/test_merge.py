"""The merge of a chain's answers into one result (the package's rules, the kernel's)."""

import pytest

from hooks import HookRegistry, HookResult


def chain(*answers, **registry_options):
    """A registry whose tool:pre handlers answer `answers` in order, and a log of who ran."""
    registry = HookRegistry(**registry_options)
    ran = []
    for index, answer in enumerate(answers):

        async def handler(event, data, index=index, answer=answer):
            ran.append(index)
            return answer(data) if callable(answer) else answer

        registry.register("tool:pre", handler, priority=index, name=f"h{index}")
    return registry, ran


def test_hook_result_defaults():
    r = HookResult()
    assert r.action == "continue"
    assert r.data is None and r.reason is None
    assert r.context_injection is None
    assert r.context_injection_role == "system"
    assert r.ephemeral is False
    assert r.approval_prompt is None and r.approval_options is None
    assert r.approval_timeout == 300.0
    assert r.approval_default == "deny"
    assert r.suppress_output is False
    assert r.user_message is None
    assert r.user_message_level == "info"
    assert r.append_to_last_tool_result is False
    assert r == HookResult(action="continue")


def test_hook_result_validates_its_literals():
    with pytest.raises(ValueError, match="action"):
        HookResult(action="explode")
    with pytest.raises(ValueError, match="user_message_level"):
        HookResult(user_message_level="loud")
    with pytest.raises(TypeError):
        HookResult(data=["not", "a", "dict"])
    assert HookResult(action="block").action == "deny"
    assert HookResult(action="allow").action == "continue"
    r = HookResult()
    r.action = "modify"
    assert r.action == "modify"
    with pytest.raises(ValueError):
        r.action = "nope"


def test_hook_result_dump_and_copy():
    r = HookResult(action="deny", reason="x", data={"a": 1})
    dumped = r.model_dump()
    assert dumped["action"] == "deny" and dumped["data"] == {"a": 1}
    assert len(dumped) == 14
    copy = r.model_copy(update={"reason": "y"})
    assert (copy.action, copy.reason, r.reason) == ("deny", "y", "x")
    assert "deny" in repr(r)


def test_deny_stops_the_chain_and_is_the_result(run):
    registry, ran = chain(
        HookResult(),
        HookResult(action="deny", reason="System files are protected"),
        HookResult(action="inject_context", context_injection="never"),
    )
    result = run(registry.emit("tool:pre", {}))
    assert ran == [0, 1]
    assert result.action == "deny"
    assert result.reason == "System files are protected"
    assert result.context_injection is None


def test_modify_chains_data_and_a_modify_only_chain_ends_as_modify(run):
    registry, ran = chain(
        lambda data: HookResult(action="modify", data={**data, "args": {"x": 1}}),
        lambda data: HookResult(action="modify", data={**data, "seen": data["args"]["x"]}, reason="second"),
    )
    result = run(registry.emit("tool:pre", {"tool_name": "calc"}))
    assert result.action == "modify"
    assert result.data["args"] == {"x": 1}
    assert result.data["seen"] == 1
    assert result.reason == "second"


def test_the_reference_implementations_continue_is_behind_a_flag(run):
    registry, _ = chain(
        lambda data: HookResult(action="modify", data={**data, "args": {"x": 1}}),
        modified_chain="continue",
    )
    result = run(registry.emit("tool:pre", {}))
    assert result.action == "continue"
    assert result.data["args"] == {"x": 1}
    with pytest.raises(ValueError):
        HookRegistry(modified_chain="sometimes")


def test_injections_merge_with_blank_lines_and_first_settings(run):
    registry, _ = chain(
        HookResult(action="inject_context", context_injection="one", context_injection_role="user", ephemeral=True),
        HookResult(action="inject_context", context_injection="two", context_injection_role="assistant"),
    )
    result = run(registry.emit("tool:pre", {}))
    assert result.action == "inject_context"
    assert result.context_injection == "one\n\ntwo"
    assert result.context_injection_role == "user"
    assert result.ephemeral is True


def test_first_ask_user_wins_over_later_asks_and_injections(run):
    registry, ran = chain(
        HookResult(action="ask_user", approval_prompt="first?", approval_options=["Allow once", "Deny"]),
        HookResult(action="inject_context", context_injection="note"),
        HookResult(action="ask_user", approval_prompt="second?"),
    )
    result = run(registry.emit("tool:pre", {}))
    assert ran == [0, 1, 2]
    assert result.action == "ask_user"
    assert result.approval_prompt == "first?"
    assert result.approval_options == ["Allow once", "Deny"]
    # Nothing lost: the injection is on the result too.
    assert result.context_injection == "note"


def test_a_later_deny_beats_an_ask(run):
    registry, _ = chain(
        HookResult(action="ask_user", approval_prompt="ok?"),
        HookResult(action="deny", reason="no"),
    )
    result = run(registry.emit("tool:pre", {}))
    assert (result.action, result.reason) == ("deny", "no")


def test_modified_data_survives_a_later_injection(run):
    registry, _ = chain(
        lambda data: HookResult(action="modify", data={**data, "clean": True}),
        HookResult(action="inject_context", context_injection="cleaned"),
    )
    result = run(registry.emit("tool:pre", {}))
    assert result.action == "inject_context"
    assert result.data["clean"] is True


def test_every_user_message_is_kept_with_the_highest_level(run):
    registry, _ = chain(
        HookResult(user_message="info first"),
        HookResult(user_message="then a warning", user_message_level="warning", suppress_output=True),
        HookResult(action="modify", data={"x": 1}, user_message="and more"),
    )
    result = run(registry.emit("tool:pre", {}))
    assert result.user_message == "info first\nthen a warning\nand more"
    assert result.user_message_level == "warning"
    assert result.suppress_output is True


def test_a_plain_continue_chain_carries_the_final_data(run):
    registry, _ = chain(HookResult(), HookResult())
    result = run(registry.emit("tool:pre", {"k": "v"}))
    assert result.action == "continue"
    assert result.data["k"] == "v"
    assert result.user_message is None and result.context_injection is None


def test_modify_without_data_is_ignored(run):
    registry, _ = chain(HookResult(action="modify"))
    result = run(registry.emit("tool:pre", {"k": "v"}))
    assert result.action == "continue"
    assert result.data["k"] == "v"
