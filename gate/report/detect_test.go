package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
)

// judgedComparison is ten queries (gold doc/NN 2, doc/NNx 1, z judged 0)
// at N = 10, k = 3, with significance required and a rule on the keyword
// segment (all ten). The head puts n1, which nobody judged, in place of
// doc/NN on q01–q06: six recall drops of 0.5 (p = 2/2^6 = 0.031 for the
// whole set and the segment; Holm over the family of the four tested rules
// the policy sets, the whole set's precision and nDCG rules (left
// unconfirmed by the range, so untested) at p = 1: 4 · 0.031 = 0.125
// each), and a precision and nDCG drop its range cannot confirm.
func judgedComparison(t *testing.T) *gate.Comparison {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, `{"id":"q%02d","query":"ordinary question %d","gold":{"doc/%02d":2,"doc/%02dx":1,"z":0}}`+"\n", i, i, i, i)
	}
	set, err := setfile.Parse(strings.NewReader(b.String()), "judged.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	card := func(lost int) *gate.Scorecard {
		sc := gate.NewScorer(set, gate.Depth{Candidates: 10, Context: 3})
		for i, q := range set.Queries {
			first := "doc/" + q.ID[1:]
			if i < lost {
				first = "n1"
			}
			if err := sc.Add(gate.Result{ID: q.ID, Hits: []gate.Hit{{Doc: first}, {Doc: "doc/" + q.ID[1:] + "x"}, {Doc: "z"}}}); err != nil {
				t.Fatal(err)
			}
		}
		c, err := sc.Card()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	th := gate.DefaultThresholds()
	th.RequireSignificance = true
	limit := 0.05
	th.Segments = []gate.SegmentRule{{Name: "keyword", Limits: gate.Limits{MaxRecallDrop: &limit}}}
	th.MaxNewMisses = 10
	th.Unjudged = gate.UnjudgedRangeMode
	c, err := gate.Compare(card(0), card(6), th)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestStatisticsGolden: what the set can detect, Holm's two tests, the
// label debt and the head's unjudged range, in every format; the JSON
// read back renders the same.
func TestStatisticsGolden(t *testing.T) {
	c := judgedComparison(t)
	want := map[Format][]string{
		Text: {
			// The family of 4: a rule fails only at p < 0.05/4 = 0.0125, first
			// reached by 2/2^8; eight queries each losing one of two gold: 0.4.
			"This set calls a drop significant only when 8 queries move the same way (none the other way; sign-flip p = 2/2^8 < 0.05/4, Holm's first step over the 4 rules significance is required of): the smallest mean recall@10 drop that can be significant is 0.400 (8 queries each losing one relevant document). About thirty queries catch large drops, fifty to two hundred the small ones.",
			"Holm's correction over the 4 rules significance is required of (require_significance, 2 of them not breached, counted as p = 1): max_recall_drop p = 0.031 → 0.125 (not significant); segment auto: keyword max_recall_drop p = 0.031 → 0.125 (not significant); a rule fails only when its adjusted p < 0.05.",
			// precision@3: 6 queries at 1/3, 4 at 2/3 → 0.467; with n1 relevant 6 · 1/3 more over 10 → 0.667.
			"Head precision@3 is 0.467 … 0.667 and nDCG@3",
			"the 6 documents nobody judged in the head's top 3 over all the set's queries (6 queries hold them) counted non-relevant … relevant.",
			"Label debt: 6 unjudged documents in 6 queries are new in the head",
			"the recall@10 drop is not significant after Holm's correction over the 4 rules significance is required of (sign-flip p = 0.031, adjusted p = 0.125 ≥ 0.05 over 10 queries)",
			"the range of the head's precision@3 cannot confirm the drop: were the 6 unjudged documents in the head's top 3 of the 6 queries whose precision@3 dropped (q01, q02, q03, q04, q05, q06) relevant, the mean precision@3 would stay as it is instead of dropping",
		},
		Markdown: {"This set calls a drop significant only when 8 queries move the same way", "Label debt: 6 unjudged documents in 6 queries are new in the head", "Holm's correction over the 4 rules significance is required of"},
		HTML:     {"This set calls a drop significant only when 8 queries move the same way", "Label debt: 6 unjudged documents in 6 queries are new in the head", "Holm&#39;s correction over the 4 rules significance is required of", "Head precision@3 is 0.467 … 0.667"},
		JUnit:    {`<property name="min_same_direction_flips" value="8">`, `<property name="min_detectable_recall_drop" value="0.400">`, `<property name="label_debt" value="6 documents in 6 queries">`},
		JSON: {`"min_same_direction_flips": 8,`, `"min_detectable_recall_drop": 0.4,`, `"adjusted_p": 0.125,`, `"holm_family": 4`, `"label_debt": {
      "documents": 6,
      "queries": 6
    },`, `"precision_at_k": [
        0.4666666666666666,
        0.6666666666666666
      ],`},
	}
	if c.Verdict != gate.Inconclusive {
		t.Errorf("verdict %s %q", c.Verdict, c.Reasons)
	}
	for format, lines := range want {
		out := string(render(t, c, format))
		for _, l := range lines {
			if !strings.Contains(out, l) {
				t.Errorf("%s lacks %q", format, l)
			}
		}
	}
	golden(t, "statistics.golden.md", render(t, c, Markdown))
	golden(t, "statistics.golden.txt", render(t, c, Text))
	r, err := ReadCompareReport(bytes.NewReader(render(t, c, JSON)), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []Format{Markdown, Text, JSON, JUnit} {
		var buf bytes.Buffer
		if err := WriteCompareReport(&buf, r, format); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), render(t, c, format)) {
			t.Errorf("%s differs after a JSON round trip", format)
		}
	}
}

