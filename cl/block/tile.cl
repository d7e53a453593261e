/* A tile of TILE elements staged in local memory (padded: PAD), loaded and
 * stored coalesced: neighbouring work-items read and write neighbouring
 * elements. */
#ifndef CLPRIM_BLOCK_TILE_CL
#define CLPRIM_BLOCK_TILE_CL

#include "block/element.cl"

#ifdef TYPE
/* Stages src[base, base + TILE) in local memory, the part past `end` as
 * `fill`, checking every element's bounds. The caller's barrier follows. */
void load_tile_checked(__global const T *src, const ulong base, const ulong end, __local T *tile, const T fill)
{
    const uint lid = get_local_id(0);
    for (uint k = 0; k < ITEMS; k++) {
        const uint j = k * WG + lid;
        tile[PAD(j)] = base + j < end ? src[base + j] : fill;
    }
}

/* As load_tile_checked, but whole tiles skip the bounds checks. */
void load_tile(__global const T *src, const ulong base, const ulong end, __local T *tile, const T fill)
{
    const uint lid = get_local_id(0);
    if (base + TILE <= end) {
        for (uint k = 0; k < ITEMS; k++)
            tile[PAD(k * WG + lid)] = src[base + k * WG + lid];
    } else {
        load_tile_checked(src, base, end, tile, fill);
    }
}

/* Writes the staged tile back to dst[base, min(end, base + TILE)). The
 * caller's barrier precedes it. */
void store_tile(__global T *dst, const ulong base, const ulong end, __local const T *tile)
{
    const uint lid = get_local_id(0);
    if (base + TILE <= end) {
        for (uint k = 0; k < ITEMS; k++)
            dst[base + k * WG + lid] = tile[PAD(k * WG + lid)];
    } else {
        for (uint k = 0; k < ITEMS; k++) {
            const uint j = k * WG + lid;
            if (base + j < end)
                dst[base + j] = tile[PAD(j)];
        }
    }
}
#endif

#endif /* CLPRIM_BLOCK_TILE_CL */
