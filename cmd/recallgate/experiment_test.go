package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/experiment"
	"github.com/recallgate/recallgate/gate/history"
)

// experimentJSON is what the acceptance reads of the experiment's JSON.
type experimentJSON struct {
	Notes    []string `json:"notes"`
	Baseline struct {
		Name    string `json:"name"`
		Summary struct {
			Recall float64 `json:"recall_at_n"`
		} `json:"summary"`
	} `json:"baseline"`
	Variants []struct {
		Name    string `json:"name"`
		Summary struct {
			Recall float64 `json:"recall_at_n"`
		} `json:"summary"`
		Delta struct {
			Recall float64 `json:"recall_at_n"`
			NDCG   float64 `json:"ndcg_at_k"`
		} `json:"delta"`
		CI struct {
			Recall *struct{ Low, High float64 } `json:"recall_at_n"`
			NDCG   *struct{ Low, High float64 } `json:"ndcg_at_k"`
		} `json:"ci"`
		PValue    *float64 `json:"p_value"`
		Regressed []string `json:"regressed"`
		Improved  []string `json:"improved"`
		Latency   *struct {
			P50 float64 `json:"p50_ms"`
			P95 float64 `json:"p95_ms"`
		} `json:"latency"`
		Gate struct {
			Verdict string `json:"verdict"`
		} `json:"gate"`
	} `json:"variants"`
}

// TestDemoExperiment is the acceptance of `recallgate experiment` on the
// demo (frozen-set/experiment.toml): exit 0 with three variants; "chunked"
// (the demo's head table) says what `recallgate gate` says of the demo;
// "same" (the base table again) has no delta, no flips and p = 1; every
// variant has a p-value, intervals and latency; the HTML has an SVG with
// one mark per variant.
func TestDemoExperiment(t *testing.T) {
	dir := t.TempDir()
	jsonOut, htmlOut := filepath.Join(dir, "e.json"), filepath.Join(dir, "e.html")
	code, out, errs := rg(t, "experiment", "--config", "../../frozen-set/experiment.toml", "--format", "html", "--out", htmlOut, "--json-out", jsonOut)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, want 0 (an experiment informs)\nstdout %s\nstderr %s", code, out, errs)
	}
	var e experimentJSON
	data, _ := os.ReadFile(jsonOut)
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range e.Variants {
		names = append(names, v.Name)
	}
	if strings.Join(names, ",") != "chunked,same,notitle" || e.Baseline.Name != "base" {
		t.Fatalf("baseline %q, variants %v", e.Baseline.Name, names)
	}
	// What the gate says of the demo's head.
	gateJSON := filepath.Join(dir, "gate.json")
	if code, _, errs := rg(t, "gate", "--config", "../../frozen-set/recallgate.toml", "--format", "json", "--out", gateJSON); code != 1 {
		t.Fatalf("gate on the demo: exit %d, want 1\n%s", code, errs)
	}
	var g struct {
		Summary struct {
			Base, Head struct {
				Recall float64 `json:"recall_at_n"`
			}
		} `json:"summary"`
		Regressed, Improved []string
		Verdict             string
	}
	data, _ = os.ReadFile(gateJSON)
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	chunked, same := e.Variants[0], e.Variants[1]
	if f3(e.Baseline.Summary.Recall) != "0.833" || f3(chunked.Summary.Recall) != "0.810" || e.Baseline.Summary.Recall != g.Summary.Base.Recall || chunked.Summary.Recall != g.Summary.Head.Recall {
		t.Errorf("chunked recall@5 %v → %v, gate %v → %v; want 0.833 → 0.810", e.Baseline.Summary.Recall, chunked.Summary.Recall, g.Summary.Base.Recall, g.Summary.Head.Recall)
	}
	if strings.Join(chunked.Regressed, ",") != "q26,q16,q10" || strings.Join(chunked.Improved, ",") != "q04,q07,q21" ||
		!slices.Equal(chunked.Regressed, g.Regressed) || !slices.Equal(chunked.Improved, g.Improved) || chunked.Gate.Verdict != g.Verdict {
		t.Errorf("chunked regressed %v improved %v (%s); gate: %v %v (%s)", chunked.Regressed, chunked.Improved, chunked.Gate.Verdict, g.Regressed, g.Improved, g.Verdict)
	}
	if same.Delta.Recall != 0 || same.Delta.NDCG != 0 || len(same.Regressed)+len(same.Improved) != 0 || same.PValue == nil || *same.PValue != 1 || same.Gate.Verdict != "pass" {
		t.Errorf("same: delta %+v, flips %v %v, p %v, gate %s; want no delta, no flips, p = 1, pass", same.Delta, same.Regressed, same.Improved, same.PValue, same.Gate.Verdict)
	}
	for _, v := range e.Variants {
		if v.PValue == nil || v.CI.Recall == nil || v.CI.NDCG == nil || v.Latency == nil || v.Latency.P95 <= 0 || v.Latency.P95 < v.Latency.P50 {
			t.Errorf("%s: p %v, intervals %v %v, latency %+v: every variant has them", v.Name, v.PValue, v.CI.Recall, v.CI.NDCG, v.Latency)
		}
		if v.CI.Recall != nil && (v.CI.Recall.Low > v.Delta.Recall || v.CI.Recall.High < v.Delta.Recall) {
			t.Errorf("%s: interval %+v does not hold the delta %v", v.Name, *v.CI.Recall, v.Delta.Recall)
		}
	}
	page, _ := os.ReadFile(htmlOut)
	html := string(page)
	first := html[strings.Index(html, "<svg"):]
	first = first[:strings.Index(first, "</svg>")]
	if n := strings.Count(first, `class="mark`); n != 3 {
		t.Errorf("the deltas' SVG has %d marks, want one per variant (3)", n)
	}
	for _, name := range names {
		if !strings.Contains(first, "<title>"+name+":") {
			t.Errorf("no mark titled for %s", name)
		}
	}
	if strings.Count(html, "<svg") != 2 || strings.Contains(html, "<script") || strings.Contains(html, "http://") && !strings.Contains(html, `xmlns="http://www.w3.org/2000/svg"`) {
		t.Errorf("the page wants two inline SVGs and no script")
	}
}

