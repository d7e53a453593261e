#!/usr/bin/env python3
"""The array commands of the built `clprim` (sort, scan, reduce, unique, compact IN,
histogram IN) against numpy, on fresh random data: the seed is printed, and
CLPRIM_TEST_SEED=N runs the same data again. Integers, orders, counts and
selections compare bit for bit; float sums within the bound `clprim scan --help`
states. Then files the commands must refuse: each exits 1 with a message naming
the file and the problem, and leaves no output file behind. Exits 77 (a skip)
where numpy is missing.
usage: cli_arrays.py CLPRIM"""
import io
import os
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:
    print("numpy is not installed: skipped")
    sys.exit(77)

clprim = sys.argv[1]
seed = int(os.environ.get("CLPRIM_TEST_SEED", time.time_ns() % 2**32))
print(f"seed {seed} (CLPRIM_TEST_SEED={seed} repeats this run)")
rng = np.random.default_rng(seed)
tmp = tempfile.mkdtemp(prefix="clprim-arrays.")
failures = 0


def path(name):
    return os.path.join(tmp, name)


def run(*args, stdin=None):
    """clprim ARGS: (exit status, stdout bytes, stderr text)."""
    r = subprocess.run([clprim, *args], input=stdin, capture_output=True)
    return r.returncode, r.stdout, r.stderr.decode(errors="replace")


def check(ok, what, detail=""):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures += 1
        if detail:
            print("    " + str(detail).replace("\n", "\n    ")[:3000])
    return ok


def good_run(what, *args, stdin=None):
    """Runs a command that must succeed; its stdout, or None after a failure."""
    rc, out, err = run(*args, stdin=stdin)
    if not check(rc == 0, f"{what}: clprim {' '.join(args)} exits 0", f"exit {rc}\n{err}"):
        return None
    return out


def same_bits(got, want):
    return got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


def save(name, a):
    np.save(path(name), a)
    return path(name)


# ---- sort: clprim.h's total order on floats, -NaN < -inf < ... < -0.0 < +0.0 < ... < +NaN ----

def ordered(a):
    """Each key's ordered form (clprim.h): an unsigned integer sorting as the key does."""
    bits = a.dtype.itemsize * 8
    u = a.view(f"u{a.dtype.itemsize}")
    top = np.array(1 << (bits - 1), dtype=u.dtype)
    if a.dtype.kind == "f":
        return np.where(u & top != 0, ~u, u | top)
    return u ^ top if a.dtype.kind == "i" else u


def sorted_like_clprim(keys, descending, values=None):
    key = ordered(keys)
    order = np.argsort(~key if descending else key, kind="stable")  # ~ reverses an unsigned order
    return keys[order], None if values is None else values[order]


