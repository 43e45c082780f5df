package experiment

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/report"
	"github.com/recallgate/recallgate/gate/runfile"
	"github.com/recallgate/recallgate/gate/setfile"
	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./gate/experiment -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./gate/experiment -update to accept):\n%s", name, got)
	}
}

// hostileName is a variant name that tries every format: markup, a
// table pipe, a code span, a mention and a bidi override (a control
// character such as a line break is refused by the config and the reader).
const hostileName = "<img src=x onerror=alert(1)>|`x`| @all \u202eevil"

// demoReport pairs the demo's committed runs (frozen-set/runs): "chunked"
// is the head run, "same" the base run again, and the hostile name the
// head run too; each carries a fixed latency, so the report is stable.
func demoReport(t *testing.T) *Report {
	t.Helper()
	set, err := setfile.Load("../../frozen-set/queries.jsonl")
	if err != nil {
		t.Skipf("the demo set is not here: %v", err)
	}
	d := gate.Depth{Candidates: 5, Context: 3, Below: 0.5}
	base, err := runfile.ScoreRunFile(set, "../../frozen-set/runs/base.jsonl", d)
	if err != nil {
		t.Fatal(err)
	}
	head, err := runfile.ScoreRunFile(set, "../../frozen-set/runs/head.jsonl", d)
	if err != nil {
		t.Fatal(err)
	}
	lat := func(p50, p95 time.Duration) *gate.LatencyStats {
		return &gate.LatencyStats{Calls: 30, P50: p50, P95: p95, Max: 2 * p95, Total: 30 * p50, Build: 12 * time.Millisecond}
	}
	th := gate.DefaultThresholds()
	var in []Input
	for _, v := range []struct {
		name string
		card *gate.Scorecard
		l    *gate.LatencyStats
	}{{"chunked", head, lat(180*time.Microsecond, 2400*time.Microsecond)}, {"same", base, lat(130*time.Microsecond, 900*time.Microsecond)}, {hostileName, head, nil}} {
		c, err := gate.CompareWith(base, v.card, gate.Policy{Thresholds: th, Latency: [2]*gate.LatencyStats{lat(130*time.Microsecond, 930*time.Microsecond), v.l}})
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, Input{Name: v.name, Comparison: c})
	}
	return Build(in)
}

func TestBuildDemo(t *testing.T) {
	r := demoReport(t)
	if len(r.Variants) != 3 || r.Baseline.Name != "base" || r.Depth.Candidates != 5 {
		t.Fatalf("report %+v", r)
	}
	chunked, same, hostile := r.Variants[0], r.Variants[1], r.Variants[2]
	// What `recallgate gate` says of the demo (TestDemoGate).
	if f3(r.Baseline.Summary.RecallAtN) != "0.833" || f3(chunked.Summary.RecallAtN) != "0.810" || signed(chunked.Delta.RecallAtN) != "-0.023" {
		t.Errorf("chunked recall@5 %v → %v", r.Baseline.Summary.RecallAtN, chunked.Summary.RecallAtN)
	}
	if strings.Join(chunked.Regressed, ",") != "q26,q16,q10" || strings.Join(chunked.Improved, ",") != "q04,q07,q21" {
		t.Errorf("chunked flips %v %v", chunked.Regressed, chunked.Improved)
	}
	// 6 moved queries: exact; the gate's p-value of the demo is 0.750.
	if f3(chunked.PValue) != "0.750" || !chunked.Exact || chunked.Gate.Verdict != "fail" || chunked.Gate.Pass || len(chunked.Gate.Reasons) == 0 {
		t.Errorf("chunked p %v exact %v gate %+v", chunked.PValue, chunked.Exact, chunked.Gate)
	}
	if strings.Join(chunked.ZeroRecall.New, ",") != "q26" || strings.Join(chunked.ZeroRecall.Recovered, ",") != "q21" {
		t.Errorf("chunked zero recall %+v, want new q26, recovered q21", chunked.ZeroRecall)
	}
	if chunked.Latency == nil || chunked.Latency.P95 != 2.4 || r.Baseline.Latency == nil || r.Baseline.Latency.P95 != 0.93 || hostile.Latency != nil {
		t.Errorf("latencies: base %+v chunked %+v hostile %+v", r.Baseline.Latency, chunked.Latency, hostile.Latency)
	}
	zero := Interval{}
	noDelta := report.DeltaSummary{}
	if len(same.Delta.More) > 0 {
		noDelta.More = report.Values{}
		for k := range same.Delta.More {
			noDelta.More[k] = 0
		}
	}
	if !reflect.DeepEqual(same.Delta, noDelta) || same.PValue != 1 || same.CI.RecallAtN != zero || same.CI.NDCGAtK != zero || len(same.Regressed)+len(same.Improved) != 0 || !same.Gate.Pass {
		t.Errorf("same: %+v", same)
	}
	// Segments: "misspelling" (2 queries) goes from 0.750 to 1.000 on the
	// head run, so chunked and the hostile variant (the same run) share
	// it; "jargon" drops on them and "same" only ties, so the baseline holds.
	seg := map[string]Segment{}
	for _, s := range r.Segments {
		seg[s.Label] = s
	}
	if m := seg["misspelling"]; m.Queries != 2 || m.Baseline != 0.75 || !reflect.DeepEqual(m.Recall, []float64{1, 0.75, 1}) || !reflect.DeepEqual(m.Winners, []string{"chunked", hostileName}) {
		t.Errorf("misspelling %+v", m)
	}
	if j := seg["jargon"]; len(j.Winners) != 0 || j.Baseline != 1 {
		t.Errorf("jargon %+v: the baseline holds", j)
	}
	if !reflect.DeepEqual(same.Wins, []string{}) || !strings.Contains(strings.Join(chunked.Wins, "|"), "misspelling") {
		t.Errorf("wins: same %v chunked %v", same.Wins, chunked.Wins)
	}
}

