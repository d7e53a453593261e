/* Decoupled look-back: one launch passes each tile the combination of every
 * tile before it, in a single sweep over the data (scan, compaction, the
 * by-key calls and the radix sort's one-sweep form), in two forms: the walk
 * below (DEFINE_LOOKBACK), which combines whatever records it finds and so
 * suits exact operators, and the grouped form (DEFINE_LOOKBACK_GROUPED),
 * whose grouping the tile numbers alone fix. A census (DEFINE_CENSUS) gives
 * a tile the counts of every tile, later ones too, over few tiles.
 *
 * Tiles are numbered by an atomic counter in the order their work-groups
 * start, so a tile only ever waits on tiles that have already started. Each
 * tile publishes its own aggregate as soon as it has it, then looks back over
 * earlier tiles, adding aggregates until it meets a tile that published its
 * inclusive prefix, and publishes its own. A tile that finds an earlier
 * record unpublished for LOOKBACK_PATIENCE steps in a row computes that
 * tile's total itself from the input (decoupled fallback) and goes on, so a
 * look-back never depends on another work-group being scheduled: it ends
 * on any device, only slower where work-groups starve. The radix sort's
 * per-digit look-back (cl/radix_sort.cl) falls back the same way. */
#ifndef CLPRIM_BLOCK_LOOKBACK_CL
#define CLPRIM_BLOCK_LOOKBACK_CL

#include "block/fill.cl"        /* fill_words clears the records */
#include "block/reduce_scan.cl" /* the grouped look-back's sum of a group */

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

/* Look-back steps in a row that find the next earlier record unpublished
 * before a tile computes it itself: a safety valve, not a strategy. On
 * devices that run every started work-group, a record arrives within a few
 * steps. */
#ifndef LOOKBACK_PATIENCE
#ifdef LOOKBACK_REVERSED
#define LOOKBACK_PATIENCE 2 /* the tests: every record but tile 0's may never come */
#else
#define LOOKBACK_PATIENCE 64
#endif
#endif

/* Built with -DLOOKBACK_SPARSE (the tests' CLPRIM_TEST_LOOKBACK=sparse), only
 * every 100th tile publishes the combination through it, so that look-backs
 * walk past more than a step of tiles' own totals. */
#ifdef LOOKBACK_SPARSE
#define PUBLISHES_INCLUSIVE(t) ((t) % 100 == 0)
#else
#define PUBLISHES_INCLUSIVE(t) 1
#endif

/* Where the tuning table runs one sweep by default (NVIDIA GPUs: every
 * started work-group runs to its end), the host passes LOOKBACK_WAITS: an
 * earlier tile's record always comes, and the fallback is compiled out, as
 * its code held registers the tile's data needs. */
#ifdef LOOKBACK_WAITS
#define LOOKBACK_FALLBACK 0
#else
#define LOOKBACK_FALLBACK 1
#endif

/* Earlier tiles a look-back step reads at once, so that their loads are in
 * flight together: per digit in the radix sort, whose work-items each walk
 * one digit. Records take a width of their own (DEFINE_LOOKBACK). */
#define LOOKBACK 8

/* ---- Records of one value per tile (scan, compaction, the by-key calls) ----
 * The host keeps one buffer per context (fill_words clears a new one): word 0
 * holds the tile counter (its low 32 bits), word 1 the count of finished
 * work-groups (block/last_group.cl), then from word 2 (16-byte aligned) each
 * tile's record of one 64-bit word per 32 bits of the value (RECORD_WORDS).
 * Each word carries a header in its high half, the launch's stamp (30 bits)
 * and a flag, so that records of earlier launches read as "nothing yet" and
 * the buffer is never cleared between launches; a value of more than 32 bits
 * spans several words, read as one value only when every header agrees.
 * Values of more than 8 bytes take a multiple of 8. */
#define RECORD_WORDS(V) ((sizeof(V) + 3) / 4)

/* A record of `words` words at p into word[]: with plain words, two words at
 * a time in one 16-byte load (one round trip, not two). */
