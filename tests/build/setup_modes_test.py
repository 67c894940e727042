#!/usr/bin/python3
"""scripts/setup.sh's modes: the full list (CI, the demo) and --build [--torch] (the images'
builder stage, docker/*.Dockerfile).

Runs the script with fake `dpkg-query` (nothing installed) and `apt-get` (records what it is asked
to install) first on PATH, and checks: --build asks for a subset of the full list, with the
libraries and tools a build and docker/bundle.sh need and none of the test-only packages or
libtorch; --torch adds libtorch-dev; an unknown argument exits 2 naming it and installs nothing.
That --build's list is enough to build is what scripts/image-smoke.sh shows (docs/deploy.md).
"""
import os
import stat
import subprocess
import sys
import tempfile

SRC = os.environ.get("FLEETSWEEP_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
FAKE_DPKG = "#!/bin/sh\nexit 1\n"
FAKE_APT = "#!/bin/sh\n[ \"$1\" = install ] && shift && echo \"$@\" >> \"$APT_LOG\"\nexit 0\n"
NEEDED = {"cmake", "ninja-build", "libzmq3-dev", "cppzmq-dev", "libprotobuf-dev",
          "protobuf-compiler", "libhiredis-dev", "libjemalloc-dev", "prometheus-cpp-dev",
          "libyaml-cpp-dev", "nlohmann-json3-dev", "libcli11-dev", "libspdlog-dev", "libfmt-dev",
          "patchelf", "tini"}
TEST_ONLY = {"libgtest-dev", "libgmock-dev", "redis-server", "prometheus", "chromium",
             "golang-go", "clang-format"}


def run(args, tmp):
    log = os.path.join(tmp, "apt-%d.log" % len(os.listdir(tmp)))
    env = dict(os.environ, PATH=tmp + ":" + os.environ["PATH"], APT_LOG=log)
    p = subprocess.run(["bash", os.path.join(SRC, "scripts", "setup.sh")] + args, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    asked = set()
    if os.path.exists(log):
        with open(log) as f:
            for line in f:
                asked |= {w for w in line.split() if not w.startswith("-")}
    return p, asked


def main():
    if os.geteuid() != 0:
        print("skip: setup.sh runs apt-get through sudo when not root")
        return 77
    with tempfile.TemporaryDirectory(prefix="fleetsweep-setup-") as tmp:
        for name, text in (("dpkg-query", FAKE_DPKG), ("apt-get", FAKE_APT)):
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, stat.S_IRWXU)
        p, full = run([], tmp)
        assert p.returncode == 0, p.stdout
        p, build = run(["--build"], tmp)
        assert p.returncode == 0, p.stdout
        p, torch = run(["--build", "--torch"], tmp)
        assert p.returncode == 0, p.stdout
        assert build <= full, "--build asks for packages the full list lacks: %s" % (build - full)
        assert NEEDED <= build, "--build lacks %s" % (NEEDED - build)
        assert not (TEST_ONLY & build), "--build installs test-only %s" % (TEST_ONLY & build)
        assert "libtorch-dev" not in build and "libtorch-dev" in full, (build, full)
        assert torch == build | {"libtorch-dev"}, torch ^ (build | {"libtorch-dev"})
        p, asked = run(["--bogus"], tmp)
        assert p.returncode == 2 and "--bogus" in p.stdout and not asked, (p.returncode, p.stdout)
    print("PASS setup modes: full %d packages, --build %d" % (len(full), len(build)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