func TestGoldenFormats(t *testing.T) {
	r := demoReport(t)
	for _, f := range Formats {
		var b bytes.Buffer
		if err := Write(&b, r, f); err != nil {
			t.Fatal(err)
		}
		golden(t, "demo."+string(f)+".golden", b.Bytes())
	}
}

// TestHostileNameEscaped: the variant name from the config reaches no
// format as markup, a table cell break, a mention, a bidi override or a
// second line.
func TestHostileNameEscaped(t *testing.T) {
	r := demoReport(t)
	for f, raws := range map[report.Format][]string{
		// A terminal: one line, the override shown.
		report.Text: {"\u202e"},
		// A comment: no markup, no cell break, no code span, no mention.
		report.Markdown: {"<img", "\u202e", "`x`", "|", " @all"},
		// A page: no markup (the SVG's text included).
		report.HTML: {"<img", "\u202e"},
	} {
		var b bytes.Buffer
		if err := Write(&b, r, f); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if f == report.Markdown {
			t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInert(t, out, hostileName) })
			out = strings.ReplaceAll(strings.ReplaceAll(out, "|\n", "\n"), "| ", "") // the table's own pipes
			out = strings.ReplaceAll(strings.ReplaceAll(out, "|---", ""), "|---:", "")
		}
		for _, raw := range raws {
			if strings.Contains(out, raw) {
				t.Errorf("%s holds %q raw:\n%s", f, raw, out)
			}
		}
		if !strings.Contains(b.String(), "⟨U+202E⟩") {
			t.Errorf("%s does not show the bidi override", f)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	r := demoReport(t)
	var b bytes.Buffer
	if err := Write(&b, r, report.JSON); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(bytes.NewReader(b.Bytes()), "e.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Formats {
		var want, got bytes.Buffer
		_ = Write(&want, r, f)
		_ = Write(&got, back, f)
		if want.String() != got.String() {
			t.Errorf("%s of the report read back differs", f)
		}
	}
}

func TestReadReportRefuses(t *testing.T) {
	r := demoReport(t)
	var b bytes.Buffer
	if err := Write(&b, r, report.JSON); err != nil {
		t.Fatal(err)
	}
	doc := b.String()
	for _, tc := range []struct{ name, in, want string }{
		{"unknown key", strings.Replace(doc, `"tool": "recallgate",`, `"tool": "recallgate", "extra": 1,`, 1), `unknown field "extra"`},
		{"duplicate key", strings.Replace(doc, `"tool": "recallgate",`, `"tool": "recallgate", "tool": "recallgate",`, 1), `key "tool" appears twice`},
		{"a compare report", strings.Replace(doc, `"command": "experiment"`, `"command": "compare"`, 1), "not a recallgate experiment report"},
		{"bad verdict", strings.Replace(doc, `"verdict": "fail"`, `"verdict": "great"`, 1), `gate verdict "great"`},
		{"pass that is not", strings.Replace(doc, `"pass": false`, `"pass": true`, 1), `gate verdict "fail"`},
		{"winner no variant", strings.Replace(doc, `"winners": [
        "chunked"`, `"winners": [
        "nobody"`, 1), `winner "nobody" is no variant`},
		{"trailing data", doc + "{}", "unexpected data"},
		{"a control character in a name", strings.Replace(doc, `"name": "same"`, `"name": "sa\nme"`, 1), "control character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.in == doc {
				t.Fatal("the case changed nothing")
			}
			_, err := ReadReport(strings.NewReader(tc.in), "e.json")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]report.Format{"text": report.Text, "": report.Text, "json": report.JSON, "md": report.Markdown, "html": report.HTML} {
		if f, err := ParseFormat(in); err != nil || f != want {
			t.Errorf("%q: %v %v", in, f, err)
		}
	}
	for _, bad := range []string{"junit", "benchmark", "pdf"} {
		if _, err := ParseFormat(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