// TestStatisticsReadStrictly: the reader refuses statistics and unjudged
// blocks that cannot be.
func TestStatisticsReadStrictly(t *testing.T) {
	c := judgedComparison(t)
	for name, vandal := range map[string]func(m map[string]any){
		"flips zero":      func(m map[string]any) { m["statistics"].(map[string]any)["min_same_direction_flips"] = 0 },
		"flips over n":    func(m map[string]any) { m["statistics"].(map[string]any)["min_same_direction_flips"] = 11 },
		"drop without k":  func(m map[string]any) { m["statistics"].(map[string]any)["min_same_direction_flips"] = nil },
		"unknown key":     func(m map[string]any) { m["statistics"].(map[string]any)["power"] = 0.8 },
		"test rule":       func(m map[string]any) { test(m)["rule"] = "max_fun" },
		"adjusted below":  func(m map[string]any) { test(m)["adjusted_p"] = 0.01 },
		"significant lie": func(m map[string]any) { test(m)["significant"] = true },
		"test segment":    func(m map[string]any) { test(m)["segment"] = "a\n::error::x" },
		"debt mismatch": func(m map[string]any) {
			m["unjudged"].(map[string]any)["label_debt"] = map[string]any{"documents": 7, "queries": 3}
		},
		// A query or a document listed twice (the debt counted to match)
		// would be offered twice to label --from-report.
		"unjudged query twice": func(m map[string]any) {
			u := m["unjudged"].(map[string]any)
			news := u["new"].([]any)
			u["new"] = append(news, news[0])
			debt(u)
		},
		"unjudged document twice": func(m map[string]any) {
			u := m["unjudged"].(map[string]any)
			q := u["new"].([]any)[0].(map[string]any)
			q["docs"] = append(q["docs"].([]any), q["docs"].([]any)[0])
			debt(u)
		},
		"range reversed": func(m map[string]any) {
			m["unjudged"].(map[string]any)["head_range"].(map[string]any)["ndcg_at_k"] = []any{0.9, 0.1}
		},
	} {
		m := mapOf(t, render(t, c, JSON))
		vandal(m)
		if _, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// debt sets an unjudged block's label_debt to what its new list holds.
func debt(u map[string]any) {
	docs := 0
	for _, q := range u["new"].([]any) {
		docs += len(q.(map[string]any)["docs"].([]any))
	}
	u["label_debt"] = map[string]any{"documents": docs, "queries": len(u["new"].([]any))}
}

func test(m map[string]any) map[string]any {
	return m["statistics"].(map[string]any)["significance_tests"].([]any)[0].(map[string]any)
}

// TestReportWithoutStatistics: a report written before statistics were
// added reads back and renders without claiming anything of its set.
func TestReportWithoutStatistics(t *testing.T) {
	m := mapOf(t, render(t, judgedComparison(t), JSON))
	delete(m, "statistics")
	r, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "old.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []Format{Text, Markdown, HTML, JUnit} {
		var buf bytes.Buffer
		if err := WriteCompareReport(&buf, r, format); err != nil {
			t.Fatal(err)
		}
		if out := buf.String(); strings.Contains(out, "This set") || strings.Contains(out, "min_same_direction_flips") || strings.Contains(out, "significance is required of (require_significance") {
			t.Errorf("%s of a report without statistics says what the set can detect", format)
		}
	}
}

// TestHolmFamilyReadBack: holm_family reads back and the Holm line says the
// family's size again; a family smaller than the tests listed is refused.
func TestHolmFamilyReadBack(t *testing.T) {
	m := mapOf(t, render(t, judgedComparison(t), JSON))
	r, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	if r.Statistics.HolmFamily != 4 || !strings.Contains(holmLine(r), "over the 4 rules significance is required of (require_significance, 2 of them not breached") {
		t.Errorf("read back: family %d, line %q", r.Statistics.HolmFamily, holmLine(r))
	}
	m["statistics"].(map[string]any)["holm_family"] = 1
	if _, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json"); err == nil || !strings.Contains(err.Error(), "holm_family") {
		t.Errorf("a family of 1 beside 2 tests read back with %v", err)
	}
}

// TestRangeInfoJSON: the range's bounds are written under the metrics'
// registry keys, byte for byte as the struct tags wrote them before, and
// read back strictly.
func TestRangeInfoJSON(t *testing.T) {
	r := RangeInfo{Documents: 3, Queries: 2, PrecisionAtK: [2]float64{0.1, 0.4}, NDCGAtK: [2]float64{0.25, 0.5}}
	b, err := json.Marshal(r)
	was, _ := json.Marshal(struct {
		Documents    int        `json:"documents"`
		Queries      int        `json:"queries"`
		PrecisionAtK [2]float64 `json:"precision_at_k"`
		NDCGAtK      [2]float64 `json:"ndcg_at_k"`
	}{r.Documents, r.Queries, r.PrecisionAtK, r.NDCGAtK})
	if err != nil || string(b) != string(was) {
		t.Fatalf("RangeInfo = %s, %v; want %s", b, err, was)
	}
	var back RangeInfo
	if err := json.Unmarshal(b, &back); err != nil || back != r {
		t.Errorf("read back %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"documents":1,"recall_at_n":[0,1]}`), &back); err == nil {
		t.Error("an unknown key was read")
	}
}
