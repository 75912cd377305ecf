/* geohash.c -- Redis's 52-bit geohash (see geohash.h). */
#include "geohash.h"
#include "util.h"

#include <math.h>

#define MERCATOR_MAX 20037726.37
#define D_R (M_PI / 180.0)

static double deg_rad(double d)
{
    return d * D_R;
}

static double rad_deg(double r)
{
    return r / D_R;
}

/* x's 32 bits into the even bits of the result. */
static uint64_t spread(uint32_t x)
{
    uint64_t v = x;

    v = (v | (v << 16)) & 0x0000ffff0000ffffULL;
    v = (v | (v << 8)) & 0x00ff00ff00ff00ffULL;
    v = (v | (v << 4)) & 0x0f0f0f0f0f0f0f0fULL;
    v = (v | (v << 2)) & 0x3333333333333333ULL;
    v = (v | (v << 1)) & 0x5555555555555555ULL;
    return v;
}

/* The even bits of v, packed. */
static uint32_t squash(uint64_t v)
{
    v &= 0x5555555555555555ULL;
    v = (v | (v >> 1)) & 0x3333333333333333ULL;
    v = (v | (v >> 2)) & 0x0f0f0f0f0f0f0f0fULL;
    v = (v | (v >> 4)) & 0x00ff00ff00ff00ffULL;
    v = (v | (v >> 8)) & 0x0000ffff0000ffffULL;
    v = (v | (v >> 16)) & 0x00000000ffffffffULL;
    return (uint32_t)v;
}

int geo_encode(double lon_min, double lon_max, double lat_min, double lat_max, double lon, double lat, int step,
               geo_hash *h)
{
    double lat_off, lon_off;

    if (step > 32 || step == 0 || (lat_min == 0 && lat_max == 0) || (lon_min == 0 && lon_max == 0))
        return 0;
    if (lon > GEO_LONG_MAX || lon < GEO_LONG_MIN || lat > GEO_LAT_MAX || lat < GEO_LAT_MIN)
        return 0;
    h->bits = 0;
    h->step = (uint8_t)step;
    if (lat < lat_min || lat > lat_max || lon < lon_min || lon > lon_max)
        return 0;
    lat_off = (lat - lat_min) / (lat_max - lat_min);
    lon_off = (lon - lon_min) / (lon_max - lon_min);
    lat_off *= (double)(1ULL << step);
    lon_off *= (double)(1ULL << step);
    h->bits = spread((uint32_t)lat_off) | (spread((uint32_t)lon_off) << 1);
    return 1;
}

int geo_encode_wgs84(double lon, double lat, int step, geo_hash *h)
{
    return geo_encode(GEO_LONG_MIN, GEO_LONG_MAX, GEO_LAT_MIN, GEO_LAT_MAX, lon, lat, step, h);
}

uint64_t geo_align52(geo_hash h)
{
    return h.bits << (52 - h.step * 2);
}

void geo_decode_area(geo_hash h, geo_area *a)
{
    double lat_scale = GEO_LAT_MAX - GEO_LAT_MIN, lon_scale = GEO_LONG_MAX - GEO_LONG_MIN;
    uint32_t ilat = squash(h.bits), ilon = squash(h.bits >> 1);
    double cells = (double)(1ULL << h.step);

    a->lat_min = GEO_LAT_MIN + (ilat * 1.0 / cells) * lat_scale;
    a->lat_max = GEO_LAT_MIN + ((ilat + 1) * 1.0 / cells) * lat_scale;
    a->lon_min = GEO_LONG_MIN + (ilon * 1.0 / cells) * lon_scale;
    a->lon_max = GEO_LONG_MIN + ((ilon + 1) * 1.0 / cells) * lon_scale;
}

void geo_decode_score(double score, double xy[2])
{
    /* A score no geohash has (negative, huge, infinite) converts as in
     * redis-server, without undefined behaviour (util.h). */
    geo_hash h = {dbl_to_ull_x86(score), GEO_STEP_MAX};
    geo_area a;

    geo_decode_area(h, &a);
    xy[0] = (a.lon_min + a.lon_max) / 2;
    if (xy[0] > GEO_LONG_MAX)
        xy[0] = GEO_LONG_MAX;
    if (xy[0] < GEO_LONG_MIN)
        xy[0] = GEO_LONG_MIN;
    xy[1] = (a.lat_min + a.lat_max) / 2;
    if (xy[1] > GEO_LAT_MAX)
        xy[1] = GEO_LAT_MAX;
    if (xy[1] < GEO_LAT_MIN)
        xy[1] = GEO_LAT_MIN;
}

/* Along a meridian the haversine reduces to R times the angle. */
static double lat_distance(double lat1, double lat2)
{
    return GEO_EARTH_RADIUS * fabs(deg_rad(lat2) - deg_rad(lat1));
}

double geo_distance(double lon1, double lat1, double lon2, double lat2)
{
    double lat1r, lat2r, u, v, a;

    v = sin((deg_rad(lon2) - deg_rad(lon1)) / 2);
    if (v == 0.0)
        return lat_distance(lat1, lat2);
    lat1r = deg_rad(lat1);
    lat2r = deg_rad(lat2);
    u = sin((lat2r - lat1r) / 2);
    a = u * u + cos(lat1r) * cos(lat2r) * v * v;
    return 2.0 * GEO_EARTH_RADIUS * asin(sqrt(a));
}

