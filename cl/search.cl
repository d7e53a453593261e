/* clprim_search_sorted: each needle's lower or upper bound in an array sorted
 * in clprim_sort_keys's order (block/key.cl), on bits [begin_bit, end_bit) of
 * the ordered form. One work-item a needle, a binary search each, over the
 * whole grid (FOR_EACH_INDEX) so that any number of groups covers any count.
 *
 * Built with -DKEY=<NAME> (a sort key type), -DWG and -DITEMS. */
#include "block/key.cl"

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void search_sorted(__global const key_t *sorted, ulong sorted_offset, ulong n, __global const key_t *needles,
                   ulong needles_offset, ulong m, __global ulong *result, ulong result_offset, uint upper,
                   uint descending, uint begin_bit, uint end_bit)
{
    sorted += sorted_offset;
    needles += needles_offset;
    result += result_offset;
    FOR_EACH_INDEX(i, m) {
        const key_t needle = rank_of(needles[i], descending, begin_bit, end_bit);
        /* The first j whose key is not before the needle (lower), or after it (upper). */
        ulong lo = 0, hi = n;
        while (lo < hi) {
            const ulong mid = lo + (hi - lo) / 2;
            const key_t here = rank_of(sorted[mid], descending, begin_bit, end_bit);
            if (upper ? here <= needle : here < needle)
                lo = mid + 1;
            else
                hi = mid;
        }
        result[i] = lo;
    }
}
