#!/usr/bin/python3
"""docker/bundle.sh gives the worker image's /opt/fleetsweep: a self-contained tree.

Runs the script the worker Dockerfile runs (no container engine here) on this build tree
(argv[1]) into a scratch directory and checks what the runtime stage relies on:
  - the installed layout: binaries, bin/benches/ with the benchmark programs (the same list as
    install_test.py), platforms/;
  - every ELF binary has RUNPATH $ORIGIN/../lib and resolves every library it needs, except
    glibc's own, inside the bundle's lib/ (so a base image without those packages runs it); every
    bundled library has RUNPATH $ORIGIN;
  - the bundled binaries run with an empty environment (--help), and the bundled `fleetsweep run`
    runs a tiny sweep with the bundled worker and matmul benchmark;
  - sbin/tini is static and runs;
  - bad arguments are refused with a message and nothing is written.
Exit 77 (skip) when cmake, patchelf or tini-static is missing (scripts/setup.sh installs them).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import install_test  # noqa: E402  (the layout lists and the tiny matmul sweep)

BUILD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else ""
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docker",
                      "bundle.sh")
GLIBC = ("libc.so", "libm.so", "libpthread.so", "libdl.so", "librt.so", "libresolv.so",
         "libutil.so", "libanl.so", "ld-linux", "linux-vdso")


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def runpath(path):
    out = subprocess.run(["patchelf", "--print-rpath", path], capture_output=True, text=True,
                         check=True).stdout.strip()
    return out


def ldd(path):
    """name -> resolved path (or 'not found') for every library ldd lists."""
    out = subprocess.run(["ldd", path], capture_output=True, text=True, env={}).stdout
    libs = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] == "=>":
            libs[parts[0]] = parts[2] if parts[2] != "not" else "not found"
    return libs


def bundle(out):
    return subprocess.run(["bash", SCRIPT, BUILD, out], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=240)


def main():
    if not BUILD or not os.path.isfile(os.path.join(BUILD, "bin", "fleetsweep")):
        print("skip: build tree with bin/fleetsweep not given")
        return 77
    for tool in ("cmake", "patchelf"):
        if shutil.which(tool) is None:
            print(f"skip: {tool} not found")
            return 77
    if not os.access("/usr/bin/tini-static", os.X_OK):
        print("skip: /usr/bin/tini-static not found")
        return 77
    # In the build tree, not /tmp: with the torch bench the bundle holds ~700 MB of libraries,
    # and the build tree's disk has room for builds (a /tmp may be a small tmpfs).
    with tempfile.TemporaryDirectory(prefix="bundle-test-", dir=BUILD) as work:
        # Refusals first: a non-empty target, a missing build directory.
        taken = os.path.join(work, "taken")
        os.makedirs(taken)
        open(os.path.join(taken, "keep"), "w").close()
        p = bundle(taken)
        assert p.returncode != 0 and "not empty" in p.stdout, p.stdout
        assert os.listdir(taken) == ["keep"], os.listdir(taken)
        p = subprocess.run(["bash", SCRIPT, os.path.join(work, "nobuild"), os.path.join(work, "o")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert p.returncode != 0 and "not a CMake build directory" in p.stdout, p.stdout

        out = os.path.join(work, "opt")
        p = bundle(out)
        assert p.returncode == 0, p.stdout
        bin_dir, lib_dir = os.path.join(out, "bin"), os.path.realpath(os.path.join(out, "lib"))
        for b in install_test.BINARIES:
            assert os.access(os.path.join(bin_dir, b), os.X_OK), f"not bundled: bin/{b}"
        for b in install_test.BENCHES:
            assert os.path.isfile(os.path.join(bin_dir, "benches", b)), f"not bundled: {b}"
        for pl in install_test.PLATFORMS:
            assert os.path.isfile(os.path.join(out, "platforms", pl)), f"not bundled: {pl}"

        elves = [os.path.join(bin_dir, f) for f in sorted(os.listdir(bin_dir))
                 if os.path.isfile(os.path.join(bin_dir, f)) and is_elf(os.path.join(bin_dir, f))]
        assert len(elves) >= len(install_test.BINARIES), elves
        for b in elves:
            assert runpath(b) == "$ORIGIN/../lib", (b, runpath(b))
            for name, where in ldd(b).items():
                if name.startswith(GLIBC):
                    continue
                assert where != "not found", f"{b}: {name} not found"
                assert os.path.dirname(os.path.realpath(where)) == lib_dir, \
                    f"{b}: {name} resolves to {where}, not inside the bundle"
            p = subprocess.run([b, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               env={}, timeout=60)
            assert p.returncode == 0, f"{b} --help: rc {p.returncode}"
        for lib in os.listdir(lib_dir):
            assert runpath(os.path.join(lib_dir, lib)) == "$ORIGIN", lib
            assert not lib.startswith(GLIBC), f"glibc's own {lib} bundled"

        tini = os.path.join(out, "sbin", "tini")
        p = subprocess.run(["ldd", tini], capture_output=True, text=True)
        assert "not a dynamic executable" in (p.stdout + p.stderr), p.stdout + p.stderr
        p = subprocess.run([tini, "--version"], capture_output=True, text=True, timeout=30)
        assert p.returncode == 0 and "tini" in p.stdout, p.stdout + p.stderr

        # The bundled CLI runs a sweep with the bundled worker and benchmark.
        r, _ = install_test.run_sweep(os.path.join(bin_dir, "fleetsweep"),
                                      install_test.MATMUL_SPEC, work, "matmul")
        assert len(install_test.succeeded(r)) == 2, json.dumps(r["configurations"])[:3000]
    print(f"PASS bundle ({len(elves)} binaries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
