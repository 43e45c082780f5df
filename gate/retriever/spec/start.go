package spec

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// PortPlaceholder is what Start and URL write for the loopback port the
// service is started on.
const PortPlaceholder = "{port}"

// DefaultStartTimeout is how long a started service may take to answer
// its ready path when the table sets no start_timeout.
const DefaultStartTimeout = 60 * time.Second

// StartWait is the table's start_timeout, or DefaultStartTimeout.
func (r *Retriever) StartWait() time.Duration {
	if r.StartTimeout == nil || r.StartTimeout.Duration <= 0 {
		return DefaultStartTimeout
	}
	return r.StartTimeout.Duration
}

// templated is a {{name}} of a request template: a URL holding one is
// parsed with it written out.
var templated = regexp.MustCompile(`\{\{[a-z_]+\}\}`)

// CheckStart refuses a table whose start, ready or start_timeout keys
// cannot work, naming the key: start on a kind other than http, an empty
// program, a start without {port} (the service could not know where to
// listen), a url that is not on a loopback host at {port}, a ready that is
// not a path, {port} in a url without start. nil when the table sets none
// of them.
func (r *Retriever) CheckStart() (key string, err error) {
	if len(r.Start) == 0 {
		switch {
		case r.Start != nil:
			return "start", errors.New(`is empty: the service's argv, e.g. ["python3", "service.py", "--port", "{port}"]`)
		case r.Ready != "":
			return "ready", errors.New("is the path polled until a started service answers: set start too")
		case r.StartTimeout != nil:
			return "start_timeout", errors.New("bounds how long a started service takes to answer: set start too")
		case r.Type == "http" && strings.Contains(r.URL, PortPlaceholder):
			return "url", fmt.Errorf("holds %s, the port of a service recallgate starts: set start (its argv, with %s where it takes the port) or write the port", PortPlaceholder, PortPlaceholder)
		}
		return "", nil
	}
	if r.Type != "http" {
		return "start", fmt.Errorf("only an http retriever starts a service (a %s retriever takes no start)", r.Type)
	}
	if r.Start[0] == "" {
		return "start", errors.New("names no program: its first element is empty")
	}
	if !strings.Contains(strings.Join(r.Start, "\x00"), PortPlaceholder) {
		return "start", fmt.Errorf("must pass the service its port: write %s where it takes it, e.g. [\"python3\", \"service.py\", \"--port\", \"%s\"]", PortPlaceholder, PortPlaceholder)
	}
	u, err := url.Parse(templated.ReplaceAllString(strings.ReplaceAll(r.URL, PortPlaceholder, "1"), "x"))
	if err != nil || u.Scheme != "http" || !strings.Contains(r.URL, PortPlaceholder) || u.Port() != "1" || !loopback(u.Hostname()) {
		return "url", fmt.Errorf("must reach the started service: http://127.0.0.1:%s/… (a loopback host, the port %s), got %q", PortPlaceholder, PortPlaceholder, r.URL)
	}
	if r.Ready != "" && (!strings.HasPrefix(r.Ready, "/") || strings.ContainsAny(r.Ready, " \t\r\n#")) {
		return "ready", fmt.Errorf("is a path on the service, like \"/health\", got %q", r.Ready)
	}
	if r.StartTimeout != nil && r.StartTimeout.Duration <= 0 {
		return "start_timeout", errors.New("must be positive, like \"60s\"")
	}
	return "", nil
}

// loopback reports whether host names this machine's loopback interface.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
