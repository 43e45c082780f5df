package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
	"github.com/recallgate/recallgate/gate/sethealth"
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
		t.Fatalf("%v (run go test ./gate/report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./gate/report -update to accept):\n%s", name, got)
	}
}

// fixture builds a ten-query set and the base and head cards from hit lists
// ("" means the query's own gold doc at rank 1).
type fixture struct {
	set  *gate.Set
	base map[string][]string
	head map[string][]string
}

func newFixture(t *testing.T, texts map[string]string) *fixture {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		id := fmt.Sprintf("q%02d", i)
		text := texts[id]
		if text == "" {
			text = fmt.Sprintf("ordinary question %d", i)
		}
		tj, _ := json.Marshal(text)
		fmt.Fprintf(&b, `{"id":%q,"query":%s,"gold":{"doc/%02d":2,"doc/%02dx":1}}`+"\n", id, tj, i, i)
	}
	b.WriteString(`{"id":"u1","query":"what is the meaning of life","gold":{},"unanswerable":true}` + "\n")
	s, err := setfile.Parse(strings.NewReader(b.String()), "queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{set: s, base: map[string][]string{}, head: map[string][]string{}}
}

func (f *fixture) card(t *testing.T, over map[string][]string) *gate.Scorecard {
	t.Helper()
	sc := gate.NewScorer(f.set, gate.Depth{Candidates: 10, Context: 3})
	for _, q := range f.set.Queries {
		docs, ok := over[q.ID]
		if !ok {
			docs = []string{"doc/" + q.ID[1:], "doc/" + q.ID[1:] + "x"}
		}
		var hs []gate.Hit
		for _, d := range docs {
			hs = append(hs, gate.Hit{Doc: d})
		}
		if err := sc.Add(gate.Result{ID: q.ID, Hits: hs}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := sc.Card()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fixture) compare(t *testing.T) *gate.Comparison {
	t.Helper()
	c, err := gate.Compare(f.card(t, f.base), f.card(t, f.head), gate.DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func render(t *testing.T, c *gate.Comparison, f Format) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Compare(&buf, c, f); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestMarkdownGolden(t *testing.T) {
	cases := map[string]func(f *fixture){
		"all-pass": func(f *fixture) {},
		"one-regression": func(f *fixture) {
			f.head["q03"] = []string{"other/a", "other/b"}
		},
		"mixed-flips": func(f *fixture) {
			f.base["q02"] = []string{"other/a"}
			f.head["q01"] = []string{"doc/01", "other/b"}                // loses doc/01x
			f.head["q04"] = []string{"other/a", "doc/04x"}               // loses doc/04
			f.head["q05"] = []string{"doc/05x", "doc/05"}                // ranking only
			f.head["q06"] = []string{"x", "y", "z", "doc/06", "doc/06x"} // ranking only, out of context
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, nil)
			setup(f)
			md := render(t, f.compare(t), Markdown)
			golden(t, name+".golden.md", md)
			checkTables(t, string(md))
		})
	}
}

func TestMarkdownEscapesSetText(t *testing.T) {
	texts := map[string]string{
		"q03": "rotate `key` | <script>alert(1)</script> **bold** [x](http://evil)",
		"q04": "@octocat #12 </details> ![i](x)\nnext line ~~gone~~ _it_",
	}
	f := newFixture(t, texts)
	f.head["q03"] = []string{"nope"}
	f.head["q04"] = []string{"nope"}
	md := render(t, f.compare(t), Markdown)
	golden(t, "specials.golden.md", md)
	t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInert(t, string(md), texts["q03"], texts["q04"]) })
	for _, bad := range []string{"<script", "`key`", "| <", "@octocat", " #12", "</details> ", "![", "**bold**", "[x](", "\nnext line", "~~", " _it_"} {
		if bytes.Contains(md, []byte(bad)) {
			t.Errorf("markdown contains unescaped %q", bad)
		}
	}
	if !bytes.Contains(md, []byte("&lt;/details&gt;")) {
		t.Error("closing details tag in the query text was not escaped")
	}
	checkTables(t, string(md))
}

