#!/usr/bin/env bash
# Runs every test of the workspace on a fresh machine. Installs what the tests need first:
# the official MCP peers for the interop tests, from npm (tests/interop/package-lock.json) and
# PyPI (tests/interop/requirements.txt).
set -euo pipefail
cd "$(dirname "$0")/.."

(
  cd tests/interop
  npm ci --no-audit --no-fund --loglevel=error
  if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
  fi
  .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
)

cargo test --workspace --all-targets
cargo test --workspace --doc
# Interop with the official peers installed above (ignored by a plain `cargo test`).
# `--workspace` rather than `-p mcp-bindgen-tests`: the same feature resolution as the run
# above, so the ignored tests reuse its build instead of compiling every dependency again.
cargo test --workspace --test interop -- --ignored
# Tasks (2025-11-25) with the TypeScript SDK v1's experimental task API, both ways.
cargo test --workspace --test interop_tasks -- --ignored
# The TypeScript compiler (the typescript package installed above) against the Rust generated
# from the published declaration files: every property, with `?:` and `| null` told apart.
cargo test --workspace --test npm_contracts -- --ignored
# The TypeScript and Python clients installed above against the Bevy example game's binary
# (mcp-bindgen-bevy's built-ins, both eras).
cargo test --workspace --test bevy_peers -- --ignored
