/* Decoupled look-back: one launch passes each tile the combination of every
 * tile before it, in a single sweep over the data (scan, compaction and the
 * radix sort's one-sweep form).
 *
 * Tiles are numbered by an atomic counter in the order their work-groups
 * start, so a tile only ever waits on tiles that have already started. Each
 * tile publishes its own aggregate as soon as it has it, then looks back over
 * earlier tiles, adding aggregates until it meets a tile that published its
 * inclusive prefix, and publishes its own. The wait ends on devices that run
 * every started work-group to completion (the tuning table names them); the
 * host uses separate passes everywhere else. */
#ifndef CLPRIM_LOOKBACK_CL
#define CLPRIM_LOOKBACK_CL

/* How status words are written and read across work-groups. Atomics are what
 * OpenCL 1.2 promises; STATUS_PLAIN_WORDS (set by the tuning table for NVIDIA
 * GPUs, whose volatile accesses go to the shared L2 cache and whose aligned
 * 32- and 64-bit accesses are single transactions) uses plain volatile loads
 * and stores of whole words, which skip the atomic unit. */
#ifdef STATUS_PLAIN_WORDS
#define STATUS_STORE(p, v) (*(volatile __global uint *)(p) = (v))
#define STATUS_LOAD(p) (*(volatile __global uint *)(p))
#define STATUS_STORE64(p, v) (*(volatile __global ulong *)(p) = (v))
#define STATUS_LOAD64(p) (*(volatile __global ulong *)(p))
#else
#define STATUS_STORE(p, v) atomic_xchg((p), (v))
#define STATUS_LOAD(p) atomic_or((p), 0u)
#ifdef cl_khr_int64_base_atomics
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define STATUS_STORE64(p, v) atom_xchg((volatile __global ulong *)(p), (v))
#define STATUS_LOAD64(p) atom_add((volatile __global ulong *)(p), 0ul)
#endif
#endif

/* Earlier tiles a look-back step reads at once, so that their loads are in
 * flight together. */
#define LOOKBACK 8

/* ---- Records of one value per tile (scan and compaction) ----
 * The host keeps one buffer per context: word 0 holds the tile counter (its
 * low 32 bits), then each tile's record of one 64-bit word per 32 bits of the
 * value. Each word carries a header in its high half, the launch's stamp (30
 * bits) and a flag, so that records of earlier launches read as "nothing
 * yet" and the buffer is never cleared between launches; a value of 64 bits
 * spans two words, read as one value only when both headers agree. */
#define FLAG_AGGREGATE 1u /* the tile's own value */
#define FLAG_INCLUSIVE 2u /* the combination of this and every earlier tile */

/* This work-group's tile number. The work-group that takes the last one sets
 * the counter back to zero for the next launch (every other has taken its
 * own by then). slot: one local word. */
uint lookback_ticket(__global ulong *lookback, __local uint *slot)
{
    if (get_local_id(0) == 0) {
        volatile __global uint *counter = (volatile __global uint *)lookback;
        const uint t = atomic_inc(counter);
        if (t == get_num_groups(0) - 1)
            atomic_xchg(counter, 0u);
        *slot = t;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return *slot;
}

/* A new records buffer, or one whose stamps ran out: every word zero. */
__kernel void lookback_clear(__global ulong *lookback, ulong words)
{
    for (ulong i = get_global_id(0); i < words; i += get_global_size(0))
        lookback[i] = 0;
}

#ifdef STATUS_STORE64
/* NAME_prefix(lookback, t, total, stamp) for a value type V (4 or 8 bytes)
 * combined by COMB with identity ID (left operand first: the walk keeps the
 * tiles' order), for one work-item of tile t. */
#define DEFINE_LOOKBACK(NAME, V, COMB, ID)                                                         \
    typedef union {                                                                              \
        V value;                                                                                 \
        uint word[2];                                                                            \
    } NAME##_bits;                                                                               \
                                                                                                 \
    void NAME##_publish(__global ulong *lookback, const uint t, const uint flag, const V value,  \
                        const uint stamp)                                                        \
    {                                                                                            \
        const uint words = sizeof(V) > 4 ? 2 : 1;                                                \
        __global ulong *record = lookback + 1 + (ulong)t * words;                                 \
        NAME##_bits bits;                                                                        \
        bits.word[0] = bits.word[1] = 0;                                                         \
        bits.value = value;                                                                      \
        const ulong header = (ulong)(stamp << 2 | flag) << 32;                                   \
        for (uint i = 0; i < words; i++)                                                         \
            STATUS_STORE64(record + i, header | bits.word[i]);                                   \
    }                                                                                            \
                                                                                                 \
    /* The combination of tiles [0, t), for t > 0. */                                            \
    V NAME##_walk(__global ulong *lookback, const uint t, const uint stamp)          \
    {                                                                                            \
        const uint words = sizeof(V) > 4 ? 2 : 1;                                                \
        __global ulong *records = lookback + 1;                                                  \
        uint u = t; /* tiles u - 1, u - 2, ... are still to combine */                           \
        V before = (ID);                                                                         \
        for (;;) {                                                                               \
            ulong seen[LOOKBACK][2];                                                             \
            for (uint w = 0; w < LOOKBACK; w++)                                                  \
                for (uint i = 0; i < 2; i++)                                                     \
                    seen[w][i] = w < u && i < words                                              \
                                     ? STATUS_LOAD64(records + (ulong)(u - 1 - w) * words + i)   \
                                     : 0;                                                        \
            uint w = 0, found = 0;                                                               \
            for (; w < LOOKBACK && w < u && !found; w++) {                                       \
                const uint header = (uint)(seen[w][0] >> 32);                                    \
                if (header >> 2 != stamp || (words == 2 && (uint)(seen[w][1] >> 32) != header))  \
                    break; /* not published in this launch yet: read it again */                 \
                NAME##_bits bits;                                                                \
                bits.word[0] = (uint)seen[w][0];                                                 \
                bits.word[1] = (uint)seen[w][1];                                                 \
                before = COMB(bits.value, before);                                               \
                found = (header & 3u) == FLAG_INCLUSIVE;                                         \
            }                                                                                    \
            if (found)                                                                           \
                break;                                                                           \
            u -= w;                                                                              \
        }                                                                                        \
        return before;                                                                           \
    }                                                                                            \
                                                                                                 \
    /* Publishes tile t's total, finds the combination of the tiles before it     \
     * (ID for tile 0), publishes the combination through t, and returns the      \
     * one before. */                                                                            \
    V NAME##_prefix(__global ulong *lookback, const uint t, const V total, const uint stamp)     \
    {                                                                                            \
        V before = (ID);                                                                         \
        if (t == 0) {                                                                            \
            NAME##_publish(lookback, t, FLAG_INCLUSIVE, total, stamp);                           \
        } else {                                                                                 \
            NAME##_publish(lookback, t, FLAG_AGGREGATE, total, stamp);                           \
            before = NAME##_walk(lookback, t, stamp);                                            \
            NAME##_publish(lookback, t, FLAG_INCLUSIVE, COMB(before, total), stamp);             \
        }                                                                                        \
        return before;                                                                           \
    }
#endif

#endif /* CLPRIM_LOOKBACK_CL */
