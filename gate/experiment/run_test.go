package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/pipeline"
)

// demoConfig is a config on the demo set and corpus (absolute paths) with
// the builtin baseline of frozen-set/recallgate.toml and the given variants.
func demoConfig(t *testing.T, variants string) (*config.Config, *gate.Set) {
	t.Helper()
	demo, err := filepath.Abs("../../frozen-set")
	if err != nil {
		t.Fatal(err)
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	text := "set = " + q(filepath.Join(demo, "queries.jsonl")) + "\ncorpus = " + q(filepath.Join(demo, "corpus")) + "\n[depth]\ncandidates = 5\ncontext = 3\n" +
		"[base.retriever]\ntype = \"builtin\"\ncorpus = " + q(filepath.Join(demo, "corpus")) + "\ntitle_boost = 2.0\n" + strings.ReplaceAll(variants, "CORPUS", q(filepath.Join(demo, "corpus")))
	cfg, err := config.Parse([]byte(text), filepath.Join(t.TempDir(), "e.toml"))
	if err != nil {
		t.Fatal(err)
	}
	set, err := pipeline.LoadSetFor(cfg, "")
	if err != nil {
		t.Skipf("the demo set is not here: %v", err)
	}
	return cfg, set
}

func quietEnv() *pipeline.Env {
	return &pipeline.Env{Getenv: func(string) string { return "" }, Stderr: io.Discard}
}

// TestRunBatches: the leaderboard does not depend on how many retrievers
// run at once (one at a time, or all together).
func TestRunBatches(t *testing.T) {
	cfg, set := demoConfig(t, "[variant.c8.retriever]\ntype = \"builtin\"\ncorpus = CORPUS\nchunk_words = 8\n[variant.c12.retriever]\ntype = \"builtin\"\ncorpus = CORPUS\nchunk_words = 12\n[variant.c24.retriever]\ntype = \"builtin\"\ncorpus = CORPUS\nchunk_words = 24\n")
	var reports []*Report
	for _, parallel := range []int{1, 2, 8} {
		r, err := Run(context.Background(), quietEnv(), Options{Config: cfg, Set: set, Parallel: parallel})
		if err != nil {
			t.Fatal(err)
		}
		for i := range r.Variants { // timing is the one thing that differs
			r.Variants[i].Latency = nil
		}
		r.Baseline.Latency = nil
		reports = append(reports, r)
	}
	if !reflect.DeepEqual(reports[0], reports[1]) || !reflect.DeepEqual(reports[0], reports[2]) {
		t.Error("the report depends on how many retrievers ran at once")
	}
	// c12 is the demo's head table: what the gate says of the demo.
	c12 := reports[0].Variants[1]
	if c12.Name != "c12" || strings.Join(c12.Regressed, ",") != "q26,q16,q10" || strings.Join(c12.Improved, ",") != "q04,q07,q21" {
		t.Errorf("c12 %s: regressed %v improved %v", c12.Name, c12.Regressed, c12.Improved)
	}
}

// TestRunFailingVariant: a variant whose retriever fails on a query is
// that variant's error (named, exit 3), never a row; the others' success
// does not hide it, and the baseline's own failure is not a variant's.
func TestRunFailingVariant(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ ID string }
		_ = json.NewDecoder(r.Body).Decode(&body)
		if body.ID == "q07" {
			http.Error(w, "shard down", http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte(`{"hits":[{"doc":"queues/fifo"}]}`))
	}))
	defer srv.Close()
	cfg, set := demoConfig(t, "[variant.fine.retriever]\ntype = \"builtin\"\ncorpus = CORPUS\nchunk_words = 8\n"+
		"[variant.flaky.retriever]\ntype = \"http\"\nretries = 0\nurl = \""+srv.URL+"\"\nbody = '{\"id\": {{id}}, \"q\": {{query}}}'\nhits = \"hits\"\ndoc = \"doc\"\n")
	for _, parallel := range []int{1, 4} {
		r, err := Run(context.Background(), quietEnv(), Options{Config: cfg, Set: set, Parallel: parallel})
		var ve *VariantError
		var re *gate.RetrievalError
		if r != nil || !errors.As(err, &ve) || ve.Name != "flaky" || !errors.As(err, &re) || re.Failures["q07"] == nil || len(re.Failures) != 1 {
			t.Fatalf("parallel %d: report %v, error %v; want variant flaky's retrieval error on q07", parallel, r, err)
		}
		if pipeline.ExitCode(err) != 3 || !strings.Contains(err.Error(), `variant "flaky"`) || strings.Contains(err.Error(), `variant "fine"`) {
			t.Errorf("parallel %d: exit %d, %v", parallel, pipeline.ExitCode(err), err)
		}
	}
	// The baseline failing is the run's error, not a variant's.
	cfg.Base = cfg.Variant("flaky").Retriever
	_, err := Run(context.Background(), quietEnv(), Options{Config: cfg, Set: set})
	if err == nil || errors.As(err, new(*VariantError)) || pipeline.ExitCode(err) != 3 {
		t.Errorf("baseline failing: %v", err)
	}
}

