/* clprim_search_sorted: each needle's lower or upper bound in an array sorted
 * in clprim_sort_keys's order (block/key.cl), on bits [begin_bit, end_bit) of
 * the ordered form, over the whole grid (FOR_EACH_INDEX) so that any number
 * of groups covers any count: on GPUs one work-item a needle, a binary search
 * each; on the CPU shape (WG == 1) each work-item's needles LANES at a time.
 *
 * Built with -DKEY=<NAME> (a sort key type), -DWG and -DITEMS. */
#include "block/key.cl"

/* Whether sorted key k (ordered form) comes before needle x: for the lower
 * bound the keys below it, for the upper bound those not above it. */
#define BEFORE(k, x) (upper ? (k) <= (x) : (k) < (x))
#define RANK(k) rank_of((k), descending, begin_bit, end_bit)

#if WG == 1
/* Searches that step together: the bound lies in [base, base + len], and
 * each step halves len the same way for every needle (n alone fixes the
 * steps), moving base by a select, so that the lanes' loads of the sorted
 * array are in flight at once where one search waits for each of its loads
 * in turn (2^24 needles in 2^24 int32 keys on 2 cores: BENCHMARKS.md). */
#define LANES 16

/* needles[i, i + count) (count <= LANES) searched together into result. */
inline void search_lanes(__global const key_t *sorted, const ulong n, __global const key_t *needles,
                         __global ulong *result, const ulong i, const uint count, const uint upper,
                         const uint descending, const uint begin_bit, const uint end_bit)
{
    key_t x[LANES];
    ulong base[LANES];
    for (uint k = 0; k < count; k++) {
        x[k] = RANK(needles[i + k]);
        base[k] = 0;
    }
    for (ulong len = n; len > 1; len -= len / 2)
        for (uint k = 0; k < count; k++)
            base[k] = BEFORE(RANK(sorted[base[k] + len / 2]), x[k]) ? base[k] + len / 2 : base[k];
    for (uint k = 0; k < count; k++)
        result[i + k] = n ? base[k] + BEFORE(RANK(sorted[base[k]]), x[k]) : 0;
}
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void search_sorted(__global const key_t *sorted, ulong sorted_offset, ulong n, __global const key_t *needles,
                   ulong needles_offset, ulong m, __global ulong *result, ulong result_offset, uint upper,
                   uint descending, uint begin_bit, uint end_bit)
{
    sorted += sorted_offset;
    needles += needles_offset;
    result += result_offset;
#if WG == 1
    /* FOR_EACH_INDEX's slice of the needles. */
    const ulong per = (m + get_global_size(0) - 1) / get_global_size(0);
    const ulong first = get_global_id(0) * per, last = min(m, first + per);
    ulong i = first;
    for (; i + LANES <= last; i += LANES)
        search_lanes(sorted, n, needles, result, i, LANES, upper, descending, begin_bit, end_bit);
    if (i < last)
        search_lanes(sorted, n, needles, result, i, (uint)(last - i), upper, descending, begin_bit, end_bit);
#else
    FOR_EACH_INDEX(i, m) {
        const key_t needle = RANK(needles[i]);
        /* The first j whose key does not come before the needle. */
        ulong lo = 0, hi = n;
        while (lo < hi) {
            const ulong mid = lo + (hi - lo) / 2;
            if (BEFORE(RANK(sorted[mid]), needle))
                lo = mid + 1;
            else
                hi = mid;
        }
        result[i] = lo;
    }
#endif
}
