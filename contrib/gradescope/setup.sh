#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (the zip's files are in /autograder/source). It installs clua from the .deb
# put in the zip (make deb: build/deb/clua_VERSION_ARCH.deb) with what the
# .deb depends on, and PoCL, the OpenCL driver that runs kernels on the CPU.
# docs/assignments.md, "Gradescope".
set -euo pipefail
cd "$(dirname "$0")"
deb=$(ls ./clua_*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
	echo "setup.sh: no clua_*.deb beside setup.sh: put build/deb/clua_VERSION_ARCH.deb (make deb) in the zip" >&2
	exit 1
fi
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb" pocl-opencl-icd bubblewrap
clua -v
