#!/usr/bin/python3
"""scripts_redis_py.py -- redis-py's Lock and register_script on Scratchpad.

redis-py's Lock acquires with SET NX PX and releases, extends and reacquires
with Lua scripts run by EVALSHA (loaded by SCRIPT LOAD, or EVAL on NOSCRIPT).
Cases: acquire and release; a second client's blocking acquire times out
while the lock is held and succeeds once it is released; extend and
reacquire move the TTL; a release by a client whose token does not own the
lock is refused (LockNotOwnedError) and leaves the lock held; an expired lock
is taken by another; 10 threads incrementing a counter under the lock lose no
update; register_script's Script object runs by EVALSHA, survives SCRIPT
FLUSH, runs in a pipeline, and passes keys and arguments.
"""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import Server, Reporter  # noqa: E402

import redis  # noqa: E402
from redis.exceptions import LockError, LockNotOwnedError  # noqa: E402


def conn(srv):
    return redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30)


def acquire_release(srv):
    r = conn(srv)
    lock = r.lock("res:a", timeout=10)
    assert lock.acquire(blocking=False)
    assert lock.owned() and lock.locked()
    lock.release()
    assert not r.exists("res:a")


def blocking_timeout(srv):
    r1, r2 = conn(srv), conn(srv)
    a = r1.lock("res:b", timeout=10, thread_local=False)  # released from a timer thread
    assert a.acquire()
    b = r2.lock("res:b", timeout=10, blocking_timeout=0.3)
    t0 = time.monotonic()
    assert not b.acquire(), "acquired a held lock"
    assert time.monotonic() - t0 >= 0.15  # redis-py sleeps 0.1 s between tries
    threading.Timer(0.2, a.release).start()
    b2 = r2.lock("res:b", timeout=10, blocking_timeout=5)
    assert b2.acquire(), "not acquired after the holder released"
    b2.release()


def extend_reacquire(srv):
    r = conn(srv)
    lock = r.lock("res:c", timeout=2)
    assert lock.acquire()
    assert lock.extend(10)
    assert 12000 >= r.pttl("res:c") > 11000, r.pttl("res:c")  # 2 s + 10 s
    assert lock.extend(5, replace_ttl=True)
    assert 5000 >= r.pttl("res:c") > 3000, r.pttl("res:c")
    assert lock.reacquire()
    assert 2000 >= r.pttl("res:c") > 1000, r.pttl("res:c")
    lock.release()
    try:
        lock.extend(5)
        raise AssertionError("extended a released lock")
    except LockError:
        pass


def release_by_non_owner(srv):
    r = conn(srv)
    owner = r.lock("res:d", timeout=10)
    assert owner.acquire()
    intruder = r.lock("res:d", timeout=10)
    intruder.local.token = b"not-the-owner-token"
    try:
        intruder.release()
        raise AssertionError("a non-owner released the lock")
    except LockNotOwnedError:
        pass
    assert r.get("res:d") == owner.local.token
    owner.release()


def expired_lock(srv):
    r = conn(srv)
    a = r.lock("res:e", timeout=0.2)
    assert a.acquire()
    time.sleep(0.3)
    b = r.lock("res:e", timeout=5)
    assert b.acquire(blocking=False)
    try:
        a.release()
        raise AssertionError("the expired holder released the new holder's lock")
    except LockNotOwnedError:
        pass
    b.release()


def contended_counter(srv):
    r = conn(srv)
    r.set("res:count", 0)
    errors = []

    def worker():
        c = conn(srv)
        try:
            for _ in range(20):
                with c.lock("res:f", timeout=5, blocking_timeout=10, sleep=0.001):
                    v = int(c.get("res:count"))
                    c.set("res:count", v + 1)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    ts = [threading.Thread(target=worker) for _ in range(10)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    assert not errors, errors
    assert int(r.get("res:count")) == 200, r.get("res:count")


def register_script(srv):
    r = conn(srv)
    s = r.register_script("return {KEYS[1], ARGV[1], redis.call('INCRBY', KEYS[1], ARGV[1])}")
    r.delete("rs:n")
    assert s(keys=["rs:n"], args=[5]) == [b"rs:n", b"5", 5]
    r.script_flush()
    assert s(keys=["rs:n"], args=[2]) == [b"rs:n", b"2", 7], "not run again after SCRIPT FLUSH"
    p = r.pipeline()
    s(keys=["rs:n"], args=[1], client=p)
    s(keys=["rs:n"], args=[1], client=p)
    assert p.execute() == [[b"rs:n", b"1", 8], [b"rs:n", b"1", 9]]
    assert r.script_exists(s.sha) == [True]


def main():
    rep = Reporter()
    with Server("--appendonly", "no") as srv:
        rep.case("redis-py Lock acquires and releases", acquire_release, srv)
        rep.case("a blocking acquire of a held Lock times out, then succeeds once released", blocking_timeout, srv)
        rep.case("Lock.extend (adding and replacing the TTL) and Lock.reacquire move the TTL", extend_reacquire, srv)
        rep.case("a release by a client that does not own the Lock is refused and the lock stays held",
                 release_by_non_owner, srv)
        rep.case("an expired Lock is taken by another client and its old holder cannot release it", expired_lock, srv)
        rep.case("10 threads incrementing a counter under one Lock lose no update", contended_counter, srv)
        rep.case("register_script runs by EVALSHA, again after SCRIPT FLUSH, and in a pipeline", register_script, srv)
    rep.finish()


if __name__ == "__main__":
    main()
