#!/usr/bin/python3
"""diff_geo.py -- the geo commands against redis-server.

A random stream over a few geo sets: GEOADD (NX XX CH, points anywhere in the
limits and clustered around a few centres, the limits themselves, out of range
and non-numeric coordinates), GEODIST in every unit, GEOHASH, GEOPOS (present
and missing members), GEOSEARCH and GEOSEARCHSTORE (FROMMEMBER / FROMLONLAT,
BYRADIUS / BYBOX, ASC / DESC, COUNT with and without ANY, WITHCOORD WITHDIST
WITHHASH, STOREDIST), GEORADIUS and GEORADIUSBYMEMBER (STORE, STOREDIST) and
their _RO forms, with small, huge and zero radii, near the poles and the
antimeridian, and the errors of each option; wrong types; ZRANGE WITHSCORES of
the sets and of the stored results. Replies byte for byte in RESP2 and RESP3.
Points are random doubles, so no two members are at the same distance (Redis
sorts a COUNT-cut result with a partial quicksort of its own: ties may come
in another order, docs/commands.md). COMMAND INFO of each command byte for byte.
SEED=N replays a stream; DIFF_COUNT=N runs longer.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import difftest  # noqa: E402
from difftest import Req  # noqa: E402

KEYS = ["g1", "g2", "{x}g"]
COMMANDS = ("geoadd geodist geohash geopos geosearch geosearchstore georadius georadius_ro georadiusbymember "
            "georadiusbymember_ro").split()
CENTRES = [(13.361389, 38.115556), (-122.27652, 37.805186), (179.9, 0.5), (-179.95, -10.0), (0.0, 84.9),
           (10.0, -85.0), (2.35, 48.85)]


def point(rng):
    r = rng.random()
    if r < 0.6:
        lon, lat = rng.choice(CENTRES)
        spread = rng.choice([0.02, 0.05, 1.0, 10.0])
        lon += rng.uniform(-spread, spread)
        lat += rng.uniform(-spread, spread)
        # inside the limits without clamping (clamped points would share a
        # position, and their distances would tie)
        if abs(lon) > 180:
            lon = (180 - rng.random() * spread) * (1 if lon > 0 else -1)
        if abs(lat) > 85.05112878:
            lat = (85.05112878 - rng.random() * spread) * (1 if lat > 0 else -1)
        return [repr(lon), repr(lat)]
    if r < 0.9:
        return [repr(rng.uniform(-180, 180)), repr(rng.uniform(-85.05112878, 85.05112878))]
    return rng.choice([["180", "85.05112878"], ["-180", "-85.05112878"], ["0", "0"], ["180.1", "0"], ["0", "85.06"],
                       ["abc", "0"], ["0", ""], ["inf", "0"], ["-0", "-0"], ["1e1", "1E1"]])


def member(rng):
    return "m%d" % rng.randrange(60) if rng.random() < 0.95 else rng.choice(["", "é", "x" * 70])


def unit(rng):
    return rng.choice(["m", "km", "ft", "mi", "KM", "M"]) if rng.random() < 0.97 else rng.choice(["yd", ""])


def dist(rng):
    if rng.random() < 0.95:
        return rng.choice(["0", "1", "100", "5000", "200000", "1000000", "10000000", "%.3f" % rng.uniform(0, 3e5)])
    return rng.choice(["-1", "abc", "inf", "1e400"])


def options(rng, store_allowed):
    opts = []
    for _ in range(rng.randrange(0, 4)):
        r = rng.random()
        if r < 0.2:
            opts.append(rng.choice(["ASC", "DESC", "asc"]))
        elif r < 0.45:
            opts += ["COUNT", rng.choice(["1", "2", "3", "10", "0", "-1", "abc"])]
            if rng.random() < 0.3:
                opts.append("ANY")
        elif r < 0.8 and not store_allowed:
            opts.append(rng.choice(["WITHCOORD", "WITHDIST", "WITHHASH", "withdist"]))
        elif r < 0.95 and store_allowed:
            opts.append(rng.choice(["STOREDIST"]))
        else:
            opts.append(rng.choice(["ANY", "FOO", "WITHDIST"]))
    return opts


def origin(rng, k):
    if rng.random() < 0.5:
        return ["FROMMEMBER", member(rng)]
    return ["FROMLONLAT"] + point(rng)


def shape(rng):
    if rng.random() < 0.5:
        return ["BYRADIUS", dist(rng), unit(rng)]
    return ["BYBOX", dist(rng), dist(rng), unit(rng)]


def generate(rng, n):
    for name in COMMANDS:
        yield Req("COMMAND", "INFO", name)
    for args in (["GEORADIUS", "k", "0", "0", "1", "m", "STORE", "d"], ["GEOSEARCHSTORE", "d", "s", "FROMLONLAT", "0",
                                                                          "0", "BYRADIUS", "1", "m"]):
        yield Req("COMMAND", "GETKEYS", *args)
    for req in (["GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"],
                ["GEODIST", "Sicily", "Palermo", "Catania"], ["GEODIST", "Sicily", "Palermo", "Catania", "km"],
                ["GEOHASH", "Sicily", "Palermo", "Catania", "nope"], ["GEOPOS", "Sicily", "Palermo", "nope"],
                ["GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "WITHCOORD", "WITHHASH", "ASC"],
                ["GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "ASC", "WITHCOORD",
                 "WITHDIST"], ["GEOADD", "Sicily", "13.361389", "38.115556"], ["GEOADD", "Sicily", "NX", "XX", "1",
                                                                               "1", "a"],
                ["GEOADD", "Sicily", "GT", "1", "1", "a"], ["GEOADD", "Sicily", "NX", "CH", "XX"],
                ["GEOADD", "Sicily", "CH", "CH", "CH"], ["GEOSEARCH", "Sicily", "BYRADIUS", "1", "m"],
                ["GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo"], ["GEOSEARCH", "nokey", "FROMMEMBER", "x", "BYRADIUS",
                                                                  "1", "m"],
                ["GEOSEARCHSTORE", "dst", "nokey", "FROMMEMBER", "x", "BYRADIUS", "1", "m"],
                ["GEOSEARCHSTORE", "dst", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "0", "m", "ASC"],
                ["GEORADIUSBYMEMBER", "Sicily", "nope", "1", "m"], ["GEORADIUSBYMEMBER", "nokey", "nope", "1", "m"],
                ["GEORADIUS_RO", "Sicily", "15", "37", "200", "km", "STORE", "x"],
                ["GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "x", "WITHDIST"],
                ["GEOSEARCHSTORE", "x", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "WITHDIST"],
                ["GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ANY"],
                ["GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "FROMMEMBER", "Palermo", "BYRADIUS", "200", "km"],
                ["GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "BYBOX", "1", "1", "m"],
                ["GEODIST", "Sicily", "Palermo", "Catania", "km", "x"], ["GEODIST", "Sicily", "Palermo", "Catania", "yd"],
                ["SET", "str", "x"], ["GEOADD", "str", "1", "1", "a"], ["GEOPOS", "str", "a"], ["GEOHASH", "str", "a"],
                ["GEODIST", "str", "a", "b"], ["GEOSEARCH", "str", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "m"],
                ["GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "str"], ["TYPE", "str"],
                ["GEOADD", "p", "0", "10", "a", "0", "11", "b", "0", "-10", "c"], ["GEODIST", "p", "a", "b"],
                ["GEODIST", "p", "a", "c", "mi"], ["GEORADIUS", "p", "0", "10", "200", "km", "STOREDIST", "sd"],
                ["ZRANGE", "sd", "0", "-1", "WITHSCORES"], ["GEOSEARCHSTORE", "p", "p", "FROMMEMBER", "a", "BYRADIUS",
                                                             "200", "km"], ["ZRANGE", "p", "0", "-1", "WITHSCORES"],
                ["FLUSHDB"]):
        yield Req(*req)
    for i in range(n):
        k = rng.choice(KEYS)
        c = rng.randrange(16)
        if c < 4:
            opts = rng.sample(["NX", "XX", "CH"], rng.choice([0, 0, 0, 1, 1, 2]))
            args = []
            for _ in range(rng.randrange(1, 6)):
                pt = point(rng)
                # a fixed point has a member of its own, so that no two
                # members are ever at the same distance
                # "-0 -0" is the point "0 0": the same member name, or the two
                # would tie in distance (seed 44876756 met that tie cut by COUNT)
                args += pt + [("at" + pt[0].replace("-0", "0") + "," + pt[1].replace("-0", "0"))
                              if len(pt[0]) < 12 else member(rng)]
            if rng.random() < 0.03:
                args = args[:-1]
            yield Req("GEOADD", k, *(opts + args))
        elif c == 4:
            yield Req("GEODIST", k, member(rng), member(rng), *([unit(rng)] if rng.random() < 0.6 else []))
        elif c == 5:
            yield Req("GEOHASH", k, *[member(rng) for _ in range(rng.randrange(0, 4))])
        elif c == 6:
            yield Req("GEOPOS", k, *[member(rng) for _ in range(rng.randrange(0, 4))])
        elif c in (7, 8, 9):
            parts = [origin(rng, k), shape(rng)]
            rng.shuffle(parts)
            yield Req("GEOSEARCH", k, *(parts[0] + parts[1] + options(rng, False)))
        elif c == 10:
            parts = [origin(rng, k), shape(rng)]
            rng.shuffle(parts)
            yield Req("GEOSEARCHSTORE", rng.choice(["dst", "dst2"]), k, *(parts[0] + parts[1] + options(rng, True)))
        elif c == 11:
            cmd = rng.choice(["GEORADIUS", "GEORADIUS_RO"])
            opts = options(rng, False)
            if cmd == "GEORADIUS" and rng.random() < 0.3:
                opts = [o for o in opts if not o.startswith("WITH")] + [rng.choice(["STORE", "STOREDIST"]),
                                                                         rng.choice(["dst", "dst2"])]
            yield Req(cmd, k, *point(rng), dist(rng), unit(rng), *opts)
        elif c == 12:
            cmd = rng.choice(["GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO"])
            opts = options(rng, False)
            if cmd == "GEORADIUSBYMEMBER" and rng.random() < 0.3:
                opts = [o for o in opts if not o.startswith("WITH")] + [rng.choice(["STORE", "STOREDIST"]),
                                                                         rng.choice(["dst", "dst2"])]
            yield Req(cmd, k, member(rng), dist(rng), unit(rng), *opts)
        elif c == 13:
            yield Req("ZRANGE", rng.choice(KEYS + ["dst", "dst2"]), "0", "-1", "WITHSCORES")
        elif c == 14:
            if rng.random() < 0.5:
                yield Req("ZREM", k, member(rng))
            else:
                yield Req("ZADD", k, str(rng.randrange(1 << 52)), member(rng))
        else:
            yield Req("DEL", k) if rng.random() < 0.3 else Req("ZCARD", k)


if __name__ == "__main__":
    ok = difftest.run("geo (RESP2)", generate, 2000)
    ok = difftest.run("geo (RESP3)", generate, 500, resp3=True) and ok
    sys.exit(0 if ok else 1)
