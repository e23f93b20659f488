import asyncio

import pytest


@pytest.fixture
def run():
    """Runs a coroutine on a fresh event loop (no plugin needed)."""

    def run(coro):
        return asyncio.run(coro)

    return run
