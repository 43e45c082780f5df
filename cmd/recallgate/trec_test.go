package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestQrelsAsTheyAre: a TREC qrels file whose query q2 is judged only
// grade 0 scores without error; the JSON summary carries the means as
// trec_eval -c prints them (checked against trec_eval 10.0: recall_10
// 0.6667, P_2 0.3333, ndcg_cut_2 0.5436, recip_rank 0.5000).
func TestQrelsAsTheyAre(t *testing.T) {
	dir := t.TempDir()
	qrels := write(t, dir, "qrels.txt", "q1 0 a 1\nq2 0 c 0\nq3 0 e 2\n")
	run := write(t, dir, "run.trec", "q1 Q0 a 1 2.0 r\nq2 Q0 c 1 1.0 r\nq3 Q0 x 1 2.0 r\nq3 Q0 e 2 1.0 r\n")
	code, out, errs := rg(t, "score", "--set", qrels, "--results", run, "--candidates", "10", "--context", "2", "--format", "json")
	if code != 0 || !strings.Contains(errs, filepath.Base(qrels)+": 1 query of the qrels is judged only grade 0") {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	var rep struct {
		Set     struct{ Answerable, Unanswerable int }
		Summary struct {
			TrecEval struct {
				Queries      int
				RecallAtN    float64 `json:"recall_at_n"`
				PrecisionAtK float64 `json:"precision_at_k"`
				NDCGAtK      float64 `json:"ndcg_at_k"`
				RR           float64 `json:"rr"`
			} `json:"trec_eval"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	te := rep.Summary.TrecEval
	round := func(x float64) float64 { return math.Round(x*1e4) / 1e4 }
	if rep.Set.Answerable != 2 || rep.Set.Unanswerable != 1 || te.Queries != 3 ||
		round(te.RecallAtN) != 0.6667 || round(te.PrecisionAtK) != 0.3333 || round(te.NDCGAtK) != 0.5436 || round(te.RR) != 0.5 {
		t.Errorf("set %+v trec_eval means %+v", rep.Set, te)
	}
}