// checkTables fails when a Markdown table row has more or fewer cells than
// its header: escaped text must never add a column.
func checkTables(t *testing.T, md string) {
	t.Helper()
	header := -1
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			header = -1
			continue
		}
		n := strings.Count(line, "|") - strings.Count(line, `\|`) // \| is a pipe inside the cell
		if header < 0 {
			header = n
		} else if n != header {
			t.Errorf("row has %d pipes, header %d: %s", n, header, line)
		}
	}
}

func TestTextAndJSONGolden(t *testing.T) {
	f := newFixture(t, nil)
	f.base["q02"] = []string{"other/a"}
	f.head["q04"] = []string{"other/a", "doc/04x"}
	f.head["q05"] = []string{"doc/05x", "doc/05"}
	c := f.compare(t)
	golden(t, "mixed.golden.txt", render(t, c, Text))
	js := render(t, c, JSON)
	golden(t, "mixed.golden.json", js)
	var r CompareReport
	if err := json.Unmarshal(js, &r); err != nil {
		t.Fatal(err)
	}
	if r.Verdict != "pass" || strings.Join(r.Regressed, ",") != "q04" || strings.Join(r.Improved, ",") != "q02" || r.Queries[3].Change != "regressed" {
		t.Errorf("json verdict %s regressed %v improved %v", r.Verdict, r.Regressed, r.Improved)
	}
	if len(r.Metrics) != len(gate.Metrics()) || r.Metrics[0].Key != "recall_at_n" || r.Metrics[0].Depth != 10 || r.Metrics[0].Stage != "candidates" || r.Metrics[1].Stage != "context" {
		t.Errorf("metrics %+v", r.Metrics)
	}
}

func TestScoreFormatsGolden(t *testing.T) {
	f := newFixture(t, nil)
	card := f.card(t, map[string][]string{"q01": {"x"}, "q02": {"doc/02x", "x", "doc/02"}})
	for _, tt := range []struct {
		f    Format
		file string
	}{{Text, "score.golden.txt"}, {Markdown, "score.golden.md"}, {JSON, "score.golden.json"}} {
		var buf bytes.Buffer
		if err := Score(&buf, card, tt.f); err != nil {
			t.Fatal(err)
		}
		golden(t, tt.file, buf.Bytes())
	}
}