void geo_hash_string(double score, char out[11])
{
    static const char alphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
    double xy[2];
    geo_hash h;
    int i;

    geo_decode_score(score, xy);
    geo_encode(-180, 180, -90, 90, xy[0], xy[1], 26, &h);
    for (i = 0; i < 11; i++)
        out[i] = alphabet[i == 10 ? 0 : (h.bits >> (52 - (i + 1) * 5)) & 0x1f];
}

static void move_x(geo_hash *h, int d)
{
    uint64_t x = h->bits & 0xaaaaaaaaaaaaaaaaULL, y = h->bits & 0x5555555555555555ULL;
    uint64_t zz = 0x5555555555555555ULL >> (64 - h->step * 2);

    if (d == 0)
        return;
    if (d > 0) {
        x = x + (zz + 1);
    } else {
        x = x | zz;
        x = x - (zz + 1);
    }
    x &= 0xaaaaaaaaaaaaaaaaULL >> (64 - h->step * 2);
    h->bits = x | y;
}

static void move_y(geo_hash *h, int d)
{
    uint64_t x = h->bits & 0xaaaaaaaaaaaaaaaaULL, y = h->bits & 0x5555555555555555ULL;
    uint64_t zz = 0xaaaaaaaaaaaaaaaaULL >> (64 - h->step * 2);

    if (d == 0)
        return;
    if (d > 0) {
        y = y + (zz + 1);
    } else {
        y = y | zz;
        y = y - (zz + 1);
    }
    y &= 0x5555555555555555ULL >> (64 - h->step * 2);
    h->bits = x | y;
}

/* The neighbours of h in Redis's order after the centre: N S E W NE NW SE SW. */
static void neighbours(geo_hash h, geo_hash n[8])
{
    static const int dx[8] = {0, 0, 1, -1, 1, -1, 1, -1}, dy[8] = {1, -1, 0, 0, 1, 1, -1, -1};
    int i;

    for (i = 0; i < 8; i++) {
        n[i] = h;
        move_x(&n[i], dx[i]);
        move_y(&n[i], dy[i]);
    }
}

static int steps_for_radius(double range, double lat)
{
    int step = 1;

    if (range == 0)
        return 26;
    while (range < MERCATOR_MAX) {
        range *= 2;
        step++;
    }
    step -= 2;
    if (lat > 66 || lat < -66) {
        step--;
        if (lat > 80 || lat < -80)
            step--;
    }
    if (step < 1)
        step = 1;
    if (step > 26)
        step = 26;
    return step;
}

/* bounds: min lon, min lat, max lon, max lat of the shape. */
static void bounding_box(const geo_shape *s, double b[4])
{
    double lon = s->xy[0], lat = s->xy[1];
    double height = s->conversion * (s->box ? s->height / 2 : s->radius);
    double width = s->conversion * (s->box ? s->width / 2 : s->radius);
    double lat_delta = rad_deg(height / GEO_EARTH_RADIUS);
    double top = rad_deg(width / GEO_EARTH_RADIUS / cos(deg_rad(lat + lat_delta)));
    double bottom = rad_deg(width / GEO_EARTH_RADIUS / cos(deg_rad(lat - lat_delta)));
    int south = lat < 0;

    b[0] = south ? lon - bottom : lon - top;
    b[2] = south ? lon + bottom : lon + top;
    b[1] = lat - lat_delta;
    b[3] = lat + lat_delta;
}

void geo_search_cells(const geo_shape *s, geo_hash cells[9])
{
    double b[4], radius;
    geo_hash h, *n = cells + 1;
    geo_area area, nb[4];
    int steps, i, shrink = 0;

    bounding_box(s, b);
    radius = s->box ? sqrt((s->width / 2) * (s->width / 2) + (s->height / 2) * (s->height / 2)) : s->radius;
    radius *= s->conversion;
    steps = steps_for_radius(radius, s->xy[1]);
    geo_encode_wgs84(s->xy[0], s->xy[1], steps, &h);
    neighbours(h, n);
    geo_decode_area(h, &area);
    for (i = 0; i < 4; i++)
        geo_decode_area(n[i], &nb[i]);
    if (nb[0].lat_max < b[3] || nb[1].lat_min > b[1] || nb[2].lon_max < b[2] || nb[3].lon_min > b[0])
        shrink = 1;
    if (steps > 1 && shrink) {
        steps--;
        geo_encode_wgs84(s->xy[0], s->xy[1], steps, &h);
        neighbours(h, n);
        geo_decode_area(h, &area);
    }
    cells[0] = h;
    /* Cells wholly outside the shape's box are not searched. */
    if (steps >= 2) {
        static const geo_hash zero = {0, 0};
        if (area.lat_min < b[1]) /* S, SE, SW */
            n[1] = n[6] = n[7] = zero;
        if (area.lat_max > b[3]) /* N, NE, NW */
            n[0] = n[4] = n[5] = zero;
        if (area.lon_min < b[0]) /* W, SW, NW */
            n[3] = n[7] = n[5] = zero;
        if (area.lon_max > b[2]) /* E, SE, NE */
            n[2] = n[6] = n[4] = zero;
    }
}

int geo_in_shape(const geo_shape *s, double lon, double lat, double *dist)
{
    if (!s->box) {
        *dist = geo_distance(s->xy[0], s->xy[1], lon, lat);
        return *dist <= s->radius * s->conversion;
    }
    if (lat_distance(lat, s->xy[1]) > s->height * s->conversion / 2)
        return 0;
    if (geo_distance(lon, lat, s->xy[0], lat) > s->width * s->conversion / 2)
        return 0;
    *dist = geo_distance(s->xy[0], s->xy[1], lon, lat);
    return 1;
}
