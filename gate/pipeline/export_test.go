package pipeline

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// The export fixture: q1 has evidence and the pipeline's own context; q2
// only hits with text, packed under context_tokens = 6 words (its first
// passage has 4 words, the second 5: only the first fits); u1 is
// unanswerable and its pipeline abstained.
const (
	exportSet = `{"id":"q1","query":"how do I rotate an api key","gold":{"security/keys":3,"admin/tokens":1},"evidence":["Settings → Keys"]}
{"id":"q2","query":"what limits the request rate","gold":{"api/limits":2}}
{"id":"u1","query":"what is the office wifi password","gold":{},"unanswerable":true}
`
	exportCorpus = `{"id":"security/keys","title":"API keys","text":"Rotate a key under Settings → Keys, then revoke the old one."}
{"id":"admin/tokens","title":"","text":"Admin tokens expire after 90 days."}
{"id":"api/limits","title":"Rate limits","text":"Requests are limited to 100 a minute; a 429 carries Retry-After."}
`
	exportRun = `{"id":"q1","hits":[{"doc":"security/keys","chunk":"security/keys#1","score":3.2,"text":"API keys overview"},{"doc":"admin/tokens","score":1.1,"text":"Admin tokens expire after 90 days."}],"context":[{"doc":"security/keys","chunk":"security/keys#2","text":"Rotate a key under Settings → Keys, then revoke the old one.","tokens":12}],"abstain":false}
{"id":"q2","hits":[{"doc":"api/limits","chunk":"api/limits#1","text":"Requests are limited hourly"},{"doc":"api/limits","chunk":"api/limits#2","text":"a 429 carries Retry-After header"}]}
{"id":"u1","hits":[],"abstain":true}
`
	exportConfig = "set = \"set.jsonl\"\ncorpus = \"corpus.jsonl\"\n[report]\ncontext_tokens = 6\n"
)

// TestExportGolden writes the fixture in both formats, with the corpus:
// q1's contexts are the pipeline's own (context_source own), q2's packed
// by recallgate (context_source packed, context_tokens 6: one passage),
// and the reference passages are the gold documents' text.
func TestExportGolden(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "set.jsonl", exportSet)
	put(t, dir, "corpus.jsonl", exportCorpus)
	run := put(t, dir, "run.jsonl", exportRun)
	cfg := put(t, dir, "rg.toml", exportConfig)
	for _, tc := range []struct{ format, golden string }{{ExportRagas, "ragas.golden.jsonl"}, {ExportDeepEval, "deepeval.golden.json"}} {
		var b bytes.Buffer
		if err := Export(testEnv(&bytes.Buffer{}), ExportOptions{Run: run, Format: tc.format, Config: cfg}, &b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "export", tc.golden)
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs from %s (go test ./gate/pipeline -run ExportGolden -update to accept):\n%s", tc.format, path, b.String())
		}
	}
}

type ragasLine struct {
	UserInput         string   `json:"user_input"`
	RetrievedContexts []string `json:"retrieved_contexts"`
	ReferenceContexts []string `json:"reference_contexts"`
	ID                string   `json:"id"`
	Recallgate        struct {
		ContextSource   string `json:"context_source"`
		ContextTokens   int    `json:"context_tokens"`
		ReferenceSource string `json:"reference_source"`
	} `json:"recallgate"`
}

func ragasLines(t *testing.T, out string) map[string]ragasLine {
	t.Helper()
	m := map[string]ragasLine{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r ragasLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		m[r.ID] = r
	}
	return m
}

// TestExportWithAndWithoutContext: the same run without its "context"
// key exports q1's hits packed instead (both passages: 3 + 6 words under
// the default 2,000), and without a corpus the references are the set's
// evidence ("none" for a query without).
func TestExportWithAndWithoutContext(t *testing.T) {
	dir := t.TempDir()
	set := put(t, dir, "set.jsonl", exportSet)
	noCtx := strings.Replace(exportRun, `,"context":[{"doc":"security/keys","chunk":"security/keys#2","text":"Rotate a key under Settings → Keys, then revoke the old one.","tokens":12}]`, "", 1)
	for _, tc := range []struct {
		name, run, source string
		contexts          []string
	}{
		{"with context", exportRun, "own", []string{"Rotate a key under Settings → Keys, then revoke the old one."}},
		{"without context", noCtx, "packed", []string{"API keys overview", "Admin tokens expire after 90 days."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := put(t, dir, "run.jsonl", tc.run)
			var b bytes.Buffer
			if err := Export(testEnv(&bytes.Buffer{}), ExportOptions{Run: run, Format: ExportRagas, Set: set}, &b); err != nil {
				t.Fatal(err)
			}
			m := ragasLines(t, b.String())
			q1 := m["q1"]
			if q1.Recallgate.ContextSource != tc.source || strings.Join(q1.RetrievedContexts, "|") != strings.Join(tc.contexts, "|") {
				t.Errorf("q1 %+v", q1)
			}
			if q1.Recallgate.ReferenceSource != "evidence" || strings.Join(q1.ReferenceContexts, "|") != "Settings → Keys" {
				t.Errorf("q1 references %+v", q1)
			}
			if q2 := m["q2"]; q2.Recallgate.ReferenceSource != "none" || len(q2.ReferenceContexts) != 0 || q2.Recallgate.ContextTokens != 2000 || len(q2.RetrievedContexts) != 2 {
				t.Errorf("q2 %+v", q2)
			}
		})
	}
}

func TestExportBadInput(t *testing.T) {
	dir := t.TempDir()
	set := put(t, dir, "set.jsonl", exportSet)
	run := put(t, dir, "run.jsonl", exportRun)
	bad := put(t, dir, "bad.jsonl", `{"id":"q1","hits":[],"context":{"doc":"a"}}`+"\n")
	for _, tc := range []struct {
		o    ExportOptions
		want string
	}{
		{ExportOptions{Run: run, Format: "promptfoo", Set: set}, `unknown export format "promptfoo"`},
		{ExportOptions{Run: run, Set: set}, "--run and --format are required"},
		{ExportOptions{Run: bad, Format: ExportRagas, Set: set}, "bad.jsonl:1: context"},
	} {
		err := Export(testEnv(&bytes.Buffer{}), tc.o, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.o, err, tc.want)
		}
	}
}
