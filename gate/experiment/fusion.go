package experiment

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/fusion"
	"github.com/recallgate/recallgate/gate/pipeline"
)

// FusionInfo is what a fusion row adds to its line: how it was made, the
// setting a sweep chose, and the cross-validated score the row is ranked
// by against the in-sample score the chosen setting claims.
type FusionInfo struct {
	// Of are the inputs (variant names, or "baseline"); Method and Norm
	// the fusion's (Norm "" for rrf); Target the metric a sweep chose by.
	Of     []string `json:"of"`
	Method string   `json:"method"`
	Norm   string   `json:"norm"`
	Target string   `json:"target"`
	// Settings is how many settings were swept (1: not swept).
	Settings int `json:"settings"`
	// Chosen names the in-sample best setting (fusion.Setting.String);
	// Table is it as a [fusion.NAME] table to paste into a config.
	Chosen string `json:"chosen"`
	Table  string `json:"table"`
	// CV are the leave-one-query-out means the row is scored with,
	// InSample the chosen setting's on every query, Optimism the gap.
	CV       fusion.Means `json:"cv"`
	InSample fusion.Means `json:"in_sample"`
	Optimism fusion.Means `json:"optimism"`
	// Oracle is, per query, the best setting on that query alone, its
	// target value and the chosen setting's (empty when not swept).
	Oracle []fusion.QueryOracle `json:"oracle"`
}

// fusionSide is the retrieval side of a fusion's input.
func fusionSide(of string) string {
	if of == config.FusionBaseline {
		return "base"
	}
	return config.Variant{Name: of}.Side()
}

// fusionInputs are the sides the config's fusions read, each once.
func fusionInputs(cfg *config.Config) map[string]bool {
	need := map[string]bool{}
	for _, f := range cfg.Fusions {
		for _, o := range f.Of {
			need[fusionSide(o)] = true
		}
	}
	return need
}

// fuse makes a fusion's row from its inputs' kept runs (no retrieval): its
// settings swept over the set, the cross-validated run paired with the
// baseline like a variant's, its head table the first input's (for the
// corpus and fingerprints).
func fuse(cfg *config.Config, set *gate.Set, pair *pipeline.Pairing, f config.Fusion, kept map[string][]gate.Result) (row, error) {
	byID := make([]map[string][]gate.Hit, len(f.Of))
	for i, o := range f.Of {
		byID[i] = map[string][]gate.Hit{}
		for _, r := range kept[fusionSide(o)] {
			byID[i][r.ID] = r.Hits
		}
	}
	inputs := func(id string) [][]gate.Hit {
		out := make([][]gate.Hit, len(byID))
		held := false
		for i, m := range byID {
			h, ok := m[id]
			out[i], held = h, held || ok
		}
		if !held {
			return nil
		}
		return out
	}
	settings := f.Settings()
	sw := fusion.Sweep(set, cfg.Depth, settings, f.Target, inputs)
	vc := *cfg
	vc.Head = pipeline.SideTable(cfg, fusionSide(f.Of[0]))
	cmp, err := pair.Compare(&vc, cfg.Thresholds, pipeline.SideRun{Results: [][]gate.Result{sw.Run}, Cached: true})
	if err != nil {
		return row{}, &VariantError{Name: f.Name, Err: err}
	}
	r := rowOf(Input{Name: f.Name, Comparison: cmp}, f.Target)
	chosen := settings[sw.Chosen]
	info := &FusionInfo{Of: f.Of, Method: f.Method, Norm: f.Norm, Target: f.Target, Settings: len(settings),
		Chosen: chosen.String(), Table: chosen.Table(f.Name, f.Of), CV: sw.CV, InSample: sw.InSample, Optimism: sw.Optimism, Oracle: []fusion.QueryOracle{}}
	if len(settings) > 1 {
		info.Oracle = sw.Oracle
	}
	r.variant.Fusion = info
	return r, nil
}

// Winner is the leaderboard's top row (the baseline among the rows) by the
// target metric's mean, tested against every other row with the paired
// sign-flip test, Holm across the comparisons.
type Winner struct {
	// Name is the top row's; Metric the target's metric key
	// (gate.MetricNDCG or gate.MetricRecall).
	Name   string `json:"name"`
	Metric string `json:"metric"`
	// Clear says the top is significantly better than every other row
	// (each adjusted p < 0.05); otherwise the rows whose adjusted p is not
	// are those it cannot be told apart from.
	Clear bool `json:"clear"`
	// Against are the comparisons, in the leaderboard's order.
	Against []WinnerTest `json:"against"`
}

// WinnerTest is the top row against one other row.
type WinnerTest struct {
	// Name is the other row's; P the sign-flip p of the per-query target
	// deltas, PHolm the Holm-adjusted p.
	Name  string  `json:"name"`
	P     float64 `json:"p"`
	PHolm float64 `json:"p_holm"`
}

// Inseparable names the rows the top cannot be told apart from.
func (w Winner) Inseparable() []string {
	var out []string
	for _, a := range w.Against {
		if a.PHolm >= gate.Alpha {
			out = append(out, a.Name)
		}
	}
	return out
}

// targetMetric is the JSON name of the experiment's target: nDCG@k unless
// its fusions choose by recall.
func targetMetric(cfg *config.Config) string {
	if len(cfg.Fusions) > 0 && cfg.Fusions[0].Target == fusion.TargetRecall {
		return fusion.TargetRecall
	}
	return fusion.TargetNDCG
}

