package main

import (
	"strings"
	"testing"
)

// TestConfigNumbersMustBeFinite: TOML reads nan and inf as floats; a
// config that writes them for fusion weights, a BM25 parameter or a
// threshold is refused (exit 2) naming the file, the line and the key,
// before anything is retrieved: a row scored from NaN, or a rule nothing
// passes, is never reported.
func TestConfigNumbersMustBeFinite(t *testing.T) {
	v := "[variant.a.retriever]\ntype = \"builtin\"\ncorpus = " + quote(demoPath(t, "corpus")) + "\nchunk_words = 8\n"
	for _, tc := range []struct {
		name, extra, want string
	}{
		{"fusion weights", v + "[fusion.mix]\nof = [\"baseline\", \"a\"]\nmethod = \"wsum\"\nweights = [nan, inf]\n", ":16: fusion.mix.weights[0]: must be a number, got NaN"},
		{"a variant's k1", strings.Replace(v, "chunk_words = 8\n", "chunk_words = 8\nk1 = +inf\n", 1), ":13: variant.a.retriever.k1: must be a number, got"},
		{"a fusion's k", v + "[fusion.mix]\nof = [\"baseline\", \"a\"]\nmethod = \"rrf\"\nk = inf\n", ":16: fusion.mix.k: must be a number, got"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := experimentConfig(t, tc.extra)
			code, out, errs := rg(t, "experiment", "--config", cfg)
			if code != 2 || out != "" || !strings.Contains(errs, cfg+tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", code, errs, cfg+tc.want)
			}
		})
	}
	// A threshold: the gate's own config, read by validate.
	cfg := write(t, t.TempDir(), "recallgate.toml", "set = \"set.jsonl\"\n[gate]\nmax_latency_ratio = inf\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n")
	code, out, errs := rg(t, "validate", "--config", cfg)
	if want := cfg + ":3: gate.max_latency_ratio: must be a number, got"; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("max_latency_ratio = inf: exit %d\n%s\n%s\nwant exit 2 and %q", code, out, errs, want)
	}
}
