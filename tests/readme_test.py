#!/usr/bin/env python3
"""README.md's code, built and run as written, so that it cannot drift.

Every fenced block with a language (```c, ```sh, ```cmake, ```meson) must
follow an HTML comment that says what is done with it (fences without a
language are text: tables, layouts):

  <!-- test: run in source -->   shell commands run in a copy of this source
                                 tree (links to its files), as from a clone
  <!-- test: file NAME -->       the block is the file NAME of the user's project
  <!-- test: run -->             shell commands run in the user's project folder
  <!-- test: fragment NAME -->   C statements of the tour, built into
                                 tests/readme_fragment.c (-DFRAGMENT_NAME) against
                                 the installed library, run and checked there
  <!-- test: skip: WHY -->       not run, for the reason given
  ..., with MPI                  only where libclprim_mpi is built (mpirun runs it)
  ..., with CMake                only where cmake is installed
  ..., with numpy                only where the python3 on PATH has numpy

The "run" blocks make one shell session (sh -e) in the order of the README, as
typed into one terminal: exports carry over. Each block's output goes to its
own log, printed whole when the block fails and by its last line otherwise. HOME is a temporary folder, so
"$HOME/opt/clprim" is a fresh prefix; the first block builds and installs
there. The project folder has subprojects/libclprim, a link to this source
tree, as the README says to put it. Then: the subproject built no tool,
examples or tests; a program built without an rpath does not load without
LD_LIBRARY_PATH (what the README says the loader needs); each fragment runs.

usage: readme_test.py SOURCE_ROOT LIBDIR mpi|no-mpi
  LIBDIR: meson's libdir option; the README's paths are Debian's on x86-64,
  so another libdir skips the test (77).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

README_LIBDIR = "lib/x86_64-linux-gnu"
MARKER = re.compile(r"<!-- test: (run in source|run|file \S+|fragment \w+|skip: .+?)(?:, with (MPI|CMake|numpy))? -->$")


def fail(message):
    print("readme_test: " + message, file=sys.stderr)
    sys.exit(1)


def blocks(readme):
    """(line, marker action, what it needs or None, language, text) of every fenced block with a language."""
    lines = open(readme, encoding="utf-8").read().split("\n")
    found, i = [], 0
    while i < len(lines):
        fence = re.match(r"^```(\S*)\s*$", lines[i])
        if not fence:
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            fail("README.md:%d: a fence that does not close" % (i + 1))
        if fence.group(1):
            before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
            marker = MARKER.match(before.strip())
            if not marker:
                fail("README.md:%d: a ```%s block without a <!-- test: ... --> comment before it "
                     "(tests/readme_test.py says which)" % (i + 1, fence.group(1)))
            found.append((i + 1, marker.group(1), marker.group(2), fence.group(1),
                          "\n".join(lines[i + 1:end]) + "\n"))
        i = end + 1
    return found


def run(command, cwd, env, what, show=True):
    """command's output (printed when show, or when it fails)."""
    result = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True)
    if show or result.returncode != 0:
        print(result.stdout, end="")
    if result.returncode != 0:
        fail("%s failed (exit status %d)" % (what, result.returncode))
    return result.stdout