def awkward_floats(n, dtype):
    """Ties, both zeros, both infinities, NaNs of both signs and another payload."""
    a = rng.integers(-20, 20, n).astype(dtype) / 4
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan], dtype=dtype)
    a[rng.integers(0, n, n // 5)] = specials[rng.integers(0, len(specials), n // 5)]
    bits = a.view(f"u{a.dtype.itemsize}")
    bits[rng.integers(0, n, 3)] = 0x7FC00001 if dtype == np.float32 else 0x7FF8000000000001  # NaN, payload 1
    return a


n = int(rng.integers(2000, 5000))
f32 = awkward_floats(n, np.float32)
src = save("f32.npy", f32)
for descending in (False, True):
    flag = ["--descending"] if descending else []
    if good_run("sort float32", "sort", src, "-o", path("sorted.npy"), *flag) is not None:
        want, _ = sorted_like_clprim(f32, descending)
        got = np.load(path("sorted.npy"))
        check(same_bits(got, want), f"sort float32 with NaN, -0.0 and ties, {'de' if descending else 'a'}scending")

# Pairs: the values are the input positions, so a stable order of ties shows.
positions = np.arange(n, dtype=np.int32)
values = save("positions.npy", positions)
for descending in (False, True):
    flag = ["--descending"] if descending else []
    if good_run("sort pairs", "sort", src, "--values", values, "--values-out", path("v.npy"), "-o",
                path("k.npy"), *flag) is not None:
        want_keys, want_values = sorted_like_clprim(f32, descending, positions)
        check(same_bits(np.load(path("k.npy")), want_keys) and same_bits(np.load(path("v.npy")), want_values),
              f"sort pairs float32 keys, int32 values, stable among ties, {'de' if descending else 'a'}scending")

# Big-endian int64 in, little-endian out; a 2-D array is taken in C order.
i64 = rng.integers(-2**62, 2**62, (n // 10, 10)).astype(">i8")
if good_run("sort big-endian", "sort", save("be.npy", i64), "-o", path("be_sorted.npy")) is not None:
    got = np.load(path("be_sorted.npy"))
    check(got.dtype == np.dtype("<i8") and same_bits(got, np.sort(i64.ravel()).astype("<i8")),
          "sort int64 from a big-endian 2-D .npy: C order, written little-endian")
    want = io.BytesIO()
    np.save(want, got)
    check(open(path("be_sorted.npy"), "rb").read() == want.getvalue(), "the .npy written is byte for byte np.save's")

# Raw uint32 through standard input and output.
u32 = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
out = good_run("sort raw", "sort", "-", "--type", "uint32", "-o", "-", stdin=u32.tobytes())
if out is not None:
    check(out == np.sort(u32).tobytes(), "sort raw uint32 from standard input to standard output")

# A .npy through standard input and output stays a .npy; --time reports.
rc, out, err = run("sort", "-", "-o", "-", "--descending", "--time", stdin=open(src, "rb").read())
if check(rc == 0, "sort - -o - --descending --time exits 0", err):
    got = np.load(io.BytesIO(out))
    check(same_bits(got, sorted_like_clprim(f32, True)[0]) and "device time" in err and "sort (descending" in err,
          "sort .npy from standard input to standard output; the summary and the time go to stderr")

# ---- scan and reduce ----

i32 = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)  # sums wrap
src32 = save("i32.npy", i32)
want = np.cumsum(i32, dtype=np.int32)
if good_run("scan", "scan", src32, "-o", path("scan.npy")) is not None:
    check(same_bits(np.load(path("scan.npy")), want), "scan int32 inclusive sum (wrapping) as np.cumsum")
if good_run("scan", "scan", src32, "--exclusive", "-o", path("scan.bin")) is not None:
    got = np.fromfile(path("scan.bin"), dtype=np.int32)
    check(same_bits(got, np.concatenate(([0], want[:-1])).astype(np.int32)),
          "scan int32 exclusive sum, written raw for a name not ending in .npy")

# Float min ignores NaN beside a number (np.fmin); exclusive starts from +inf.
f32min = rng.standard_normal(n).astype(np.float32)
f32min[rng.integers(0, n, n // 10)] = np.nan
f32min[:3] = np.nan
if good_run("scan", "scan", save("f32min.npy", f32min), "--op", "min", "--exclusive", "-o",
            path("min.npy")) is not None:
    want = np.concatenate(([np.inf], np.fmin.accumulate(f32min)[:-1])).astype(np.float32)
    check(np.array_equal(np.load(path("min.npy")), want, equal_nan=True),
          "scan float32 exclusive min with NaN as np.fmin.accumulate")

# Float sums: the library's order, within (n - 1) eps sum |x| of the exact prefix sums.
f64 = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)
if good_run("scan", "scan", save("f64.npy", f64), "-o", path("f64scan.npy")) is not None:
    got = np.load(path("f64scan.npy")).astype(np.longdouble)
    exact = np.cumsum(f64.astype(np.longdouble))
    bound = (n - 1) * np.finfo(np.float64).eps * np.cumsum(np.abs(f64).astype(np.longdouble))
    check(np.all(np.abs(got - exact) <= bound), "scan float64 sum within (n - 1) eps sum |x| of the exact sums",
          f"worst error / bound: {np.max(np.abs(got - exact) / np.maximum(bound, 1e-300))}")

out = good_run("reduce", "reduce", src32)
if out is not None:
    check(int(out.split()[-1]) == int(np.sum(i32, dtype=np.int32)), "reduce int32 sum (wrapping) as np.sum")
out = good_run("reduce", "reduce", path("f32min.npy"), "--op", "min")
if out is not None:
    check(np.float32(float(out.split()[-1])) == np.fmin.reduce(f32min), "reduce float32 min with NaN as np.fmin")
out = good_run("reduce", "reduce", path("f64.npy"))
if out is not None:
    exact = np.sum(f64.astype(np.longdouble))
    check(abs(float(out.split()[-1]) - exact) <= (n - 1) * np.finfo(np.float64).eps * np.sum(np.abs(f64)),
          "reduce float64 sum within (n - 1) eps sum |x|")

# ---- compact, unique ----

keep = "x > 0.25f && i % 3 != 0"
if good_run("compact", "compact", src, "--keep", keep, "-o", path("kept.npy")) is not None:
    want = f32[(f32 > np.float32(0.25)) & (np.arange(n) % 3 != 0)]
    check(same_bits(np.load(path("kept.npy")), want), f"compact float32 --keep '{keep}' as numpy's selection")
if good_run("compact", "compact", path("f32min.npy"), "--ge", "0.5", "--raw", "-o", path("ge.npy")) is not None:
    got = np.fromfile(path("ge.npy"), dtype=np.float32)
    check(same_bits(got, f32min[f32min >= np.float32(0.5)]), "compact float32 --ge 0.5, --raw despite a .npy name")

runs = np.repeat(rng.integers(0, 2**40, 400), rng.integers(1, 9, 400)).astype(np.int64)  # unsorted runs
first = np.concatenate(([True], runs[1:] != runs[:-1]))
lengths = np.diff(np.concatenate((np.flatnonzero(first), [runs.size])))
if good_run("unique", "unique", save("runs.npy", runs), "-o", path("u.npy"), "--counts-out",
            path("c.npy")) is not None:
    check(same_bits(np.load(path("u.npy")), runs[first]) and same_bits(np.load(path("c.npy")), lengths),
          "unique int64 keeps the first of each run of adjacent equal keys, --counts-out their lengths")
sorted_keys = np.sort(rng.integers(0, 300, n).astype(np.int64))
if good_run("unique", "unique", save("sorted.npy", sorted_keys), "-o", path("us.npy")) is not None:
    check(same_bits(np.load(path("us.npy")), np.unique(sorted_keys)), "unique of a sorted int64 array as np.unique")

# ---- histogram ----

bins = int(rng.integers(1, 40))
if good_run("histogram", "histogram", src32, "--bins", str(bins), "-o", path("h.npy")) is not None:
    check(same_bits(np.load(path("h.npy")), np.histogram(i32, bins)[0]),
          f"histogram int32 --bins {bins} as np.histogram (int64 counts)")
lo, hi = sorted(rng.uniform(-3, 3, 2))
bins = int(rng.integers(1, 40))
args = ["--bins", str(bins), "--range", f"{lo!r},{hi!r}"]
if good_run("histogram", "histogram", path("f32min.npy"), *args, "-o", path("h.npy")) is not None:
    check(same_bits(np.load(path("h.npy")), np.histogram(f32min, bins, range=(lo, hi))[0]),
          f"histogram float32 {' '.join(args)} with NaN as np.histogram")
edges = [-np.inf, -1.5, 0.0, 0.0, 0.5, 2.0, np.inf]  # a repeated edge makes an empty bin
text = ",".join(repr(e) for e in edges)
be = awkward_floats(n, np.float64).astype(">f8")
if good_run("histogram", "histogram", save("be_f64.npy", be), "--edges", text, "-o", path("h.npy")) is not None:
    check(same_bits(np.load(path("h.npy")), np.histogram(be, edges)[0]),
          f"histogram big-endian float64 with infinities and NaN, --edges {text}")
edges32 = np.sort(rng.uniform(-2, 2, 6)).astype(np.float32)
if good_run("histogram", "histogram", src, "--edges", save("edges.npy", edges32), "-o", path("h.npy")) is not None:
    check(same_bits(np.load(path("h.npy")), np.histogram(f32, edges32)[0]), "histogram float32 --edges FILE.npy")
out = good_run("histogram", "histogram", "-", "--type", "int32", "--bins", "3", stdin=i32.tobytes())
if out is not None:
    counts = [int(line.split()[2]) for line in out.decode().splitlines()[2:]]
    check(counts == list(np.histogram(i32, 3)[0]), "histogram of raw int32 on standard input prints its table")

# No elements: valid everywhere (numpy's histogram takes the range [0, 1]).
empty = save("empty32.npy", np.zeros(0, dtype=np.int32))
if good_run("empty", "sort", empty, "-o", path("e.npy")) is not None and \
        good_run("empty", "histogram", empty, "-o", path("eh.npy")) is not None:
    check(same_bits(np.load(path("e.npy")), np.zeros(0, dtype=np.int32)) and
          same_bits(np.load(path("eh.npy")), np.histogram(np.zeros(0, dtype=np.int32))[0]),
          "sort and histogram of an empty array")

# ---- files that are refused: exit 1, the file and the problem named, no output ----

good = io.BytesIO()
np.save(good, np.arange(10, dtype=np.int32))
good = good.getvalue()
header_end = good.index(b"\n") + 1


def npy_with_header(text, version=1):
    """A .npy file of ten int32 whose header is text (padded to 64 bytes as numpy does)."""
    text = text.encode()
    prefix = 10 if version == 1 else 12
    pad = -(prefix + len(text) + 1) % 64
    body = text + b" " * pad + b"\n"
    size = len(body).to_bytes(2 if version == 1 else 4, "little")
    return b"\x93NUMPY" + bytes([version, 0]) + size + body + good[header_end:]


def saved(a, **kw):
    f = io.BytesIO()
    np.save(f, a, **kw)
    return f.getvalue()


bad_files = [
    # name, contents, what the message must say
    ("empty.npy", b"", "truncated"),
    ("magic.npy", b"\x93NUMPX" + good[6:], "not a .npy file"),
    ("png.npy", b"\x89PNG\r\n\x1a\n" + good[8:], "not a .npy file"),
    ("version.npy", good[:6] + b"\x04\x00" + good[8:], "format version 4.0"),
    ("cut-header.npy", good[:40], "truncated"),
    ("cut-data.npy", good[:-3], "truncated"),
    ("longer.npy", good + b"\0\0\0\0", "4 bytes follow"),
    ("int16.npy", saved(np.arange(5, dtype=np.int16)), "unsupported dtype '<i2' (int16)"),
    ("bool.npy", saved(np.array([True, False])), "unsupported dtype '|b1' (bool)"),
    ("complex.npy", saved(np.arange(3, dtype=np.complex64)), "unsupported dtype '<c8'"),
    ("object.npy", saved(np.array([1, "a", None], dtype=object), allow_pickle=True), "object array"),
    ("records.npy", saved(np.zeros(3, dtype=[("a", "<i4"), ("b", "<f8")])), "structured dtype"),
    ("fortran.npy", saved(np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3))), "Fortran order"),
    ("long-header.npy", b"\x93NUMPY\x02\x00" + (20000).to_bytes(4, "little") + b"{" + b" " * 19999,
     "header too long"),
    ("no-shape.npy", npy_with_header("{'descr': '<i4', 'fortran_order': False, }"), "no 'shape' key"),
    ("extra-key.npy", npy_with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (10,), 'x': 1}"),
     "unexpected key 'x'"),
    ("not-a-dict.npy", npy_with_header("[1, 2, 3]"), "malformed .npy header"),
    ("shape-not-tuple.npy", npy_with_header("{'descr': '<i4', 'fortran_order': False, 'shape': 10, }"),
     "malformed .npy header"),
    ("bad-order.npy", npy_with_header("{'descr': '<i4', 'fortran_order': 0, 'shape': (10,), }"),
     "malformed .npy header"),
    ("shape-too-big.npy", npy_with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (11,), }", 2),
     "truncated"),
]
for name, contents, problem in bad_files:
    with open(path(name), "wb") as f:
        f.write(contents)
    for command in (["sort", path(name), "-o", path("never.npy")],
                    ["histogram", path(name), "-o", path("never.npy")]):
        before = set(os.listdir(tmp))
        rc, out, err = run(*command)
        check(rc == 1 and problem in err and name in err and set(os.listdir(tmp)) == before,
              f"clprim {command[0]} {name}: exit 1, \"{problem}\", no file written",
              f"exit {rc}, new files {set(os.listdir(tmp)) - before}\n{err}")