func TestEscapeMarkdown(t *testing.T) {
	tests := map[string]string{
		"plain text":  "plain text",
		"a|b":         "a&#124;b",
		"<b>":         "&lt;b&gt;",
		"@team":       "@\u200bteam",
		"x\r\ny":      "x  y",
		"\x1b[31mred": "&#91;31mred",
		"a & b":       "a &amp; b",
		"_under_ *s*": "&#95;under&#95; &#42;s&#42;",
	}
	for in, want := range tests {
		if got := EscapeMarkdown(in); got != want {
			t.Errorf("EscapeMarkdown(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"": Text, "text": Text, "JSON": JSON, "md": Markdown, "markdown": Markdown} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseFormat("pdf"); err == nil {
		t.Error("pdf: want an error")
	}
}

// TestReportRoundTrip: a JSON report read back renders exactly the Markdown
// and text of the comparison it came from (the two-workflow comment path).
func TestReportRoundTrip(t *testing.T) {
	f := newFixture(t, map[string]string{"q03": "a | b @team"})
	f.head["q03"] = []string{"nope"}
	f.head["q05"] = []string{"doc/05x", "doc/05"}
	c := f.compare(t)
	r, err := ReadCompareReport(bytes.NewReader(render(t, c, JSON)), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []Format{Markdown, Text, JSON} {
		var buf bytes.Buffer
		if err := WriteCompareReport(&buf, r, format); err != nil {
			t.Fatal(err)
		}
		if want := render(t, c, format); !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s differs after a JSON round trip:\n%s\n---\n%s", format, buf.Bytes(), want)
		}
	}
	if _, err := ReadCompareReport(strings.NewReader(`{"tool":"other"}`), "x.json"); err == nil {
		t.Error("foreign JSON: want an error")
	}
}

// TestDiagnosticsGolden covers the statistics line, attribution (retrieval
// miss, ranking miss, not in corpus), segments, a waiver, a synthetic and an
// unstable query, evidence coverage, health and fingerprints.
func TestDiagnosticsGolden(t *testing.T) {
	set, err := setfile.Parse(strings.NewReader(`{"id":"k1","query":"TP-429","gold":{"errors/429":3,"limits":1},"segments":["known-failure","product-code"],"source":"log","evidence":["Retry-After"]}
{"id":"k2","query":"dlq redrive","gold":{"queues/dlq":2},"segments":["known-failure"],"source":"ticket"}
{"id":"n1","query":"how do I rotate an api key?","gold":{"security/keys":3,"security/tokens":1},"source":"ticket","evidence":["revoke the old one","Settings → Keys"]}
{"id":"n2","query":"what is the maximum message size","gold":{"producers/send":1,"deleted/doc":1},"source":"log"}
{"id":"n3","query":"where are invoices","gold":{"billing/invoices":1},"source":"log"}
{"id":"s1","query":"generated question about retention","gold":{"queues/retention":1},"source":"synthetic"}
`), "queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	d := gate.Depth{Candidates: 4, Context: 2}
	score := func(runs map[string][]gate.Hit) *gate.Scorecard {
		sc := gate.NewScorer(set, d)
		for id, hs := range runs {
			if err := sc.Add(gate.Result{ID: id, Hits: hs}); err != nil {
				t.Fatal(err)
			}
		}
		c, err := sc.Card()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	h := func(docs ...string) []gate.Hit {
		var out []gate.Hit
		for _, doc := range docs {
			out = append(out, gate.Hit{Doc: doc})
		}
		return out
	}
	base := score(map[string][]gate.Hit{
		"k1": {{Doc: "errors/429", Text: "TP-429: wait as Retry-After says."}, {Doc: "limits"}},
		"k2": h("queues/dlq"),
		"n1": {{Doc: "security/keys", Text: "Under Settings → Keys create a key, deploy it, then revoke the old one."}, {Doc: "security/tokens"}},
		"n2": h("producers/send"),
		"n3": h("billing/invoices"),
		"s1": h("queues/retention"),
	})
	head := score(map[string][]gate.Hit{
		"k1": {{Doc: "limits", Text: "Rate limits per key."}, {Doc: "x"}, {Doc: "errors/429", Text: "TP-429 means throttled."}},
		"k2": h("x", "y", "z", "w"),
		"n1": {{Doc: "security/keys", Text: "Create keys under Settings → Keys."}, {Doc: "security/tokens"}},
		"n2": h("x"),
		"n3": h("x", "billing/invoices"),
		"s1": h("x"),
	})
	corpus := map[string]bool{"errors/429": true, "limits": true, "queues/dlq": true, "security/keys": true, "security/tokens": true, "producers/send": true, "billing/invoices": true, "queues/retention": true}
	c, err := gate.CompareWith(base, head, gate.Policy{
		Thresholds: gate.DefaultThresholds(),
		Corpus:     corpus,
		Waivers:    []gate.Waiver{{Query: "n2", Reason: "send docs are being rewritten", Expires: time.Date(2027, 1, 31, 0, 0, 0, 0, time.UTC)}},
		Unstable:   map[string]bool{"n3": true},
		NoiseFloor: 0.2,
	})
	if err != nil {
		t.Fatal(err)
	}
	c.Health = sethealth.Check(set, sethealth.Options{Corpus: corpus})
	c.Fingerprints = [][2]string{{"set", set.Fingerprint}, {"head_retriever", "sha256:0123abcd"}}
	md := render(t, c, Markdown)
	golden(t, "diagnostics.golden.md", md)
	golden(t, "diagnostics.golden.txt", render(t, c, Text))
	golden(t, "diagnostics.golden.xml", render(t, c, JUnit))
	golden(t, "diagnostics.golden.benchmark.json", render(t, c, Benchmark))
	page := render(t, c, HTML)
	golden(t, "diagnostics.golden.html", page)
	if bytes.Contains(page, []byte("<script>alert")) {
		t.Error("unescaped script in the page")
	}
	checkTables(t, string(md))
	for _, want := range []string{"ranking miss", "retrieval miss", "not in corpus", "Segments:", "Waived (1)", "Synthetic queries", "Unstable queries", "Context: what the model read — 2 facts lost, 0 gained", "context miss", "Eval-set health", "p = "} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("diagnostics report lacks %q", want)
		}
	}
}

func TestJUnitAndBenchmark(t *testing.T) {
	f := newFixture(t, map[string]string{"q03": "a <b> & \"c\""})
	f.head["q03"] = []string{"nope"}
	c := f.compare(t)
	x := render(t, c, JUnit)
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(x, &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, x)
	}
	// 10 queries + the refusal case (skipped: no signal) + the verdict
	// case; q03 and the verdict fail.
	if doc.Tests != 12 || doc.Failures != 2 || doc.Suites[0].Cases[2].Failure == nil || doc.Suites[0].Cases[2].Name != "q03" {
		t.Errorf("junit %+v", doc)
	}
	var bench []BenchmarkEntry
	if err := json.Unmarshal(render(t, c, Benchmark), &bench); err != nil || len(bench) != len(gate.Metrics()) || bench[0].Name != "recall@10" || bench[0].Value != 0.9 {
		t.Errorf("benchmark %+v %v", bench, err)
	}
}

// TestHTMLEscapesData: data reaches the page only inside the JSON script,
// with < escaped, so no query text can open a tag or end the script.
func TestHTMLEscapesData(t *testing.T) {
	f := newFixture(t, map[string]string{"q03": "</script><img src=x onerror=alert(1)>"})
	f.head["q03"] = []string{"nope"}
	page := string(render(t, f.compare(t), HTML))
	if strings.Contains(page, "<img src=x") || strings.Count(page, "</script>") != 2 {
		t.Errorf("query text escaped the JSON island:\n%s", page)
	}
	if strings.Contains(page, "src=\"http") || strings.Contains(page, "href=\"http") {
		t.Error("the page loads an external asset")
	}
}

// TestInconclusiveAndNettedCounts: an inconclusive run labels its reasons
// by what they are (never "fail:") and says it did not fail; a zero-recall
// count that nets out (one query newly at zero, another recovered) still
// shows both movements, in every format.
func TestInconclusiveAndNettedCounts(t *testing.T) {
	f := newFixture(t, nil)
	f.base["q02"] = []string{"other/a"}           // zero on base, recovered on head
	f.head["q03"] = []string{"other/b"}           // newly zero on head
	f.head["q04"] = []string{"doc/04", "other/c"} // loses half
	th := gate.DefaultThresholds()
	th.MaxNewMisses, th.RequireSignificance = 1, true
	c, err := gate.Compare(f.card(t, f.base), f.card(t, f.head), th)
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != gate.Inconclusive {
		t.Fatalf("verdict %s, want inconclusive (%v)", c.Verdict, c.Reasons)
	}
	md := render(t, c, Markdown)
	txt := render(t, c, Text)
	golden(t, "inconclusive.golden.md", md)
	golden(t, "inconclusive.golden.txt", txt)
	page := render(t, c, HTML)
	for format, out := range map[string][]byte{"markdown": md, "text": txt, "html": page} {
		s := html.UnescapeString(string(out))
		if strings.Contains(s, "fail:") {
			t.Errorf("%s: an inconclusive run prints a reason as fail:\n%s", format, s)
		}
		if !strings.Contains(strings.ToLower(s), "not failed") || !strings.Contains(s, "note: the recall@10 drop is not significant") && !strings.Contains(s, "note:** the recall@10 drop is not significant") {
			t.Errorf("%s: headline or note missing:\n%s", format, s)
		}
		if !strings.Contains(s, "±0 (+1 new: q03; -1 recovered: q02)") && !strings.Contains(s, "±0 (+1 new: `q03`; -1 recovered: `q02`)") {
			t.Errorf("%s: the zero-recall row hides its movements:\n%s", format, s)
		}
	}
	checkTables(t, string(md))
}

// TestNoNegativeZero: an identical comparison renders no "-0" in any
// format (a drop of -0 read as a tiny gain, and a JSON -0 surprised tools).
func TestNoNegativeZero(t *testing.T) {
	f := newFixture(t, nil)
	c := f.compare(t)
	negZero := regexp.MustCompile(`-0(\.0+)?([^0-9.]|$)`)
	for _, format := range Formats {
		out := reportData(render(t, c, format), format)
		if m := negZero.Find(out); m != nil {
			t.Errorf("%s holds a negative zero %q:\n%s", format, m, out)
		}
	}
}

// TestGoldSwapRegressedEverywhere: q03's base found its grade-2 gold
// document, its head the grade-1 one instead; recall@N is flat, but the
// query lost its best document, so every format lists it as regressed and
// names what it lost and gained.
func TestGoldSwapRegressedEverywhere(t *testing.T) {
	f := newFixture(t, nil)
	f.base["q03"] = []string{"doc/03", "other"}
	f.head["q03"] = []string{"doc/03x", "other"}
	c := f.compare(t)
	if len(c.Regressed) != 1 || c.Regressed[0] != "q03" || len(c.RankingOnly) != 0 {
		t.Fatalf("regressed %v ranking-only %v", c.Regressed, c.RankingOnly)
	}
	for _, format := range Formats {
		if format == Benchmark {
			continue // means only, no queries
		}
		out := string(reportData(render(t, c, format), format))
		lost, gained := "doc/03", "doc/03x"
		if format == Markdown {
			lost, gained = EscapeMarkdown(lost), EscapeMarkdown(gained)
		}
		if !strings.Contains(out, "q03") || !strings.Contains(out, lost) {
			t.Errorf("%s does not name q03 and its lost %s:\n%s", format, lost, out)
		}
		if format != JUnit && !strings.Contains(out, gained) {
			t.Errorf("%s does not name q03's gained %s:\n%s", format, gained, out)
		}
		if strings.Contains(out, "anking only") || strings.Contains(out, `"ranking_only":true`) {
			t.Errorf("%s lists a ranking-only query:\n%s", format, out)
		}
	}
}

// reportData is what a report says: for HTML the JSON data it embeds (the
// page's script, which handles -0 itself, is the same for every report).
func reportData(out []byte, f Format) []byte {
	if f != HTML {
		return out
	}
	_, rest, _ := bytes.Cut(out, []byte(`<script id="data" type="application/json">`))
	data, _, _ := bytes.Cut(rest, []byte("</script>"))
	return data
}

// TestEmptyAnswersNamed: three queries the head answered with no hits at
// all (a retriever that swallowed its errors and returned []) are named as
// empty answers in every format, apart from ordinary misses.
func TestEmptyAnswersNamed(t *testing.T) {
	f := newFixture(t, nil)
	for _, id := range []string{"q02", "q05", "q09"} {
		f.head[id] = []string{}
	}
	f.head["q07"] = []string{"unrelated"} // a plain miss: hits, none relevant
	c := f.compare(t)
	for _, format := range Formats {
		if format == Benchmark {
			continue
		}
		out := string(reportData(render(t, c, format), format))
		switch format {
		case JSON, HTML:
			if !strings.Contains(out, `"empty_answers":{"base":[],"head":["q02","q05","q09"]}`) && !strings.Contains(out, "\"empty_answers\": {\n    \"base\": [],\n    \"head\": [\n      \"q02\",\n      \"q05\",\n      \"q09\"\n    ]\n  }") {
				t.Errorf("%s lacks the empty answers:\n%s", format, out)
			}
		case JUnit:
			if strings.Count(out, "(empty answer: the head returned no hits at all") != 3 || !strings.Contains(out, `name="empty_answers_head" value="q02 q05 q09"`) {
				t.Errorf("junit does not mark the three:\n%s", out)
			}
		default:
			_, line, _ := strings.Cut(out, "empty answer")
			line, _, _ = strings.Cut(line, "\n")
			ids := ": q02, q05, q09"
			if format == Markdown {
				ids = ": `q02`, `q05`, `q09`"
			}
			if !strings.Contains(line, "the head returned no hits at all for 3 queries where the base had hits") || !strings.HasSuffix(line, ids) {
				t.Errorf("%s does not name the three empty answers (and only them):\n%s", format, out)
			}
		}
	}
}

// TestGateLabel: the title names the gate by its name, else the folder of
// a recallgate.toml, else the config path; the root recallgate.toml (and
// no gate) keep the plain title.
func TestGateLabel(t *testing.T) {
	for _, c := range []struct {
		g    *GateInfo
		want string
	}{
		{nil, ""},
		{&GateInfo{Config: "recallgate.toml"}, ""},
		{&GateInfo{Config: "search/recallgate.toml"}, "search"},
		{&GateInfo{Config: "svc/faq/gate.toml"}, "svc/faq/gate.toml"},
		{&GateInfo{Config: "search/recallgate.toml", Name: "search nightly"}, "search nightly"},
	} {
		if got := c.g.Label(); got != c.want {
			t.Errorf("%+v: label %q, want %q", c.g, got, c.want)
		}
	}
	r := &CompareReport{Gate: &GateInfo{Name: "faq"}}
	if g := r.SetGate("faq/recallgate.toml", ""); g.Config != "faq/recallgate.toml" || g.Name != "faq" || r.Gate.Config != g.Config {
		t.Errorf("SetGate: %+v", g)
	}
}

// TestLostNamesOnlyWhatTheBaseFound: q04 has two gold documents; its base
// found one (doc/04), its head neither. The lost list and the attribution
// name that one, never doc/04x, which the base did not find either (a
// report listed every unfound gold document as lost, "rank — → —"); only
// the warning that no side ever returned it names it.
func TestLostNamesOnlyWhatTheBaseFound(t *testing.T) {
	f := newFixture(t, nil)
	f.base["q04"] = []string{"doc/04", "other"}
	f.head["q04"] = []string{"other"}
	c := f.compare(t)
	p := c.Query("q04")
	if strings.Join(p.Lost, ",") != "doc/04" || len(p.Gained) != 0 {
		t.Fatalf("lost %v gained %v", p.Lost, p.Gained)
	}
	if len(p.Moves) != 1 || p.Moves[0].Doc != "doc/04" {
		t.Errorf("moves %+v", p.Moves)
	}
	for _, format := range []Format{Text, JUnit} {
		out, warnings, _ := strings.Cut(string(render(t, c, format)), "\nwarnings\n")
		if !strings.Contains(warnings, "never retrieved: 1 gold document that neither side returned for any query, at any depth: doc/04x — is it indexed?") && format == Text {
			t.Errorf("text does not warn, once, that doc/04x was never retrieved:\n%s", warnings)
		}
		if strings.Contains(out, "doc/04x") {
			t.Errorf("%s names doc/04x, which the base never found:\n%s", format, out)
		}
	}
	// Markdown lists each zero-recall query's gold apart; its flip row
	// names only the lost document.
	md := string(render(t, c, Markdown))
	_, row, _ := strings.Cut(md, "| `q04` | ordinary question 4 | 0.500")
	row, _, _ = strings.Cut(row, "\n")
	if !strings.Contains(row, "`doc/04`") || strings.Contains(row, "doc/04x") {
		t.Errorf("markdown's row for q04: %q", row)
	}
}

// TestNeverRetrievedReported: with the corpus unknown, the gold document
// no side returned (doc/04x) is listed once in the JSON report (a key the
// strict reader reads back), and warned of in text and Markdown (its id
// a code span) with what to do; the verdict is the same as without it.
func TestNeverRetrievedReported(t *testing.T) {
	f := newFixture(t, nil)
	f.base["q04"] = []string{"doc/04", "other"}
	f.head["q04"] = []string{"other"}
	c := f.compare(t)
	js := render(t, c, JSON)
	if !strings.Contains(string(js), "\"never_retrieved\": [\n    \"doc/04x\"\n  ]") {
		t.Errorf("JSON lacks never_retrieved: [doc/04x]:\n%s", js)
	}
	r, err := ReadCompareReport(bytes.NewReader(js), "report.json")
	if err != nil || strings.Join(r.NeverRetrieved, ",") != "doc/04x" || r.Verdict != string(gate.Fail) {
		t.Fatalf("read back: %v, never retrieved %v, verdict %v", err, r.NeverRetrieved, r.Verdict)
	}
	const what = " that neither side returned for any query, at any depth: "
	const todo = " — is it indexed? set corpus to check (a warning: the verdict does not change)"
	if md := string(render(t, c, Markdown)); !strings.Contains(md, "<summary>⚠️ 1 warning</summary>\n\n- never retrieved: 1 gold document"+what+"`doc/04x`"+todo+"\n") {
		t.Errorf("markdown lacks the warning:\n%s", md)
	}
	if txt := string(render(t, c, Text)); !strings.Contains(txt, "\nwarnings\n  never retrieved: 1 gold document"+what+"doc/04x"+todo+"\n") {
		t.Errorf("text lacks the warning:\n%s", txt)
	}
	if page := string(render(t, c, HTML)); !strings.Contains(page, "never retrieved: 1 gold document") {
		t.Errorf("HTML lacks the warning")
	}
}
