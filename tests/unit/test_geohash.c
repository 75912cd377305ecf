/* test_geohash.c -- core/geohash: Redis's 52-bit geohash, decoding, distances
 * and search cells. Expected values are redis-server 7.0.15's (GEOADD then
 * ZSCORE, GEOPOS, GEODIST, GEOHASH). */
#include <math.h>
#include <string.h>

#include "geohash.h"
#include "test.h"

static void palermo_has_redis_score(void)
{
    geo_hash h;

    CHECK(geo_encode_wgs84(13.361389, 38.115556, GEO_STEP_MAX, &h) == 1);
    CHECK(geo_align52(h) == 3479099956230698ULL);
    CHECK(geo_encode_wgs84(15.087269, 37.502669, GEO_STEP_MAX, &h) == 1);
    CHECK(geo_align52(h) == 3479447370796909ULL);
    CHECK(geo_encode_wgs84(180.1, 0, GEO_STEP_MAX, &h) == 0);
    CHECK(geo_encode_wgs84(0, 85.06, GEO_STEP_MAX, &h) == 0);
}

static void a_score_decodes_to_its_cell_centre(void)
{
    double xy[2];

    geo_decode_score(3479099956230698.0, xy);
    CHECK(xy[0] > 13.361389338970 && xy[0] < 13.361389338971);
    CHECK(xy[1] > 38.115556395496 && xy[1] < 38.115556395497);
}

/* GEOPOS of a member whose score no geohash has: redis-server 7.0.15's
 * coordinates (it converts the double to an integer the way the hardware does;
 * here without undefined behaviour, which UBSan checks in the fuzz build). */
static void a_score_out_of_range_decodes_as_redis(void)
{
    static const struct {
        double score;
        int lon_max, lat_max; /* 1: 180 / 85.05...; 0: -179.99... / -85.05... */
    } cases[] = {
        {-100, 1, 1},
        {-1, 1, 1},
        {-0.5, 0, 0},
        {1e300, 0, 0},
        {-1e300, 1, 0},
        {INFINITY, 0, 0},
        {-INFINITY, 1, 0},
        {4503599627370496.0, 0, 1},
        {9007199254740993.0, 1, 0},
        {18446744073709551616.0, 0, 0},
        {3e19, 0, 0},
    };
    double xy[2];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        geo_decode_score(cases[i].score, xy);
        CHECK(cases[i].lon_max ? xy[0] == 180 : xy[0] > -180.0 && xy[0] < -179.9999973);
        CHECK(cases[i].lat_max ? xy[1] > 85.05112877 && xy[1] <= 85.05112878
                               : xy[1] > -85.05112752 && xy[1] < -85.05112751);
    }
}

static void distance_and_hash_string_are_redis(void)
{
    double a[2], b[2], d;
    char s[11];

    geo_decode_score(3479099956230698.0, a);
    geo_decode_score(3479447370796909.0, b);
    d = geo_distance(a[0], a[1], b[0], b[1]);
    CHECK(d > 166274.15 && d < 166274.16); /* GEODIST: 166274.1516 */
    geo_hash_string(3479099956230698.0, s);
    CHECK(memcmp(s, "sqc8b49rny0", 11) == 0);
    CHECK(geo_distance(0, 10, 0, 11) > 111226.2999 && geo_distance(0, 10, 0, 11) < 111226.3001); /* R x 1 degree */
}

static void search_cells_cover_the_centre_and_skip_far_ones(void)
{
    geo_shape s = {0, {15, 37}, 1000, 200, 0, 0};
    geo_hash cells[9];
    geo_hash h;
    int i, nonzero = 0;

    geo_search_cells(&s, cells);
    geo_encode_wgs84(15, 37, cells[0].step, &h);
    CHECK(cells[0].bits == h.bits);
    for (i = 0; i < 9; i++)
        nonzero += cells[i].bits != 0 || cells[i].step != 0;
    CHECK(nonzero >= 1 && nonzero <= 9);
    s.radius = 0;
    geo_search_cells(&s, cells);
    CHECK(cells[0].step == 26 || cells[0].step == 25);
}

int main(void)
{
    RUN(palermo_has_redis_score, "a point's 52-bit score is redis-server's, and points out of the limits are refused");
    RUN(a_score_decodes_to_its_cell_centre, "a score decodes to the centre of its cell, as GEOPOS prints it");
    RUN(a_score_out_of_range_decodes_as_redis,
        "a score no geohash has (negative, huge, infinite) decodes to the corner redis-server prints");
    RUN(distance_and_hash_string_are_redis, "distances and 11-character geohashes are redis-server's");
    RUN(search_cells_cover_the_centre_and_skip_far_ones,
        "a search starts at the centre's cell at a step fitting its radius");
    return TEST_DONE();
}
