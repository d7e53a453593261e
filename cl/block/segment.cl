/* Segmented pairs (value, head), head meaning "a segment starts in this part",
 * combined by
 *   (a, ha) . (b, hb) = (hb ? b : a COMBINE b, ha | hb),
 * which is associative whenever COMBINE is, so pairs of elements, tiles and
 * chunks can be grouped as a scan groups elements: what scan by key and the
 * segmented reduction build on. A pair's value is the combination of what
 * follows its last head (all of it when it has none).
 *
 * The value is the element T under the operator (-DOP) unless a file defines
 * its own accumulator first: ACC, its type; ACC_BYTES, its size;
 * ACC_COMBINE(a, b), ACC_IDENTITY and ACC_EMPTY (what combining nothing
 * gives), as segmented argmin/argmax's (value, index) pairs do. */
#ifndef CLPRIM_BLOCK_SEGMENT_CL
#define CLPRIM_BLOCK_SEGMENT_CL

#include "block/reduce_scan.cl"

#ifndef ACC
#ifndef COMBINE
#error "block/segment.cl needs an operator: -DOP=SUM, MIN, MAX or USER (cl/types.h)"
#endif
#define ACC T
#define ACC_BYTES CLPRIM_FIELD(TYPE, BYTES)
#define ACC_COMBINE(a, b) COMBINE(a, b)
#define ACC_IDENTITY IDENTITY
#define ACC_EMPTY EMPTY_RESULT
#endif

/* No padding: where a pair is published as words (the look-back's records),
 * every byte is defined. */
typedef struct {
    ACC value;
#if ACC_BYTES == 1
    uchar spare[3];
#endif
    uint head;
#if ACC_BYTES == 8
    uint spare;
#elif ACC_BYTES == 16
    uint spare[3];
#endif
} seg;

seg make_seg(const ACC value, const uint head)
{
    seg s;
    s.value = value;
    s.head = head;
#if ACC_BYTES == 1
    s.spare[0] = s.spare[1] = s.spare[2] = 0;
#elif ACC_BYTES == 8
    s.spare = 0;
#elif ACC_BYTES == 16
    s.spare[0] = s.spare[1] = s.spare[2] = 0;
#endif
    return s;
}

seg seg_combine(const seg a, const seg b)
{
    return make_seg(b.head ? b.value : ACC_COMBINE(a.value, b.value), a.head | b.head);
}

#define SEG_COMBINE(a, b) seg_combine((a), (b))
DEFINE_WG_EXCLUSIVE_SCAN_IN_PLACE(wg_seg_scan, seg, SEG_COMBINE, make_seg(ACC_IDENTITY, 0u))

/* A staged tile of values and heads, read and written as pairs; an exclusive
 * rescan writes ACC_EMPTY at each segment's first element, an inclusive one
 * the combination of the segment's elements up to and including this one. */
#define SEG_ITEM(j) make_seg(tile[j], heads[j])
#define SEG_STORE(j, before, inclusive) \
    (tile[j] = exclusive ? (heads[j] ? ACC_EMPTY : (before).value) : (inclusive).value)
DEFINE_FOLD_ITEMS(fold_pairs, seg, SEG_COMBINE, make_seg(ACC_IDENTITY, 0u), SEG_ITEM, __local const ACC *tile,
                  __local const uchar *heads)
DEFINE_RESCAN_ITEMS(rescan_pairs, seg, SEG_COMBINE, SEG_ITEM, SEG_STORE, __local ACC *tile,
                    __local const uchar *heads)

#endif /* CLPRIM_BLOCK_SEGMENT_CL */
