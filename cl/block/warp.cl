/* Warps of 32 work-items that act together: which lanes agree in a few bits,
 * one lane's value to all, a value from the lane a given distance below, and
 * the ordering of local memory among them. The host builds with -DHAS_WARPS
 * where they serve, in one of two builds of the same calls:
 *
 *   -DWARP_PTX   NVIDIA's inline PTX (vote.sync, shfl.sync, bar.warp.sync;
 *                compute capability 7.0 and later), where work-item l of a
 *                one-dimensional work-group is lane l % 32 of warp l / 32;
 *   otherwise    the same results through local memory and work-group
 *                barriers, on any device (the tests' CLPRIM_TEST_WARPS),
 *                so that PoCL and oclgrind check the algorithms built on them.
 *
 * Every work-item of the work-group calls each of them together (the emulation
 * holds barriers), with `scratch` a WG-word local array that nothing else uses
 * meanwhile. WG is a multiple of 32. */
#ifndef CLPRIM_BLOCK_WARP_CL
#define CLPRIM_BLOCK_WARP_CL

#include "block/element.cl"

#define WARP 32
#define WARPS (WG / WARP)
#if WG % WARP != 0
#error "warps need work-groups of a multiple of 32 work-items"
#endif

inline uint warp_lane(void)
{
    return get_local_id(0) % WARP;
}

inline uint warp_index(void)
{
    return get_local_id(0) / WARP;
}

/* Lanes up to and including this one, as a mask. */
inline uint lanes_through_me(void)
{
    const uint lane = warp_lane();
    return lane == WARP - 1 ? 0xffffffffu : (2u << lane) - 1u;
}

#ifdef WARP_PTX

/* The lanes of this warp whose pred is not zero. */
inline uint warp_ballot(uint pred)
{
    uint lanes;
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }"
                 : "=r"(lanes)
                 : "r"(pred));
    return lanes;
}

/* The lanes of this warp whose v agrees with this lane's in its low `bits`
 * bits, by a ballot a bit: match.any compares all 32 in one instruction, but
 * runs slowly; on an H200 at 2^26 the radix sort took 9% more time with it
 * for uint64 keys, 5% more for uint32 pairs. */
inline uint warp_peers(uint v, uint bits, __local uint *scratch)
{
    uint peers = 0xffffffffu;
    for (uint b = 0; b < bits; b++) {
        const uint set = (v >> b) & 1u, lanes = warp_ballot(set);
        peers &= set ? lanes : ~lanes;
    }
    return peers;
}

/* Lane `from`'s v, in every lane. */
inline uint warp_broadcast(uint v, uint from, __local uint *scratch)
{
    uint r;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(from));
    return r;
}

/* The v of the lane `distance` below this one; a lane with none below keeps
 * its own. */
inline uint warp_shuffle_up(uint v, uint distance, __local uint *scratch)
{
    uint r;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(v), "r"(distance));
    return r;
}

/* Local memory written by a lane before it, read by any lane after. */
inline void warp_sync(void)
{
    asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
}

#else

inline uint warp_peers(uint v, uint bits, __local uint *scratch)
{
    const uint lid = get_local_id(0), low = bits < 32 ? (1u << bits) - 1u : 0xffffffffu;
    __local const uint *warp = scratch + warp_index() * WARP;
    scratch[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint peers = 0;
    for (uint l = 0; l < WARP; l++)
        peers |= (uint)(((warp[l] ^ v) & low) == 0) << l;
    barrier(CLK_LOCAL_MEM_FENCE);
    return peers;
}

inline uint warp_broadcast(uint v, uint from, __local uint *scratch)
{
    scratch[get_local_id(0)] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint r = scratch[warp_index() * WARP + from];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

inline uint warp_shuffle_up(uint v, uint distance, __local uint *scratch)
{
    const uint lid = get_local_id(0);
    scratch[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint r = warp_lane() >= distance ? scratch[lid - distance] : v;
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

inline void warp_sync(void)
{
    barrier(CLK_LOCAL_MEM_FENCE);
}

#endif

#endif
