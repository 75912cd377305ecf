"""scratchpad.asyncio -- the same Scratchpad on redis.asyncio.

    import redis.asyncio, scratchpad.asyncio
    sp = scratchpad.asyncio.Scratchpad(redis.asyncio.Redis(), "agent-7")
    await sp.write("plan", "...")
    text = await sp.call("scratchpad_read", {"name": "plan"})

Every method of scratchpad.Scratchpad is a coroutine here with the same
arguments, results and exceptions; entries() and changes() are async
iterators and leased() an async context manager.
"""

import contextlib
from typing import AsyncIterator

import redis

from . import Change, Entry, _changes_page, _Commands, _offload_args, _offload_note, _raise, _same, _tools


class Scratchpad(_Commands):
    """One scratchpad (namespace) on a redis.asyncio client."""

    async def _run(self, parse, *args):
        try:
            reply = await self.r.execute_command(*args)
        except redis.ResponseError as e:
            _raise(e)
        return parse(reply)

    async def entries(self, *, match=None, where=None, count=None) -> AsyncIterator[Entry]:
        cursor = "0"
        while True:
            page = await self.list(match=match, where=where, cursor=cursor, count=count)
            for e in page.entries:
                yield e
            cursor = page.cursor
            if cursor == "0":
                return

    @contextlib.asynccontextmanager
    async def leased(self, resource, holder, ttl_ms, *, wait_ms=None):
        lease = await self.lease(resource, holder, ttl_ms, wait_ms=wait_ms)
        if lease is None:
            raise TimeoutError("lease on %r still held after %s ms" % (resource, wait_ms))
        try:
            yield (lease.resource, lease.token)
        finally:
            await self.release(lease)

    async def changes(self, since=0, *, count=None, block_ms=1000, follow=False) -> AsyncIterator[Change]:
        while True:
            reply = await self._run(_same, *self._changes_args(since, count, block_ms if follow else None))
            page, empty = _changes_page(reply, since)
            for ch in page:
                since = ch.seq
                yield ch
            if empty and not follow:
                return

    async def call(self, tool_name, args) -> str:
        return await _tools.call_async(self.r, self.ns, tool_name, args)

    call_tool = call

    async def offload_result(self, tool_name, text, *, threshold_chars=30000, threshold_bytes=None, ex=None,
                             meta=None) -> str:
        text, kw = _offload_args(tool_name, text, threshold_chars, threshold_bytes, ex, meta)
        return _offload_note(tool_name, await self.offload(text, **kw))
