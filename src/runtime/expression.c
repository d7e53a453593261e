/* The callers' expressions (compaction's keep->expression): a tokenizer and a
 * recursive-descent parser over a C expression grammar, which types every node
 * as the OpenCL C compiler will and writes the expression out again from its
 * tokens. Anything outside the grammar documented in clprim.h is refused with
 * the offending token and its position, so nothing but an expression over the
 * given variables ever reaches the compiler. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TEXT 4096     /* characters of an expression */
#define MAX_NESTING 64    /* parentheses, calls, ?: branches, unary operators and casts */
#define STRINGIFY(x) #x
#define TEXT_OF(x) STRINGIFY(x)
#define MAX_BRACKETS 160  /* nested parentheses written out (clang allows 256) */
#define MAX_QUOTED 200    /* characters of the text quoted in a message */

/* ---- Scalar types ---- */

typedef enum { S_CHAR, S_UCHAR, S_SHORT, S_USHORT, S_INT, S_UINT, S_LONG, S_ULONG, S_FLOAT, S_DOUBLE } scalar;

static const struct {
    const char *name;
    int rank; /* conversion rank: char < short < int < long < float < double */
    int is_unsigned;
} scalars[] = {
    [S_CHAR] = {"char", 1, 0},   [S_UCHAR] = {"uchar", 1, 1}, [S_SHORT] = {"short", 2, 0},
    [S_USHORT] = {"ushort", 2, 1}, [S_INT] = {"int", 3, 0},   [S_UINT] = {"uint", 3, 1},
    [S_LONG] = {"long", 4, 0},   [S_ULONG] = {"ulong", 4, 1}, [S_FLOAT] = {"float", 5, 0},
    [S_DOUBLE] = {"double", 6, 0},
};
#define SCALARS ((int)(sizeof scalars / sizeof scalars[0]))

static int is_floating(scalar t)
{
    return t >= S_FLOAT;
}

/* C's integer promotion: what is narrower than int computes as int. */
static scalar promote(scalar t)
{
    return scalars[t].rank < scalars[S_INT].rank ? S_INT : t;
}

/* C's usual arithmetic conversions (OpenCL C's int is 32-bit and long 64-bit,
 * so a long holds every uint). */
static scalar common(scalar a, scalar b)
{
    if (a == S_DOUBLE || b == S_DOUBLE)
        return S_DOUBLE;
    if (a == S_FLOAT || b == S_FLOAT)
        return S_FLOAT;
    a = promote(a), b = promote(b);
    if (a == b)
        return a;
    if (scalars[a].is_unsigned == scalars[b].is_unsigned)
        return scalars[a].rank > scalars[b].rank ? a : b;
    scalar u = scalars[a].is_unsigned ? a : b, s = u == a ? b : a;
    return scalars[u].rank >= scalars[s].rank ? u : s;
}

static scalar unsigned_of(scalar t)
{
    return scalars[t].is_unsigned || is_floating(t) ? t : (scalar)(t + 1);
}

static int scalar_named(const char *name, size_t len)
{
    for (int k = 0; k < SCALARS; k++)
        if (strlen(scalars[k].name) == len && !memcmp(scalars[k].name, name, len))
            return k;
    return -1;
}

/* ---- The built-in functions an expression may call ---- */

typedef enum {
    F_INTEGER,      /* integer arguments of one type; returns that type */
    F_INTEGER_ABS,  /* integer arguments of one type; returns its unsigned type */
    F_ANY,          /* arguments of one type, integer or floating; returns it */
    F_FLOATING,     /* arguments as float (double when one is double); returns that */
    F_CLASSIFY,     /* one argument as float or double; returns int */
} function_kind;

/* floating: how a call of floating arguments is written, where it differs
 * ($0, $1, $2 the arguments): min, max and clamp as fmin and fmax, whose
 * result beside a NaN is the number (OpenCL leaves min and max undefined
 * there), as the built-in MIN and MAX give. */