// f3 is a value as the reports print it.
func f3(v float64) string { return fmt.Sprintf("%.3f", v) }

// experimentConfig is a config on the demo corpus with the given variant tables.
func experimentConfig(t *testing.T, variants string) string {
	t.Helper()
	return write(t, t.TempDir(), "experiment.toml", "set = "+quote(demoPath(t, "queries.jsonl"))+"\n[depth]\ncandidates = 5\ncontext = 3\n"+
		"[base.retriever]\ntype = \"builtin\"\ncorpus = "+quote(demoPath(t, "corpus"))+"\ntitle_boost = 2.0\n"+variants)
}

// demoPath is a file of the demo, absolute.
func demoPath(t *testing.T, name string) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("../../frozen-set", name))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestExperimentBadVariantKey: a variant table with a key recallgate does
// not know is refused with file:line:key, exit 2, before anything runs.
func TestExperimentBadVariantKey(t *testing.T) {
	cfg := experimentConfig(t, "[variant.small.retriever]\ntype = \"builtin\"\ncorpus = \"c\"\nchunk_wrds = 8\n")
	code, out, errs := rg(t, "experiment", "--config", cfg)
	want := cfg + ":12: variant.small.retriever.chunk_wrds: unknown key; did you mean chunk_words?"
	if code != 2 || out != "" || !strings.Contains(errs, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", code, errs, want)
	}
}

