#!/bin/sh
# Copies the Go toolchain's IANA time zone database into temporal/tzdata, so
# the binary embeds one database and every machine resolves zones alike.
# Run from the repository root or through `go generate ./temporal/`.
# After running, set temporal.TZDataVersion to the version printed here
# (TestTZDataVersion fails until they agree).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
goroot=$(go env GOROOT)
src="$goroot/lib/time/zoneinfo.zip"
dst="$root/temporal/tzdata"

# lib/time/update.bash names the tzdata release the zip was built from.
version=$(sed -n 's/^DATA=\([0-9a-z]*\)$/\1/p' "$goroot/lib/time/update.bash")
if [ -z "$version" ]; then
	echo "update-tzdata: no DATA= line in $goroot/lib/time/update.bash" >&2
	exit 1
fi

mkdir -p "$dst"
cp "$src" "$dst/zoneinfo.zip"
printf '%s\n' "$version" >"$dst/VERSION"
echo "tzdata $version copied from $src"
