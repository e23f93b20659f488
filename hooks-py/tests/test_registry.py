"""The reference's documented behaviours of HookRegistry, in this package."""

import asyncio
import logging

import pytest

from hooks import HookRegistry, HookResult


def test_event_constants_are_the_canonical_names():
    assert HookRegistry.TOOL_PRE == "tool:pre"
    assert HookRegistry.TOOL_POST == "tool:post"
    assert HookRegistry.SESSION_START == "session:start"
    assert HookRegistry.SESSION_END == "session:end"
    assert HookRegistry.PROMPT_SUBMIT == "prompt:submit"
    assert HookRegistry.CONTEXT_PRE_COMPACT == "context:pre_compact"
    assert HookRegistry.ORCHESTRATOR_COMPLETE == "orchestrator:complete"
    assert HookRegistry.USER_NOTIFICATION == "user:notification"
    assert HookRegistry.LLM_REQUEST_DEBUG == "llm:request:debug"
    assert HookRegistry.DECISION_TOOL_RESOLUTION == "decision:tool_resolution"


def test_handlers_run_by_ascending_priority_then_registration_order(run):
    registry = HookRegistry()
    seen = []

    def make(label):
        async def handler(event, data):
            seen.append(label)
            return HookResult()

        return handler

    registry.register("tool:pre", make("late"), priority=20)
    registry.register("tool:pre", make("first-of-ten"), priority=10)
    registry.register("tool:pre", make("early"), priority=-5)
    registry.register("tool:pre", make("second-of-ten"), priority=10)
    run(registry.emit("tool:pre", {}))
    assert seen == ["early", "first-of-ten", "second-of-ten", "late"]


def test_handler_receives_event_name_and_data(run):
    registry = HookRegistry()
    received = []

    async def handler(event, data):
        received.append((event, dict(data)))
        return HookResult()

    registry.register(HookRegistry.TOOL_PRE, handler)
    run(registry.emit("tool:pre", {"tool_name": "calculator"}))
    [(event, data)] = received
    assert event == "tool:pre"
    assert data["tool_name"] == "calculator"


def test_unregister_callable_removes_only_that_handler(run):
    registry = HookRegistry()
    calls = []

    async def a(event, data):
        calls.append("a")
        return HookResult()

    async def b(event, data):
        calls.append("b")
        return HookResult()

    unregister_a = registry.register("tool:pre", a)
    registry.register("tool:pre", b)
    unregister_a()
    unregister_a()  # a second call does nothing
    run(registry.emit("tool:pre", {}))
    assert calls == ["b"]
    assert registry.list_handlers("tool:pre") == {"tool:pre": ["b"]}


def test_on_is_an_alias_of_register(run):
    registry = HookRegistry()

    async def deny(event, data):
        return HookResult(action="deny", reason="no")

    unregister = registry.on("tool:pre", deny, priority=1, name="denier")
    assert registry.list_handlers() == {"tool:pre": ["denier"]}
    assert run(registry.emit("tool:pre", {})).action == "deny"
    unregister()
    assert run(registry.emit("tool:pre", {})).action == "continue"


def test_unregister_by_name(run):
    registry = HookRegistry()

    async def h(event, data):
        return HookResult(action="deny")

    registry.register("tool:pre", h, name="gate")
    registry.register("tool:post", h, name="gate")
    registry.unregister("gate")
    assert registry.list_handlers() == {}


def test_list_handlers_names_default_to_function_name_and_skip_unnamed():
    registry = HookRegistry()

    async def validator(event, data):
        return HookResult()

    class Anonymous:
        async def __call__(self, event, data):
            return HookResult()

    registry.register("tool:pre", validator)
    registry.register("tool:pre", Anonymous())
    registry.register("session:start", validator, name="auth_check")
    assert registry.list_handlers() == {
        "tool:pre": ["validator"],
        "session:start": ["auth_check"],
    }
    assert registry.list_handlers("tool:pre") == {"tool:pre": ["validator"]}
    assert registry.list_handlers("custom:event") == {"custom:event": []}


def test_aliases_reach_the_canonical_event(run):
    registry = HookRegistry()
    seen = []

    async def handler(event, data):
        seen.append(event)
        return HookResult()

    registry.register("PreToolUse", handler)
    run(registry.emit("tool:pre", {}))
    run(registry.emit("PreToolUse", {}))
    assert seen == ["tool:pre", "tool:pre"]
    assert registry.list_handlers() == {"tool:pre": ["handler"]}


def test_a_misspelt_event_is_refused():
    registry = HookRegistry()

    async def handler(event, data):
        return HookResult()

    with pytest.raises(ValueError, match="tool:pre"):
        registry.register("tool:prre", handler)
    with pytest.raises(TypeError):
        registry.register("tool:pre", "not callable")


def test_default_fields_merge_under_event_data(run):
    registry = HookRegistry()
    received = []

    async def handler(event, data):
        received.append(dict(data))
        return HookResult()

    registry.register("tool:pre", handler)
    registry.set_default_fields(session_id="sess_123", user_id="user_456")
    run(registry.emit("tool:pre", {"tool_name": "calculator", "user_id": "explicit"}))
    data = received[-1]
    assert data["session_id"] == "sess_123"
    assert data["user_id"] == "explicit"
    assert data["tool_name"] == "calculator"

    # New defaults replace the old ones entirely.
    registry.set_default_fields(environment="production")
    run(registry.emit("tool:pre", {}))
    assert "session_id" not in received[-1]
    assert received[-1]["environment"] == "production"


