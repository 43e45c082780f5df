package config

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/recallgate/recallgate/gate"
)

// DefaultMaxWaiverDays is how far from today a new waiver may expire.
const DefaultMaxWaiverDays = 90

// TwoTables reports whether the retrievers are [base.retriever] and
// [head.retriever] rather than one [retriever].
func (c *Config) TwoTables() bool { return c.Base != c.Head }

// PolicyChanges lists what head's config changes in base's gate policy:
// every [gate] key, the segment rules, repeats, the depths and the
// retriever topology, in gate.PolicyKeys order, segment rules last by
// name. Values are formatted the same way every time ("off" for a rule
// turned off).
func PolicyChanges(base, head *Config) []gate.PolicyChange {
	b, h := policyValues(base), policyValues(head)
	var out []gate.PolicyChange
	for _, k := range gate.PolicyKeys {
		if b[k] != h[k] {
			out = append(out, gate.PolicyChange{Key: k, Base: b[k], Head: h[k]})
		}
	}
	bs, hs := segmentValues(base), segmentValues(head)
	var names []string
	for n := range bs {
		names = append(names, n)
	}
	for n := range hs {
		if _, ok := bs[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		bv, hv := orNone(bs, n), orNone(hs, n)
		if bv != hv {
			out = append(out, gate.PolicyChange{Key: gate.PolicySegmentKey + n, Base: bv, Head: hv})
		}
	}
	return out
}

func orNone(m map[string]string, k string) string {
	if v, ok := m[k]; ok {
		return v
	}
	return "none"
}

// policyValues formats every policy key of c.
func policyValues(c *Config) map[string]string {
	t := c.Thresholds
	v := map[string]string{
		"min_flipped":          strconv.Itoa(max(t.MinFlipped, 1)),
		"min_segment_queries":  strconv.Itoa(t.MinSegmentQueries),
		"require_significance": strconv.FormatBool(t.RequireSignificance),
		"max_waiver_days":      strconv.Itoa(c.MaxWaiverDays),
		"repeats":              strconv.Itoa(c.Repeats),
		"depth.candidates":     strconv.Itoa(c.Depth.Candidates),
		"depth.context":        strconv.Itoa(c.Depth.Context),
		"report.below":         num(c.Depth.Below),
		"retrievers":           "[retriever]",
		"baseline":             "none",
		"margin":               optNum(t.Margin),
		"require_proof":        strconv.FormatBool(t.RequireProof),
		"unjudged":             t.UnjudgedMode(),
	}
	for _, r := range gate.Rules() {
		v[r.Key] = ruleText(r, r.Setting, &t)
	}
	if c.baselineKey != "" {
		v["baseline"] = c.baselineKey
	}
	v["min_judge_agreement"] = optNum(t.MinJudgeAgreement)
	v["min_judge_overlap"] = strconv.Itoa(DefaultMinJudgeOverlap)
	if t.MinJudgeOverlap > 0 {
		v["min_judge_overlap"] = strconv.Itoa(t.MinJudgeOverlap)
	}
	if t.MinSegmentQueries == 0 {
		v["min_segment_queries"] = strconv.Itoa(gate.DefaultMinSegmentQueries)
	}
	if c.Depth.Below == 0 {
		v["report.below"] = num(gate.BelowThreshold)
	}
	v["report.context_tokens"] = strconv.Itoa(c.Depth.ContextTokens)
	if c.Depth.ContextTokens <= 0 {
		v["report.context_tokens"] = strconv.Itoa(gate.DefaultContextTokens)
	}
	if c.TwoTables() {
		v["retrievers"] = "[base.retriever]+[head.retriever]"
	}
	return v
}

// segmentValues formats each segment rule's limits by segment name.
func segmentValues(c *Config) map[string]string {
	out := map[string]string{}
	for _, s := range c.Thresholds.Segments {
		var parts []string
		for _, r := range gate.Rules() {
			if r.InLimits() {
				if text := ruleText(r, r.LimitIn, &s.Limits); text != "off" {
					parts = append(parts, r.Key+"="+text)
				}
			}
		}
		if len(parts) == 0 {
			parts = []string{"no limits"}
		}
		out[s.Name] = strings.Join(parts, " ")
	}
	return out
}

// ruleText formats the rule's limit as read from x by setting: the
// number, or "off".
func ruleText[T any](r *gate.Rule, setting func(*T) (float64, bool), x *T) string {
	v, on := setting(x)
	switch {
	case !on:
		return "off"
	case r.IsCount():
		return strconv.Itoa(int(v))
	}
	return num(v)
}

// num formats a threshold with two decimals, or with as many as it needs
// when two would round it (0.015 stays 0.015).
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	if back, err := strconv.ParseFloat(s, 64); err == nil && back == v {
		return s
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func optNum(v *float64) string {
	if v == nil {
		return "off"
	}
	return num(*v)
}

func optInt(v *int) string {
	if v == nil {
		return "off"
	}
	return strconv.Itoa(*v)
}

// AddedWaivers are c's waivers that base lacks: a waiver counts as the
// same only with the same query, reason, expiry and rules, so renewing or
// widening one is adding it. base nil means every waiver is added.
func (c *Config) AddedWaivers(base *Config) []gate.Waiver {
	var out []gate.Waiver
	for _, w := range c.Waivers {
		if base == nil || !slices.ContainsFunc(base.Waivers, func(b gate.Waiver) bool { return sameWaiver(b, w) }) {
			out = append(out, w)
		}
	}
	return out
}

func sameWaiver(a, b gate.Waiver) bool {
	return a.Query == b.Query && a.Reason == b.Reason && a.Expires.Equal(b.Expires) && slices.Equal(a.Rules, b.Rules)
}

// CheckWaiverDays refuses a waiver among added (c's own, as AddedWaivers
// returns them) that expires more than maxDays days after now's date: a
// *gate.InputError naming c's file, the expires line and key.
func (c *Config) CheckWaiverDays(added []gate.Waiver, now time.Time, maxDays int) error {
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	limit := today.AddDate(0, 0, maxDays)
	for i, w := range c.Waivers {
		if !slices.ContainsFunc(added, func(a gate.Waiver) bool { return sameWaiver(a, w) }) || !w.Expires.After(limit) {
			continue
		}
		line := 0
		if i < len(c.waiverLines) {
			line = c.waiverLines[i]
		}
		return &gate.InputError{File: c.Path, Line: line, Field: fmt.Sprintf("waiver[%d].expires", i),
			Err: fmt.Errorf("the waiver of %q expires %s, more than max_waiver_days (%d) from today (%s, at most %s): waive for a shorter time and renew it if the regression stays",
				w.Query, w.Expires.Format("2006-01-02"), maxDays, today.Format("2006-01-02"), limit.Format("2006-01-02"))}
	}
	return nil
}

// Declares reports whether data, a TOML document, is a recallgate
// config by what it holds, read in one decode: a retriever table the way
// Parse reads one ([retriever], [base.retriever] or [head.retriever] in any
// spelling TOML and the decoder allow: a quoted key, an inline table, a
// dotted key, another letter case), or what a config for run files alone
// has in place of one: a [gate] or [depth] table, or a top-level
// set = "…". Such a config is the gate's policy, its defaults included, as
// much as one with a retriever. Whether the config is valid is Parse's to
// say. A document that is not TOML declares nothing.
func Declares(data []byte) bool {
	retriever, policy := declares(data)
	return retriever || policy
}

// DeclaresRetriever reports whether data holds a retriever table (see
// Declares).
func DeclaresRetriever(data []byte) bool {
	retriever, _ := declares(data)
	return retriever
}

// declares is Declares's one decode: whether data holds a retriever table,
// and whether it holds a policy table or a set.
func declares(data []byte) (retriever, policy bool) {
	var probe struct {
		Retriever any `toml:"retriever"`
		Base      *struct {
			Retriever any `toml:"retriever"`
		} `toml:"base"`
		Head *struct {
			Retriever any `toml:"retriever"`
		} `toml:"head"`
		Gate  any `toml:"gate"`
		Depth any `toml:"depth"`
		Set   any `toml:"set"`
	}
	if _, err := toml.Decode(string(data), &probe); err != nil {
		return false, false
	}
	retriever = probe.Retriever != nil || (probe.Base != nil && probe.Base.Retriever != nil) || (probe.Head != nil && probe.Head.Retriever != nil)
	_, gate := probe.Gate.(map[string]any)
	_, depth := probe.Depth.(map[string]any)
	_, set := probe.Set.(string)
	return retriever, gate || depth || set
}
