# recallgate container image.
#
#   build:  a static, CGO-free binary, cross-compiled on the build machine
#           for the target platform (no emulation for linux/arm64).
#   cli:    distroless, non-root user, CA certificates; for `docker run` and
#           other CI systems (docker build --target cli).
#   gitlab: a GitLab CI job image (docker build --target gitlab, published
#           as ghcr.io/recallgate/recallgate:v1-gitlab): GitLab runs a
#           job's script: in the image's own shell, and distroless has
#           none, so this stage is busybox (sh and coreutils) with the same
#           static binary and CA certificates. No ENTRYPOINT (GitLab starts
#           its shell as the command) and the default user root, since the
#           runner clones the project as root into the builds folder the
#           job writes its reports to. No git: the base commit's tree comes
#           from the repository archive through the API.
#   action: the GitHub Action image (the last stage, so a plain
#           `docker build .` and a fork's `image: Dockerfile` build it); the
#           release workflow publishes it as ghcr.io/recallgate/recallgate.
#           GitHub runs Docker actions as root and documents that a USER
#           instruction breaks access to GITHUB_WORKSPACE and the file
#           commands, so this stage keeps the default user. It ships no git
#           (a smaller pull): in it the base commit's tree always comes from
#           the repository archive through the API (contents: read).
FROM --platform=$BUILDPLATFORM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# Set by BuildKit for each --platform; empty (the build machine's) otherwise.
ARG TARGETOS
ARG TARGETARCH
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/recallgate ./cmd/recallgate

FROM gcr.io/distroless/static-debian12:nonroot AS cli
COPY --from=build /out/recallgate /usr/local/bin/recallgate
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/recallgate"]

FROM busybox:1.37 AS gitlab
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/recallgate /usr/local/bin/recallgate
ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin
CMD ["sh"]

FROM gcr.io/distroless/static-debian12 AS action
COPY --from=build /out/recallgate /usr/local/bin/recallgate
# Tells the binary it is the Docker action: its RUNNER_TEMP (if any) is the
# container's own, so the report goes to the workspace later steps share.
ENV RECALLGATE_DOCKER_ACTION=1
ENTRYPOINT ["/usr/local/bin/recallgate", "action"]
