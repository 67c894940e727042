#!/usr/bin/python3
"""scripts/check-format.sh (run by .ci/run) fails on an unformatted file and names it.

Copies the script and the repository's .clang-format into a scratch git repository holding one
formatted and one unformatted file, plus an unformatted generated file (*.pb.cc, excluded), and
checks: exit 1 naming only the unformatted file; `--fix` formats it; then exit 0. Exit 77 (skip)
when clang-format is not installed.
"""
import os
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get("FLEETSWEEP_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
GOOD = "int Add(int a, int b) { return a + b; }\n"
BAD = "int  Sub( int a,int b ){return a-b;}\n"


def sh(args, cwd):
    return subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=60)


def main():
    if not (shutil.which("clang-format-14") or shutil.which("clang-format")):
        print("skip: clang-format not installed (scripts/setup.sh installs it)")
        return 77
    with tempfile.TemporaryDirectory(prefix="fleetsweep-format-") as repo:
        os.makedirs(os.path.join(repo, "scripts"))
        os.makedirs(os.path.join(repo, "lib"))
        shutil.copy(os.path.join(SRC, "scripts", "check-format.sh"), os.path.join(repo, "scripts"))
        shutil.copy(os.path.join(SRC, ".clang-format"), repo)
        for name, text in [("lib/good.cc", GOOD), ("lib/bad.h", BAD), ("lib/gen.pb.cc", BAD)]:
            with open(os.path.join(repo, name), "w") as f:
                f.write(text)
        assert sh(["git", "init", "-q"], repo).returncode == 0
        assert sh(["git", "add", "-A"], repo).returncode == 0

        p = sh(["bash", "scripts/check-format.sh"], repo)
        assert p.returncode == 1, f"rc {p.returncode}\n{p.stdout}"
        assert "lib/bad.h" in p.stdout, p.stdout
        assert "good.cc" not in p.stdout and "gen.pb.cc" not in p.stdout, p.stdout

        assert sh(["bash", "scripts/check-format.sh", "--fix"], repo).returncode == 0
        with open(os.path.join(repo, "lib", "bad.h")) as f:
            assert f.read() == "int Sub(int a, int b) { return a - b; }\n"
        p = sh(["bash", "scripts/check-format.sh"], repo)
        assert p.returncode == 0, f"rc {p.returncode}\n{p.stdout}"
    print("PASS format check")
    return 0


if __name__ == "__main__":
    sys.exit(main())
