/* A tile of TILE elements staged in local memory (padded: PAD), loaded and
 * stored coalesced: neighbouring work-items read and write neighbouring
 * elements. Written once for any element type V (DEFINE_TILE_IO), and made
 * for the element T; kernels make them for other types (keys) as well. */
#ifndef CLPRIM_BLOCK_TILE_CL
#define CLPRIM_BLOCK_TILE_CL

#include "block/element.cl"

/* LOAD(src, base, end, tile, fill) stages src[base, base + TILE) in local
 * memory, the part past `end` as `fill`; whole tiles skip the bounds checks.
 * The caller's barrier follows. STORE(dst, base, end, tile) writes the staged
 * tile back to dst[base, min(end, base + TILE)); the caller's barrier
 * precedes it. */
#define DEFINE_TILE_IO(LOAD, STORE, V)                                                          \
    void LOAD(__global const V *src, const ulong base, const ulong end, __local V *tile, const V fill) \
    {                                                                                           \
        const uint lid = get_local_id(0);                                                       \
        if (base + TILE <= end) {                                                               \
            for (uint k = 0; k < ITEMS; k++)                                                    \
                tile[PAD(k * WG + lid)] = src[base + k * WG + lid];                             \
        } else {                                                                                \
            for (uint k = 0; k < ITEMS; k++) {                                                  \
                const uint j = k * WG + lid;                                                    \
                tile[PAD(j)] = base + j < end ? src[base + j] : fill;                           \
            }                                                                                   \
        }                                                                                       \
    }                                                                                           \
                                                                                                \
    void STORE(__global V *dst, const ulong base, const ulong end, __local const V *tile)       \
    {                                                                                           \
        const uint lid = get_local_id(0);                                                       \
        if (base + TILE <= end) {                                                               \
            for (uint k = 0; k < ITEMS; k++)                                                    \
                dst[base + k * WG + lid] = tile[PAD(k * WG + lid)];                             \
        } else {                                                                                \
            for (uint k = 0; k < ITEMS; k++) {                                                  \
                const uint j = k * WG + lid;                                                    \
                if (base + j < end)                                                             \
                    dst[base + j] = tile[PAD(j)];                                               \
            }                                                                                   \
        }                                                                                       \
    }

#ifdef TYPE
DEFINE_TILE_IO(load_tile, store_tile, T)
#endif

#endif /* CLPRIM_BLOCK_TILE_CL */