// TestExperimentVariantNamesReadAlike: variants "chunk8" and "chunk8 "
// (two rows that would read the same), "сhunk8" (Cyrillic с) or "chunk8⠀"
// (U+2800) beside "chunk8", and a variant "base" (under the baseline's
// base) are refused with file:line naming both, exit 2, before
// anything runs.
func TestExperimentVariantNamesReadAlike(t *testing.T) {
	v := func(name string) string {
		return "[variant." + name + ".retriever]\ntype = \"builtin\"\ncorpus = \"c\"\nchunk_words = 8\n"
	}
	for _, c := range []struct{ tables, want string }{
		{v("chunk8") + v(`"chunk8 "`), `:13: variant.chunk8 : the name "chunk8 " starts or ends with white space`},
		{v("chunk8") + v(`"CHUNK８"`), `:13: variant.CHUNK８: the name "CHUNK８" (CHUNK\uff18) reads as variant "chunk8" (line 9) in a report`},
		{v("base"), `:9: variant.base: the name "base" is the baseline's`},
		// Another script's look-alike (Cyrillic с, U+0441), a blank-drawn
		// character (the braille blank U+2800) after a third variant.
		{v("chunk8") + v("\"\u0441hunk8\""), ":13: variant.\u0441hunk8: the name \"\u0441hunk8\" (\\u0441hunk8) reads as variant \"chunk8\" (line 9) in a report"},
		{v("chunk8") + v("small") + v("\"chunk8\u2800\""), ":17: variant.chunk8\u2800: the name \"chunk8⟨U+2800⟩\" (chunk8\\u2800) reads as variant \"chunk8\" (line 9) in a report"},
	} {
		cfg := experimentConfig(t, c.tables)
		code, out, errs := rg(t, "experiment", "--config", cfg)
		if code != 2 || out != "" || !strings.Contains(errs, cfg+c.want) {
			t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", code, errs, cfg+c.want)
		}
	}
}

// TestExperimentFailingVariant: a variant whose retriever fails (a search
// service answering 500) is that variant's error, named, exit 3 (two such
// variants: both named); the
// other variant's rows are not printed as if the run had finished, and
// the JSON report asked for is the error report.
func TestExperimentFailingVariant(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "index offline", http.StatusInternalServerError)
	}))
	defer srv.Close()
	cfg := experimentConfig(t, "[variant.fine.retriever]\ntype = \"builtin\"\ncorpus = "+quote(demoPath(t, "corpus"))+"\n"+
		"[variant.remote.retriever]\ntype = \"http\"\nretries = 0\nurl = "+quote(srv.URL+"/search")+"\nbody = '{\"q\": {{query}}}'\nhits = \"hits\"\ndoc = \"doc\"\n"+
		"[variant.remote2.retriever]\ntype = \"http\"\nretries = 0\nurl = "+quote(srv.URL+"/other")+"\nbody = '{\"q\": {{query}}}'\nhits = \"hits\"\ndoc = \"doc\"\n")
	jsonOut := filepath.Join(t.TempDir(), "e.json")
	code, out, errs := rg(t, "experiment", "--config", cfg, "--format", "json", "--json-out", jsonOut)
	// Both failing variants are named (the one that failed first does not
	// hide the other), the one that ran is not.
	if code != 3 || out != "" || !strings.Contains(errs, `variant "remote"`) || !strings.Contains(errs, `variant "remote2"`) || strings.Contains(errs, `variant "fine"`) {
		t.Fatalf("exit %d\nstdout %s\nstderr %s\nwant exit 3 naming variants \"remote\" and \"remote2\" only", code, out, errs)
	}
	data, _ := os.ReadFile(jsonOut)
	var rep struct {
		Verdict  string `json:"verdict"`
		ExitCode int    `json:"exit_code"`
		Side     string `json:"side"`
		Message  string `json:"message"`
	}
	if err := json.Unmarshal(data, &rep); err != nil || rep.Verdict != "error" || rep.ExitCode != 3 || rep.Side != "head" || !strings.Contains(rep.Message, `variant "remote"`) {
		t.Errorf("the JSON report: %+v (%v), want the error report naming the variant", rep, err)
	}
	// It reads back as every error report does.
	if code, _, errs := rg(t, "report", "--in", jsonOut, "--format", "text"); code != 0 {
		t.Errorf("report --in the error report: exit %d\n%s", code, errs)
	}
}

// TestDocsExperimentGrid holds the worked grid of docs/experiment.md to
// what `recallgate experiment --config frozen-set/grid.toml --format
// markdown` prints, all but the latency column (this machine's).
func TestDocsExperimentGrid(t *testing.T) {
	doc, err := os.ReadFile("../../docs/experiment.md")
	if err != nil {
		t.Fatalf("docs/experiment.md holds the worked grid: %v", err)
	}
	code, out, errs := rg(t, "experiment", "--config", "../../frozen-set/grid.toml", "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if got, want := gridTable(out), gridTable(string(doc)); got == "" || got != want {
		t.Errorf("docs/experiment.md's grid differs from the command's:\n%s\nwant (the command's):\n%s", want, got)
	}
}

