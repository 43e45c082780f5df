package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/internal/shareddata"
)

// sciFactVariants are bench/experiment.sh's eight variants of the builtin
// BM25 on SciFact: k1 and b, a title field, chunking, no stemming, no stop
// words. Three share an index with another (k1 and b score the same
// postings): six distinct indexes with the baseline's.
var sciFactVariants = []struct{ name, keys string }{
	{"k12b75", "k1 = 1.2\nb = 0.75"},
	{"title2", "title_boost = 2.0"},
	{"chunk200", "chunk_words = 200\nchunk_overlap = 50"},
	{"nostem", "stem = false"},
	{"nostop", "stop_words = false"},
	{"k06b3", "k1 = 0.6\nb = 0.3"},
	{"title2k12", "title_boost = 2.0\nk1 = 1.2\nb = 0.75"},
	{"chunk100", "chunk_words = 100\nchunk_overlap = 20"},
}

// sciFactConfig is the SciFact config of bench/experiment.sh with the
// first n variants ([variant.NAME.retriever]), or, with head set, the gate
// of the baseline and that variant ([head.retriever]).
func sciFactConfig(b *testing.B, n int, head string) *config.Config {
	b.Helper()
	dir := shareddata.Path(b, "data/scifact")
	for _, f := range []string{"corpus.jsonl.gz", "qrels.tsv", "queries.jsonl"} {
		shareddata.Path(b, "data/scifact/"+f)
	}
	q := func(s string) string { j, _ := json.Marshal(s); return string(j) }
	corpus := q(filepath.Join(dir, "corpus.jsonl.gz"))
	var text strings.Builder
	fmt.Fprintf(&text, "set = %s\nqueries = %s\n[depth]\ncandidates = 100\ncontext = 10\n[base.retriever]\ntype = \"builtin\"\ncorpus = %s\n", q(filepath.Join(dir, "qrels.tsv")), q(filepath.Join(dir, "queries.jsonl")), corpus)
	for _, v := range sciFactVariants[:n] {
		table := "variant." + v.name + ".retriever"
		if head != "" {
			if v.name != head {
				continue
			}
			table = "head.retriever"
		}
		fmt.Fprintf(&text, "[%s]\ntype = \"builtin\"\ncorpus = %s\n%s\n", table, corpus, v.keys)
	}
	cfg, err := config.Parse([]byte(text.String()), filepath.Join(b.TempDir(), "recallgate.toml"))
	if err != nil {
		b.Fatal(err)
	}
	return cfg
}

// peakHeap samples the live heap every millisecond while run runs and
// returns its highest reading, in bytes (the heap's objects, live and not
// yet swept: what the process's RSS follows).
func peakHeap(run func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	run()
	close(done)
	wg.Wait()
	return peak
}

// BenchmarkSciFactExperiment is `recallgate experiment` on SciFact (5,183
// documents, 300 queries, builtin BM25) with 1, 2, 4 and 8 variants, and
// "gate" the gate of the baseline and its largest variant (chunk100):
// peak-heap-MiB is the highest live heap during one run. The experiment's
// peak stays near one gate's however many variants (each distinct index
// built once, one live at a time, each variant's queries dropped
// once it is scored); bench/experiment.sh measures the process (RSS, wall)
// and docs/figures.md gives the figures.
func BenchmarkSciFactExperiment(b *testing.B) {
	e := &pipeline.Env{Getenv: func(string) string { return "" }, Stderr: io.Discard}
	b.Run("gate", func(b *testing.B) {
		benchPeak(b, sciFactConfig(b, len(sciFactVariants), "chunk100"), func(cfg *config.Config, set *gate.Set) error {
			_, err := pipeline.Gate(context.Background(), e, pipeline.GateOptions{Config: cfg, Set: set, Thresholds: cfg.Thresholds})
			return err
		})
	})
	for _, n := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("variants=%d", n), func(b *testing.B) {
			benchPeak(b, sciFactConfig(b, n, ""), func(cfg *config.Config, set *gate.Set) error {
				_, err := Run(context.Background(), e, Options{Config: cfg, Set: set})
				return err
			})
		})
	}
}

