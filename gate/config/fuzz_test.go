package config

import (
	"testing"

	"github.com/recallgate/recallgate/gate"
)

// FuzzParse: any TOML either loads or gives an InputError naming the file.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"set = \"q.jsonl\"\n[depth]\ncandidates = 50\ncontext = 5\n[gate]\nmax_recall_drop = 0.02\n[retriever]\ntype = \"builtin\"\ncorpus = \"c\"\n",
		"[base.retriever]\ntype = \"http\"\nurl = \"http://x\"\n[head.retriever]\ntype = \"file\"\npath = \"r\"\n",
		"[[waiver]]\nquery = \"q1\"\nreason = \"r\"\nexpires = \"2027-01-31\"\n",
		"[report]\nmax_label_age = \"180d\"\nbelow = 0.4\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		c, err := Parse([]byte(in), "fuzz.toml")
		if err != nil {
			if !gate.IsInput(err) {
				t.Fatalf("error is not an InputError: %v", err)
			}
			return
		}
		if err := c.Depth.Validate(); err != nil {
			t.Fatalf("accepted bad depths: %v", err)
		}
		if err := c.Thresholds.Validate(); err != nil {
			t.Fatalf("accepted bad thresholds: %v", err)
		}
	})
}
