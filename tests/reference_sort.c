/* CPU references for the sort work: see reference_sort.h. */
#include "reference_sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t reference_sort_key_bytes(clprim_type t)
{
    return t == CLPRIM_INT64 || t == CLPRIM_UINT64 || t == CLPRIM_DOUBLE ? 8 : 4;
}

uint64_t reference_sort_rank(clprim_type t, const clprim_sort_order *order, const void *key)
{
    const unsigned width = (unsigned)reference_sort_key_bytes(t) * 8;
    const uint64_t all = width == 64 ? ~(uint64_t)0 : 0xFFFFFFFFu, sign = (uint64_t)1 << (width - 1);
    uint64_t u = 0;
    memcpy(&u, key, width / 8); /* little-endian host */
    if (t == CLPRIM_INT32 || t == CLPRIM_INT64)
        u ^= sign;
    else if (t == CLPRIM_FLOAT || t == CLPRIM_DOUBLE)
        u = (u & sign) ? ~u & all : u ^ sign;
    const unsigned begin = order ? order->begin_bit : 0;
    const unsigned end = order && order->end_bit ? order->end_bit : width;
    if (order && order->descending)
        u = ~u & all;
    u >>= begin;
    return end - begin == 64 ? u : u & (((uint64_t)1 << (end - begin)) - 1);
}

typedef struct {
    uint64_t rank;
    uint64_t index;
} ref_item;

static int ref_compare(const void *a, const void *b)
{
    const ref_item *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

uint32_t *reference_sort_perm_order(clprim_type t, const clprim_sort_order *order, const void *keys, size_t n)
{
    ref_item *items = malloc((n ? n : 1) * sizeof *items);
    uint32_t *perm = malloc((n ? n : 1) * sizeof *perm);
    if (!items || !perm)
        abort();
    const size_t kb = reference_sort_key_bytes(t);
    for (size_t i = 0; i < n; i++)
        items[i] = (ref_item){reference_sort_rank(t, order, (const char *)keys + i * kb), i};
    qsort(items, n, sizeof *items, ref_compare);
    for (size_t j = 0; j < n; j++)
        perm[j] = (uint32_t)items[j].index;
    free(items);
    return perm;
}

uint32_t *reference_sort_perm(clprim_type t, const uint32_t *keys, size_t n)
{
    return reference_sort_perm_order(t, NULL, keys, n);
}

static uint32_t axis(float p, float origin, float inv, size_t dim)
{
    const float f = (p - origin) * inv;
    if (!(f >= 0.0f))
        return 0;
    if (f >= (float)dim)
        return (uint32_t)(dim - 1);
    uint32_t i = (uint32_t)f;
    return i < dim - 1 ? i : (uint32_t)(dim - 1);
}

uint32_t reference_box_of(const clprim_box_grid *g, const float *p)
{
    uint32_t ix = axis(p[0], g->origin[0], 1.0f / g->box_size[0], g->dims[0]);
    uint32_t iy = axis(p[1], g->origin[1], 1.0f / g->box_size[1], g->dims[1]);
    uint32_t iz = axis(p[2], g->origin[2], 1.0f / g->box_size[2], g->dims[2]);
    return (uint32_t)((iz * g->dims[1] + iy) * g->dims[0] + ix);
}

void reference_box_sort(const clprim_box_grid *g, const float *pos, size_t n, uint32_t *start, uint32_t *order)
{
    const size_t boxes = g->dims[0] * g->dims[1] * g->dims[2];
    uint32_t *id = malloc((n ? n : 1) * 4), *next = malloc((boxes + 1) * 4);
    if (!id || !next)
        abort();
    memset(start, 0, (boxes + 1) * 4);
    for (size_t i = 0; i < n; i++)
        start[id[i] = reference_box_of(g, pos + 3 * i)]++;
    uint32_t sum = 0;
    for (size_t b = 0; b <= boxes; b++) {
        uint32_t c = start[b];
        start[b] = sum;
        sum += c;
    }
    memcpy(next, start, (boxes + 1) * 4);
    for (size_t i = 0; i < n; i++)
        order[next[id[i]]++] = (uint32_t)i;
    free(id);
    free(next);
}
