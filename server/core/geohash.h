/* geohash.h -- Redis's 52-bit geohash: the score of a member of a geo set.
 *
 * Why: GEOADD stores a position as a sorted set score, and a geo set copied
 * between Redis and Scratchpad (or compared byte for byte in the tests) must
 * hold the same scores and answer with the same digits. So this module follows
 * Redis's documented arithmetic exactly: longitude in [-180, 180] and latitude
 * in [-85.05112878, 85.05112878] (Web Mercator's limits), each cut in 2^26
 * steps, the cell numbers interleaved bit by bit (latitude in the even bits,
 * longitude in the odd ones) into 52 bits; a score decodes to the centre of
 * its cell; distances are the haversine formula on a sphere of radius
 * 6372797.560856 m (along a meridian, R times the difference of latitudes);
 * a search covers the cell of its centre and its eight neighbours at a step
 * estimated from the radius, as Redis's (so that the same members are found
 * in the same order).
 *
 * Conventions: pure functions, no allocation, no globals; 1 / 0 for "done" /
 * "out of range" where an encoding can fail. */
#ifndef SP_GEOHASH_H
#define SP_GEOHASH_H

#include <stdint.h>

#define GEO_LONG_MIN -180.0
#define GEO_LONG_MAX 180.0
#define GEO_LAT_MIN -85.05112878
#define GEO_LAT_MAX 85.05112878
#define GEO_STEP_MAX 26
#define GEO_EARTH_RADIUS 6372797.560856 /* m */

typedef struct geo_hash {
    uint64_t bits;
    uint8_t step; /* bits / 2 */
} geo_hash;

typedef struct geo_area {
    double lon_min, lon_max, lat_min, lat_max;
} geo_area;

/* The hash of (lon, lat) at step in the given ranges: 1, or 0 if the point is
 * outside Redis's limits or the ranges. */
int geo_encode(double lon_min, double lon_max, double lat_min, double lat_max, double lon, double lat, int step,
               geo_hash *h);
/* The hash in the geo limits (GEOADD, the searches). */
int geo_encode_wgs84(double lon, double lat, int step, geo_hash *h);
/* The 52-bit score of h (its bits shifted to 52). */
uint64_t geo_align52(geo_hash h);
/* The centre of the cell of a 52-bit score: xy[0] longitude, xy[1] latitude.
 * A score no geohash has (negative, huge, infinite) decodes to the corner
 * redis-server prints for it. */
void geo_decode_score(double score, double xy[2]);
/* The cell h covers, in the geo limits. */
void geo_decode_area(geo_hash h, geo_area *a);
/* Distance in m between two points (degrees). */
double geo_distance(double lon1, double lat1, double lon2, double lat2);
/* The 11-character standard geohash (latitude -90..90) of a score (GEOHASH). */
void geo_hash_string(double score, char out[11]);

/* A search shape: a circle (radius) or a box (width, height), centred at xy,
 * in units of conversion metres. */
typedef struct geo_shape {
    int box;
    double xy[2];
    double conversion;
    double radius, width, height;
} geo_shape;

/* The cells to search, Redis's order: centre, N, S, E, W, NE, NW, SE, SW; a
 * cell with bits == 0 and step == 0 is skipped. */
void geo_search_cells(const geo_shape *s, geo_hash cells[9]);
/* 1 and *dist (m) if the point (lon, lat) is in the shape, else 0. */
int geo_in_shape(const geo_shape *s, double lon, double lat, double *dist);

#endif