func TestRunRefusesConfigWithoutVariants(t *testing.T) {
	cfg, set := demoConfig(t, "[variant.x.retriever]\ntype = \"builtin\"\ncorpus = CORPUS\n")
	cfg.Variants = nil
	_, err := Run(context.Background(), quietEnv(), Options{Config: cfg, Set: set})
	if err == nil || pipeline.ExitCode(err) != 2 || !strings.Contains(err.Error(), "[variant.NAME.retriever]") {
		t.Errorf("no variants: %v", err)
	}
}

// TestBatchesShareIndexes: sides of one corpus and index options (they
// differ in k1, b or the title's weight) go in one batch and count once;
// a batch holds at most MaxIndexes builtin indexes and parallel
// retrievers; the baseline's batch is the first; a retriever of another
// kind is one of its own, with no index.
func TestBatchesShareIndexes(t *testing.T) {
	web := func(name string) string {
		return "[variant." + name + ".retriever]\ntype = \"http\"\nurl = \"http://127.0.0.1:1/search\"\nhits = \"hits\"\ndoc = \"doc\"\n"
	}
	cfg, _ := demoConfig(t, "[variant.k1.retriever]\ntype = \"builtin\"\ncorpus = CORPUS\ntitle_boost = 3.0\nk1 = 1.2\n"+
		"[variant.c8.retriever]\ntype = \"builtin\"\ncorpus = CORPUS\nchunk_words = 8\n"+web("web")+
		"[variant.c8b.retriever]\ntype = \"builtin\"\ncorpus = CORPUS\nchunk_words = 8\nb = 0.5\n"+web("web2")+web("web3")+web("web4")+
		"[variant.nostem.retriever]\ntype = \"builtin\"\ncorpus = CORPUS\ntitle_boost = 2.0\nstem = false\n")
	sides := []string{"base"}
	for _, v := range cfg.Variants {
		sides = append(sides, v.Side())
	}
	for _, c := range []struct {
		parallel int
		want     string
	}{
		// The four web variants call one URL: never two in one batch.
		{1, "base variant.k1 | variant.c8 variant.c8b | variant.web | variant.web2 | variant.web3 | variant.web4 | variant.nostem"},
		{2, "base variant.k1 | variant.c8 variant.c8b variant.web | variant.web2 | variant.web3 | variant.web4 variant.nostem"},
		{0, "base variant.k1 | variant.c8 variant.c8b variant.web | variant.web2 | variant.web3 | variant.web4 variant.nostem"}, // DefaultParallel
		{8, "base variant.k1 | variant.c8 variant.c8b variant.web | variant.web2 | variant.web3 | variant.web4 variant.nostem"},
	} {
		var got []string
		for _, b := range batches(cfg, sides, c.parallel) {
			got = append(got, strings.Join(b, " "))
		}
		if strings.Join(got, " | ") != c.want {
			t.Errorf("parallel %d: %q, want %q", c.parallel, strings.Join(got, " | "), c.want)
		}
	}
}
