"""Handlers that fail: skipped and logged, or a deny when registered fail-closed."""

import asyncio
import logging

from hooks import HookRegistry, HookResult


def test_a_raising_handler_is_logged_and_skipped(run, caplog):
    registry = HookRegistry()

    async def broken(event, data):
        raise RuntimeError("kaput")

    async def after(event, data):
        return HookResult(action="deny", reason="still ran")

    registry.register("tool:pre", broken, priority=1)
    registry.register("tool:pre", after, priority=2)
    with caplog.at_level(logging.WARNING, logger="hooks"):
        result = run(registry.emit("tool:pre", {}))
    assert (result.action, result.reason) == ("deny", "still ran")
    assert any("broken" in r.getMessage() and "kaput" in r.getMessage() for r in caplog.records)


def test_a_handler_failing_after_a_suspension_is_skipped(run):
    registry = HookRegistry()

    async def broken(event, data):
        await asyncio.sleep(0)
        raise ValueError("late failure")

    registry.register("tool:pre", broken)
    assert run(registry.emit("tool:pre", {})).action == "continue"


def test_a_sync_handler_that_raises_is_skipped(run):
    registry = HookRegistry()

    def broken(event, data):
        raise ZeroDivisionError

    registry.register("tool:pre", broken)
    assert run(registry.emit("tool:pre", {})).action == "continue"


def test_an_answer_that_is_not_a_hook_result_is_ignored_with_a_warning(run, caplog):
    registry = HookRegistry()

    async def says_yes(event, data):
        return "yes"

    async def says_nothing(event, data):
        return None

    registry.register("tool:pre", says_yes)
    registry.register("tool:pre", says_nothing)
    with caplog.at_level(logging.WARNING, logger="hooks"):
        result = run(registry.emit("tool:pre", {}))
    assert result.action == "continue"
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "says_yes" in messages and "str" in messages and "NoneType" in messages


def test_a_fail_closed_handler_that_raises_denies(run):
    registry = HookRegistry()

    async def policy(event, data):
        raise RuntimeError("policy store unreachable")

    async def later(event, data):
        raise AssertionError("must not run")

    registry.register("tool:pre", policy, name="policy", fail_closed=True)
    registry.register("tool:pre", later, priority=5)
    result = run(registry.emit("tool:pre", {}))
    assert result.action == "deny"
    assert "policy" in result.reason and "unreachable" in result.reason


def test_keyboard_interrupt_is_not_swallowed(run):
    registry = HookRegistry()

    async def interrupted(event, data):
        raise KeyboardInterrupt

    registry.register("tool:pre", interrupted)
    import pytest

    with pytest.raises(KeyboardInterrupt):
        run(registry.emit("tool:pre", {}))


def test_emit_and_collect_gathers_data_concurrently_within_timeouts(run, caplog):
    registry = HookRegistry()
    order = []

    async def vote_weather(event, data):
        await asyncio.sleep(0.02)
        order.append("weather")
        return HookResult(data={"recommended_tool": "weather", "q": data["user_query"]})

    async def vote_web(event, data):
        order.append("web")
        return HookResult(data={"recommended_tool": "web"})

    async def no_opinion(event, data):
        return HookResult()

    async def too_slow(event, data):
        await asyncio.sleep(5)
        return HookResult(data={"late": True})

    async def broken(event, data):
        raise RuntimeError("no vote")

    for handler in (vote_weather, vote_web, no_opinion, too_slow, broken):
        registry.register(HookRegistry.DECISION_TOOL_RESOLUTION, handler)
    with caplog.at_level(logging.WARNING, logger="hooks"):
        answers = run(
            registry.emit_and_collect("decision:tool_resolution", {"user_query": "weather?"}, timeout=0.2)
        )
    assert answers == [{"recommended_tool": "weather", "q": "weather?"}, {"recommended_tool": "web"}]
    # Concurrent: the fast handler finished before the slow one it was registered after.
    assert order == ["web", "weather"]
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "too_slow" in messages and "broken" in messages


def test_emit_and_collect_with_no_handler_is_empty(run):
    assert run(HookRegistry().emit_and_collect("decision:tool_resolution", {})) == []