static const struct {
    const char *name;
    int args;
    function_kind kind;
    const char *floating;
} functions[] = {
    {"abs", 1, F_INTEGER_ABS, NULL},           {"abs_diff", 2, F_INTEGER_ABS, NULL},
    {"popcount", 1, F_INTEGER, NULL},          {"clz", 1, F_INTEGER, NULL},
    {"min", 2, F_ANY, "fmin($0,$1)"},          {"max", 2, F_ANY, "fmax($0,$1)"},
    {"clamp", 3, F_ANY, "fmin(fmax($0,$1),$2)"}, {"fabs", 1, F_FLOATING, NULL},
    {"floor", 1, F_FLOATING, NULL},            {"ceil", 1, F_FLOATING, NULL},
    {"round", 1, F_FLOATING, NULL},            {"trunc", 1, F_FLOATING, NULL},
    {"sqrt", 1, F_FLOATING, NULL},             {"cbrt", 1, F_FLOATING, NULL},
    {"exp", 1, F_FLOATING, NULL},              {"exp2", 1, F_FLOATING, NULL},
    {"log", 1, F_FLOATING, NULL},              {"log2", 1, F_FLOATING, NULL},
    {"log10", 1, F_FLOATING, NULL},            {"sin", 1, F_FLOATING, NULL},
    {"cos", 1, F_FLOATING, NULL},              {"tan", 1, F_FLOATING, NULL},
    {"atan", 1, F_FLOATING, NULL},             {"pow", 2, F_FLOATING, NULL},
    {"atan2", 2, F_FLOATING, NULL},            {"hypot", 2, F_FLOATING, NULL},
    {"fmod", 2, F_FLOATING, NULL},             {"fmin", 2, F_FLOATING, NULL},
    {"fmax", 2, F_FLOATING, NULL},             {"copysign", 2, F_FLOATING, NULL},
    {"isnan", 1, F_CLASSIFY, NULL},            {"isinf", 1, F_CLASSIFY, NULL},
    {"isfinite", 1, F_CLASSIFY, NULL},         {"signbit", 1, F_CLASSIFY, NULL},
};
#define FUNCTIONS ((int)(sizeof functions / sizeof functions[0]))
#define MAX_ARGS 3

/* ---- Tokens ---- */

typedef enum { K_END, K_NUMBER, K_NAME, K_PUNCT } token_kind;

typedef struct {
    token_kind kind;
    size_t at, len; /* in the caller's text */
} token;

/* Operators and punctuation, longest first so that "<<=" is one token: the
 * refused ones are whole tokens too, so a message names "+=" rather than "+". */
static const char *const puncts[] = {"<<=", ">>=", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--",
                                     "->", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "//", "/*", "+",
                                     "-",  "*",  "/",  "%",  "<",  ">",  "!",  "~",  "&",  "|",  "^",  "?",
                                     ":",  "(",  ")",  ",",  "="};

static int is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* The token at `at`: a number is read as the preprocessor reads one (digits,
 * letters, '.', and a sign after an exponent letter) and validated later, so a
 * malformed literal is named whole. Any other character is a token of one. */
static token next_token(const char *text, size_t at)
{
    while (is_space(text[at]))
        at++;
    token t = {K_END, at, 0};
    const char *p = text + at;
    if (!*p)
        return t;
    if (is_digit(*p) || (*p == '.' && is_digit(p[1]))) {
        size_t n = 1;
        while (is_alpha(p[n]) || is_digit(p[n]) || p[n] == '.' ||
               ((p[n] == '+' || p[n] == '-') && strchr("eEpP", p[n - 1])))
            n++;
        return (token){K_NUMBER, at, n};
    }
    if (is_alpha(*p)) {
        size_t n = 1;
        while (is_alpha(p[n]) || is_digit(p[n]))
            n++;
        return (token){K_NAME, at, n};
    }
    for (size_t k = 0; k < sizeof puncts / sizeof puncts[0]; k++) {
        size_t n = strlen(puncts[k]);
        if (!strncmp(p, puncts[k], n))
            return (token){K_PUNCT, at, n};
    }
    return (token){K_PUNCT, at, 1}; /* refused wherever it stands */
}

/* ---- The parse tree ---- */

typedef enum { N_NUMBER, N_VARIABLE, N_UNARY, N_BINARY, N_CONDITIONAL, N_CAST, N_CALL } node_kind;

typedef struct {
    node_kind kind;
    scalar type;      /* the type OpenCL C gives it */
    token tok;        /* the literal, name, operator or function */
    int kids[MAX_ARGS];
    int which;        /* N_UNARY, N_BINARY: the operator; N_CALL: the function; N_NUMBER: 1 to add an 'f' */
    scalar arguments; /* N_CALL: the type its arguments are cast to */
    int level;        /* N_BINARY: precedence level (see binary_ops) */
    int as_call;      /* N_BINARY: integer / or %, written as a call that cannot trap */
    int brackets;     /* nesting of the parentheses it is written with */
} node;