def main():
    source, libdir, mpi = os.path.realpath(sys.argv[1]), sys.argv[2], sys.argv[3] == "mpi"
    if libdir != README_LIBDIR:
        print("readme_test: the README's commands name the libdir %s; this build's is %s" % (README_LIBDIR, libdir))
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="clprim-readme-")
    try:
        test(source, mpi, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test(source, mpi, tmp):
    home, copy, app = (os.path.join(tmp, d) for d in ("home", "libclprim", "app"))
    for d in (home, copy, os.path.join(app, "subprojects")):
        os.makedirs(d)
    # The source tree as a clone has it: no build folders, no .git.
    for name in os.listdir(source):
        path = os.path.join(source, name)
        if name != ".git" and not os.path.exists(os.path.join(path, "meson-private")):
            os.symlink(path, os.path.join(copy, name))
    os.symlink(source, os.path.join(app, "subprojects", "libclprim"))

    env = dict(os.environ, HOME=home)
    for name in ("CLPRIM_KERNEL_PATH", "LD_LIBRARY_PATH", "PKG_CONFIG_PATH"):  # the README says what it needs
        env.pop(name, None)
    # PoCL's kernel cache stays where it was (it lives under HOME by default).
    env.setdefault("POCL_CACHE_DIR", os.path.join(os.environ.get("XDG_CACHE_HOME") or
                                                  os.path.join(os.environ["HOME"], ".cache"), "pocl", "kcache"))
    devices = os.environ.get("CLPRIM_TEST_DEVICES", "")
    env["CLPRIM_DEVICE"] = devices.split(";")[0] if devices else "cpu"
    # What the README tells a user to add to mpirun here: root, and 4 ranks on fewer cores.
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_btl_vader_single_copy_mechanism="none")

    session, fragments, logs = ["set -e"], [], []
    numpy = subprocess.run(["python3", "-c", "import numpy"], stderr=subprocess.DEVNULL).returncode == 0
    have = {"MPI": mpi, "CMake": shutil.which("cmake") is not None, "numpy": numpy, None: True}
    what = {"MPI": "libclprim_mpi", "CMake": "cmake", "numpy": "numpy"}
    for line, action, needs, language, text in blocks(os.path.join(source, "README.md")):
        if not have[needs]:
            print("README.md:%d: left out: it needs %s" % (line, what[needs]))
        elif action.startswith("file "):
            with open(os.path.join(app, action[5:]), "w") as f:
                f.write(text)
        elif action.startswith("run"):
            if language != "sh":
                fail("README.md:%d: a run block must be ```sh" % line)
            folder = copy if action == "run in source" else app
            log = os.path.join(tmp, "block-%d" % line)
            logs.append((line, log))
            session += ['date +%%s.%%N >"%s.start"' % log, '{ cd "%s"' % folder, text,
                        '} >"%s.log" 2>&1' % log, 'date +%%s.%%N >"%s.end"' % log]
        elif action.startswith("fragment "):
            fragments.append((line, action[9:], text))
        else:
            print("README.md:%d: not run (%s)" % (line, action[5:].strip()))
    script = os.path.join(tmp, "session.sh")
    with open(script, "w") as f:
        f.write("\n".join(session) + "\n")
    status = subprocess.run(["sh", script], cwd=app, env=env).returncode
    for line, log in logs:
        if not os.path.exists(log + ".start"):
            break
        output = open(log + ".log").read().rstrip("\n").split("\n")
        if not os.path.exists(log + ".end"):
            print("README.md:%d: FAILED:\n    %s" % (line, "\n    ".join(output[-60:])))
            fail("the commands at README.md:%d failed" % line)
        seconds = float(open(log + ".end").read()) - float(open(log + ".start").read())
        print("README.md:%d: ok in %.1f s: %s" % (line, seconds, output[-1]))
    if status != 0:
        fail("the README's commands failed (exit status %d)" % status)

    prefix = os.path.join(home, "opt", "clprim")
    lib = os.path.join(prefix, README_LIBDIR)
    # The subproject: the library (shared, static, and MPI's where found), nothing else.
    sub = os.path.join(app, "build-sub", "subprojects", "libclprim")
    if not os.path.exists(os.path.join(sub, "src", "libclprim.so")):
        fail("the subproject built no libclprim.so")
    for extra in ("src/cli", "tests", "examples"):
        if os.path.exists(os.path.join(sub, extra)):
            fail("the subproject built its " + extra)
    # Without LD_LIBRARY_PATH or an rpath, the loader does not find the library.
    if subprocess.run([os.path.join(app, "app")], cwd=app, env=env, stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode == 0:
        fail("app ran without LD_LIBRARY_PATH: the README says it cannot")

    env["PKG_CONFIG_PATH"] = os.path.join(lib, "pkgconfig")
    harness = os.path.join(source, "tests", "readme_fragment.c")
    for line, name, text in fragments:
        folder = os.path.join(tmp, "fragment-" + name)
        os.makedirs(folder)
        with open(os.path.join(folder, "readme_fragment.h"), "w") as f:
            f.write('#line %d "README.md"\n%s' % (line + 1, text))
        module = "clprim_mpi" if name == "mpi" else "clprim"
        flags = run(["pkg-config", "--cflags", "--libs", module], folder, env, "pkg-config " + module, show=False).split()
        exe = os.path.join(folder, name)
        run([os.environ.get("CC", "cc"), "-std=c11", "-Wall", "-Werror", "-DFRAGMENT_" + name.upper(),
             "-I" + folder, "-o", exe, harness] + flags + ["-Wl,-rpath," + lib], folder, env,
            "building the fragment at README.md:%d" % line, show=False)
        print("README.md:%d: fragment %s: " % (line, name), end="", flush=True)
        run(["mpirun", "-np", "2", exe] if name == "mpi" else [exe], folder, env,
            "the fragment at README.md:%d" % line)


if __name__ == "__main__":
    main()
