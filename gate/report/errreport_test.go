package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// retrieverDown is the error of a head retriever that failed two queries,
// as the gate job returns it.
func retrieverDown() error {
	return &gate.InfraError{Err: &gate.RetrievalError{Side: "head", Failures: map[string]error{
		"q2": errors.New("connection refused"), "q1": errors.New("HTTP 503: <b>down</b> | @team"),
	}}}
}

// TestErrorReportGoldens: the error report in every format, each naming
// the exit code, the stage, the side, the queries, the cause and the fix.
func TestErrorReportGoldens(t *testing.T) {
	r := FromError("gate", 3, retrieverDown())
	r.SetGate("rag/recallgate.toml", "")
	r.HeadSHA = "0123456789abcdef0123456789abcdef01234567"
	for _, tt := range []struct {
		f    Format
		file string
	}{{JSON, "error.golden.json"}, {Text, "error.golden.txt"}, {Markdown, "error.golden.md"}, {HTML, "error.golden.html"}, {JUnit, "error.golden.xml"}} {
		var b bytes.Buffer
		if err := WriteCompareReport(&b, r, tt.f); err != nil {
			t.Fatalf("%s: %v", tt.f, err)
		}
		golden(t, tt.file, b.Bytes())
		if tt.f == Markdown {
			t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInert(t, b.String(), "HTTP 503: <b>down</b> | @team") })
		}
		if !strings.Contains(b.String(), "q1") || !strings.Contains(b.String(), "retrieve") || !strings.Contains(b.String(), "check that the head side") {
			t.Errorf("%s does not say the queries, the stage and the fix:\n%s", tt.f, b.String())
		}
	}
	var b bytes.Buffer
	if err := WriteCompareReport(&b, r, Benchmark); err != nil || !strings.Contains(b.String(), `"verdict": "error"`) {
		t.Errorf("a benchmark file of an error must be the error report, never a trend point: %v\n%s", err, b.String())
	}
}

// TestFromErrorReadsTheChain: the stage, side and queries come from the
// error's chain.
func TestFromErrorReadsTheChain(t *testing.T) {
	for _, tt := range []struct {
		name                string
		code                int
		err                 error
		stage, side, querys string
	}{
		{"retrieval", 3, fmt.Errorf("gate: %w", retrieverDown()), gate.StageRetrieve, "head", "q1,q2"},
		{"both sides", 3, errors.Join(
			&gate.InfraError{Err: &gate.RetrievalError{Side: "base", Failures: map[string]error{"q2": errors.New("HTTP 500")}}},
			&gate.InfraError{Err: &gate.RetrievalError{Side: "head", Failures: map[string]error{"q3": errors.New("HTTP 500"), "q2": errors.New("HTTP 500"), "q1": errors.New("HTTP 500")}}},
		), gate.StageRetrieve, "none", "q1,q2,q3"},
		{"one query", 3, &gate.InfraError{QueryID: "q7", Err: errors.New("timeout")}, gate.StageRetrieve, "none", "q7"},
		{"tagged", 2, gate.AtStage(gate.StageConfig, "", &gate.InputError{File: "rg.toml", Line: 3, Err: errors.New("bad")}), gate.StageConfig, "none", ""},
		{"innermost tag", 3, gate.AtStage(gate.StageConfig, "", gate.AtStage(gate.StageBaseTree, "base", errors.New("no commit"))), gate.StageBaseTree, "base", ""},
		{"input", 2, &gate.InputError{File: "set.jsonl", Line: 2, Err: errors.New("bad")}, gate.StageInput, "none", ""},
		{"interrupted", 3, fmt.Errorf("retrieve: %w", context.Canceled), gate.StageInterrupt, "none", ""},
		{"usage", 2, errors.New("--base and --head are required"), gate.StageUsage, "none", ""},
	} {
		r := FromError("compare", tt.code, tt.err)
		e := r.Error
		if r.Verdict != "error" || e.ExitCode != tt.code || e.Stage != tt.stage || e.Side != tt.side || strings.Join(e.Queries, ",") != tt.querys || e.Message != tt.err.Error() || e.Fix == "" {
			t.Errorf("%s: %+v", tt.name, e)
		}
	}
}

