#!/usr/bin/env bash
# Runs the documented workflows (docs/github-actions.md) under a real Actions runner (nektos/act) on a
# real container engine (Debian's podman with runc), with the action image
# built from the unchanged Dockerfile. Called from .ci/run; run it by hand
# as root with `bash test/act/run.sh`.
#
# Stand-ins: registries other than the package ones are unreachable here, so
# the images the Dockerfile and the runner start FROM are imported under
# their real names from this machine instead of pulled:
#   golang:1.26                         this machine's Go toolchain + busybox
#   gcr.io/distroless/static-debian12   CA certificates, /etc/passwd, /tmp
#   localhost/recallgate-runner:busybox busybox, the job container (runs-on)
#   localhost/recallgate-runner:node    the same plus this machine's node and a
#                                       bash that is busybox sh, for the
#                                       JavaScript actions and run: steps
# actions/upload-artifact and actions/download-artifact v4 are built here
# from their public sources with npm, and cached: bare git snapshots
# upload-artifact.git and download-artifact.git in RECALLGATE_ACTIONS_SRC,
# by default ../shared/actions beside the repository (CI's clone has a copy
# of shared/ there; see its SOURCE.md); without node or npm the fork test
# says so and skips.
# The native test runs its job on this machine (act's self-hosted platform)
# with a stand-in for actions/setup-python (it would download a Python).
# The Dockerfile, action.yml and the workflows are used as they are.
#
# Exit: 0 tests passed (or skipped, with the reason printed: podman or act
# could not be installed); otherwise the failing command's status.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

skip() { echo "real-runner tests skipped: $*"; exit 0; }

if ! command -v podman >/dev/null || ! command -v runc >/dev/null || [ ! -x /bin/busybox ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq podman runc busybox-static >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq podman runc busybox-static >/dev/null 2>&1; } ||
    skip "podman, runc or busybox-static could not be installed"
fi
bin=$(mktemp -d)
GOBIN="$bin" go install github.com/nektos/act@v0.2.89 >/dev/null 2>&1 || skip "nektos/act could not be installed"

work=$(mktemp -d)
sock="$work/podman.sock"
. test/podman.sh # podman_setup, pm, import_golang
podman_setup "$work"

cleanup() {
  [ -n "${svc:-}" ] && kill "$svc" 2>/dev/null || true
  rm -rf "$work" "$bin"
}
trap cleanup EXIT

# Containers an interrupted earlier run left behind would hold act's
# container names ("already in use"): remove those of act only.
pm ps -aq --filter name='^act-' 2>/dev/null | xargs -r podman --runtime runc rm -f >/dev/null 2>&1 || true

echo "== stand-in base images"
stage="$work/stage"
import_golang "$stage"

mkdir -p "$stage/distroless/etc/ssl/certs" "$stage/distroless/tmp"
cp /etc/ssl/certs/ca-certificates.crt "$stage/distroless/etc/ssl/certs/"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$stage/distroless/etc/passwd"
chmod 1777 "$stage/distroless/tmp"
tar -C "$stage/distroless" -c . | pm import -q - gcr.io/distroless/static-debian12:latest >/dev/null
pm tag gcr.io/distroless/static-debian12:latest gcr.io/distroless/static-debian12:nonroot

