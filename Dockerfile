# Build a static recallgate binary, then ship it on a minimal image with CA
# certificates and a non-root user.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/recallgate ./cmd/recallgate

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/recallgate /usr/local/bin/recallgate
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/recallgate"]
