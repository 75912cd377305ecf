#!/usr/bin/python3
"""diff_scripts.py -- EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT against redis-server.

A fixed corpus of scripts, sent to both servers on a RESP2 connection and then
again on a RESP3 one (HELLO 3), every reply compared byte for byte: every
conversion rule from Lua to a reply (numbers truncated, strings, booleans
under setresp 2 and 3, nil, nested tables and holes, {ok=}, {err=}, double,
big_number, verbatim_string, map and set tables) and from a reply to Lua
(integers, bulk and nil bulk, status, errors through pcall, arrays, and the
RESP3 map, set, null and double after redis.setresp(3)); the error replies
of failing scripts (runtime errors, error() with a string and with a table,
redis.call's refusals: unknown command, arity, a command not allowed from
scripts, a write from a read-only script, argument types), compile errors,
the shebang and its flags, the sandbox (removed globals, read-only globals and
library tables, nonexistent globals), the redis.* helpers and their errors,
cjson and bit, math.random's sequence, numkeys errors, EVALSHA / NOSCRIPT,
SCRIPT LOAD / EXISTS / FLUSH / KILL, scripts inside MULTI, SELECT inside a
script, and COMMAND INFO / GETKEYS of the scripting commands.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import difftest  # noqa: E402
from difftest import Req  # noqa: E402


def ev(body, *keys_then_args, nkeys=0):
    return Req("EVAL", body, str(nkeys), *keys_then_args)


# Lua values to replies.
RETURNS = [
    "return 1", "return -1", "return 2.7", "return -2.7", "return 0.5", "return 1e10", "return 'str'",
    "return ''", "return true", "return false", "return nil", "return", "return {}",
    "return {1, 2, 3}", "return {1, {2, {3, {'x'}}}, 'y'}", "return {1, nil, 3}", "return {1, false, 3}",
    "return {true, false}", "return {ok='fine'}", "return {ok='a\\r\\nb'}", "return {err='bad thing'}",
    "return {err='-WITHDASH x'}", "return {err='a\\nb'}", "return {err='NOCODE'}",
    "return {ok='x', err='both'}", "return {1, 2, ok='ok-with-array'}", "return {double=3.14}",
    "return {double=1}", "return {double=-0.5}", "return {double='str'}", "return {big_number='123456789012345678901234567890'}",
    "return {big_number='1\\r\\n2'}", "return {verbatim_string={format='txt', string='hello'}}",
    "return {verbatim_string={format='mkd', string='# x'}}",
    "return {verbatim_string={format=1, string='x'}, 5, 'y'}", "return {verbatim_string='x', 7}",
    "return {double='x', ok=3, 8}", "return {1, {map='m', set=2, 3}}", "return {map={a=1}}", "return {set={x=true}}",
    "return {map={}}", "return {set={}}", "return {map={k={1,2}}}", "return {map=5}", "return {set='s'}",
    "return {[1]='a', [2]='b', [4]='d'}", "return {x=1}", "return function() end",
    "return redis.status_reply('FINE')", "return redis.error_reply('E1 xx')", "return redis.error_reply('xx')",
    "return redis.error_reply('-E2 yy')", "return redis.error_reply('-LONELY')", "return redis.error_reply('')",
    "return {redis.status_reply('in'), redis.error_reply('in array')}",
    "redis.setresp(3); return true", "redis.setresp(3); return false", "redis.setresp(3); return {true, false, 1}",
    "redis.setresp(3); return nil", "redis.setresp(3); return {map={a=true}}",
    "return 9007199254740993", "return -0", "return 3.999999", "return tostring(1/0)", "return 1/0 > 0",
    "return string.rep('x', 20000)", "return {string.rep('y', 17000), string.rep('z', 17000)}",
    "return cjson.encode({1, 2, 3})", "return cjson.encode({a=1})", "return cjson.decode('[1,2,\"x\"]')",
    "return cjson.decode('{\"a\":[1,{\"b\":2}]}').a[2].b", "return cjson.encode(cjson.decode('{\"k\":null}'))",
    "return bit.band(0xff, 0x0f)", "return bit.bor(1, 2, 4)", "return bit.bxor(5, 3)", "return bit.lshift(1, 10)",
    "return bit.tohex(255)", "return bit.tobit(2^32 + 1)", "return bit.bnot(0)", "return bit.rshift(-1, 28)",
    "return redis.sha1hex('')", "return redis.sha1hex('abc')", "return redis.sha1hex(123)",
    "return redis.REDIS_VERSION", "return redis.REDIS_VERSION_NUM", "return {redis.REPL_NONE, redis.REPL_AOF, "
    "redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL}",
    "return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}",
    "return redis.log(redis.LOG_DEBUG, 'a debug line')", "return redis.breakpoint()", "return redis.debug('x')",
    "return redis.replicate_commands()", "return redis.set_repl(redis.REPL_ALL)",
    "return redis.setresp(2)", "return redis.acl_check_cmd('get', 'x')",
    "return {math.random(), math.random(10), math.random(5, 20)}", "return tostring(math.random())",
    "math.randomseed(42); return tostring(math.random())", "return math.random(100)",
    "return {math.floor(2.5), math.max(1, 5), string.format('%5.2f', 3.14159)}",
    "return string.upper('abc')", "return ('xyz'):sub(2)", "return table.concat({'a', 'b'}, ',')",
    "return select('#', 1, 2, 3)", "return unpack({1, 2})", "return tonumber('12') + 1",
    "return type(loadstring('return 1'))", "return loadstring('return 7')()", "return _VERSION",
    "return coroutine.wrap(function() coroutine.yield(5) end)()", "return #KEYS + #ARGV",
    "local t = {} for i = 1, 100 do t[i] = i end return t",
    "return pcall(function() error('inner') end)", "local ok, e = pcall(function() error({err='T'}) end) return e.err",
    "local ok, e = pcall(function() return redis.call('nosuch') end) return e.err",
    "local ok, e = pcall(function() error({err='T'}) end) return {tostring(ok), type(e), tostring(e)}",
    "local ok, e = pcall(function() return redis.call('nosuch') end) return {tostring(ok), type(e), e}",
    "local ok, e = pcall(function() error('x') end) return {tostring(ok), type(e), e}",
    "local ok, e = pcall(error, {err='T'}) return {tostring(ok), type(e), e}",
    "return {pcall(function(a, b) return a + b, 'two' end, 1, 2)}", "return {pcall(redis.call, 'get', 'sx')}",
    "local ok, e = pcall(function() error({}) end) return {tostring(ok), type(e)}",
]

# struct and cmsgpack (written here: Debian has neither), byte for byte with Redis's.
LIBS = [
    "return struct.pack('>I2', 258)", "return struct.pack('<i', -2)", "return struct.pack('bBhHlLT', -1, 255, -300, "
    "65535, -5, 7, 9)", "return struct.pack('>d', 1.5)", "return struct.pack('<f', 0.25)",
    "return struct.pack('c3', 'abcdef')", "return struct.pack('c0', 'xyz')", "return struct.pack('s', 'hi')",
    "return struct.pack('!4 b i', 1, 2)", "return struct.pack('>!8 b d', 1, 2)", "return struct.pack('x b x', 3)",
    "return struct.pack('i8', -1)", "return struct.pack('=H', 513)",
    "return {struct.unpack('>I2', struct.pack('>I2', 258))}", "return {struct.unpack('<i', struct.pack('<i', -2))}",
    "return {struct.unpack('bBhHlL', struct.pack('bBhHlL', -1, 255, -300, 65535, -5, 7))}",
    "return tostring(struct.unpack('>d', struct.pack('>d', 1.5)))", "return {struct.unpack('c3', 'abcdef')}",
    "return {struct.unpack('s', 'hi\\0rest')}", "return {struct.unpack('b c0', '\\3abcdef')}",
    "return {struct.unpack('>h', 'abcd', 3)}", "return {struct.unpack('!4 b i', struct.pack('!4 b i', 1, 2))}",
    "return struct.size('>I2 i4 d')", "return struct.size('!8 b d')", "return struct.size('bhi')",
    "return struct.pack('z', 1)", "return struct.size('s')", "return struct.size('c0')", "return struct.unpack('i', 'ab')",
    "return struct.pack('i33', 1)", "return struct.pack('c5', 'ab')", "return struct.pack('i')",
    # Integers no long long holds, and wider than 8 bytes (found by tests/fuzz/cmdfuzz.py's UBSan).
    "return struct.pack('<L', 2^63+4096)", "return struct.pack('<L', 2^64+4096)", "return struct.pack('<L', -2^64)",
    "return struct.pack('<L', 0/0)", "return struct.pack('<i16', -1)", "return struct.pack('>i16', -2)",
    "return 9.3e18", "return -1/0", "return 0/0", "return {1e300, 2.5, -2.5, -9.3e18}",
    "return cmsgpack.pack(1)", "return cmsgpack.pack(-1)", "return cmsgpack.pack(127, 128, 255, 256, 65535, 65536)",
    "return cmsgpack.pack(-32, -33, -128, -129, -32768, -32769, 4294967295, 4294967296, -2147483649)",
    "return cmsgpack.pack(1.5, 0.1, -2.25, 1e300, 2^63)", "return cmsgpack.pack('', 'abc', string.rep('x', 31), "
    "string.rep('y', 32), string.rep('z', 256), string.rep('w', 70000))",
    "return cmsgpack.pack(true, false, nil)", "return cmsgpack.pack({})", "return cmsgpack.pack({1, 2, 3})",
    "return cmsgpack.pack({a=1})", "return cmsgpack.pack({1, nil, 3})", "return cmsgpack.pack({[1]='a', [3]='c'})",
    "local t = {} for i = 1, 20 do t[i] = i end return cmsgpack.pack(t)",
    "local t = {} for i = 1, 20 do t['k' .. i] = i end return #cmsgpack.pack(t)",
    "local t = {} local c = t for i = 1, 20 do c[1] = {} c = c[1] end return cmsgpack.pack(t)",
    "return cmsgpack.pack(function() end)", "return cmsgpack.pack()",
    "return {cmsgpack.unpack(cmsgpack.pack(1, 'two', {3, {4}}, true))}",
    "return cmsgpack.unpack(cmsgpack.pack({a={b={c='deep'}}})).a.b.c",
    "return tostring(cmsgpack.unpack(cmsgpack.pack(1.5)))", "return tostring(cmsgpack.unpack(cmsgpack.pack(0.1)))",
    "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3))}", "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 1)}",
    "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 2)}", "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}",
    "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 5, 1)}", "return {cmsgpack.unpack('')}",
    "return cmsgpack.unpack('\\196\\3abc')", "return cmsgpack.unpack('\\217\\2ab')",
    "return {cmsgpack.unpack('\\207\\0\\0\\0\\1\\0\\0\\0\\0')}", "return cmsgpack.unpack('\\211')",
    "return {tostring(cmsgpack.unpack('\\207\\255\\255\\255\\255\\255\\255\\255\\251')), "
    "tostring(cmsgpack.unpack('\\207\\128\\0\\0\\0\\0\\0\\0\\0')), "
    "tostring(cmsgpack.unpack('\\207\\127\\255\\255\\255\\255\\255\\255\\255'))}",
    "return cmsgpack.unpack('\\193')", "return cmsgpack.unpack('\\212\\1\\1')", "return cmsgpack.unpack('\\163ab')",
    "return cmsgpack.unpack_one('\\1', -1)", "return cmsgpack.unpack_one('\\1', 5)",
    "return cmsgpack.unpack_limit('\\1', -1)",
]

# Scripts that fail.
FAILS = [
    "return x", "x = 1", "function f() end", "return nil + 1", "error('boom')", "error({err='boom2'})",
    "error()", "error('a\\nb')", "error(12)", "error(true)", "return 1 +", "return (", "local",
    "return redis.call()", "return redis.call({})", "return redis.call('nosuch')", "return redis.call('get')",
    "return redis.call('set', 'a')", "return redis.call('multi')", "return redis.call('blpop', 'l', 0)",
    "return redis.call('eval', 'return 1', 0)", "return redis.call('script', 'load', 'return 1')",
    "return redis.call('config', 'nosuchsub')",
    "return redis.call('incr', 'sx')", "return redis.call('lpush', 'sx', 'a')",
    "return redis.call('get', {})", "return redis.call('get', true)", "return redis.call('get', nil)",
    "return redis.pcall()", "return redis.pcall('nosuch')", "return redis.pcall('get', {})",
    "return redis.setresp(4)", "return redis.setresp()", "return redis.set_repl(9)", "return redis.set_repl()",
    "return redis.log(99, 'x')", "return redis.log(1)", "return redis.log('a', 'b')",
    "return redis.sha1hex()", "return redis.sha1hex(1, 2)", "return redis.status_reply()",
    "return redis.error_reply(1)", "return redis.acl_check_cmd('nosuch')",
    "return math.random(0)", "return math.random(5, 1)", "return math.random(1, 2, 3)",
    "redis.call = nil", "string.upper = nil", "math.pi = 3", "redis.x = 1", "KEYS = 1", "_G.x = 1",
    "rawset(_G, 'y', 1)", "return cjson.decode('{bad')", "return os", "return io", "return print",
    "return require", "return loadfile", "return dofile", "return debug", "return setfenv", "return getfenv",
    "return newproxy", "return module", "return package", "return string.nosuch()",
    "local t = setmetatable({}, {__index = function() error('meta') end}) return t.x",
    "return cjson.encode(function() end)", "return redis.call('hset', 'h')",
    "getmetatable('').__index.upper = nil", "getmetatable('').__index = {}", "setmetatable(_G, nil)",
    "string.rep = nil", "return type(getmetatable(''))", "return ('x'):upper()",
]

CHECK_TYPES = ["print", "os", "io", "require", "loadfile", "dofile", "load", "loadstring", "setfenv", "getfenv",
               "module", "collectgarbage", "newproxy", "gcinfo", "rawset", "rawget", "rawequal", "debug",
               "coroutine", "select", "unpack", "bit", "cjson", "string", "math", "table", "package", "_VERSION",
               "xpcall", "pcall", "error", "assert", "getmetatable", "setmetatable", "ipairs", "pairs", "next",
               "tonumber", "tostring", "type", "__redis__err__handler", "KEYS", "ARGV", "redis", "_G"]
REDIS_FIELDS = ["call", "pcall", "error_reply", "status_reply", "sha1hex", "log", "setresp", "set_repl",
                "replicate_commands", "breakpoint", "debug", "acl_check_cmd", "nosuch"]


def corpus(rng, count):
    yield Req("SET", "sx", "abc")
    yield Req("RPUSH", "l1", "a", "b", "c")
    yield Req("HSET", "h1", "f1", "v1")
    yield Req("SADD", "s1", "m1")
    yield Req("ZADD", "z1", "1.5", "a")
    yield Req("SET", "n1", "10")
    for body in RETURNS:
        yield ev(body)
    for body in FAILS:
        yield ev(body)
    for body in LIBS:
        yield ev(body)
    for name in CHECK_TYPES:
        yield ev("return type(rawget(_G, '%s'))" % name)
    for name in REDIS_FIELDS:
        yield ev("return type(redis.%s)" % name)
    # Keys and arguments.
    yield ev("return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV}", "k1", "k2", "a1", "a2", nkeys=2)
    yield ev("return {KEYS[1], ARGV[1]}", "only-arg")
    yield ev("KEYS[1] = 'changed'; return KEYS[1]", "k", nkeys=1)
    yield ev("return 1", "a", nkeys=3)
    yield ev("return 1", nkeys=-1)
    yield Req("EVAL", "return 1", "x")
    yield Req("EVAL", "return 1", "1.5")
    yield Req("EVAL", "return 1")
    yield Req("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db")
    # Replies to Lua values, RESP2.
    for body in ["return redis.call('get', 'sx')", "return redis.call('get', 'nokey')",
                 "return type(redis.call('get', 'nokey'))", "return redis.call('set', 'k2', 'v')",
                 "return type(redis.call('set', 'k2', 'v'))", "return redis.call('set', 'k2', 'v').ok",
                 "return redis.call('incr', 'n1')", "return type(redis.call('incr', 'n1'))",
                 "return redis.call('lrange', 'l1', 0, -1)", "return redis.call('hgetall', 'h1')",
                 "return redis.call('smembers', 's1')", "return redis.call('zscore', 'z1', 'a')",
                 "return redis.call('zrange', 'z1', 0, -1, 'withscores')", "return redis.call('ping')",
                 "return redis.call('exists', 'sx', 'nokey')", "return redis.call('lpop', 'nolist')",
                 "return type(redis.call('lpop', 'nolist'))", "return redis.call('lpop', 'nolist', 2)",
                 "return type(redis.call('lpop', 'nolist', 2))", "return redis.call('mget', 'sx', 'nokey', 'n1')",
                 "return redis.pcall('incr', 'sx')", "return redis.pcall('incr', 'sx').err",
                 "local t = redis.pcall('incr', 'sx'); return {type(t), t.err}",
                 "return redis.pcall('lpush', 'sx', 'x')",
                 "return tostring(redis.pcall('incr', 'sx').ignore_error_stats_update)",
                 "return tostring(redis.pcall('nosuch').ignore_error_stats_update)",
                 "return tostring(redis.pcall({}).ignore_error_stats_update)",
                 "return tostring(redis.error_reply('x').ignore_error_stats_update)",
                 "return redis.call('type', 'l1')", "return redis.call('object', 'encoding', 'l1')",
                 "return redis.call('set', 'fl', 3.5) and redis.call('get', 'fl')",
                 "return redis.call('set', 'fl', 0.1) and redis.call('get', 'fl')",
                 "return redis.call('set', 'fl', 1e20) and redis.call('get', 'fl')",
                 "return redis.call('set', 'fl', -7) and redis.call('get', 'fl')",
                 "redis.call('set', 'big', string.rep('x', 40000)); return #redis.call('get', 'big')",
                 "return redis.call('echo', string.rep('e', 20000))",
                 "return redis.call('select', 3)", "redis.call('select', 3); return redis.call('get', 'sx')",
                 "return redis.call('get', 'sx')", "return redis.call('dbsize')",
                 "return redis.call('SP.WRITE', 'ns', 'e1', 'content')", "return redis.call('SP.READ', 'ns', 'e1')"]:
        yield ev(body)
    # Replies to Lua values, RESP3 inside the script.
    for body in ["redis.setresp(3); return redis.call('hgetall', 'h1')",
                 "redis.setresp(3); local t = redis.call('hgetall', 'h1'); return {type(t.map), t.map.f1}",
                 "redis.setresp(3); return redis.call('smembers', 's1')",
                 "redis.setresp(3); local t = redis.call('smembers', 's1'); return tostring(t.set.m1)",
                 "redis.setresp(3); return redis.call('get', 'nokey')",
                 "redis.setresp(3); return type(redis.call('get', 'nokey'))",
                 "redis.setresp(3); return redis.call('zscore', 'z1', 'a')",
                 "redis.setresp(3); return redis.call('zscore', 'z1', 'a').double",
                 "redis.setresp(3); return redis.call('zrange', 'z1', 0, -1, 'withscores')",
                 "redis.setresp(3); return redis.call('lrange', 'l1', 0, -1)",
                 "redis.setresp(3); return redis.call('lpop', 'nolist', 2)",
                 "redis.setresp(3); return {redis.call('set', 'k3', 'v')}",
                 "redis.setresp(3); return redis.pcall('incr', 'sx')",
                 "redis.setresp(3); redis.setresp(2); return redis.call('hgetall', 'h1')"]:
        yield ev(body)
    # The shebang.
    for body in ["#!lua\nreturn x", "#!lua\nreturn 1", "#!lua flags=no-writes\nreturn redis.call('set', 'a', 'b')",
                 "#!lua flags=no-writes\nreturn redis.call('get', 'sx')", "#!lua flags=bad\nreturn 1",
                 "#!lua foo=bar\nreturn 1", "#!luax\nreturn 1", "#!lua", "#!lua flags=no-writes,allow-oom\nreturn 1",
                 "#!lua name=x\nreturn 1", "#!lua flags=\nreturn 1", "#!lua \nreturn 1",
                 "#!lua flags=allow-stale,no-cluster,allow-cross-slot-keys\nreturn 2",
                 "#!lua\nreturn redis.call('set', 'sb', '1')", "#!lua flags=no-writes\nerror('x')"]:
        yield ev(body)
    # Read-only forms.
    yield Req("EVAL_RO", "return redis.call('get', 'sx')", "0")
    yield Req("EVAL_RO", "return redis.call('set', 'a', 'b')", "0")
    yield Req("EVAL_RO", "#!lua\nreturn 1", "0")
    yield Req("EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0")
    # The cache.
    yield Req("SCRIPT", "LOAD", "return 'loaded'")
    yield Req("EVALSHA", "3e5d7f5e5d42f3e9d2f6c5f4c3b2a1a0a9a8a7a6", "0")
    yield Req("SCRIPT", "LOAD", "return 'loaded'")
    yield Req("EVALSHA", "e7fb3e1c2cba8c2c96b5b5d4e1e0b3c0a55e4a43", "0")
    yield Req("SCRIPT", "LOAD", "return 1 +")
    yield Req("SCRIPT", "LOAD", "#!lua flags=bad\nreturn 1")
    yield Req("SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "abc",
              "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB")
    yield Req("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0")
    yield Req("EVALSHA", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "0")
    yield Req("EVALSHA_RO", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0")
    yield Req("EVALSHA", "nosuch", "0")
    yield Req("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "-1")
    yield Req("SCRIPT", "FLUSH")
    yield Req("SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db")
    yield Req("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0")
    yield Req("SCRIPT", "FLUSH", "ASYNC")
    yield Req("SCRIPT", "FLUSH", "sync")
    yield Req("SCRIPT", "FLUSH", "bad")
    yield Req("SCRIPT", "FLUSH", "sync", "async")
    yield Req("SCRIPT", "KILL")
    yield Req("SCRIPT", "KILL", "x")
    yield Req("SCRIPT", "EXISTS")
    yield Req("SCRIPT", "LOAD")
    yield Req("SCRIPT", "NOSUCH")
    yield Req("SCRIPT")
    # Transactions and keys.
    yield Req("MULTI")
    yield ev("return redis.call('incr', 'n1')")
    yield ev("return redis.call('incr', 'sx')")
    yield Req("EXEC")
    yield ev("redis.call('del', 'l9'); redis.call('rpush', 'l9', 'x', 'y'); return redis.call('lrange', 'l9', 0, -1)")
    yield Req("LRANGE", "l9", "0", "-1")
    yield Req("GET", "sb")
    # SCRIPT HELP and COMMAND INFO SCRIPT: Redis has SCRIPT DEBUG (docs/commands.md, Differences).
    for name in ["eval", "evalsha", "eval_ro", "evalsha_ro", "script|load", "script|exists", "script|flush",
                 "script|kill", "script|help"]:
        yield Req("COMMAND", "INFO", name)
    yield Req("COMMAND", "GETKEYS", "EVAL", "return 1", "2", "a", "b", "c")
    yield Req("COMMAND", "GETKEYS", "EVALSHA", "abc", "1", "a", "b")
    yield Req("COMMAND", "GETKEYS", "EVAL_RO", "return 1", "0", "a")
    yield Req("COMMAND", "GETKEYS", "EVAL", "return 1", "3", "a")


LIB1 = "#!lua name=lib1\nredis.register_function('f1', function(keys, args) return {keys[1], args[1], #keys, #args} end)"
LIB2 = ("#!lua name=lib2\nredis.register_function{function_name='ro2', callback=function(keys, args) "
        "return redis.call('get', keys[1]) end, flags={'no-writes'}, description='reads a key'}")
LIB3 = ("#!lua name=lib3\nlocal function helper(x) return x * 2 end\n"
        "redis.register_function('w3', function(keys, args) redis.call('set', keys[1], helper(tonumber(args[1]))) "
        "return redis.call('get', keys[1]) end)\n"
        "redis.register_function{function_name='flags3', callback=function() return 1 end, "
        "flags={'allow-oom', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys'}}\n"
        "redis.register_function('err3', function() return redis.call('nosuch') end)\n"
        "redis.register_function('rt3', function() error('runtime') end)\n"
        "redis.register_function('g3', function() return KEYS end)")


def functions(rng, count):
    n = 0
    yield Req("FUNCTION", "FLUSH")
    yield Req("FUNCTION", "LOAD", LIB1)
    yield Req("FUNCTION", "LOAD", LIB1)
    yield Req("FUNCTION", "LOAD", "REPLACE", LIB1)
    yield Req("FUNCTION", "LOAD", "BAD", LIB1)
    yield Req("FUNCTION", "LOAD", LIB2)
    yield Req("FUNCTION", "LOAD", LIB3)
    for code in ["return 1", "#!lua name=x foo=bar\n", "#!lua name=b-c\n", "#!lua\n", "#!lua name=empty\n",
                 "#!lua name=bad\nreturn +", "#!lua name=bad\nerror('x')", "#!lua name=bad\nredis.call('set','a','b')",
                 "#!lua name=bad\nredis.register_function('f1', function() end)",
                 "#!lua name=bad\nredis.register_function('a-b', function() end)",
                 "#!lua name=bad\nredis.register_function('a')",
                 "#!lua name=bad\nredis.register_function('a', 'b')",
                 "#!lua name=bad\nredis.register_function(1, function() end)",
                 "#!lua name=bad\nredis.register_function('a', function() end, 3)",
                 "#!lua name=bad\nredis.register_function()",
                 "#!lua name=bad\nredis.register_function{function_name='a', callback=function() end, flags={'bad'}}",
                 "#!lua name=bad\nredis.register_function{function_name='a', callback=function() end, x=1}",
                 "#!lua name=bad\nredis.register_function{function_name='a', callback=function() end, flags='x'}",
                 "#!lua name=bad\nredis.register_function{function_name=1, callback=function() end}",
                 "#!lua name=bad\nredis.register_function{function_name='a', callback=1}",
                 "#!lua name=bad\nredis.register_function{function_name='a', callback=function() end, description=1}",
                 "#!lua name=bad\nredis.register_function('x1', function() end) redis.register_function('x1', function() end)",
                 "#!xyz name=bad\n", "#!lua name=bad\nlocal s = string", "#!lua name=bad\nlocal s = redis.call",
                 "#!lua name=bad\nlocal s = redis.setresp", "#!lua name=ok4\nredis.log(redis.LOG_DEBUG, redis.REDIS_VERSION) "
                 "redis.register_function('f4', function() return redis.REDIS_VERSION_NUM end)"]:
        # each failing library a name of its own: one that loads by mistake does not hide the next cases
        n += 1
        yield Req("FUNCTION", "LOAD", code.replace("name=bad", "name=bad%d" % n))
    for args in [("f1", "0"), ("f1", "2", "k1", "k2", "a1"), ("f1", "1"), ("f1", "-1"), ("f1", "x"), ("nosuch", "0"),
                 ("ro2", "1", "nokey"), ("w3", "1", "w3key", "21"), ("flags3", "0"), ("err3", "0"), ("rt3", "0"),
                 ("g3", "0"), ("f4", "0")]:
        yield Req("FCALL", *args)
    yield Req("FCALL_RO", "ro2", "1", "w3key")
    yield Req("FCALL_RO", "f1", "0")
    yield Req("FCALL_RO", "w3", "1", "w3key", "1")
    yield Req("FUNCTION", "LIST", "LIBRARYNAME", "lib1")
    yield Req("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "lib2")
    yield Req("FUNCTION", "LIST", "LIBRARYNAME", "LIB1*")
    yield Req("FUNCTION", "LIST", "LIBRARYNAME", "nomatch")
    yield Req("FUNCTION", "LIST", "LIBRARYNAME")
    yield Req("FUNCTION", "LIST", "WITHCODE", "WITHCODE")
    yield Req("FUNCTION", "LIST", "bad")
    yield Req("FUNCTION", "STATS")
    yield Req("FUNCTION", "KILL")
    yield Req("FUNCTION", "DELETE", "lib3")
    yield Req("FUNCTION", "DELETE", "lib3")
    yield Req("FCALL", "w3", "1", "w3key", "1")
    yield Req("FUNCTION", "FLUSH", "bad")
    yield Req("FUNCTION", "RESTORE", "abc")
    yield Req("FUNCTION", "RESTORE", "abc", "bad")
    yield Req("FUNCTION", "DELETE", "ok4")
    yield Req("FUNCTION", "DELETE", "lib2")
    yield Req("FUNCTION", "STATS")
    yield Req("FUNCTION", "HELP")
    yield Req("FUNCTION", "FLUSH", "SYNC")
    yield Req("FUNCTION", "LIST")
    yield Req("FUNCTION", "DUMP")
    yield Req("FUNCTION", "LOAD", LIB1)
    yield Req("FUNCTION", "LIST")
    yield Req("FUNCTION", "LIST", "WITHCODE")
    for name in ["fcall", "fcall_ro", "function|load", "function|list", "function|delete", "function|flush",
                 "function|dump", "function|restore", "function|stats", "function|kill", "function|help"]:
        yield Req("COMMAND", "INFO", name)
    yield Req("COMMAND", "GETKEYS", "FCALL", "f", "2", "a", "b", "c")
    yield Req("COMMAND", "GETKEYS", "FCALL_RO", "f", "0", "a")


def without_sp(rng, count):
    # SP.* commands exist only in Scratchpad: the differential corpus skips them.
    for req in corpus(rng, count):
        if any(b"SP." in a for a in req.args):
            continue
        yield req


if __name__ == "__main__":
    ok = difftest.run("functions (RESP2)", functions, 0, max_diffs=int(os.environ.get("MAX_DIFFS", 5)))
    ok = difftest.run("functions (RESP3)", functions, 0, resp3=True,
                      max_diffs=int(os.environ.get("MAX_DIFFS", 5))) and ok
    ok = difftest.run("scripts (RESP2)", without_sp, 0, max_diffs=int(os.environ.get("MAX_DIFFS", 5)))
    ok = difftest.run("scripts (RESP3)", without_sp, 0, resp3=True, max_diffs=int(os.environ.get("MAX_DIFFS", 5))) and ok
    sys.exit(0 if ok else 1)