# Raw files, values that do not fit, and bad usage (exit 2, nothing written).
refusals = [
    (1, "not a whole number of 4-byte int32", ["sort", path("odd.bin"), "--type", "int32", "-o", path("x.bin")]),
    (1, "is a .npy file", ["scan", src32, "--type", "int32", "-o", path("x.bin")]),
    (1, "holds 10 values for the", ["sort", src, "--values", save("ten.npy", np.arange(10, dtype=np.int32)),
                                    "--values-out", path("x.npy")]),
    (1, "holds float32; unique takes integer keys", ["unique", src, "-o", path("x.npy")]),
    (1, "holds uint8", ["sort", save("u8.npy", np.arange(5, dtype=np.uint8)), "-o", path("x.npy")]),
    (2, "--values and --values-out go together", ["sort", src, "--values", values]),
    (2, "only one input can be standard input", ["sort", "-", "--values", "-", "--values-out", path("x.npy")]),
    (2, "unknown --op avg", ["scan", src, "--op", "avg"]),
    (2, "outside the range of uint8", ["compact", path("u8.npy"), "--gt", "300", "-o", path("x.npy")]),
    (2, "needs a predicate", ["compact", src, "-o", path("x.npy")]),
    (2, "--channel does not apply to an array", ["histogram", src, "--channel", "r"]),
    (2, "the edges must increase monotonically", ["histogram", src, "--edges", "0,2,1"]),
    (2, "--range", ["histogram", src, "--range", "2,1"]),
]
with open(path("odd.bin"), "wb") as f:
    f.write(b"\0" * 7)
for want, needle, command in refusals:
    before = set(os.listdir(tmp))
    rc, out, err = run(*command, stdin=b"")
    check(rc == want and needle in err and set(os.listdir(tmp)) == before,
          f"clprim {' '.join(os.path.basename(a) for a in command)}: exit {want}, \"{needle}\"",
          f"exit {rc}, new files {set(os.listdir(tmp)) - before}\n{err}")

subprocess.run(["rm", "-rf", tmp])
print(f"{failures} failure(s); seed {seed}")
sys.exit(1 if failures else 0)
