/* Operators as the kernels take them: a built-in one (-DOP=SUM, ...) or the
 * caller's expression over a and b with its identity (-DOP=USER; cl/types.h
 * lists both). Scan and reduce build their programs from this alone. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

clprim_combine clprim_combine_builtin(clprim_op op)
{
    return (clprim_combine){.builtin = (int)op};
}

clprim_status clprim_combine_user(clprim_context *ctx, clprim_type t, const clprim_operator *op,
                                  clprim_combine *c)
{
    *c = (clprim_combine){.builtin = -1};
    if (!op)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "op is NULL");
    const clprim_type_info *type = clprim_type_info_of(t);
    const clprim_expression_variable vars[] = {{"a", type->scalar}, {"b", type->scalar}};
    clprim_status s = clprim_parse_expression(ctx, "op->combine", op->combine, vars, 2, &c->expression);
    if (s != CLPRIM_SUCCESS)
        return s;
    if (!op->identity) {
        clprim_combine_free(c);
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "op->identity is NULL");
    }
    memcpy(&c->identity, op->identity, type->size); /* little-endian hosts and devices */
    return CLPRIM_SUCCESS;
}

clprim_status clprim_check_operator(clprim_context *ctx, clprim_type t, const clprim_type_info **type, clprim_op op,
                                    int user_op, const clprim_operator *user, clprim_combine *c)
{
    *c = clprim_combine_builtin(op);
    clprim_status s = clprim_check_type(ctx, t, type);
    if (s == CLPRIM_SUCCESS)
        s = user_op ? clprim_combine_user(ctx, t, user, c) : clprim_check_op(ctx, op);
    return s;
}

void clprim_combine_free(clprim_combine *c)
{
    free(c->expression);
    c->expression = NULL;
}

void clprim_combine_program(const clprim_context *ctx, clprim_program *p, const char *purpose, const char *file,
                            const clprim_tuning *shape, const clprim_type_info *type, const clprim_combine *c)
{
    clprim_program_begin(ctx, p, purpose, file, shape, type, c->builtin);
    if (c->builtin < 0) {
        clprim_options_add(&p->options, "-DOP=USER -DUSER_IDENTITY=0x%llxul", (unsigned long long)c->identity);
        clprim_expression_option(ctx, &p->options, "USER_COMBINE", c->expression);
    }
}

clprim_status clprim_combine_prepare(clprim_context *ctx, const char *purpose, const char *file,
                                     const clprim_type_info *type, const clprim_combine *c)
{
    clprim_program program;
    clprim_combine_program(ctx, &program, purpose, file, &ctx->tuning, type, c);
    const clprim_status s = clprim_program_prepare(ctx, &program);
    clprim_program_end(&program);
    return s;
}