typedef struct {
    clprim_context *ctx;
    const char *what, *text;
    const clprim_expression_variable *vars;
    size_t nvars;
    token tok; /* the current token */
    node *nodes;
    int count;
    int nesting;
    clprim_status status;
} parser;

/* Appends text to *out, escaping what is not printable ASCII. */
static void quote(char *out, size_t size, const char *text, size_t len)
{
    size_t used = strlen(out);
    for (size_t k = 0; k < len && used + 5 < size; k++) {
        unsigned char c = (unsigned char)text[k];
        if (c >= 0x20 && c < 0x7f)
            out[used++] = (char)c;
        else
            used += (size_t)snprintf(out + used, size - used, "\\x%02x", c);
    }
    out[used] = '\0';
}

/* Records the failure at token t: "<what>: <reason> '<token>' at <pos> in "<text>"<hint>". */
static int refuse(parser *ps, token t, const char *reason, const char *hint)
{
    if (ps->status != CLPRIM_SUCCESS)
        return -1;
    char tok[80] = "", text[MAX_QUOTED * 4 + 8] = "";
    if (t.kind == K_END)
        snprintf(tok, sizeof tok, "the end");
    else
        quote(tok, sizeof tok, ps->text + t.at, t.len < 32 ? t.len : 32);
    size_t len = strlen(ps->text);
    quote(text, sizeof text, ps->text, len < MAX_QUOTED ? len : MAX_QUOTED);
    ps->status = clprim_fail(ps->ctx, CLPRIM_INVALID_ARGUMENT, "%s: %s %s%s%s at %zu in \"%s%s\"%s", ps->what,
                             reason, t.kind == K_END ? "" : "'", tok, t.kind == K_END ? "" : "'", t.at, text,
                             len > MAX_QUOTED ? "..." : "", hint ? hint : "");
    return -1;
}

static int is(const parser *ps, const char *punct)
{
    return ps->tok.kind == K_PUNCT && ps->tok.len == strlen(punct) && !memcmp(ps->text + ps->tok.at, punct, ps->tok.len);
}

static void advance(parser *ps)
{
    ps->tok = next_token(ps->text, ps->tok.at + ps->tok.len);
}

static int expect(parser *ps, const char *punct)
{
    if (!is(ps, punct)) {
        char reason[48];
        snprintf(reason, sizeof reason, "expected '%s' but found", punct);
        return refuse(ps, ps->tok, reason, NULL);
    }
    advance(ps);
    return 0;
}

/* A token where it cannot stand: named with what it would have been in C. */
static int unexpected(parser *ps, token t)
{
    static const struct {
        const char *token, *reason;
    } known[] = {
        {"=", "assignment is not allowed:"},    {"+=", "assignment is not allowed:"},
        {"-=", "assignment is not allowed:"},   {"*=", "assignment is not allowed:"},
        {"/=", "assignment is not allowed:"},   {"%=", "assignment is not allowed:"},
        {"&=", "assignment is not allowed:"},   {"|=", "assignment is not allowed:"},
        {"^=", "assignment is not allowed:"},   {"<<=", "assignment is not allowed:"},
        {">>=", "assignment is not allowed:"},  {"++", "increment is not allowed:"},
        {"--", "decrement is not allowed:"},    {",", "the comma operator is not allowed:"},
        {"//", "comments are not allowed:"},    {"/*", "comments are not allowed:"},
        {"->", "pointers are not allowed:"},    {"*", "pointers are not allowed:"},
        {"&", "pointers are not allowed:"},
    };
    for (size_t k = 0; t.kind == K_PUNCT && k < sizeof known / sizeof known[0]; k++)
        if (strlen(known[k].token) == t.len && !memcmp(known[k].token, ps->text + t.at, t.len))
            return refuse(ps, t, known[k].reason, NULL);
    return refuse(ps, t, "unexpected", t.kind == K_END ? " where an operand was expected" : NULL);
}