#ifdef STATUS_PLAIN_WORDS
#define STATUS_LOAD_RECORD(p, words, word)                                                          \
    do {                                                                                            \
        if ((words) == 1) {                                                                         \
            (word)[0] = STATUS_LOAD64(p);                                                           \
        } else {                                                                                    \
            for (uint i_ = 0; i_ < (words); i_ += 2) {                                              \
                const ulong2 both = *(volatile __global ulong2 *)((p) + i_);                        \
                (word)[i_] = both.s0;                                                               \
                (word)[i_ + 1] = both.s1;                                                           \
            }                                                                                       \
        }                                                                                           \
    } while (0)
#else
#define STATUS_LOAD_RECORD(p, words, word)                                                          \
    do {                                                                                            \
        for (uint i_ = 0; i_ < (words); i_++)                                                       \
            (word)[i_] = STATUS_LOAD64((p) + i_);                                                   \
    } while (0)
#endif
#define FLAG_AGGREGATE 1u /* the tile's own value */
#define FLAG_INCLUSIVE 2u /* the combination of this and every earlier tile */

/* This work-group's tile number from the counter (a records buffer's word 0,
 * or the radix sort's own). The work-group that takes the last one sets the
 * counter back to zero for the next launch (every other has taken its own by
 * then). slot: one local word. Built with -DLOOKBACK_REVERSED (the tests'
 * CLPRIM_TEST_LOOKBACK=reversed), the first work-group to start takes the
 * last tile: every tile then looks back at tiles not started yet, and only
 * the fallback lets it finish (so the tests run no in-place scan so, which
 * has none). */
uint lookback_ticket(__global uint *counter, __local uint *slot)
{
    if (get_local_id(0) == 0) {
        const uint t = atomic_inc(counter);
        if (t == get_num_groups(0) - 1)
            atomic_xchg(counter, 0u);
#ifdef LOOKBACK_REVERSED
        *slot = get_num_groups(0) - 1 - t;
#else
        *slot = t;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return *slot;
}

/* The tile of n elements this work-group takes, [*base, *end), numbered by
 * the records buffer's counter; returns its number. */
uint lookback_tile(__global ulong *lookback, const ulong n, __local uint *slot, ulong *base, ulong *end)
{
    const uint t = lookback_ticket((__global uint *)lookback, slot);
    *base = (ulong)t * TILE;
    *end = min(n, *base + TILE);
    return t;
}

#ifdef STATUS_STORE64
/* NAME_publish(lookback, t, flag, value, stamp) writes record t of a value
 * type V (1, 2, 4 or 8 bytes, or a multiple of 8) with this launch's stamp;
 * NAME_read(lookback, t, stamp, &value) returns its flag (0: not published
 * in this launch yet) and, when published, its value. */
#define DEFINE_RECORDS(NAME, V)                                                                     \
    typedef union {                                                                                 \
        V value;                                                                                    \
        uint word[RECORD_WORDS(V)];                                                                 \
    } NAME##_bits;                                                                                  \
                                                                                                    \
    void NAME##_publish(__global ulong *lookback, const uint t, const uint flag, const V value,     \
                        const uint stamp)                                                           \
    {                                                                                               \
        const uint words = RECORD_WORDS(V);                                                         \
        __global ulong *record = lookback + 2 + (ulong)t * words;                                   \
        NAME##_bits bits;                                                                           \
        for (uint i = 0; i < words; i++)                                                            \
            bits.word[i] = 0;                                                                       \
        bits.value = value;                                                                         \
        const ulong header = (ulong)(stamp << 2 | flag) << 32;                                      \
        for (uint i = 0; i < words; i++)                                                            \
            STATUS_STORE64(record + i, header | bits.word[i]);                                      \
    }                                                                                               \
                                                                                                    \
    uint NAME##_read(__global ulong *lookback, const uint t, const uint stamp, V *value)           \
    {                                                                                               \
        const uint words = RECORD_WORDS(V);                                                         \
        ulong word[RECORD_WORDS(V)];                                                                \
        STATUS_LOAD_RECORD(lookback + 2 + (ulong)t * words, words, word);                           \
        const uint header = (uint)(word[0] >> 32);                                                  \
        int ready = header >> 2 == stamp;                                                           \
        NAME##_bits bits;                                                                           \
        for (uint i = 0; i < words; i++) {                                                          \
            ready &= (uint)(word[i] >> 32) == header;                                               \
            bits.word[i] = (uint)word[i];                                                           \
        }                                                                                           \
        *value = bits.value;                                                                        \
        return ready ? header & 3u : 0;                                                             \
    }

