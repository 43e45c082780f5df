package main

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAPMatchesTrecEval: ap_at_n, per query and as the summary's mean,
// equals trec_eval's map_cut.5 on the same qrels and run within 1e-4.
// testdata/mapcut/trec_eval.txt is trec_eval 10.0's own output, made
// once with
//
//	trec_eval -c -q -m map_cut.5 qrels.txt run.trec > trec_eval.txt
//
// (trec_eval built from its release source, outside this repository).
// The fixture has graded gold, a grade-0 judgement ranked in the top N
// (q1: not relevant), relevant documents past the cut (q1's d7 at rank
// 6, q3's d11), one never retrieved (q2's d20), and a query with none
// found (q4).
func TestAPMatchesTrecEval(t *testing.T) {
	dir := filepath.Join("testdata", "mapcut")
	want := map[string]float64{}
	f, err := os.Open(filepath.Join(dir, "trec_eval.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 || fs[0] != "map_cut_5" {
			t.Fatalf("trec_eval.txt: unexpected line %q", sc.Text())
		}
		v, err := strconv.ParseFloat(fs[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		want[fs[1]] = v
	}
	if len(want) != 6 {
		t.Fatalf("trec_eval.txt holds %d values, want 5 queries and all", len(want))
	}
	code, out, errs := rg(t, "score", "--set", filepath.Join(dir, "qrels.txt"), "--results", filepath.Join(dir, "run.trec"), "--candidates", "5", "--context", "3", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	var rep struct {
		Summary struct {
			AP *float64 `json:"ap_at_n"`
		}
		Queries []struct {
			ID string
			AP *float64 `json:"ap_at_n"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Queries) != 5 {
		t.Fatalf("%d queries scored, want 5", len(rep.Queries))
	}
	for _, q := range rep.Queries {
		if q.AP == nil || math.Abs(*q.AP-want[q.ID]) > 1e-4 {
			t.Errorf("%s: ap_at_n %v, trec_eval map_cut_5 %.4f", q.ID, deref(q.AP), want[q.ID])
		}
	}
	if rep.Summary.AP == nil || math.Abs(*rep.Summary.AP-want["all"]) > 1e-4 {
		t.Errorf("summary ap_at_n %v, trec_eval map_cut_5 all %.4f", deref(rep.Summary.AP), want["all"])
	}
}

func deref(p *float64) any {
	if p == nil {
		return "absent"
	}
	return *p
}