static int add_node(parser *ps, node n)
{
    int brackets = 0;
    for (int k = 0; k < MAX_ARGS; k++)
        if (n.kids[k] >= 0 && ps->nodes[n.kids[k]].brackets > brackets)
            brackets = ps->nodes[n.kids[k]].brackets;
    switch (n.kind) {
    case N_NUMBER: case N_VARIABLE: break;
    case N_CAST: brackets += 2; break;                 /* ((T)(a)) */
    case N_CALL: brackets += 4; break;                 /* f(((T)(a)),...), fmin(fmax(...),...) */
    case N_UNARY: brackets += 2; break;                /* (!((a)!=0)) */
    case N_CONDITIONAL: brackets += 2; break;          /* (((c)!=0)?a:b) */
    case N_BINARY:
        /* A left operand of the same level written inline loses its own pair. */
        if (!n.as_call && ps->nodes[n.kids[0]].kind == N_BINARY && ps->nodes[n.kids[0]].level == n.level &&
            !ps->nodes[n.kids[0]].as_call) {
            int right = ps->nodes[n.kids[1]].brackets, left = ps->nodes[n.kids[0]].brackets - 1;
            brackets = left > right ? left : right;
        }
        brackets += n.level <= 1 ? 2 : 1; /* levels 0 and 1, || and &&: ((a)!=0)&&... */
        break;
    default: brackets++; break;
    }
    if (brackets > MAX_BRACKETS)
        return refuse(ps, n.tok, "the expression nests too deeply at", NULL);
    n.brackets = brackets;
    ps->nodes[ps->count] = n;
    return ps->count++;
}

static node make(node_kind kind, scalar type, token tok)
{
    return (node){kind, type, tok, {-1, -1, -1}, 0, S_INT, 0, 0, 0};
}

/* Checks a literal strictly and gives it its C type: decimal integers are int
 * or long, hexadecimal and octal ones int, uint, long or ulong, whichever first
 * holds the value; u/U, l/L and ul/lu narrow the choice. Floating literals are
 * double (float with f/F); where the device lacks fp64, float, written with an
 * 'f' so that the compiler agrees. */
static int number(parser *ps)
{
    const token t = ps->tok;
    const char *p = ps->text + t.at, *end = p + t.len;
    int floating = 0, digits = 0;
    for (const char *q = p; q < end; q++)
        if (*q == '.' || ((*q == 'e' || *q == 'E') && !(p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))))
            floating = 1;
    node n = make(N_NUMBER, S_INT, t);
    if (floating) {
        const char *q = p;
        while (q < end && is_digit(*q))
            q++, digits++;
        if (q < end && *q == '.')
            for (q++; q < end && is_digit(*q); q++)
                digits++;
        if (q < end && (*q == 'e' || *q == 'E')) {
            q++;
            if (q < end && (*q == '+' || *q == '-'))
                q++;
            if (q == end || !is_digit(*q))
                return refuse(ps, t, "malformed number", NULL);
            while (q < end && is_digit(*q))
                q++;
        }
        n.type = ps->ctx->has_fp64 ? S_DOUBLE : S_FLOAT;
        if (q < end && (*q == 'f' || *q == 'F'))
            q++, n.type = S_FLOAT;
        if (q != end || digits == 0)
            return refuse(ps, t, "malformed number", NULL);
        n.which = n.type == S_FLOAT && end[-1] != 'f' && end[-1] != 'F';
    } else {
        unsigned base = 10;
        const char *q = p;
        if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
            base = 16, q += 2;
        else if (q[0] == '0')
            base = 8;
        uint64_t value = 0;
        int overflow = 0;
        for (; q < end; q++, digits++) {
            unsigned d = is_digit(*q) ? (unsigned)(*q - '0')
                         : (*q >= 'a' && *q <= 'f') ? (unsigned)(*q - 'a' + 10)
                         : (*q >= 'A' && *q <= 'F') ? (unsigned)(*q - 'A' + 10)
                                                    : 99;
            if (d >= base)
                break;
            if (value > (UINT64_MAX - d) / base)
                overflow = 1;
            value = value * base + d;
        }
        int u = 0, l = 0;
        for (; q < end; q++) {
            if ((*q == 'u' || *q == 'U') && !u)
                u = 1;
            else if ((*q == 'l' || *q == 'L') && !l)
                l = 1;
            else
                return refuse(ps, t, "malformed number", NULL);
        }
        if (digits == 0)
            return refuse(ps, t, "malformed number", NULL);
        if (overflow || (base == 10 && !u && value > INT64_MAX))
            return refuse(ps, t, "number too large", NULL);
        const int fits_int = value <= INT32_MAX, fits_uint = value <= UINT32_MAX, fits_long = value <= INT64_MAX;
        const int other_bases = base != 10; /* may take the unsigned type of each rank */
        if (!u && !l && fits_int)
            n.type = S_INT;
        else if (!l && fits_uint && (u || other_bases))
            n.type = S_UINT;
        else if (!u && fits_long)
            n.type = S_LONG;
        else
            n.type = S_ULONG;
    }
    advance(ps);
    return add_node(ps, n);
}

