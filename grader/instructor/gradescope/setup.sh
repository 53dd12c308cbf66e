#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image.
# It makes a virtual environment with Python 3.11 or newer and the grader's
# runtime alone (requirements.txt: what grading imports), beside the system
# python3: Gradescope's own harness runs on that one, so it is never replaced (their "Python 3 issues" page). Every package is
# pinned by constraints.txt to the version the grader's tests ran with, so two
# images built from this bundle grade alike. libseccomp2 is what pyseccomp (the
# sandbox's no-sockets filter) loads.
set -euo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
source="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# Debian's packages it needs, installed when missing (Gradescope's base image lacks them; a machine
# that has them, like the one tests/instructor/test_bundle.py runs this on, is left as it is).
need=()
dpkg -s libseccomp2 >/dev/null 2>&1 || need+=(libseccomp2)
if python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    python=python3
    python3 -c 'import ensurepip, venv' 2>/dev/null || need+=(python3-venv)
else
    python=python3.11        # Ubuntu 22.04, Gradescope's default image, has it in universe
    command -v python3.11 >/dev/null && python3.11 -c 'import ensurepip, venv' 2>/dev/null || need+=(python3.11 python3.11-venv)
fi
if [ ${#need[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}"
fi
"$python" -m venv "$root/venv"
"$root/venv/bin/python" -m pip install --quiet --upgrade pip
"$root/venv/bin/python" -m pip install --quiet -r "$source/requirements.txt" -c "$source/constraints.txt"
# What the sandbox has on this very machine, and whether the bundle will grade here: into the build log.
(cd "$source" && "$root/venv/bin/python" -m grader pilot) || echo "pilot: could not run (above); grading will say why"
