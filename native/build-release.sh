#!/usr/bin/env bash
# Builds the static release binaries exactly as the Dockerfile builds the
# image's (CGO off, -trimpath), one per OS and CPU, and their SHA256SUMS.
#
#   native/build-release.sh VERSION OUT_DIR
set -euo pipefail
version="${1:?usage: build-release.sh VERSION OUT_DIR}"
out="${2:?usage: build-release.sh VERSION OUT_DIR}"
cd "$(dirname "$0")/.."
mkdir -p "$out"
for target in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
  os="${target%/*}"
  arch="${target#*/}"
  ext=""
  if [ "$os" = windows ]; then ext=".exe"; fi
  CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" go build -trimpath \
    -ldflags "-s -w -X main.version=${version}" \
    -o "$out/recallgate_${os}_${arch}${ext}" ./cmd/recallgate
done
(cd "$out" && sha256sum recallgate_* > SHA256SUMS)
ls -l "$out"
