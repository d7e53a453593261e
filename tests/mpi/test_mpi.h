/* What the parts of the libclprim_mpi test share: see test_mpi.c. */
#ifndef CLPRIM_TEST_MPI_H
#define CLPRIM_TEST_MPI_H

#include "mpi_harness.h"

/* Callers' operators of the scan and reduce cases (test_mpi.c). */
extern const clprim_operator product_u32, affine_u64;

/* Bad calls of every kind, on every call (bad_calls.c). */
void test_bad_calls(void);

#endif /* CLPRIM_TEST_MPI_H */
