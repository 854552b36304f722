#!/usr/bin/env bash
# moto from PyPI, for the S3 source tests (Tests/KingfisherServerTests/S3SourceTests.swift): a local
# S3, IAM and STS in server mode that checks every request's signature with botocore. The tests
# start it on 127.0.0.1 themselves, and are skipped (saying why) when it is missing.
#
#   scripts/moto-venv.sh        installs into $KF_MOTO_VENV, else ~/.cache/kf-moto/venv, unless there
#
# Only moto's S3 extra and the server's web framework, not moto[server], which brings every
# service's dependencies (316 MB against 139 MB here).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${KF_MOTO_VENV:-$HOME/.cache/kf-moto/venv}"
if "$venv/bin/python" -c 'import moto.server, flask, flask_cors' 2>/dev/null; then
    exit 0
fi
bash scripts/install-deps.sh python3-venv
started=$SECONDS
mkdir -p "$(dirname "$venv")"
/usr/bin/python3 -m venv "$venv"
"$venv/bin/pip" install -q 'moto[s3]>=5.1,<6' flask flask-cors >/dev/null
echo "moto: installed in $venv ($((SECONDS - started)) s)"
