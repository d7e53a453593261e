/* A caller's element-wise function (clprim_transform): -DMAP=<expression> over
 * x, an element of -DX_TYPE=<NAME> (cl/types.h), y, one of -DY_TYPE=<NAME>
 * when there is a second input, and i, the element's index (ulong, counted
 * from the inputs' offsets). The expression is the host's parse of the
 * caller's text (src/runtime/expression.c), so nothing else reaches here.
 *
 * A kernel over mapped elements takes MAP_PARAMS (both inputs; without Y_TYPE
 * the second is never read), applies MAP_BEGIN() once, then reads element i
 * of f, converted to T, as MAP_AT(i). */
#ifndef CLPRIM_BLOCK_MAP_CL
#define CLPRIM_BLOCK_MAP_CL

#include "block/element.cl"
#include "expression.cl"

#define X CLPRIM_FIELD(X_TYPE, SCALAR)
#ifdef Y_TYPE
#define Y CLPRIM_FIELD(Y_TYPE, SCALAR)
#else
#define Y X
#endif

#define MAP_PARAMS __global const X *map_x, ulong map_x_offset, __global const Y *map_y, ulong map_y_offset
#define MAP_ARGS map_x, map_x_offset, map_y, map_y_offset
#define MAP_BEGIN() (map_x += map_x_offset, map_y += map_y_offset)

T map_element(const X x, const Y y, const ulong i)
{
    return (T)(MAP);
}

#ifdef Y_TYPE
#define MAP_AT(i) map_element(map_x[i], map_y[i], (i))
#else
#define MAP_AT(i) map_element(map_x[i], (Y)0, (i))
#endif

#endif /* CLPRIM_BLOCK_MAP_CL */
