package config

import (
	"fmt"
	"strings"
	"testing"
)

const fusionBase = variantBase + `
[variant.stem.retriever]
type = "builtin"
corpus = "corpus"

[variant.plain.retriever]
type = "builtin"
corpus = "corpus"
stem = false
`

func TestFusions(t *testing.T) {
	c, err := Parse([]byte(fusionBase+`
[fusion.hybrid]
of = ["stem", "plain"]
method = "rrf"
k = [10, 60]

[fusion.w]
of = ["baseline", "stem", "plain"]
method = "wsum"
norm = "zmuv"
weights = "grid:0.25"
`), "e.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Fusions) != 2 {
		t.Fatalf("%d fusions, want 2", len(c.Fusions))
	}
	h, w := c.Fusions[0], c.Fusions[1]
	if h.Name != "hybrid" || h.Method != "rrf" || h.Norm != "" || fmt.Sprint(h.K) != "[10 60]" || h.Target != "ndcg" || h.Line != 16 {
		t.Errorf("hybrid: %+v", h)
	}
	if got := len(h.Settings()); got != 2 {
		t.Errorf("hybrid sweeps %d settings, want 2", got)
	}
	// 3 inputs at a step of 0.25: C(4+2, 2) = 15 points.
	if w.Norm != "zmuv" || w.Grid != 0.25 || len(w.Settings()) != 15 || w.Settings()[0].Weights[2] != 1 {
		t.Errorf("w: %+v, %d settings", w, len(w.Settings()))
	}
	// wsum without weights weighs its inputs alike; a score method's norm
	// defaults to minmax.
	c, err = Parse([]byte(fusionBase+`
[fusion.even]
of = ["stem", "plain"]
method = "wsum"
`), "e.toml")
	if err != nil {
		t.Fatal(err)
	}
	if f := c.Fusions[0]; f.Norm != "minmax" || fmt.Sprint(f.Weights) != "[0.5 0.5]" || f.Swept() {
		t.Errorf("even: %+v", f)
	}
}

func TestFusionErrors(t *testing.T) {
	for _, c := range []struct{ table, want string }{
		{"[fusion.h]\nof = [\"stem\"]\nmethod = \"rrf\"\n", `e.toml:17: fusion.h.of: name two or more inputs`},
		{"[fusion.h]\nof = [\"stem\", \"dense\"]\nmethod = \"rrf\"\n", `e.toml:17: fusion.h.of: "dense" is no variant of this file (the variants: "stem", "plain"; the base side is "baseline")`},
		{"[fusion.h]\nof = [\"stem\", \"stem\"]\nmethod = \"rrf\"\n", `fusion.h.of: "stem" is named twice`},
		{"[fusion.h]\nof = [\"stem\", \"plain\"]\nmethod = \"borda\"\n", `e.toml:18: fusion.h.method: "borda": one of rrf, combsum, combmnz, combmax, wsum`},
		{"[fusion.h]\nof = [\"stem\", \"plain\"]\nmethod = \"rrf\"\nnorm = \"minmax\"\n", `e.toml:19: fusion.h.norm: rrf fuses ranks`},
		{"[fusion.h]\nof = [\"stem\", \"plain\"]\nmethod = \"combsum\"\nnorm = \"l2\"\n", `e.toml:19: fusion.h.norm: "l2": one of minmax, zmuv, rank, none`},
		{"[fusion.h]\nof = [\"stem\", \"plain\"]\nmethod = \"rrf\"\nk = [10, 0]\n", `e.toml:19: fusion.h.k: must be above 0, got 0`},
		{"[fusion.h]\nof = [\"stem\", \"plain\"]\nmethod = \"rrf\"\nk = \"sixty\"\n", `e.toml:19: fusion.h.k: sixty is not a number`},
		{"[fusion.h]\nof = [\"stem\", \"plain\"]\nmethod = \"combmax\"\nweights = [1, 2]\n", `fusion.h.weights: combmax takes no weights`},
		{"[fusion.h]\nof = [\"stem\", \"plain\"]\nmethod = \"wsum\"\nweights = [1]\n", `e.toml:19: fusion.h.weights: 1 weights for 2 inputs`},
		{"[fusion.h]\nof = [\"stem\", \"plain\"]\nmethod = \"wsum\"\nweights = \"grid:0.3\"\n", `fusion.h.weights: grid step 0.3 does not divide 1`},
		{"[fusion.h]\nof = [\"stem\", \"plain\"]\nmethod = \"wsum\"\ntarget = \"mrr\"\n", `e.toml:19: fusion.h.target: "mrr": recall or ndcg`},
		{"[fusion.h]\nof = [\"stem\", \"plain\"]\nmethod = \"wsum\"\nwieghts = [1, 1]\n", `e.toml:19: fusion.h.wieghts: unknown key; did you mean weights?`},
		{"[fusion.Stem]\nof = [\"stem\", \"plain\"]\nmethod = \"rrf\"\n", `e.toml:16: fusion.Stem: the name "Stem" reads as "stem", a row of the leaderboard already`},
		{"[fusion.base]\nof = [\"stem\", \"plain\"]\nmethod = \"rrf\"\n", `fusion.base: the name "base" reads as "base"`},
		// 66 points: the example of a grid too large.
		{"[fusion.h]\nof = [\"baseline\", \"stem\", \"plain\"]\nmethod = \"wsum\"\nweights = \"grid:0.1\"\n", `e.toml:19: fusion.h.weights: "grid:0.1" over 3 inputs is 66 fused candidates: at most 64`},
		// 11 × 6 = 66 over two tables.
		{"[fusion.a]\nof = [\"stem\", \"plain\"]\nmethod = \"wsum\"\nweights = \"grid:0.1\"\n[fusion.b]\nof = [\"stem\", \"plain\"]\nmethod = \"rrf\"\nweights = \"grid:0.1\"\nk = [1, 2, 3, 4, 5]\n", `e.toml:20: fusion.b: 66 fused candidates in all so far (a list of k or a grid of weights counts each point): at most 64`},
		{"[fusion.a]\nof = [\"stem\", \"plain\"]\nmethod = \"wsum\"\n[fusion.b]\nof = [\"stem\", \"plain\"]\nmethod = \"rrf\"\ntarget = \"recall\"\n", `e.toml:22: fusion.b.target: "recall", but fusion "a" chooses by "ndcg"`},
	} {
		_, err := Parse([]byte(fusionBase+"\n"+c.table), "e.toml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.table, err, c.want)
		}
	}
}

func TestMarginKeys(t *testing.T) {
	c, err := Parse([]byte("set = \"q.jsonl\"\n[gate]\nmargin = 0.02\nrequire_proof = true\n[retriever]\ntype = \"builtin\"\ncorpus = \"c\"\n"), "g.toml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Thresholds.Margin == nil || *c.Thresholds.Margin != 0.02 || !c.Thresholds.RequireProof {
		t.Errorf("thresholds %+v", c.Thresholds)
	}
	for _, tc := range []struct{ gate, want string }{
		{"margin = 1.5\n", "g.toml:3: gate.margin: must be a drop within 0–1 such as 0.02"},
		{"margin = -0.1\n", "g.toml:3: gate.margin: must be a drop within 0–1"},
		{"require_proof = true\n", "g.toml:3: gate.require_proof: needs a margin to prove"},
	} {
		_, err := Parse([]byte("set = \"q.jsonl\"\n[gate]\n"+tc.gate+"[retriever]\ntype = \"builtin\"\ncorpus = \"c\"\n"), "g.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %s", tc.gate, err, tc.want)
		}
	}
}