static int conditional(parser *ps);

static int wrong_count(parser *ps, int f, const char *found)
{
    char reason[80];
    snprintf(reason, sizeof reason, "%s takes %d argument%s; %s", functions[f].name, functions[f].args,
             functions[f].args > 1 ? "s" : "", found);
    return refuse(ps, ps->tok, reason, NULL);
}

/* name(args): a function of the list, its argument count, and argument types it takes. */
static int call(parser *ps, token name, int f)
{
    node n = make(N_CALL, S_INT, name);
    n.which = f;
    if (expect(ps, "(") < 0)
        return -1;
    const int args = functions[f].args;
    for (int k = 0; k < args; k++) {
        if (k > 0 && !is(ps, ","))
            return wrong_count(ps, f, "expected ',' but found");
        if (k > 0)
            advance(ps);
        n.kids[k] = conditional(ps);
        if (n.kids[k] < 0)
            return -1;
    }
    if (is(ps, ","))
        return wrong_count(ps, f, "found");
    if (expect(ps, ")") < 0)
        return -1;
    /* The type the arguments are converted to (written as casts, so the
     * compiler picks the overload typed here). */
    scalar t = ps->nodes[n.kids[0]].type;
    int same = 1, any_floating = 0, any_double = 0;
    for (int k = 0; k < args; k++) {
        scalar a = ps->nodes[n.kids[k]].type;
        same &= a == t;
        any_floating |= is_floating(a);
        any_double |= a == S_DOUBLE;
        if (!same)
            t = common(t, a);
    }
    switch (functions[f].kind) {
    case F_INTEGER:
    case F_INTEGER_ABS:
        if (any_floating)
            return refuse(ps, name, "integer arguments only for", " (floats: fabs, fmin, fmax)");
        n.type = functions[f].kind == F_INTEGER_ABS ? unsigned_of(t) : t;
        break;
    case F_ANY:
        n.type = t;
        break;
    case F_FLOATING:
    case F_CLASSIFY:
        t = any_double ? S_DOUBLE : S_FLOAT;
        n.type = functions[f].kind == F_CLASSIFY ? S_INT : t;
        break;
    }
    n.arguments = t;
    return add_node(ps, n);
}

static int primary(parser *ps)
{
    const token t = ps->tok;
    if (t.kind == K_NUMBER)
        return number(ps);
    if (t.kind == K_NAME) {
        const char *name = ps->text + t.at;
        advance(ps);
        for (size_t k = 0; k < ps->nvars; k++)
            if (strlen(ps->vars[k].name) == t.len && !memcmp(ps->vars[k].name, name, t.len)) {
                node n = make(N_VARIABLE, (scalar)scalar_named(ps->vars[k].type, strlen(ps->vars[k].type)), t);
                n.which = (int)k;
                return add_node(ps, n);
            }
        for (int f = 0; f < FUNCTIONS; f++)
            if (strlen(functions[f].name) == t.len && !memcmp(functions[f].name, name, t.len))
                return call(ps, t, f);
        char hint[160] = "; names are";
        for (size_t k = 0; k < ps->nvars; k++)
            snprintf(hint + strlen(hint), sizeof hint - strlen(hint), " %s,", ps->vars[k].name);
        snprintf(hint + strlen(hint), sizeof hint - strlen(hint),
                 " the functions listed in clprim.h and, in casts, scalar types");
        return refuse(ps, t, "unknown name", hint);
    }
    if (is(ps, "(")) {
        advance(ps);
        int e = conditional(ps);
        if (e < 0 || expect(ps, ")") < 0)
            return -1;
        return e;
    }
    return unexpected(ps, t); /* in an operand's place: unary * and & are the pointer ones */
}

enum { U_MINUS, U_PLUS, U_NOT, U_COMPLEMENT, UNARY_OPS };
static const char *const unary_ops[UNARY_OPS] = {[U_MINUS] = "-", [U_PLUS] = "+", [U_NOT] = "!", [U_COMPLEMENT] = "~"};