mkdir -p "$stage/runner/bin" "$stage/runner/usr/bin" "$stage/runner/tmp"
cp /bin/busybox "$stage/runner/bin/busybox"
for c in $(/bin/busybox --list); do [ "$c" = busybox ] || ln -s busybox "$stage/runner/bin/$c"; done
ln -s /bin/env "$stage/runner/usr/bin/env"
chmod 1777 "$stage/runner/tmp"
tar -C "$stage/runner" -c . | pm import -q --change 'ENV PATH=/bin:/usr/bin' - localhost/recallgate-runner:busybox >/dev/null
if command -v node >/dev/null; then
  node_bin=$(command -v node)
  for f in "$node_bin" $(ldd "$node_bin" | awk '/=>/ {print $3} /ld-linux/ {print $1}'); do
    mkdir -p "$stage/runner$(dirname "$f")"
    cp -L "$f" "$stage/runner$f"
  done
  [ "$node_bin" = /usr/bin/node ] || ln -sf "$node_bin" "$stage/runner/usr/bin/node"
  printf '#!/bin/sh\nexec /bin/busybox sh "$@"\n' >"$stage/runner/bin/bash"
  chmod +x "$stage/runner/bin/bash"
  tar -C "$stage/runner" -c . | pm import -q --change 'ENV PATH=/bin:/usr/bin' - localhost/recallgate-runner:node >/dev/null
fi
rm -rf "$stage"

echo "== actions/upload-artifact and download-artifact v4 from their sources"
src=${RECALLGATE_ACTIONS_SRC:-$root/../shared/actions}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/recallgate-act
build_action() { # name entry [entry…]: builds dist/ of actions/NAME at tag v4
  local name=$1 git_dir="$src/$1.git" out="$cache/$1"; shift
  [ -d "$git_dir" ] || git_dir="$src/actions+$name/repo" # a fetch mirror's layout
  [ -d "$git_dir" ] || { echo "no sources of actions/$name under $src ($name.git)"; return 1; }
  # A snapshot may lack the empty refs/ folder git needs to open it (and be
  # read-only): open a writable copy.
  if [ ! -d "$git_dir/refs" ]; then
    cp -r "$git_dir" "$work/$name.git" && chmod -R u+w "$work/$name.git" && mkdir -p "$work/$name.git/refs" || return 1
    git_dir="$work/$name.git"
  fi
  local rev; rev=$(git --git-dir="$git_dir" rev-parse v4)
  if [ "$(cat "$out/.rev" 2>/dev/null)" = "$rev" ]; then return 0; fi
  rm -rf "$out" && mkdir -p "$out"
  # dist/ (the committed bundle) may be absent from a snapshot: take the
  # sources only and bundle them with the versions package-lock.json pins.
  for f in action.yml package.json package-lock.json tsconfig.json; do
    git --git-dir="$git_dir" show "v4:$f" >"$out/$f" || return 1
  done
  mkdir -p "$out/src" && git --git-dir="$git_dir" archive v4:src | tar -x -C "$out/src" || return 1
  (cd "$out" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null &&
    for e in "$@"; do npx ncc build "src/$e" -o "dist/$(dirname "$e" | sed 's|^\.$||')" >/dev/null || exit 1; done &&
    rm -rf node_modules) || { rm -rf "$out"; echo "building actions/$name failed"; return 1; }
  echo "$rev" >"$out/.rev"
}
if command -v npm >/dev/null && pm image exists localhost/recallgate-runner:node &&
  build_action upload-artifact upload/index.ts && build_action download-artifact download-artifact.ts; then
  export RECALLGATE_ACT_ACTIONS="$cache"
else
  echo "the fork two-workflow test will skip: no node, npm or action sources"
fi

echo "== build the action image from the unchanged Dockerfile"
start=$(date +%s)
pm build -q --pull=never --network host -t ghcr.io/recallgate/recallgate:v1 "$root" >/dev/null
echo "built in $(( $(date +%s) - start )) s, $(pm image inspect ghcr.io/recallgate/recallgate:v1 --format '{{.Size}}') bytes"

echo "== Docker-compatible API socket"
pm system service --time=0 "unix://$sock" >"$work/service.log" 2>&1 &
svc=$!
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || { cat "$work/service.log"; echo "podman service did not start"; exit 1; }

echo "== the documented workflows under act"
RECALLGATE_ACT_BIN="$bin/act" RECALLGATE_ACT_SOCKET="unix://$sock" go test -count=1 -timeout 25m -v ./test/act "$@"
