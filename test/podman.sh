# Shared by test/act/run.sh and test/gitlab/run.sh (sourced, not run): the
# podman settings this machine needs and the golang:1.26 stand-in image.

# podman_setup DIR: crun refuses this machine's cgroup layout and the
# default ulimits cannot be set, so runc, cgroupfs, no default ulimits;
# pm is podman with those.
podman_setup() {
  cat >"$1/containers.conf" <<'CONF'
[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
CONF
  export CONTAINERS_CONF="$1/containers.conf"
}
pm() { podman --runtime runc "$@"; }

# import_golang STAGE: docker.io/library/golang:1.26 from this machine's Go
# toolchain and busybox (registries other than the package ones are
# unreachable here), built in the folder STAGE.
import_golang() {
  local g="$1/golang"
  mkdir -p "$g/usr/local" "$g/bin" "$g/tmp" "$g/etc/ssl/certs"
  cp -a "$(go env GOROOT)" "$g/usr/local/go"
  cp /bin/busybox "$g/bin/busybox"
  ln -s busybox "$g/bin/sh"
  cp /etc/ssl/certs/ca-certificates.crt "$g/etc/ssl/certs/"
  chmod 1777 "$g/tmp"
  tar -C "$g" -c . | pm import -q \
    --change 'ENV PATH=/usr/local/go/bin:/go/bin:/bin' --change 'ENV GOPATH=/go' --change 'WORKDIR /go' \
    - docker.io/library/golang:1.26 >/dev/null
}