static int unary(parser *ps)
{
    const token t = ps->tok, after = next_token(ps->text, t.at + t.len);
    int op = -1;
    for (int k = 0; k < UNARY_OPS; k++)
        if (is(ps, unary_ops[k]))
            op = k;
    const int cast_to = is(ps, "(") && after.kind == K_NAME ? scalar_named(ps->text + after.at, after.len) : -1;
    if (op < 0 && cast_to < 0) {
        int result = primary(ps);
        if (result >= 0 && (is(ps, "++") || is(ps, "--") || is(ps, "->")))
            return unexpected(ps, ps->tok);
        return result;
    }
    if (++ps->nesting > MAX_NESTING)
        return refuse(ps, t, "nested more than " TEXT_OF(MAX_NESTING) " deep at", NULL);
    node n;
    if (op >= 0) {
        advance(ps);
        n = make(N_UNARY, S_INT, t);
        n.which = op;
    } else {
        if (cast_to == S_DOUBLE && !ps->ctx->has_fp64)
            return refuse(ps, after, "the device has no fp64 for", NULL);
        advance(ps);
        advance(ps);
        if (expect(ps, ")") < 0)
            return -1;
        n = make(N_CAST, (scalar)cast_to, after);
    }
    n.kids[0] = unary(ps);
    if (n.kids[0] < 0)
        return -1;
    const scalar operand = ps->nodes[n.kids[0]].type;
    if (op == U_COMPLEMENT && is_floating(operand))
        return refuse(ps, t, "integer operand only for", NULL);
    if (op >= 0)
        n.type = op == U_NOT ? S_INT : promote(operand);
    ps->nesting--;
    return add_node(ps, n);
}

/* Binary operators by precedence, loosest first, with what their operands may be. */
typedef enum { B_LOGICAL, B_BITWISE, B_COMPARE, B_SHIFT, B_ARITHMETIC, B_DIVIDE, B_REMAINDER } binary_kind;

static const struct {
    const char *op;
    int level;
    binary_kind kind;
} binary_ops[] = {
    {"||", 0, B_LOGICAL},  {"&&", 1, B_LOGICAL},  {"|", 2, B_BITWISE},    {"^", 3, B_BITWISE},
    {"&", 4, B_BITWISE},   {"==", 5, B_COMPARE},  {"!=", 5, B_COMPARE},   {"<", 6, B_COMPARE},
    {"<=", 6, B_COMPARE},  {">", 6, B_COMPARE},   {">=", 6, B_COMPARE},   {"<<", 7, B_SHIFT},
    {">>", 7, B_SHIFT},    {"+", 8, B_ARITHMETIC}, {"-", 8, B_ARITHMETIC}, {"*", 9, B_ARITHMETIC},
    {"/", 9, B_DIVIDE},    {"%", 9, B_REMAINDER},
};
#define BINARY_OPS ((int)(sizeof binary_ops / sizeof binary_ops[0]))
#define LEVELS 10

/* Operands of `level` and tighter, joined left to right by the level's operators. */
static int binary(parser *ps, int level)
{
    if (level == LEVELS)
        return unary(ps);
    int left = binary(ps, level + 1);
    while (left >= 0) {
        int op = -1;
        for (int k = 0; k < BINARY_OPS; k++)
            if (binary_ops[k].level == level && is(ps, binary_ops[k].op))
                op = k;
        if (op < 0)
            return left;
        const token t = ps->tok;
        advance(ps);
        int right = binary(ps, level + 1);
        if (right < 0)
            return -1;
        scalar a = ps->nodes[left].type, b = ps->nodes[right].type;
        const binary_kind kind = binary_ops[op].kind;
        if ((kind == B_BITWISE || kind == B_SHIFT || kind == B_REMAINDER) && (is_floating(a) || is_floating(b)))
            return refuse(ps, t, "integer operands only for",
                          kind == B_REMAINDER ? " (floats: fmod)" : NULL);
        node n = make(N_BINARY, kind == B_LOGICAL || kind == B_COMPARE ? S_INT
                                : kind == B_SHIFT                       ? promote(a)
                                                                        : common(a, b),
                      t);
        n.which = op;
        n.level = level;
        n.as_call = (kind == B_DIVIDE || kind == B_REMAINDER) && !is_floating(n.type);
        n.kids[0] = left;
        n.kids[1] = right;
        left = add_node(ps, n);
    }
    return -1;
}

