package pipeline

import (
	"bytes"
	"strings"
	"testing"
)

func TestProgressLinesInLogs(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, 400)
	for i := 0; i < 400; i++ {
		p.add()
	}
	p.finish()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 10 || !strings.HasPrefix(lines[0], "recallgate: retrieved 40/400 queries (10%)") || !strings.HasPrefix(lines[9], "recallgate: retrieved 400/400 queries (100%)") {
		t.Errorf("%d lines:\n%s", len(lines), b.String())
	}
	b.Reset()
	q := newProgress(&b, 30)
	for i := 0; i < 30; i++ {
		q.add()
	}
	if b.Len() != 0 {
		t.Errorf("a short run printed progress: %q", b.String())
	}
}
