package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// retrieverFP parses a config and returns its head retriever's fingerprint.
func retrieverFP(t *testing.T, text, name string) string {
	t.Helper()
	cfg, err := Parse([]byte(text), name)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, text)
	}
	fp := cfg.Head.Fingerprint()
	if len(fp) != len("sha256:")+64 {
		t.Fatalf("%s: fingerprint %q", name, fp)
	}
	return fp
}

const httpTable = `[retriever]
type = "http"
url = "http://127.0.0.1:8080/search"
method = "POST"
body = '{"q": "{{query}}"}'
hits = "results"
doc = "doc_id"
timeout = "10s"
headers = { Authorization = "Bearer ${RG_FP_TOKEN}", "X-Team" = "search" }
`

// TestRetrieverFingerprintStable: the fingerprint is the parsed table's,
// so key order (of the table and of its headers), the table's name
// ([retriever] or [head.retriever]) and the config's folder leave it
// alone; equal tables hash equal.
func TestRetrieverFingerprintStable(t *testing.T) {
	want := retrieverFP(t, httpTable, filepath.Join("a", "recallgate.toml"))
	for name, text := range map[string]string{
		"keys reordered": `[retriever]
headers = { "X-Team" = "search", Authorization = "Bearer ${RG_FP_TOKEN}" }
doc = "doc_id"
hits = "results"
timeout = "10s"
type = "http"
body = '{"q": "{{query}}"}'
method = "POST"
url = "http://127.0.0.1:8080/search"
`,
		"headers as a table": `[retriever]
type = "http"
url = "http://127.0.0.1:8080/search"
method = "POST"
body = '{"q": "{{query}}"}'
hits = "results"
doc = "doc_id"
timeout = "10s"

[retriever.headers]
"X-Team" = "search"
Authorization = "Bearer ${RG_FP_TOKEN}"
`,
		"as head.retriever": `[base.retriever]
type = "file"
path = "base.jsonl"

[head.retriever]
doc = "doc_id"
url = "http://127.0.0.1:8080/search"
headers = { Authorization = "Bearer ${RG_FP_TOKEN}", "X-Team" = "search" }
type = "http"
method = "POST"
body = '{"q": "{{query}}"}'
hits = "results"
timeout = "10s"
`,
	} {
		if got := retrieverFP(t, text, filepath.Join("elsewhere", "deeper", "gate.toml")); got != want {
			t.Errorf("%s: fingerprint %s, want %s (the same table)", name, got, want)
		}
	}
}

// TestRetrieverFingerprintChanges: one value changed changes it, a header
// template included; the value a ${VAR} reads from the environment never
// enters it (the template is hashed, not the secret).
func TestRetrieverFingerprintChanges(t *testing.T) {
	t.Setenv("RG_FP_TOKEN", "secret-one")
	base := retrieverFP(t, httpTable, "recallgate.toml")
	t.Setenv("RG_FP_TOKEN", "secret-two")
	if got := retrieverFP(t, httpTable, "recallgate.toml"); got != base {
		t.Errorf("the token's value changed the fingerprint: %s, was %s", got, base)
	}
	for name, change := range map[string][2]string{
		"url":             {`url = "http://127.0.0.1:8080/search"`, `url = "http://127.0.0.1:8081/search"`},
		"timeout":         {`timeout = "10s"`, `timeout = "11s"`},
		"header template": {`${RG_FP_TOKEN}`, `${RG_FP_OTHER}`},
		"header value":    {`"X-Team" = "search"`, `"X-Team" = "ranking"`},
		"doc path":        {`doc = "doc_id"`, `doc = "id"`},
	} {
		text := replaceOnce(t, httpTable, change[0], change[1])
		if got := retrieverFP(t, text, "recallgate.toml"); got == base {
			t.Errorf("%s changed, the fingerprint did not: %s", name, got)
		}
	}
	builtin := "[retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\ntitle_boost = 2.0\n"
	a := retrieverFP(t, builtin, "recallgate.toml")
	if b := retrieverFP(t, replaceOnce(t, builtin, "2.0", "2.5"), "recallgate.toml"); a == b {
		t.Errorf("title_boost 2.0 → 2.5 left the fingerprint %s", a)
	}
	if b := retrieverFP(t, replaceOnce(t, builtin, "title_boost = 2.0", "title_boost = 2.00"), "recallgate.toml"); a != b {
		t.Errorf("2.0 and 2.00 are one value: %s, %s", a, b)
	}
}

func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	i := strings.Index(s, old)
	if i < 0 {
		t.Fatalf("%q not in the table", old)
	}
	return s[:i] + new + s[i+len(old):]
}