static int conditional(parser *ps)
{
    if (++ps->nesting > MAX_NESTING)
        return refuse(ps, ps->tok, "nested more than " TEXT_OF(MAX_NESTING) " deep at", NULL);
    int c = binary(ps, 0);
    if (c >= 0 && is(ps, "?")) {
        const token t = ps->tok;
        advance(ps);
        int a = conditional(ps);
        if (a < 0 || expect(ps, ":") < 0)
            return -1;
        int b = conditional(ps);
        if (b < 0)
            return -1;
        node n = make(N_CONDITIONAL, common(ps->nodes[a].type, ps->nodes[b].type), t);
        n.kids[0] = c, n.kids[1] = a, n.kids[2] = b;
        c = add_node(ps, n);
    }
    ps->nesting--;
    return c;
}

/* ---- Writing it out ---- */

typedef struct {
    char *buf; /* room for what write_node writes: see clprim_parse_expression */
    size_t used;
    int number_ends_in_exponent; /* the last token was a number ending in e/E */
} writer;

/* Appends a token; "/ * * /" (an empty comment, which the preprocessor reads as a
 * space) where it would otherwise join the number before it ("0xe" "+1"). */
static void put(writer *w, const char *s, size_t len)
{
    if (w->number_ends_in_exponent && (s[0] == '+' || s[0] == '-')) {
        memcpy(w->buf + w->used, "/**/", 4);
        w->used += 4;
    }
    memcpy(w->buf + w->used, s, len);
    w->used += len;
    w->buf[w->used] = '\0';
    w->number_ends_in_exponent = 0;
}

static void put_text(writer *w, const char *s)
{
    put(w, s, strlen(s));
}

static void write_node(writer *w, const parser *ps, int index, int inline_chain);

static void write_cast(writer *w, const parser *ps, scalar t, int index)
{
    put_text(w, "((");
    put_text(w, scalars[t].name);
    put_text(w, ")");
    write_node(w, ps, index, 0);
    put_text(w, ")");
}

/* Node `index` where C takes a truth value (a condition, an operand of !, &&
 * or ||): OpenCL C refuses a floating one there, so it is written ((c)!=0),
 * which is C's meaning (NaN is true, -0.0 false). */
static void write_truth(writer *w, const parser *ps, int index)
{
    if (!is_floating(ps->nodes[index].type)) {
        write_node(w, ps, index, 0);
        return;
    }
    put_text(w, "(");
    write_node(w, ps, index, 0);
    put_text(w, "!=0)");
}

/* A call: name(args), or the function's floating form; each argument is cast
 * to the type the call takes. */
static void write_call(writer *w, const parser *ps, const node *n)
{
    const char *form = is_floating(n->arguments) ? functions[n->which].floating : NULL;
    if (!form) {
        put_text(w, functions[n->which].name);
        put_text(w, "(");
        for (int k = 0; k < MAX_ARGS && n->kids[k] >= 0; k++) {
            if (k)
                put_text(w, ",");
            write_cast(w, ps, n->arguments, n->kids[k]);
        }
        put_text(w, ")");
        return;
    }
    for (const char *c = form; *c; c++) {
        if (*c == '$')
            write_cast(w, ps, n->arguments, n->kids[*++c - '0']);
        else
            put(w, c, 1);
    }
}

/* Node `index`; with inline_chain, a binary node leaves out its outer pair (the
 * left operand of the same level's operator: a + b + c is written (a+b+c)). */
