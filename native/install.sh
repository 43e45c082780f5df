#!/usr/bin/env bash
# Installs the recallgate release binary for this machine, after checking
# its SHA-256 against the release's SHA256SUMS file.
#
#   install.sh [VERSION] DEST_DIR
#
# VERSION is "latest" (the default) or a release tag such as v1.4.0.
# RECALLGATE_DOWNLOAD_BASE replaces the releases URL (mirrors, tests).
set -euo pipefail

if [ $# -eq 1 ]; then set -- latest "$1"; fi
version="${1:-latest}"
dest="${2:?usage: install.sh [VERSION] DEST_DIR}"

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;;
  *) echo "recallgate install: unsupported OS $(uname -s)" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "recallgate install: unsupported CPU $(uname -m)" >&2; exit 1 ;;
esac
ext=""
if [ "$os" = windows ]; then ext=".exe"; fi
asset="recallgate_${os}_${arch}${ext}"

base="${RECALLGATE_DOWNLOAD_BASE:-https://github.com/recallgate/recallgate/releases}"
if [ "$version" = latest ]; then
  url="$base/latest/download"
else
  url="$base/download/$version"
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fetch() { curl -fsSL --retry 3 --connect-timeout 20 -o "$tmp/$1" "$url/$1"; }
fetch "$asset" || { echo "recallgate install: cannot download $url/$asset" >&2; exit 1; }
fetch SHA256SUMS || { echo "recallgate install: cannot download $url/SHA256SUMS" >&2; exit 1; }

want="$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1 }' "$tmp/SHA256SUMS")"
if [ -z "$want" ]; then
  echo "recallgate install: $asset is not listed in SHA256SUMS" >&2
  exit 1
fi
if command -v sha256sum >/dev/null 2>&1; then
  got="$(sha256sum "$tmp/$asset" | awk '{ print $1 }')"
else
  got="$(shasum -a 256 "$tmp/$asset" | awk '{ print $1 }')"
fi
if [ "$got" != "$want" ]; then
  echo "recallgate install: checksum mismatch for $asset: got $got, SHA256SUMS says $want; nothing installed" >&2
  exit 1
fi

mkdir -p "$dest"
cp "$tmp/$asset" "$dest/recallgate$ext"
chmod 0755 "$dest/recallgate$ext"
"$dest/recallgate$ext" --version
