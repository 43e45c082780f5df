package sethealth

import (
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate/setfile"
)

func TestCheck(t *testing.T) {
	s, err := setfile.Parse(strings.NewReader(`{"id":"a","query":"Rotate key","gold":{"d1":1},"segments":["known-failure"],"verified":"2025-01-01"}
{"id":"b","query":"rotate  KEY!","gold":{"gone":1},"verified":"2026-11-01"}
{"id":"c","query":"other","gold":{"d1":1}}
`), "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	got := Check(s, Options{Corpus: map[string]bool{"d1": true}, Now: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), MaxLabelAge: 180 * 24 * time.Hour})
	one, err := setfile.Parse(strings.NewReader(`{"id":"a","query":"q","gold":{"d1":1}}`+"\n"), "one.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if h := Check(one, Options{}); len(h) == 0 || !strings.HasPrefix(h[0], "only 1 answerable query: ") {
		t.Errorf("one answerable query: %q", h)
	}
	want := []string{
		"only 3 answerable queries",
		"query b (line 2): gold not in the corpus: gone",
		"", // known failures 1 of 3 = 33%: within 30–70%, no finding
		"1 query has labels verified more than 180 days ago: a",
		"1 query has no \"verified\" date: c",
		"queries a, b have the same text",
	}
	var w []string
	for _, x := range want {
		if x != "" {
			w = append(w, x)
		}
	}
	if len(got) != len(w) {
		t.Fatalf("findings %q", got)
	}
	for i := range w {
		if !strings.HasPrefix(got[i], w[i]) {
			t.Errorf("finding %d = %q, want prefix %q", i, got[i], w[i])
		}
	}
	if !strings.HasPrefix(s.Fingerprint, "sha256:") || len(s.Fingerprint) != 71 {
		t.Errorf("fingerprint %q", s.Fingerprint)
	}
}
