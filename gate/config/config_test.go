package config

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/childenv"
)

func TestParseFull(t *testing.T) {
	c, err := Parse([]byte(`
set = "queries.jsonl"
[depth]
candidates = 100
context = 8
[gate]
max_recall_drop = 0.05
max_new_misses = 2
[base.retriever]
type = "file"
path = "runs/base.jsonl"
[head.retriever]
type = "file"
path = "/abs/head.jsonl"
`), filepath.Join("cfg", "recallgate.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Set != filepath.Join("cfg", "queries.jsonl") || c.Depth != (gate.Depth{Candidates: 100, Context: 8}) {
		t.Errorf("set %s depth %+v", c.Set, c.Depth)
	}
	want := gate.DefaultThresholds()
	want.MaxRecallDrop, want.MaxNewMisses = 0.05, 2
	if !reflect.DeepEqual(c.Thresholds, want) {
		t.Errorf("thresholds %+v", c.Thresholds)
	}
	if c.Base.Path != filepath.Join("cfg", "runs", "base.jsonl") || c.Head.Path != "/abs/head.jsonl" {
		t.Errorf("base %+v head %+v", c.Base, c.Head)
	}
}

func TestParseDefaultsAndSingleRetriever(t *testing.T) {
	c, err := Parse([]byte("[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n"), "dir/r.toml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Depth != gate.DefaultDepth() || !reflect.DeepEqual(c.Thresholds, gate.DefaultThresholds()) || c.Set != "" {
		t.Errorf("defaults: %+v", c)
	}
	if c.Base != c.Head || c.Base.Path != filepath.Join("dir", "run.jsonl") {
		t.Errorf("single retriever: base %+v head %+v", c.Base, c.Head)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"unknown key", "[gate]\nmax_recal_drop = 0.1\n", "r.toml:2: gate.max_recal_drop: unknown key; did you mean max_recall_drop?"},
		{"unknown retriever key", "set = \"s\"\n\n[base.retriever]\ntype = \"builtin\"\ncorpus = \"c\"\nchunk_word = 12\n[head.retriever]\ntype = \"file\"\npath = \"p\"\n", "r.toml:6: base.retriever.chunk_word: unknown key; did you mean chunk_words?"},
		{"unknown table", "[gaet]\nrepeats = 2\n", "r.toml:1: gaet: unknown key; did you mean gate?"},
		{"unknown top key, no near one", "# x\nfrobnicate = 1\n", "r.toml:2: frobnicate: unknown key (this table takes set, queries, depth"},
		{"several unknown", "[depth]\ncandidate = 5\ncontxt = 3\n", "r.toml:2: depth.candidate: unknown key; did you mean candidates?; also unknown: depth.contxt"},
		{"waiver key", "[[waiver]]\nquery = \"q1\"\nreasn = \"x\"\n", "r.toml:3: waiver.reasn: unknown key; did you mean reason?"},
		{"syntax", "[gate]\nmax_recall_drop = = 1\n", "r.toml:2:"},
		{"wrong type", "[depth]\ncandidates = \"fifty\"\n", `r.toml:2: depth.candidates: must be a whole number (no quotes), e.g. 50; got the string "fifty"`},
		{"command as a string", "set = \"s\"\n[retriever]\ntype = \"command\"\ncommand = \"python3 r.py\"\n", `r.toml:4: retriever.command: must be an array of strings, e.g. ["python3", "retriever.py"]; got the string "python3 r.py"`},
		{"command of numbers", "[base.retriever]\ntype = \"command\"\n\ncommand = [1, 2]\n", `r.toml:4: base.retriever.command: must be an array of strings, e.g. ["python3", "retriever.py"]; got the array [1, 2]`},
		{"drop as a string", "[gate]\n# the limit\nmax_recall_drop = \"0.02\"\n", `r.toml:3: gate.max_recall_drop: must be a number (no quotes), e.g. 0.02; got the string "0.02"`},
		{"set as a number", "set = 3\n", `r.toml:1: set: must be a string in quotes, e.g. "queries.jsonl"; got the number 3`},
		{"flag as a string", "[gate]\nrequire_significance = \"yes\"\n", `r.toml:2: gate.require_significance: must be true or false (no quotes); got the string "yes"`},
		{"retriever as a value", "retriever = 3\n", `r.toml:1: retriever: must be a table; got the number 3`},
		{"timeout as a number", "[retriever]\ntype = \"http\"\nurl = \"http://127.0.0.1:1/\"\ntimeout = 30\n", `r.toml:4: retriever.timeout: not a duration like "10s"`},
		{"bad depth", "[depth]\ncontext = 0\n", "depth: context depth must be at least 1"},
		{"negative drop", "[gate]\nmax_recall_drop = -0.1\n", "r.toml:2: gate.max_recall_drop: must be within 0–1"},
		{"ndcg over 1", "# x\n[gate]\nmax_ndcg_drop = 1.5\n", "r.toml:3: gate.max_ndcg_drop: must be within 0–1, got 1.5"},
		{"negative precision", "[gate]\nmax_precision_drop = -0.01\n", "r.toml:2: gate.max_precision_drop: must be within 0–1"},
		{"negative below", "[gate]\nrepeats = 1\nmax_below_increase = -1\n", "r.toml:3: gate.max_below_increase: must not be negative"},
		{"floor over 1", "[gate]\nmin_recall = 2\n", "r.toml:2: gate.min_recall: must be within 0–1"},
		{"min_flipped 0", "[gate]\nmin_flipped = 0\n", "r.toml:2: gate.min_flipped: must be at least 1"},
		{"baseline drop without a baseline", "[gate]\nmax_recall_drop = 0.1\nmax_baseline_drop = 0.15\n", "r.toml:3: gate.max_baseline_drop: needs the reviewed baseline run to hold the head against: a top-level baseline ="},
		{"baseline drop over 1", "baseline = \"b.jsonl\"\n[gate]\nmax_baseline_drop = 1.5\n", "r.toml:3: gate.max_baseline_drop: must be within 0–1, got 1.5"},
		{"baseline under [gate]", "[gate]\nbaseline = \"b.jsonl\"\n", "r.toml:2: gate.baseline: unknown key"},
		{"latency ratio 0", "[gate]\nmax_latency_ratio = 0.0\n", "r.toml:2: gate.max_latency_ratio: must be a ratio above 0"},
		{"segment limit", "[gate]\n[[gate.segment]]\nname = \"a\"\nmax_recall_drop = 0.1\n[[gate.segment]]\nname = \"keyword\"\nmax_ndcg_drop = 7\n", "r.toml:7: gate.segment[1].max_ndcg_drop: must be within 0–1, got 7"},
		{"segment without rule", "[[gate.segment]]\nname = \"keyword\"\n", "r.toml:1: gate.segment[0]: segment \"keyword\" sets no rule"},
		{"segment without name", "[[gate.segment]]\nmin_ndcg = 0.5\n", "r.toml:1: gate.segment[0].name: required"},
		{"segment unknown metric", "[[gate.segment]]\nname = \"keyword\"\nmax_mrr_drop = 0.1\n", "r.toml:3: gate.segment.max_mrr_drop: unknown key"},
		{"waiver unknown rule", "[[waiver]]\nquery = \"q1\"\nreason = \"x\"\nexpires = \"2027-01-01\"\nrules = [\"max_mrr_drop\"]\n", "r.toml:5: waiver[0].rules: unknown rule \"max_mrr_drop\""},
		{"both forms", "[retriever]\ntype=\"file\"\n[base.retriever]\ntype=\"file\"\n[head.retriever]\ntype=\"file\"\n", "not both"},
		{"half pair", "[base.retriever]\ntype=\"file\"\n", "one is missing"},
		{"no type", "[retriever]\npath=\"x\"\n", "retriever.type: required"},
		{"start without port", "[retriever]\ntype = \"http\"\ndoc = \"id\"\nurl = \"http://127.0.0.1:{port}/s\"\nstart = [\"python3\", \"service.py\"]\n", `r.toml:5: base.retriever.start: must pass the service its port: write {port} where it takes it`},
		{"start, url elsewhere", "[retriever]\ntype = \"http\"\ndoc = \"id\"\nurl = \"http://search.example:{port}/s\"\nstart = [\"python3\", \"s.py\", \"{port}\"]\n", `r.toml:4: base.retriever.url: must reach the started service: http://127.0.0.1:{port}/… (a loopback host, the port {port}), got "http://search.example:{port}/s"`},
		{"start, fixed port", "[retriever]\ntype = \"http\"\ndoc = \"id\"\nurl = \"http://127.0.0.1:8080/s\"\nstart = [\"python3\", \"s.py\", \"{port}\"]\n", `r.toml:4: base.retriever.url: must reach the started service`},
		{"start empty", "[retriever]\ntype = \"http\"\ndoc = \"id\"\nurl = \"http://127.0.0.1:{port}/s\"\nstart = []\n", `r.toml:5: base.retriever.start: is empty`},
		{"start on a command", "[retriever]\ntype = \"command\"\ncommand = [\"r\"]\nstart = [\"s\", \"{port}\"]\n", `r.toml:4: base.retriever.start: only an http retriever starts a service (a command retriever takes no start)`},
		{"ready not a path", "[retriever]\ntype = \"http\"\ndoc = \"id\"\nurl = \"http://127.0.0.1:{port}/s\"\nstart = [\"s\", \"{port}\"]\nready = \"health\"\n", `r.toml:6: base.retriever.ready: is a path on the service, like "/health", got "health"`},
		{"ready without start", "[retriever]\ntype = \"http\"\ndoc = \"id\"\nurl = \"http://127.0.0.1:1/s\"\nready = \"/health\"\n", `r.toml:5: base.retriever.ready: is the path polled until a started service answers: set start too`},
		{"start_timeout zero", "[retriever]\ntype = \"http\"\ndoc = \"id\"\nurl = \"http://127.0.0.1:{port}/s\"\nstart = [\"s\", \"{port}\"]\nstart_timeout = \"0s\"\n", `r.toml:6: base.retriever.start_timeout: must be positive`},
		{"start_timeout a number", "[retriever]\ntype = \"http\"\ndoc = \"id\"\nurl = \"http://127.0.0.1:{port}/s\"\nstart = [\"s\", \"{port}\"]\nstart_timeout = 60\n", `r.toml:6: retriever.start_timeout: not a duration like "10s"`},
		{"port without start", "[base.retriever]\ntype = \"http\"\ndoc = \"id\"\nurl = \"http://127.0.0.1:{port}/s\"\n[head.retriever]\ntype = \"file\"\npath = \"p\"\n", `r.toml:4: base.retriever.url: holds {port}, the port of a service recallgate starts: set start`},
		{"variant start", "[base.retriever]\ntype = \"file\"\npath = \"p\"\n[variant.fast.retriever]\ntype = \"http\"\ndoc = \"id\"\nurl = \"http://127.0.0.1:{port}/s\"\nstart = [\"s\"]\n", `r.toml:8: variant.fast.retriever.start: must pass the service its port`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in), "r.toml")
			if err == nil || !gate.IsInput(err) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an input error containing %q", err, tt.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"gate", "gate", 0}, {"gaet", "gate", 1}, {"max_recal_drop", "max_recall_drop", 1},
		{"chunk_word", "chunk_words", 1}, {"kitten", "sitting", 3}, {"", "abc", 3}, {"ca", "abc", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestLabelTable: named grades and the guideline reach the config; a
// wrong number of names or an empty one is an error at its line.
func TestLabelTable(t *testing.T) {
	c, err := Parse([]byte("set = \"q.jsonl\"\n[label]\ngrades = [\"off\", \"mentions\", \"partly\", \"answers\"]\nguideline = \"  3 = answers alone  \"\n"), "r.toml")
	if err != nil || len(c.GradeNames) != 4 || c.GradeNames[3] != "answers" || c.Guideline != "3 = answers alone" {
		t.Fatalf("%+v %v", c, err)
	}
	for body, want := range map[string]string{
		"set = \"q.jsonl\"\n[label]\ngrades = [\"a\", \"b\", \"c\"]\n": "r.toml:3: label.grades: name every grade",
		"set = \"q.jsonl\"\n[label]\ngrades = [\"a\", \" \"]\n":        "r.toml:3: label.grades[1]",
	} {
		if _, err := Parse([]byte(body), "r.toml"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", body, err, want)
		}
	}
}

// TestEnvRefusesRunnerFiles: a retriever handed the path of one of the
// runner's command files could write BASH_ENV or PATH for every later
// step; `env` refuses each (and the credentials), naming file, line and key.
func TestEnvRefusesRunnerFiles(t *testing.T) {
	for _, name := range append(append([]string{}, childenv.RunnerFiles...), "github_env", "GITHUB_TOKEN") {
		for _, tt := range []struct{ in, want string }{
			{"set = \"s\"\n[retriever]\ntype = \"command\"\ncommand = [\"python3\", \"r.py\"]\nenv = [\"EMBEDDER_KEY\", %q]\n", "r.toml:5: base.retriever.env: " + name + " "},
			{"[base.retriever]\ntype = \"file\"\npath = \"p\"\n[head.retriever]\ntype = \"command\"\ncommand = [\"r\"]\n\nenv = [%q]\n", "r.toml:8: head.retriever.env: " + name + " "},
		} {
			_, err := Parse([]byte(fmt.Sprintf(tt.in, name)), "r.toml")
			if err == nil || !gate.IsInput(err) || !strings.HasPrefix(err.Error(), tt.want) || !strings.Contains(err.Error(), "never given to a retriever") {
				t.Errorf("env = [%q]: got %v, want an input error starting %q", name, err, tt.want)
			}
		}
		if env := childenv.ChildEnv(func(string) string { return "/runner/file" }, []string{name}); strings.Contains(strings.Join(env, "\n"), name+"=") || strings.Contains(strings.Join(env, "\n"), strings.ToUpper(name)+"=") {
			t.Errorf("ChildEnv passes %s: %v", name, env)
		}
	}
}

// TestReportName: [report] name names the gate (its comment, title and
// report file); a name the marker or a file name cannot carry is refused
// on its line.
func TestReportName(t *testing.T) {
	c, err := Parse([]byte("[report]\nname = \"search\"\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n"), "search/recallgate.toml")
	if err != nil || c.Name != "search" {
		t.Fatalf("name %q err %v", c.Name, err)
	}
	_, err = Parse([]byte("[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n[report]\nname = \"a -->b\"\n"), "r.toml")
	if err == nil || !strings.Contains(err.Error(), "r.toml:5: report.name") {
		t.Errorf("got %v", err)
	}
}

// TestContextPaths: an http retriever takes the context and abstain paths;
// another kind, or a passage path without context, is an error naming the
// file, line and key.
func TestContextPaths(t *testing.T) {
	c, err := Parse([]byte("[retriever]\ntype = \"http\"\nurl = \"http://127.0.0.1:9/s\"\ndoc = \"doc\"\ncontext = \"context\"\ncontext_doc = \"meta.doc\"\nabstain = \"answer.abstained\"\n"), "recallgate.toml")
	if err != nil || c.Base.Context != "context" || c.Base.ContextDoc != "meta.doc" || c.Base.Abstain != "answer.abstained" {
		t.Fatalf("%+v %v", c, err)
	}
	for cfg, want := range map[string]string{
		"[retriever]\ntype = \"command\"\ncommand = [\"x\"]\nabstain = \"a\"\n":                               "recallgate.toml:4: base.retriever.abstain: only an http retriever",
		"[retriever]\ntype = \"http\"\nurl = \"http://127.0.0.1:9/s\"\ndoc = \"doc\"\ncontext_text = \"t\"\n": "recallgate.toml:5: base.retriever.context_text: a path inside the context",
	} {
		_, err := Parse([]byte(cfg), "recallgate.toml")
		if err == nil || !gate.IsInput(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", cfg, err, want)
		}
	}
}

// TestUnjudgedKey: [gate] unjudged takes the three readings; the default
// written out is the default (the same policy fingerprint); anything else
// is refused naming the file, line and key.
func TestUnjudgedKey(t *testing.T) {
	for v, want := range map[string]string{`"nonrelevant"`: "", `"condensed"`: gate.UnjudgedCondensed, `"range"`: gate.UnjudgedRangeMode} {
		c, err := Parse([]byte("[gate]\nunjudged = "+v+"\n"), "r.toml")
		if err != nil || c.Thresholds.Unjudged != want {
			t.Errorf("unjudged = %s: %q, %v; want %q", v, c.Thresholds.Unjudged, err, want)
		}
	}
	plain, _ := Parse([]byte("[gate]\n"), "r.toml")
	spelled, _ := Parse([]byte("[gate]\nunjudged = \"nonrelevant\"\n"), "r.toml")
	if a, b := gate.PolicyFingerprint(plain.Thresholds, plain.Depth), gate.PolicyFingerprint(spelled.Thresholds, spelled.Depth); a != b {
		t.Errorf("the default spelled out changes the policy fingerprint: %s, %s", a, b)
	}
	_, err := Parse([]byte("# x\n[gate]\nunjudged = \"optimistic\"\n"), "r.toml")
	if err == nil || err.Error() != `r.toml:3: gate.unjudged: must be "nonrelevant" (the default), "condensed" or "range", got "optimistic"` {
		t.Errorf("unjudged = optimistic: %v", err)
	}
}
