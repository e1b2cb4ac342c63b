#!/usr/bin/env bash
# Packages every crate meant for users as `cargo publish` would: each one is built from its
# .crate alone (its unpublished siblings come from the packages made in the same run), so a
# package that would not build from crates.io fails here. Then fails when a package carries
# what a user does not need (tests, benches, fixtures, snapshots) or is over 1.5 MiB
# unpacked, and prints each package's size. (The runtime, the largest, is about 1.1 MiB with both
# protocol eras, both sides, OAuth and the skills and events extensions; the bound was 1 MiB
# until the events extension.) `PACKAGE_ALLOW_DIRTY=1` packages uncommitted changes too.
set -euo pipefail
cd "$(dirname "$0")/.."

# In dependency order.
crates=(mcp-bindgen-core mcp-bindgen-diff mcp-bindgen-macro mcp-bindgen mcp-bindgen-bevy mcp-bindgen-codegen mcp-bindgen-include mcp-bindgen-cli)
args=()
for crate in "${crates[@]}"; do
  args+=(-p "$crate")
done
if [ -n "${PACKAGE_ALLOW_DIRTY:-}" ]; then
  args+=(--allow-dirty)
fi
# The workspace's version (every crate has it) and the target directory cargo packaged into.
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
# cargo verifies a package against its siblings packaged in the same run through a local
# registry, which it unpacks under $CARGO_HOME/registry/src/ keyed by the path of the package
# directory, not by content: a clone at a path that packaged the same version before
# (an older commit) would build against that stale copy. Remove our crates' unpacked copies first (cargo
# unpacks them again; for a registry crate of the same name it unpacks its cached .crate).
for crate in "${crates[@]}"; do
  rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"$crate-$version"
done
cargo package "${args[@]}"

target=${CARGO_TARGET_DIR:-target}
limit=$((1536 * 1024))
status=0
printf '%-22s %10s %12s %6s\n' package compressed uncompressed files
for crate in "${crates[@]}"; do
  file="$target/package/$crate-$version.crate"
  compressed=$(stat -c %s "$file")
  uncompressed=$(gzip -dc "$file" | wc -c)
  listing=$(tar -tzf "$file")
  files=$(grep -vc '/$' <<<"$listing")
  printf '%-22s %10s %12s %6s\n' "$crate" "$compressed" "$uncompressed" "$files"
  if stray=$(grep -E '^[^/]+/(tests|benches|examples)/|/(fixtures|snapshots)/' <<<"$listing"); then
    echo "error: $crate packages files users do not need:" >&2
    echo "$stray" >&2
    status=1
  fi
  if [ "$uncompressed" -gt "$limit" ]; then
    echo "error: $crate is $uncompressed bytes unpacked, over the 1.5 MiB limit" >&2
    status=1
  fi
done
exit "$status"
