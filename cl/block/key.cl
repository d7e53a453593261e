/* A sort key, when -DKEY=<NAME> (cl/types.h) names a 32- or 64-bit type:
 * key_t, its bits; KEY_BITS, SIGN_BIT; ordered(), the unsigned integer whose
 * order is clprim_sort_keys's (include/clprim.h says which); rank_of(), the
 * part of it a bit range compares. */
#ifndef CLPRIM_BLOCK_KEY_CL
#define CLPRIM_BLOCK_KEY_CL

#include "block/element.cl"

#if !defined(KEY) || CLPRIM_FIELD(KEY, BYTES) < 4
#error "a sort key needs -DKEY=<NAME> (cl/types.h) of a 32- or 64-bit type"
#endif
#define KEY_BITS (8 * CLPRIM_FIELD(KEY, BYTES))
typedef CLPRIM_FIELD(KEY, BITS) key_t; /* a key's bits */
#define SIGN_BIT ((key_t)1 << (KEY_BITS - 1))

/* The key's bits as an unsigned integer whose order is the sort's order. */
inline key_t ordered(key_t u, uint descending)
{
#if CLPRIM_FIELD(KEY, ORDER) == ORDER_UNSIGNED
    key_t o = u;
#elif CLPRIM_FIELD(KEY, ORDER) == ORDER_SIGNED
    key_t o = u ^ SIGN_BIT;
#else
    /* Negative floats have every bit flipped, the others only the sign:
     * -inf < ... < -0.0 < +0.0 < ... < +inf; NaNs land outside the infinities by sign. */
    key_t o = (u & SIGN_BIT) ? ~u : (u ^ SIGN_BIT);
#endif
    return descending ? ~o : o;
}

/* The bits [begin_bit, end_bit) of the ordered form, low-aligned: what the
 * sort compares under a bit range. */
inline key_t rank_of(const key_t u, const uint descending, const uint begin_bit, const uint end_bit)
{
    const key_t mask = end_bit - begin_bit == KEY_BITS ? ~(key_t)0 : ((key_t)1 << (end_bit - begin_bit)) - 1;
    return (ordered(u, descending) >> begin_bit) & mask;
}

#endif /* CLPRIM_BLOCK_KEY_CL */