// targets are a comparison's per-query target values on each side, keyed
// by query id, over the queries both sides are counted on apart from the
// head (neither synthetic nor base-unstable).
func targets(c *gate.Comparison, target string) (base, head map[string]float64) {
	base, head = map[string]float64{}, map[string]float64{}
	for i := range c.Queries {
		p := &c.Queries[i]
		if p.Synthetic || p.Unstable || p.Query == nil {
			continue
		}
		if target == fusion.TargetRecall {
			base[p.Query.ID], head[p.Query.ID] = p.Base.Recall, p.Head.Recall
		} else {
			base[p.Query.ID], head[p.Query.ID] = p.Base.NDCG, p.Head.NDCG
		}
	}
	return base, head
}

// chooseWinner tests the top row against every other: rows are the
// baseline's name then the variants', values each row's per-query target
// (ids the queries, in order).
func chooseWinner(names []string, values []map[string]float64, ids []string, target string) Winner {
	metric := gate.MetricNDCG
	if target == fusion.TargetRecall {
		metric = gate.MetricRecall
	}
	means := make([]float64, len(values))
	for i, v := range values {
		for _, id := range ids {
			means[i] += v[id]
		}
	}
	top := 0
	for i := range means {
		if means[i] > means[top]+1e-9 {
			top = i
		}
	}
	w := Winner{Name: names[top], Metric: metric, Against: []WinnerTest{}}
	var ps []float64
	for i := range values {
		if i == top {
			continue
		}
		d := make([]float64, len(ids))
		for j, id := range ids {
			d[j] = values[top][id] - values[i][id]
		}
		p := gate.Paired(d).PValue
		ps = append(ps, p)
		w.Against = append(w.Against, WinnerTest{Name: names[i], P: p})
	}
	for i, p := range gate.Holm(ps) {
		w.Against[i].PHolm = p
	}
	w.Clear = len(w.Inseparable()) == 0
	return w
}

// Sentence is the winner's headline: "winner: X (nDCG@3, …)" or "no clear
// winner: X cannot be told apart from A, B (…)", each name through esc.
func (w Winner) Sentence(esc func(string) string, metric string) string {
	if w.Clear {
		return fmt.Sprintf("winner: %s, better on %s than every other row (paired sign-flip test, Holm over %d comparisons, each adjusted p < 0.05)", esc(w.Name), metric, len(w.Against))
	}
	var names []string
	for _, n := range w.Inseparable() {
		names = append(names, esc(n))
	}
	return fmt.Sprintf("no clear winner: the top row on %s, %s, cannot be told apart from %s (paired sign-flip test, Holm over %d comparisons, adjusted p ≥ 0.05)",
		metric, esc(w.Name), strings.Join(names, ", "), len(w.Against))
}

// tableLine is one line a pasteable [fusion.NAME] table may hold: a
// fenced block shows it, so none may open or close a fence.
var tableLine = regexp.MustCompile(`^(\[fusion\."[^\x00-\x1f\x7f]*"\]|of = \[[^\x00-\x1f\x7f]*\]|method = "[a-z]+"|norm = "[a-z]+"|k = [0-9][0-9.e+-]*|weights = \[[0-9][0-9., e+-]*\])$`)

// validateFusion checks the winner and the fusion rows of a report read
// back: the winner and every row it was tested against are rows (names
// holds the variants'), each p within [0, 1], and a fusion row's table
// only the lines a [fusion.NAME] table holds.
func (r *Report) validateFusion(names map[string]bool) error {
	w := r.Winner
	row := func(n string) bool { return n == r.Baseline.Name || names[n] }
	if !row(w.Name) || (w.Metric != gate.MetricNDCG && w.Metric != gate.MetricRecall) {
		return fmt.Errorf("winner %.60q (metric %.20q) is no row", w.Name, w.Metric)
	}
	if len(w.Against) != len(r.Variants) {
		return fmt.Errorf("winner: %d comparisons for %d other rows", len(w.Against), len(r.Variants))
	}
	for _, a := range w.Against {
		if !row(a.Name) || a.Name == w.Name || !(a.P >= 0 && a.P <= 1) || !(a.PHolm >= a.P && a.PHolm <= 1) {
			return fmt.Errorf("winner: comparison with %.60q (p %v, Holm %v)", a.Name, a.P, a.PHolm)
		}
	}
	if w.Clear != (len(w.Inseparable()) == 0) {
		return errors.New("winner: clear does not match its comparisons")
	}
	for _, v := range r.Variants {
		f := v.Fusion
		if f == nil {
			continue
		}
		if len(f.Of) < 2 || f.Settings < 1 || f.Oracle == nil || !slices.Contains(fusion.Methods, f.Method) || (f.Norm != "" && !slices.Contains(fusion.Norms, f.Norm)) {
			return fmt.Errorf("fusion %.60q: of, method, norm or settings out of range", v.Name)
		}
		for _, s := range slices.Concat(f.Of, []string{f.Chosen}) {
			if hasControl(s) {
				return fmt.Errorf("fusion %.60q: %.60q holds a control character", v.Name, s)
			}
		}
		for _, l := range strings.Split(strings.TrimSuffix(f.Table, "\n"), "\n") {
			if !tableLine.MatchString(l) {
				return fmt.Errorf("fusion %.60q: table line %.60q is not a [fusion] table's", v.Name, l)
			}
		}
		for _, o := range f.Oracle {
			if hasControl(o.Query) || hasControl(o.Best) {
				return fmt.Errorf("fusion %.60q: oracle query %.60q holds a control character", v.Name, o.Query)
			}
		}
	}
	return nil
}