// TestDocsLimits holds the limits docs/experiment.md and docs/history.md
// state to the constants that make them: how many variants a file may
// hold, a name's length, how many retrievers run at once, the Markdown
// history's cap.
func TestDocsLimits(t *testing.T) {
	for page, wants := range map[string][]string{
		"experiment.md": {
			fmt.Sprintf("at most %d in one file\n(`config.MaxVariants = %d`", config.MaxVariants, config.MaxVariants),
			fmt.Sprintf("up to %d bytes\n(`config.MaxVariantName = %d`)", config.MaxVariantName, config.MaxVariantName),
			fmt.Sprintf("(`experiment.DefaultParallel = %d`", experiment.DefaultParallel),
			fmt.Sprintf("(`experiment.MaxIndexes = %d`)", experiment.MaxIndexes),
		},
		"history.md": {fmt.Sprintf("the Markdown is at most %d KiB (`history.MaxMarkdown`", history.MaxMarkdown>>10)},
	} {
		doc, err := os.ReadFile("../../docs/" + page)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range wants {
			if !strings.Contains(string(doc), want) {
				t.Errorf("docs/%s does not say %q", page, want)
			}
		}
	}
}

// gridTable is the first leaderboard table of a Markdown text, without
// its p95 column.
func gridTable(s string) string {
	var rows []string
	in := false
	for _, line := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(line, "| variant |"):
			in = true
		case in && !strings.HasPrefix(line, "|"):
			return strings.Join(rows, "\n")
		}
		if in {
			cells := strings.Split(line, "|") // "", 12 cells, ""
			if len(cells) == 14 {
				cells[11] = "…" // p95, this machine's
			}
			rows = append(rows, strings.Join(cells, "|"))
		}
	}
	return strings.Join(rows, "\n")
}

// TestExperimentBaseRef: with --base-ref the baseline runs in the base
// commit's tree. The change deletes a gold document from the corpus and
// ranks the same builtin table as a variant: against the base commit's
// tree it loses that document's queries; against this checkout's own
// baseline (no --base-ref) it is identical.
func TestExperimentBaseRef(t *testing.T) {
	f := newFixture(t, builtinConfig)
	f.put("rag/recallgate.toml", builtinConfig+"[variant.same.retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\ntitle_boost = 2.0\n")
	if err := os.Remove(filepath.Join(f.dir, "rag/corpus/security/audit-log.md")); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(f.dir, "rag/recallgate.toml")
	var reports [2]experimentJSON
	for i, extra := range [][]string{{"--base-ref", f.base}, nil} {
		out := filepath.Join(t.TempDir(), "e.json")
		code, _, errs := rg(t, append([]string{"experiment", "--config", cfg, "--format", "json", "--out", out}, extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", extra, code, errs)
		}
		data, _ := os.ReadFile(out)
		if err := json.Unmarshal(data, &reports[i]); err != nil {
			t.Fatal(err)
		}
	}
	withBase, own := reports[0].Variants[0], reports[1].Variants[0]
	if !slices.Contains(withBase.Regressed, "q26") || withBase.Delta.Recall >= 0 {
		t.Errorf("--base-ref: regressed %v, delta %v; want q26 (its gold document security/audit-log is gone) and a drop", withBase.Regressed, withBase.Delta.Recall)
	}
	if len(own.Regressed)+len(own.Improved) != 0 || own.Delta.Recall != 0 {
		t.Errorf("without --base-ref: regressed %v improved %v delta %v; want identical sides", own.Regressed, own.Improved, own.Delta.Recall)
	}
	if len(reports[0].Notes) == 0 || !strings.Contains(reports[0].Notes[0], "base side: the tree of commit "+f.base[:7]) || len(reports[1].Notes) != 0 {
		t.Errorf("notes %q / %q: the base commit's tree is named only with --base-ref", reports[0].Notes, reports[1].Notes)
	}
}
