#!/usr/bin/env bash
# Runs the documented .gitlab-ci.yml (docs/gitlab-ci.md) under a real GitLab CI runner emulator
# (gitlab-ci-local 4.60.1 from npm, shell executor: the job's script on
# this machine, recallgate built from the repository on its PATH) against
# a fake GitLab API on 127.0.0.1, and the merge request job's script in
# the Dockerfile's gitlab image on podman. Called from .ci/run after the
# act suite; run it by hand as root with `bash test/gitlab/run.sh`.
#
# gitlab-ci-local 4.60.1 runs on Debian's Node 20 (newer releases need
# Node 22) and needs rsync. It is installed once into
# ${XDG_CACHE_HOME:-~/.cache}/recallgate-gitlab and reused.
#
# Stand-ins for the image: registries other than the package ones are
# unreachable here, so the images the Dockerfile starts FROM are imported
# under their real names from this machine instead of pulled (as
# test/act/run.sh does): golang:1.26 (this machine's Go toolchain and
# busybox), busybox:1.37 (Debian's static busybox and its applets).
# Without podman the image test says so and skips; the Dockerfile is used
# as it is.
#
# Exit: 0 tests passed (or skipped, with the reason printed: node, npm,
# rsync or gitlab-ci-local could not be installed); otherwise the failing
# command's status.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

skip() { echo "gitlab-ci-local tests skipped: $*"; exit 0; }

need=()
command -v rsync >/dev/null || need+=(rsync)
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq "${need[@]}" >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "${need[@]}" >/dev/null 2>&1; } ||
    skip "${need[*]} could not be installed"
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 18 ] || skip "gitlab-ci-local 4.60.1 needs Node 18 or later, this is $(node --version)"

version=4.60.1
cache=${XDG_CACHE_HOME:-$HOME/.cache}/recallgate-gitlab/gitlab-ci-local-$version
glci="$cache/node_modules/.bin/gitlab-ci-local"
if [ "$("$glci" --version 2>/dev/null)" != "$version" ]; then
  echo "== install gitlab-ci-local@$version (npm)"
  rm -rf "$cache" && mkdir -p "$cache"
  start=$(date +%s)
  npm install --prefix "$cache" --no-audit --no-fund --loglevel=error "gitlab-ci-local@$version" >/dev/null 2>&1 ||
    { rm -rf "$cache"; skip "gitlab-ci-local@$version could not be installed from npm"; }
  echo "installed in $(( $(date +%s) - start )) s"
fi
echo "gitlab-ci-local $("$glci" --version) on node $(node --version)"

work=$(mktemp -d)
cleanup() { rm -rf "$work"; }
trap cleanup EXIT

image=""
if command -v podman >/dev/null && command -v runc >/dev/null && [ -x /bin/busybox ]; then
  echo "== the gitlab image from the unchanged Dockerfile (podman, stand-in base images)"
  . test/podman.sh # podman_setup, pm, import_golang (shared with test/act/run.sh)
  podman_setup "$work"
  stage="$work/stage"
  if ! pm image exists docker.io/library/golang:1.26; then
    import_golang "$stage"
  fi
  mkdir -p "$stage/busybox/bin" "$stage/busybox/tmp" "$stage/busybox/etc"
  cp /bin/busybox "$stage/busybox/bin/busybox"
  for c in $(/bin/busybox --list); do [ "$c" = busybox ] || ln -s busybox "$stage/busybox/bin/$c"; done
  chmod 1777 "$stage/busybox/tmp"
  printf 'root:x:0:0:root:/root:/bin/sh\n' >"$stage/busybox/etc/passwd"
  tar -C "$stage/busybox" -c . | pm import -q --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["sh"]' - docker.io/library/busybox:1.37 >/dev/null
  rm -rf "$stage"
  start=$(date +%s)
  if pm build -q --pull=never --network host --target gitlab -t ghcr.io/recallgate/recallgate:v1-gitlab "$root" >"$work/build.log" 2>&1; then
    echo "built in $(( $(date +%s) - start )) s, $(pm image inspect ghcr.io/recallgate/recallgate:v1-gitlab --format '{{.Size}}') bytes"
    image=ghcr.io/recallgate/recallgate:v1-gitlab
  else
    cat "$work/build.log"
    echo "podman build --target gitlab failed"
    exit 1
  fi
else
  echo "podman, runc or /bin/busybox missing: the image test will skip (test/act/run.sh installs them)"
fi

echo "== the documented .gitlab-ci.yml under gitlab-ci-local"
RECALLGATE_GLCI_BIN="$glci" RECALLGATE_GITLAB_IMAGE="$image" go test -count=1 -v ./test/gitlab "$@"