static void write_node(writer *w, const parser *ps, int index, int inline_chain)
{
    const node *n = &ps->nodes[index];
    const char *text = ps->text + n->tok.at;
    switch (n->kind) {
    case N_NUMBER: {
        put(w, text, n->tok.len);
        if (n->which)
            put_text(w, "f");
        const char last = w->buf[w->used - 1];
        w->number_ends_in_exponent = last == 'e' || last == 'E';
        break;
    }
    case N_VARIABLE:
        put(w, text, n->tok.len);
        break;
    case N_UNARY:
        put_text(w, "(");
        put_text(w, unary_ops[n->which]);
        if (n->which == U_NOT)
            write_truth(w, ps, n->kids[0]);
        else
            write_node(w, ps, n->kids[0], 0);
        put_text(w, ")");
        break;
    case N_CAST:
        write_cast(w, ps, n->type, n->kids[0]);
        break;
    case N_CALL:
        write_call(w, ps, n);
        break;
    case N_CONDITIONAL:
        put_text(w, "(");
        write_truth(w, ps, n->kids[0]);
        put_text(w, "?");
        write_node(w, ps, n->kids[1], 0);
        put_text(w, ":");
        write_node(w, ps, n->kids[2], 0);
        put_text(w, ")");
        break;
    case N_BINARY:
        if (n->as_call) {
            /* cl/expression.cl: integer division and remainder that cannot trap */
            put_text(w, binary_ops[n->which].kind == B_DIVIDE ? "clprim_div_" : "clprim_rem_");
            put_text(w, scalars[n->type].name);
            put_text(w, "(");
            write_node(w, ps, n->kids[0], 0);
            put_text(w, ",");
            write_node(w, ps, n->kids[1], 0);
            put_text(w, ")");
            break;
        }
        if (!inline_chain)
            put_text(w, "(");
        const node *left = &ps->nodes[n->kids[0]];
        if (binary_ops[n->which].kind == B_LOGICAL && is_floating(left->type))
            write_truth(w, ps, n->kids[0]);
        else
            write_node(w, ps, n->kids[0], left->kind == N_BINARY && left->level == n->level && !left->as_call);
        put_text(w, binary_ops[n->which].op);
        if (binary_ops[n->which].kind == B_LOGICAL)
            write_truth(w, ps, n->kids[1]);
        else
            write_node(w, ps, n->kids[1], 0);
        if (!inline_chain)
            put_text(w, ")");
        break;
    }
}

clprim_status clprim_parse_expression(clprim_context *ctx, const char *what, const char *text,
                                      const clprim_expression_variable *vars, size_t nvars, char **out)
{
    *out = NULL;
    if (!text)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s is NULL", what);
    const size_t len = strlen(text);
    if (len > MAX_TEXT)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s is %zu characters; the limit is %d", what, len,
                           MAX_TEXT);
    if (next_token(text, 0).kind == K_END)
        return clprim_fail(ctx, CLPRIM_INVALID_ARGUMENT, "%s is empty", what);
    parser ps = {ctx, what, text, vars, nvars, next_token(text, 0), NULL, 0, 0, CLPRIM_SUCCESS};
    ps.nodes = malloc((len + 1) * sizeof *ps.nodes); /* a node per token at most */
    if (!ps.nodes)
        return clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "out of host memory");
    int root = conditional(&ps);
    if (root >= 0 && ps.tok.kind != K_END)
        unexpected(&ps, ps.tok);
    if (ps.status == CLPRIM_SUCCESS) {
        /* The tokens' text, and per node at most a call with three cast
         * arguments (42 characters) or a number's 'f' and separator. */
        writer w = {malloc(len + 64 * ((size_t)ps.count + 1)), 0, 0};
        if (!w.buf) {
            ps.status = clprim_fail(ctx, CLPRIM_OUT_OF_MEMORY, "out of host memory");
        } else {
            w.buf[0] = '\0';
            write_node(&w, &ps, root, 0);
            *out = w.buf;
        }
    }
    free(ps.nodes);
    return ps.status;
}

void clprim_expression_build_failed(clprim_context *ctx, const char *what, const char *expression,
                                    const char *types)
{
    char *log = strdup(clprim_last_error(ctx));
    const cl_int err = clprim_last_cl_error(ctx);
    clprim_fail(ctx, CLPRIM_BUILD_FAILED, "%s \"%s\" (%s) did not compile: ", what, expression, types);
    clprim_append_error(ctx, log ? log : "(out of host memory for the build log)");
    ctx->cl_error = err;
    free(log);
}

void clprim_expression_option(const clprim_context *ctx, clprim_options *o, const char *name,
                              const char *expression)
{
    static const char correct_divide[] = "-cl-fp32-correctly-rounded-divide-sqrt";
    const char *before = clprim_options_text(o);
    const int has = before && strstr(before, correct_divide) != NULL; /* a second expression's program */
    clprim_options_add(o, "-D%s=%s", name, expression);
    if (ctx->has_correct_divide && !has)
        clprim_options_add(o, "%s", correct_divide);
}

const char *clprim_scalar_name(clprim_type t)
{
    const clprim_type_info *type = clprim_type_info_of(t);
    return type ? type->scalar : "unknown";
}