def test_emit_does_not_change_the_callers_dict(run):
    registry = HookRegistry()

    async def scribble(event, data):
        data["scribbled"] = True
        return HookResult()

    registry.register("tool:pre", scribble)
    mine = {"tool_name": "Bash"}
    result = run(registry.emit("tool:pre", mine))
    assert mine == {"tool_name": "Bash"}
    assert result.data["scribbled"] is True


def test_handlers_get_a_utc_timestamp_unless_the_emitter_set_one(run):
    from datetime import datetime, timedelta, timezone

    registry = HookRegistry()
    stamps = []

    async def handler(event, data):
        stamps.append(data["timestamp"])
        return HookResult()

    registry.register("tool:pre", handler)
    run(registry.emit("tool:pre", {}))
    stamped = datetime.fromisoformat(stamps[0].replace("Z", "+00:00"))
    assert stamped.utcoffset() == timedelta(0)
    assert abs(datetime.now(timezone.utc) - stamped) < timedelta(minutes=1)

    run(registry.emit("tool:pre", {"timestamp": "2024-01-15T10:30:00Z"}))
    assert stamps[1] == "2024-01-15T10:30:00Z"


def test_no_handler_gives_continue_with_the_data_unchanged(run):
    registry = HookRegistry()
    data = {"tool_name": "calculator"}
    result = run(registry.emit("tool:pre", data))
    assert result.action == "continue"
    assert result.data == {"tool_name": "calculator"}


def test_emit_refuses_data_that_is_not_a_dict(run):
    registry = HookRegistry()

    async def handler(event, data):
        return HookResult()

    registry.register("tool:pre", handler)
    with pytest.raises(TypeError, match="dict"):
        registry.emit("tool:pre", ["not", "a", "dict"])


def test_sync_handlers_are_accepted(run):
    registry = HookRegistry()
    registry.register(HookRegistry.TOOL_PRE, lambda event, data: HookResult(action="deny", reason="sync"))
    result = run(registry.emit("tool:pre", {}))
    assert (result.action, result.reason) == ("deny", "sync")


def test_handlers_run_on_the_callers_loop_and_may_suspend(run):
    registry = HookRegistry()
    loops = []

    async def slow(event, data):
        loops.append(asyncio.get_running_loop())
        await asyncio.sleep(0.01)
        await asyncio.sleep(0)
        return HookResult(action="modify", data={**data, "slow": True})

    async def after(event, data):
        loops.append(asyncio.get_running_loop())
        return HookResult(action="modify", data={**data, "saw_slow": data.get("slow")})

    registry.register("tool:pre", slow, priority=1)
    registry.register("tool:pre", after, priority=2)

    async def main():
        result = await registry.emit("tool:pre", {})
        return result, asyncio.get_running_loop()

    result, loop = run(main())
    assert loops == [loop, loop]
    assert result.data["saw_slow"] is True


def test_cancelling_an_emit_cancels_the_running_handler(run):
    registry = HookRegistry()
    state = {}

    async def waits(event, data):
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            state["cancelled"] = True
            raise
        return HookResult()

    async def never(event, data):
        state["ran"] = True
        return HookResult()

    registry.register("tool:pre", waits, priority=1)
    registry.register("tool:pre", never, priority=2)

    async def main():
        task = asyncio.ensure_future(registry.emit("tool:pre", {}))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(main())
    assert state == {"cancelled": True}


def test_a_handler_can_catch_an_exception_from_what_it_awaits(run):
    registry = HookRegistry()

    async def boom():
        await asyncio.sleep(0)
        raise KeyError("inner")

    async def handler(event, data):
        try:
            await boom()
        except KeyError:
            return HookResult(action="deny", reason="caught")
        return HookResult()

    registry.register("tool:pre", handler)
    assert run(registry.emit("tool:pre", {})).reason == "caught"


def test_emits_run_concurrently_on_one_loop(run):
    registry = HookRegistry()

    async def echo(event, data):
        await asyncio.sleep(0.01)
        return HookResult(action="modify", data={"n": data["n"] * 2})

    registry.register("tool:pre", echo)

    async def main():
        return await asyncio.gather(*(registry.emit("tool:pre", {"n": n}) for n in range(20)))

    results = run(main())
    assert [r.data["n"] for r in results] == [n * 2 for n in range(20)]


def test_a_handler_registered_during_an_emit_waits_for_the_next_one(run):
    registry = HookRegistry()
    seen = []

    async def late(event, data):
        seen.append("late")
        return HookResult()

    async def adds(event, data):
        seen.append("adds")
        registry.register("tool:pre", late, priority=100)
        return HookResult()

    registry.register("tool:pre", adds)
    run(registry.emit("tool:pre", {}))
    assert seen == ["adds"]
    run(registry.emit("tool:pre", {}))
    assert seen == ["adds", "adds", "late"]


def test_an_emit_cannot_be_awaited_twice(run):
    registry = HookRegistry()
    pending = registry.emit("tool:pre", {})

    async def main():
        await pending
        await pending

    with pytest.raises(RuntimeError):
        run(main())


def test_the_references_keyword_form_of_register(run):
    registry = HookRegistry()

    async def security_check(event, data):
        if data.get("tool_name") == "Write" and "/etc/" in data.get("file_path", ""):
            return HookResult(action="deny", reason="System files are protected")
        return HookResult(action="continue")

    unregister = registry.register(
        event=HookRegistry.TOOL_PRE, handler=security_check, priority=1, name="file_security"
    )
    result = run(registry.emit("tool:pre", {"tool_name": "Write", "file_path": "/etc/passwd"}))
    assert (result.action, result.reason) == ("deny", "System files are protected")
    unregister()
    assert registry.list_handlers() == {}
