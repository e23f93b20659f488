import asyncio

import pytest


@pytest.fixture
def run():
    """Runs a coroutine on a fresh event loop (no plugin needed)."""

    def run(coro):
        return asyncio.run(coro)

    return run


@pytest.fixture(autouse=True)
def no_machine_layers(tmp_path_factory, monkeypatch):
    """``hooks.load`` applies the machine's managed and user hooks files: each test starts on a
    machine with neither, whatever the one running it has."""
    empty = tmp_path_factory.mktemp("no-layers")
    monkeypatch.setenv("HOOKS_MANAGED_DIR", str(empty / "managed"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(empty / "config"))