// benchPeak runs run on cfg and its set b.N times and reports the highest
// live heap of any run (peak-heap-MiB).
func benchPeak(b *testing.B, cfg *config.Config, run func(*config.Config, *gate.Set) error) {
	set, err := pipeline.LoadSetFor(cfg, "")
	if err != nil {
		b.Fatal(err)
	}
	var peak uint64
	for i := 0; i < b.N; i++ {
		peak = max(peak, peakHeap(func() {
			if err := run(cfg, set); err != nil {
				b.Fatal(err)
			}
		}))
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}

// BenchmarkSciFactFusion is the fusion of two analyses of the builtin BM25
// on SciFact: the baseline (stemmed) and "nostem" (stem = false), fused
// by rrf (k swept over 20 and 60) and by wsum over a weight grid of step
// 0.1 (11 settings), nDCG@10 the target. "experiment" is the experiment
// without the fusions, "fusion" with them (the difference is the fusions'
// time), "gate" the gate of the baseline and nostem; each reports its peak
// live heap, and "fusion" each fusion's cross-validated and in-sample
// nDCG@10. docs/figures.md gives the figures.
func BenchmarkSciFactFusion(b *testing.B) {
	e := &pipeline.Env{Getenv: func(string) string { return "" }, Stderr: io.Discard}
	const fusions = `[fusion.rrf]
of = ["baseline", "nostem"]
method = "rrf"
k = [20, 60]
[fusion.wsum]
of = ["baseline", "nostem"]
method = "wsum"
weights = "grid:0.1"
`
	mk := func(b *testing.B, head bool, fuse bool) *config.Config {
		dir := shareddata.Path(b, "data/scifact")
		q := func(s string) string { j, _ := json.Marshal(s); return string(j) }
		table := "[variant.nostem.retriever]"
		if head {
			table = "[head.retriever]"
		}
		text := fmt.Sprintf("set = %s\nqueries = %s\n[depth]\ncandidates = 100\ncontext = 10\n[base.retriever]\ntype = \"builtin\"\ncorpus = %s\n%s\ntype = \"builtin\"\ncorpus = %s\nstem = false\n",
			q(filepath.Join(dir, "qrels.tsv")), q(filepath.Join(dir, "queries.jsonl")), q(filepath.Join(dir, "corpus.jsonl.gz")), table, q(filepath.Join(dir, "corpus.jsonl.gz")))
		if fuse {
			text += fusions
		}
		cfg, err := config.Parse([]byte(text), filepath.Join(b.TempDir(), "recallgate.toml"))
		if err != nil {
			b.Fatal(err)
		}
		return cfg
	}
	b.Run("gate", func(b *testing.B) {
		defer cpuTime(b)()
		benchPeak(b, mk(b, true, false), func(cfg *config.Config, set *gate.Set) error {
			_, err := pipeline.Gate(context.Background(), e, pipeline.GateOptions{Config: cfg, Set: set, Thresholds: cfg.Thresholds})
			return err
		})
	})
	b.Run("experiment", func(b *testing.B) {
		defer cpuTime(b)()
		benchPeak(b, mk(b, false, false), func(cfg *config.Config, set *gate.Set) error {
			_, err := Run(context.Background(), e, Options{Config: cfg, Set: set})
			return err
		})
	})
	b.Run("fusion", func(b *testing.B) {
		var r *Report
		defer cpuTime(b)()
		benchPeak(b, mk(b, false, true), func(cfg *config.Config, set *gate.Set) (err error) {
			r, err = Run(context.Background(), e, Options{Config: cfg, Set: set})
			return err
		})
		for _, v := range r.Variants {
			if f := v.Fusion; f != nil {
				b.ReportMetric(f.CV.NDCG, v.Name+"-cv-ndcg")
				b.ReportMetric(f.InSample.NDCG, v.Name+"-in-sample-ndcg")
				b.Logf("%s: chosen %s, cv nDCG@10 %.4f, in-sample %.4f, optimism %.4f; recall@100 cv %.4f in-sample %.4f", v.Name, f.Chosen, f.CV.NDCG, f.InSample.NDCG, f.Optimism.NDCG, f.CV.Recall, f.InSample.Recall)
			} else {
				b.Logf("%s: nDCG@10 %.4f recall@100 %.4f", v.Name, v.Summary.NDCGAtK, v.Summary.RecallAtN)
			}
		}
		b.Logf("baseline: nDCG@10 %.4f recall@100 %.4f; %s", r.Baseline.Summary.NDCGAtK, r.Baseline.Summary.RecallAtN, r.Winner.Sentence(func(s string) string { return s }, "nDCG@10"))
	})
}

// cpuTime reports the process's CPU time (user + system, cpuNow) until the
// returned function is called, per op, as cpu-s: the figure a loaded
// machine's wall time hides.
func cpuTime(b *testing.B) func() {
	start := cpuNow()
	return func() { b.ReportMetric((cpuNow()-start).Seconds()/float64(b.N), "cpu-s") }
}