// TestErrorMessageBounded: an error quoting 900 KB of a pull request's
// text makes a report whose message is cut to MaxErrorText characters.
func TestErrorMessageBounded(t *testing.T) {
	long := "run.jsonl:1: " + strings.Repeat("é", 900_000)
	r := FromError("compare", 2, errors.New(long))
	if n := len([]rune(r.Error.Message)); n != MaxErrorText || !strings.HasSuffix(r.Error.Message, "…") || !strings.HasPrefix(r.Error.Message, "run.jsonl:1: éé") {
		t.Errorf("message of %d characters: %.40q", n, r.Error.Message)
	}
	for _, f := range []Format{JSON, Markdown, Text, JUnit, HTML} {
		if out, _ := Render(r, f); len(out) > 4*MaxErrorText+2000 {
			t.Errorf("%s: %d bytes", f, len(out))
		}
	}
}

// TestForgedErrorReportShowsInvisibles: an error report from an artifact
// the pull request wrote names a query with a bidi override and a zero-width
// space; every format shows them as marks (in Markdown's code span too,
// where they would reorder the rest of the comment's line).
func TestForgedErrorReportShowsInvisibles(t *testing.T) {
	doc := `{"tool":"recallgate","command":"action","verdict":"error","exit_code":3,"stage":"retrieve","side":"head",` +
		`"queries":["q1\u202essap :etagllacer","q\u200b2"],"message":"down","fix":"rerun"}`
	r, err := ReadCompareReport(strings.NewReader(doc), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{Markdown, Text, HTML, JUnit} {
		out, _ := Render(r, f)
		out = html.UnescapeString(out) // HTML and XML escape the marks' "+"
		if strings.ContainsAny(out, "\u202e\u200b") || !strings.Contains(out, "q1⟨U+202E⟩ssap") || !strings.Contains(out, "q⟨U+200B⟩2") {
			t.Errorf("%s:\n%s", f, out)
		}
	}
}

// TestReadErrorReport: an error report reads back and renders the same;
// one with a field out of its closed set is refused.
func TestReadErrorReport(t *testing.T) {
	r := FromError("action", 2, gate.AtStage(gate.StageConfig, "", errors.New("rg.toml: set: required")))
	r.SetGate("recallgate.toml", "docs-search")
	js, err := Render(r, JSON)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadCompareReport(strings.NewReader(js), "report.json")
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	for _, f := range []Format{JSON, Markdown, Text, JUnit, HTML} {
		a, _ := Render(r, f)
		b, _ := Render(back, f)
		if a != b {
			t.Errorf("%s differs after a round trip:\n%s\n---\n%s", f, a, b)
		}
	}
	if md, _ := Render(back, Markdown); !strings.HasPrefix(md, "### ⚠️ recallgate · docs-search could not run") {
		t.Errorf("markdown:\n%s", md)
	}
	for _, bad := range []struct{ from, to string }{
		{`"exit_code": 2`, `"exit_code": 1`},
		{`"stage": "config"`, `"stage": "lunch"`},
		{`"side": "none"`, `"side": "left"`},
		{`"command": "action"`, `"command": "rm -rf"`},
		{`"queries": []`, `"queries": ["a\u0007"]`},
		{`"verdict": "error",`, `"verdict": "error", "extra": 1,`},
		{`"message": "`, `"message": "` + strings.Repeat("x", MaxErrorText)},
	} {
		doc := strings.Replace(js, bad.from, bad.to, 1)
		if doc == js {
			t.Fatalf("%s is not in the report:\n%s", bad.from, js)
		}
		if _, err := ReadCompareReport(strings.NewReader(doc), "report.json"); err == nil || !gate.IsInput(err) {
			t.Errorf("%s → %s: accepted (%v)", bad.from, bad.to, err)
		}
	}
}
