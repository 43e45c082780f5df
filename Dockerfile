# recallgate container image.
#
#   build:  a static, CGO-free binary.
#   cli:    distroless, non-root user, CA certificates; for `docker run` and
#           other CI systems (docker build --target cli).
#   action: the GitHub Action (the last stage, so `image: Dockerfile` builds
#           it). GitHub runs Docker actions as root and documents that a
#           USER instruction breaks access to GITHUB_WORKSPACE and the
#           file commands, so this stage keeps the default user.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/recallgate ./cmd/recallgate

FROM gcr.io/distroless/static-debian12:nonroot AS cli
COPY --from=build /out/recallgate /usr/local/bin/recallgate
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/recallgate"]

FROM gcr.io/distroless/static-debian12 AS action
COPY --from=build /out/recallgate /usr/local/bin/recallgate
ENTRYPOINT ["/usr/local/bin/recallgate", "action"]
