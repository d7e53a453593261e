/* Every primitive of the library, a line each. Its descriptor,
 * clprim_<name>_primitive, is defined beside its driver; the warm-up builds
 * every descriptor's variants, and the tests (tests/meson.build reads this
 * list for the oclgrind cases) visit every primitive named here. */
#ifndef CLPRIM_PRIMITIVES_H
#define CLPRIM_PRIMITIVES_H

#define CLPRIM_PRIMITIVES(X)                                                                                    \
    X(reduce)                                                                                                    \
    X(scan)                                                                                                      \
    X(reduce_index)                                                                                              \
    X(scan_by_key)                                                                                               \
    X(reduce_by_key)                                                                                             \
    X(compact)                                                                                                   \
    X(transform)                                                                                                 \
    X(histogram)                                                                                                 \
    X(histogram_range)                                                                                           \
    X(radix_sort)                                                                                                \
    X(search)                                                                                                    \
    X(merge_sort)                                                                                                \
    X(segmented_reduce)                                                                                          \
    X(segmented_sort)                                                                                            \
    X(box_sort)                                                                                                  \
    X(threshold)                                                                                                 \
    X(kmeans)                                                                                                    \
    X(top_k)                                                                                                     \
    X(segmented_reduce_index)                                                                                    \
    X(histogram_channels)                                                                                        \
    X(delta)

#endif
