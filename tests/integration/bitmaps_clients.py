#!/usr/bin/python3
"""bitmaps_clients.py -- redis-py's own bitmap, HyperLogLog and geo API against
Scratchpad and redis-server side by side: setbit/getbit/bitcount/bitpos/bitop,
the BitFieldOperation builder (overflow modes, signed and unsigned fields,
execute), BITFIELD_RO, pfadd/pfcount/pfmerge, geoadd/geodist/geohash/geopos/
geosearch/geosearchstore/georadius/georadiusbymember, each call's Python result equal
on both servers; and a pipeline of them in a transaction."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import redis  # noqa: E402

import difftest  # noqa: E402
import spserver  # noqa: E402


def calls(r):
    out = []
    r.flushdb()
    out.append(r.setbit("bm", 100, 1))
    out.append(r.setbit("bm", 3, 1))
    out.append(r.getbit("bm", 100))
    out.append(r.bitcount("bm"))
    out.append(r.bitcount("bm", 0, 0))
    out.append(r.bitcount("bm", 0, 10, mode="BIT"))
    out.append(r.bitpos("bm", 1))
    out.append(r.bitpos("bm", 0, 0))
    out.append(r.bitpos("bm", 1, 1, -1))
    r.set("other", b"\x0f\xf0")
    out.append(r.bitop("AND", "and", "bm", "other"))
    out.append(r.bitop("NOT", "not", "other"))
    out.append(r.get("not"))
    bf = r.bitfield("bf")
    bf.set("u8", 0, 200).incrby("u8", 0, 100).overflow("SAT").incrby("u8", 0, 100)
    bf.overflow("FAIL").incrby("i8", "#1", 200).get("i16", 0)
    out.append(bf.execute())
    out.append(r.execute_command("BITFIELD_RO", "bf", "GET", "u8", 0, "GET", "i4", 4, "GET", "u16", 3))
    out.append(r.pfadd("hll", "a", "b", "c", "d"))
    out.append(r.pfadd("hll", "a"))
    out.append(r.pfadd("hll2", *["x%d" % i for i in range(5000)]))
    out.append(r.pfcount("hll"))
    out.append(r.pfcount("hll", "hll2"))
    out.append(r.pfmerge("all", "hll", "hll2"))
    out.append(r.pfcount("all"))
    out.append(r.get("all"))
    out.append(r.geoadd("geo", [13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania"]))
    out.append(r.geoadd("geo", [13.361389, 38.2, "Palermo"], xx=True, ch=True))
    out.append(r.geodist("geo", "Palermo", "Catania", unit="km"))
    out.append(r.geohash("geo", "Palermo", "nope"))
    out.append(r.geopos("geo", "Catania", "nope"))
    out.append(r.geosearch("geo", longitude=15, latitude=37, radius=200, unit="km", sort="ASC", withdist=True,
                           withcoord=True, withhash=True))
    out.append(r.geosearch("geo", member="Palermo", width=400, height=400, unit="km", count=1, any=True))
    out.append(r.geosearchstore("near", "geo", longitude=15, latitude=37, radius=200, unit="km", storedist=True))
    out.append(r.zrange("near", 0, -1, withscores=True))
    out.append(r.georadius("geo", 15, 37, 200, unit="km", withdist=True, sort="DESC"))
    out.append(r.georadiusbymember("geo", "Palermo", 300, unit="km", count=2))
    p = r.pipeline(transaction=True)
    p.setbit("t", 7, 1).bitcount("t").pfadd("th", "q").pfcount("th")
    out.append(p.execute())
    try:
        r.pfadd("bm", "x")
    except redis.ResponseError as e:
        out.append(str(e))
    return out


def main():
    rep = spserver.Reporter()
    rs = difftest.RedisServer()
    try:
        with spserver.Server("--appendonly", "no") as sp:
            want = calls(redis.Redis(port=rs.port))
            got = calls(redis.Redis(port=sp.port))

            def same():
                for i, (a, b) in enumerate(zip(want, got)):
                    assert a == b, "call %d: redis-server %r, Scratchpad %r" % (i, a, b)
                assert len(want) == len(got)
            rep.case("redis-py's bitmap, BITFIELD builder, HyperLogLog and geo calls give the same Python results "
                     "on Scratchpad as on redis-server (%d calls)" % len(want), same)
    finally:
        rs.stop()
    rep.finish()


if __name__ == "__main__":
    main()