/* NAME_census(lookback, t, total, stamp, &all, buf, ...) for an integer type V
 * publishes tile t's total and returns the sum of the totals of the tiles
 * before t, *all that of every tile of the launch: what a partition needs,
 * whose rejected elements follow the kept ones of every tile. Work-item w
 * reads records w, w + WG, ... of the get_num_groups(0) tiles, so the host
 * runs a census over few tiles, ones that fit the device at once. Unlike a
 * look-back, it waits for tiles that started after it, which a device may
 * not start until it ends: a work-item that reads a record unpublished
 * LOOKBACK_PATIENCE times in a row counts that tile itself from the input
 * (TILE_TOTAL(u), an expression over the parameters that follow buf,
 * declared in `...`), even on devices whose look-backs wait, so a census
 * ends on any device. The totals are integers: the same sums whichever way
 * each came. buf: WG values of V. Called by every work-item of tile t. */
#define DEFINE_CENSUS(NAME, V, TILE_TOTAL, ...)                                                      \
    DEFINE_RECORDS(NAME, V)                                                                         \
    DEFINE_WG_REDUCE(NAME##_sum, V, ADD, (V)0)                                                      \
                                                                                                    \
    V NAME##_census(__global ulong *lookback, const uint t, const V total, const uint stamp, V *all, \
                    __local V *buf, __VA_ARGS__)                                                    \
    {                                                                                               \
        if (get_local_id(0) == 0)                                                                   \
            NAME##_publish(lookback, t, FLAG_AGGREGATE, total, stamp);                              \
        V before = 0, every = 0;                                                                    \
        for (uint u = get_local_id(0); u < get_num_groups(0); u += WG) {                            \
            V x = total;                                                                            \
            uint polls = 0;                                                                         \
            while (u != t && !NAME##_read(lookback, u, stamp, &x) && ++polls <= LOOKBACK_PATIENCE)  \
                ;                                                                                   \
            if (polls > LOOKBACK_PATIENCE)                                                          \
                x = TILE_TOTAL(u);                                                                  \
            before += u < t ? x : (V)0;                                                             \
            every += x;                                                                             \
        }                                                                                           \
        *all = NAME##_sum(every, buf);                                                              \
        return NAME##_sum(before, buf);                                                             \
    }

/* NAME_prefix(lookback, t, total, stamp, scratch, ...) for a value type V (4
 * or 8 bytes, or a multiple of 8) combined by COMB with identity ID (left
 * operand first: the walk keeps the tiles' order), reading WIDTH earlier
 * records a step. Called by every work-item of tile t; scratch is a __local
 * NAME_scratch of the kernel's. TILE_TOTAL(u), an expression over the
 * parameters that follow scratch (the kernel's inputs, declared in `...`),
 * is tile u's total as that tile publishes it, computed by one work-item:
 * the fallback, taken where FALLS_BACK (an expression over the same) holds.
 * A launch that writes its input in place may not read an earlier tile's
 * input, which that tile may be overwriting: it waits instead, and runs
 * only where every started work-group finishes (the host sees to it).
 * COMB must be exact (the same bits in any grouping), as every one-sweep
 * form's operator is. */
#define DEFINE_LOOKBACK(NAME, V, COMB, ID, WIDTH, FALLS_BACK, TILE_TOTAL, ...)                     \
    DEFINE_RECORDS(NAME, V)                                                                         \
                                                                                                    \
    typedef struct {                                                                                \
        V value[WIDTH];                                                                             \
        uchar flag[WIDTH]; /* 0: not published in this launch yet */                                \
        V before;                                                                                   \
        uint next, found; /* tiles next - 1, next - 2, ... are still to combine */                  \
        uint stalls;      /* steps in a row that found record next - 1 unpublished */               \
    } NAME##_scratch;                                                                               \
                                                                                                    \
    /* Whether any word of a record shows this launch's inclusive prefix: its                       \
     * tile may be writing its outputs (which follow that record) by now. */                        \
    int NAME##_may_have_written(__global ulong *record, const uint stamp)                           \
    {                                                                                               \
        ulong word[RECORD_WORDS(V)];                                                                \
        STATUS_LOAD_RECORD(record, RECORD_WORDS(V), word);                                          \
        int closed = 0;                                                                             \
        for (uint i = 0; i < RECORD_WORDS(V); i++)                                                  \
            closed |= (uint)(word[i] >> 32) == (stamp << 2 | FLAG_INCLUSIVE);                       \
        return closed;                                                                              \
    }                                                                                               \
                                                                                                    \
    /* Publishes tile t's total, finds the combination of the tiles before it                       \
     * (ID for tile 0), publishes the combination through t, and returns the                        \
     * one before to every work-item. Each step, WIDTH work-items                                   \
     * read one earlier record each (their loads in flight together); one                           \
     * work-item combines them from the nearest back, stopping at the first                         \
     * inclusive record, or at one not yet published, which the next step                           \
     * reads again. */                                                                              \
    V NAME##_prefix(__global ulong *lookback, const uint t, const V total, const uint stamp,        \
                    __local NAME##_scratch *s, __VA_ARGS__)                                         \
    {                                                                                               \
        const uint lid = get_local_id(0);                                                           \
        const uint words = RECORD_WORDS(V);                                                         \
        __global ulong *records = lookback + 2;                                                     \
        if (lid == 0) {                                                                             \
            NAME##_publish(lookback, t, t == 0 ? FLAG_INCLUSIVE : FLAG_AGGREGATE, total, stamp);    \
            s->before = (ID);                                                                       \
            s->next = t;                                                                            \
            s->found = t == 0;                                                                      \
            s->stalls = 0;                                                                          \
        }                                                                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                                               \
        while (!s->found) {                                                                         \
            const uint next = s->next;                                                              \
            for (uint w = lid; w < WIDTH; w += WG) {                                                \
                V value = (ID);                                                                     \
                const uint flag = w < next ? NAME##_read(lookback, next - 1 - w, stamp, &value) : 0;  \
                s->value[w] = value;                                                                \
                s->flag[w] = flag;                                                                  \
            }                                                                                       \
            barrier(CLK_LOCAL_MEM_FENCE);                                                           \
            if (lid == 0) {                                                                         \
                /* Records [0, used) are combined: up to the first inclusive one, or                \
                 * short of the first not published. No branch: the loop unrolls. */                \
                uint used = 0, found = 0;                                                           \
                V before = s->before;                                                               \
                for (uint w = 0; w < WIDTH; w++) {                                                  \
                    const uint flag = s->flag[w];                                                   \
                    const int take = used == w && !found && flag != 0;                              \
                    before = take ? COMB(s->value[w], before) : before;                             \
                    used += take;                                                                   \
                    found |= take && flag == FLAG_INCLUSIVE;                                        \
                }                                                                                   \
                /* Fallback: tile next - 1, still unpublished after                                 \
                 * LOOKBACK_PATIENCE fruitless steps, is combined from its input,                   \
                 * unless it has begun to publish its inclusive prefix by the time that             \
                 * is read: until then it writes no output, so what was read is its                 \
                 * input even in place. Else the next step reads its record. */                     \
                const uint stalls = used ? 0 : s->stalls + 1;                                       \
                if (LOOKBACK_FALLBACK && !found && stalls > LOOKBACK_PATIENCE && (FALLS_BACK)) {    \
                    const uint u = next - 1;                                                        \
                    const V computed = TILE_TOTAL(u);                                               \
                    mem_fence(CLK_GLOBAL_MEM_FENCE);                                                \
                    if (!NAME##_may_have_written(records + (ulong)u * words, stamp)) {              \
                        before = COMB(computed, before);                                            \
                        used = 1;                                                                   \
                        found = u == 0;                                                             \
                    }                                                                               \
                }                                                                                   \
                s->stalls = used ? 0 : stalls;                                                      \
                s->before = before;                                                                 \
                s->next = next - used;                                                              \
                s->found = found;                                                                   \
            }                                                                                       \
            barrier(CLK_LOCAL_MEM_FENCE);                                                           \
        }                                                                                           \
        const V before = s->before;                                                                 \
        if (lid == 0 && t > 0 && PUBLISHES_INCLUSIVE(t))                                            \
            NAME##_publish(lookback, t, FLAG_INCLUSIVE, COMB(before, total), stamp);                \
        if (LOOKBACK_FALLBACK)                                                                      \
            mem_fence(CLK_GLOBAL_MEM_FENCE); /* the records before the outputs, for fallbacks */    \
        return before;                                                                              \
    }

/* NAME_prefix(lookback, t, total, stamp, scratch, buf, ...) as DEFINE_LOOKBACK
 * makes it, with the grouping fixed by tile numbers alone: what an operator
 * that is not exact (float sums, a caller's operator) needs, as a result's
 * bits must not depend on which records a walk happens to find, and where
 * records are large, faster for exact ones too (it reads up to WG records at
 * once where the exact walk reads WIDTH a step). Tiles form
 * groups of WG; tile t, at place r of group g, takes
 *     prefix(t) = P(g) COMB E(t),
 * E(t) being the totals of the group's tiles before place r (ID from r on)
 * combined by the work-group's order-keeping tree (DEFINE_WG_REDUCE_IN_ORDER:
 * a grouping WG alone fixes), and P(0) = ID, P(g + 1) = prefix(t) COMB
 * total(t) for the group's last tile t. Every tile publishes its total, but
 * a group's last publishes P(g + 1) instead, as an inclusive record. So a
 * tile waits for at most WG records, read together, a work-item each, and P
 * is a chain of one combine a group: WG tiles start in the time one link of
 * it takes.
 * COMB and the totals must give one NaN for every NaN (ONE_NAN): a value may
 * reach a tile along two paths, its own tile's and a fallback's.
 * The fallback, after LOOKBACK_PATIENCE fruitless steps, is one work-item's
 * (barriers inside it cost PoCL's compiler minutes): it takes the records
 * that came and computes the rest, a missing total as TILE_TOTAL(u, tmp)
 * (tile u's own total, the same bits, in one work-item, with tmp a spare WG
 * values of V), a missing P(g) from the nearest published P before it and
 * the groups between (NAME_group_sum_alone). buf: 2 * WG values of V, free
 * on entry and on return. Called by every work-item of tile t; scratch is a
 * __local NAME_scratch of the kernel's. */
#define DEFINE_LOOKBACK_GROUPED(NAME, V, COMB, ID, FALLS_BACK, TILE_TOTAL, ...)                     \
    DEFINE_RECORDS(NAME, V)                                                                         \
    DEFINE_WG_REDUCE_IN_ORDER(NAME##_group_sum, V, COMB)                                            \
                                                                                                    \
    typedef struct {                                                                                \
        uint missing[3]; /* work-items still waiting, a counter a step, in turn */                  \
        V value;         /* P(g), when the fallback computes it */                                  \
    } NAME##_scratch;                                                                               \
                                                                                                    \
    V NAME##_prefix(__global ulong *lookback, const uint t, const V total, const uint stamp,       \
                    __local NAME##_scratch *s, __local V *buf, __VA_ARGS__)                         \
    {                                                                                               \
        const uint lid = get_local_id(0), r = t % WG, first = t - r, g = t / WG;                    \
        /* Work-item w < r waits for the total of tile first + w; work-item r,                      \
         * past group 0, for P(g), the inclusive record of the tile before. */                      \
        const uint record = lid < r ? first + lid : first - 1;                                      \
        const uint expected = lid < r ? FLAG_AGGREGATE : FLAG_INCLUSIVE;                            \
        int have = !(lid < r || (lid == r && g > 0)), fallen = 0;                                   \
        V x = (ID);                                                                                 \
        if (lid == 0 && r != WG - 1)                                                                \
            NAME##_publish(lookback, t, FLAG_AGGREGATE, total, stamp);                              \
        /* Where every record comes, each work-item waits for its own, with no                      \
         * rounds of barriers (reduce by key at 2^26 on an H200: 8% faster). */                     \
        while (!LOOKBACK_FALLBACK && !have) {                                                       \
            V value;                                                                                \
            have = NAME##_read(lookback, record, stamp, &value) == expected;                        \
            x = have ? value : x;                                                                   \
        }                                                                                           \
        if (LOOKBACK_FALLBACK) {                                                                    \
            if (lid == 0)                                                                           \
                s->missing[0] = 0;                                                                  \
            barrier(CLK_LOCAL_MEM_FENCE);                                                           \
        }                                                                                           \
        for (uint step = 0, waiting = WG + 1, stalls = 0; LOOKBACK_FALLBACK; step++) {              \
            if (!have) {                                                                            \
                V value;                                                                            \
                have = NAME##_read(lookback, record, stamp, &value) == expected;                    \
                x = have ? value : x;                                                               \
            }                                                                                       \
            if (!have)                                                                              \
                atomic_inc(&s->missing[step % 3]);                                                  \
            if (lid == 0)                                                                           \
                s->missing[(step + 1) % 3] = 0; /* last read two steps ago */                       \
            barrier(CLK_LOCAL_MEM_FENCE);                                                           \
            const uint missing = s->missing[step % 3];                                              \
            stalls = missing < waiting ? 0 : stalls + 1;                                            \
            waiting = missing;                                                                      \
            fallen = missing && stalls > LOOKBACK_PATIENCE && (FALLS_BACK);                         \
            /* One exit: with two, PoCL takes half as long again to build the kernel                \
             * (reduce by key's one-sweep kernel at wg=4: 3.4 s with one, 5.2 with two). */         \
            if (!missing || fallen)                                                                 \
                break;                                                                              \
        }                                                                                           \
        if (LOOKBACK_FALLBACK) {                                                                    \
            if (fallen && lid == 0) {                                                               \
                __local V *tmp = buf + WG;                                                          \
                V p = (ID);                                                                         \
                if (g > 0 && NAME##_read(lookback, first - 1, stamp, &p) != FLAG_INCLUSIVE) {       \
                    uint h = g - 1;                                                                 \
                    while (h > 0 && NAME##_read(lookback, h * WG - 1, stamp, &p) != FLAG_INCLUSIVE) \
                        h--;                                                                        \
                    p = h > 0 ? p : (ID);                                                           \
                    for (; h < g; h++) {                                                            \
                        for (uint w = 0; w < WG; w++) {                                             \
                            V y;                                                                    \
                            const uint u = h * WG + w;                                              \
                            if (w == WG - 1 || NAME##_read(lookback, u, stamp, &y) != FLAG_AGGREGATE) \
                                y = TILE_TOTAL(u, tmp);                                             \
                            buf[w] = y;                                                             \
                        }                                                                           \
                        /* P(h + 1) as group h's last tile makes it */                              \
                        const V last = buf[WG - 1];                                                 \
                        buf[WG - 1] = (ID);                                                         \
                        p = COMB(COMB(p, NAME##_group_sum_alone(buf)), last);                       \
                    }                                                                               \
                }                                                                                   \
                s->value = p;                                                                       \
                for (uint w = 0; w < r; w++) {                                                      \
                    V y;                                                                            \
                    if (NAME##_read(lookback, first + w, stamp, &y) != FLAG_AGGREGATE)              \
                        y = TILE_TOTAL(first + w, tmp);                                             \
                    buf[w] = y;                                                                     \
                }                                                                                   \
            }                                                                                       \
            barrier(CLK_LOCAL_MEM_FENCE);                                                           \
            if (fallen)                                                                             \
                x = lid < r ? buf[lid] : lid == r ? s->value : x;                                   \
            barrier(CLK_LOCAL_MEM_FENCE); /* buf is free again */                                   \
        }                                                                                           \
        /* The totals before t in its group, combined; work-item r holds P(g). */                   \
        const V e = NAME##_group_sum(lid < r ? x : (ID), buf);                                      \
        if (lid == r) {                                                                             \
            s->value = COMB(x, e);                                                                  \
            if (r == WG - 1 && PUBLISHES_INCLUSIVE(t))                                              \
                NAME##_publish(lookback, t, FLAG_INCLUSIVE, COMB(s->value, total), stamp);          \
        }                                                                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                                               \
        return s->value;                                                                            \
    }

#endif

#endif /* CLPRIM_BLOCK_LOOKBACK_CL */
