#!/usr/bin/env bash
# moto from PyPI, for the S3 source tests (Tests/KingfisherServerTests/S3SourceTests.swift): a local
# S3, IAM and STS in server mode that checks every request's signature with botocore. The tests
# start it on 127.0.0.1 themselves, and are skipped (saying why) when it is missing.
#
#   scripts/moto-venv.sh        installs into $KF_MOTO_VENV, else ~/.cache/kf-moto/venv, unless there
#                               (or makes that venv see the moto of the python3 on PATH, when it has one)
#
# Only moto's S3 extra and the server's web framework, not moto[server], which brings every
# service's dependencies (316 MB against 139 MB here).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${KF_MOTO_VENV:-$HOME/.cache/kf-moto/venv}"
if "$venv/bin/python" -c 'import moto.server, flask, flask_cors' 2>/dev/null; then
    exit 0
fi
started=$SECONDS
mkdir -p "$(dirname "$venv")"
# A Python on PATH that already has moto (machines of this kind carry one) makes the install a
# second's work: a venv that sees its packages, and moto_server as a one-line launcher.
if python3 -c 'import moto.server, flask, flask_cors' 2>/dev/null; then
    python3 -m venv --system-site-packages "$venv"
    printf '#!/bin/sh\nexec "%s/bin/python" -m moto.server "$@"\n' "$venv" > "$venv/bin/moto_server"
    chmod +x "$venv/bin/moto_server"
    if "$venv/bin/python" -c 'import moto.server, flask, flask_cors' 2>/dev/null; then
        echo "moto: $(python3 -c 'import moto; print(moto.__version__)') of $(command -v python3), through $venv ($((SECONDS - started)) s)"
        exit 0
    fi
    rm -rf "$venv"
fi
bash scripts/install-deps.sh python3-venv
/usr/bin/python3 -m venv "$venv"
"$venv/bin/pip" install -q 'moto[s3]>=5.1,<6' flask flask-cors >/dev/null
echo "moto: installed in $venv ($((SECONDS - started)) s)"
