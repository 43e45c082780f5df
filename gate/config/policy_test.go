package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
)

func mustParse(t *testing.T, text string) *Config {
	t.Helper()
	c, err := Parse([]byte(text), "recallgate.toml")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPolicyChanges: every key the head sets otherwise is listed once, in
// a fixed order with fixed formats; a key the base leaves out is its
// default, never the head's value.
func TestPolicyChanges(t *testing.T) {
	base := mustParse(t, "[retriever]\ntype = \"builtin\"\ncorpus = \"c\"\n")
	head := mustParse(t, `[depth]
candidates = 62
[gate]
max_recall_drop = 1
max_ndcg_drop = 0.015
min_recall = 0.5
require_significance = true
max_waiver_days = 3650
repeats = 3
[[gate.segment]]
name = "jargon"
max_recall_drop = 0.5
[base.retriever]
type = "builtin"
corpus = "c"
[head.retriever]
type = "builtin"
corpus = "c"
`)
	var got []string
	for _, c := range PolicyChanges(base, head) {
		got = append(got, c.Key+" "+c.Base+" → "+c.Head)
	}
	want := []string{"max_recall_drop 0.02 → 1.00", "max_ndcg_drop 0.05 → 0.015", "min_recall off → 0.50", "require_significance false → true",
		"max_waiver_days 90 → 3650", "repeats 1 → 3", "depth.candidates 50 → 62", "retrievers [retriever] → [base.retriever]+[head.retriever]",
		"segment.jargon none → max_recall_drop=0.50"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c := PolicyChanges(head, head); len(c) != 0 {
		t.Errorf("a config against itself: %v", c)
	}
	if base.MaxWaiverDays != DefaultMaxWaiverDays || head.MaxWaiverDays != 3650 {
		t.Errorf("max_waiver_days %d %d", base.MaxWaiverDays, head.MaxWaiverDays)
	}
}

// TestPolicyChangesBaseline: the erosion rule's two keys are policy: a
// change that raises max_baseline_drop or names another baseline run says
// so, the path as written (the base tree's folder and the checkout's are
// never the same), and the path resolves from the config's folder.
func TestPolicyChangesBaseline(t *testing.T) {
	base := mustParse(t, "baseline = \"baselines/head.jsonl\"\n[gate]\nmax_baseline_drop = 0.15\n[retriever]\ntype = \"builtin\"\ncorpus = \"c\"\n")
	if base.Baseline != "baselines/head.jsonl" || base.Thresholds.MaxBaselineDrop == nil || *base.Thresholds.MaxBaselineDrop != 0.15 {
		t.Errorf("baseline %q max_baseline_drop %v", base.Baseline, base.Thresholds.MaxBaselineDrop)
	}
	if c, err := Parse([]byte("baseline = \"b/head.jsonl\"\n"), "rag/recallgate.toml"); err != nil || c.Baseline != "rag/b/head.jsonl" || c.Thresholds.MaxBaselineDrop != nil {
		t.Errorf("a baseline without the rule: %+v %v", c, err)
	}
	head := mustParse(t, "baseline = \"mine.jsonl\"\n[gate]\nmax_baseline_drop = 0.5\n[retriever]\ntype = \"builtin\"\ncorpus = \"c\"\n")
	var got []string
	for _, c := range PolicyChanges(base, head) {
		got = append(got, c.Key+" "+c.Base+" → "+c.Head)
	}
	if want := "max_baseline_drop 0.15 → 0.50\nbaseline baselines/head.jsonl → mine.jsonl"; strings.Join(got, "\n") != want {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
	off := mustParse(t, "[retriever]\ntype = \"builtin\"\ncorpus = \"c\"\n")
	got = nil
	for _, c := range PolicyChanges(base, off) {
		got = append(got, c.Key+" "+c.Base+" → "+c.Head)
	}
	if want := "max_baseline_drop 0.15 → off\nbaseline baselines/head.jsonl → none"; strings.Join(got, "\n") != want {
		t.Errorf("turned off:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// TestWaiverDays: a waiver the base lacks may run max_waiver_days from
// today's date and no further; one the base already holds is not the
// change's, and a bad max_waiver_days names its line.
func TestWaiverDays(t *testing.T) {
	now := time.Date(2026, 12, 4, 23, 59, 0, 0, time.UTC)
	w := func(q, exp string) string {
		return fmt.Sprintf("\n[[waiver]]\nquery = %q\nreason = \"r\"\nexpires = %q\n", q, exp)
	}
	base := mustParse(t, w("q1", "2099-01-01"))
	head := mustParse(t, w("q1", "2099-01-01")+w("q2", "2027-03-04")+w("q3", "2027-03-05"))
	added := head.AddedWaivers(base)
	if len(added) != 2 || added[0].Query != "q2" {
		t.Fatalf("added %+v", added)
	}
	err := head.CheckWaiverDays(added, now, 90)
	var ie *gate.InputError
	if !errors.As(err, &ie) || ie.Line != 15 || ie.Field != "waiver[2].expires" || !strings.Contains(err.Error(), `"q3" expires 2027-03-05, more than max_waiver_days (90) from today (2026-12-04, at most 2027-03-04)`) {
		t.Errorf("q3 a day too long: %v", err)
	}
	if err := head.CheckWaiverDays(added[:1], now, 90); err != nil {
		t.Errorf("q2 on the last day allowed: %v", err)
	}
	if err := head.CheckWaiverDays(head.AddedWaivers(nil), now, 90); err == nil || !strings.Contains(err.Error(), `"q1"`) {
		t.Errorf("without a base every waiver is the config's own: %v", err)
	}
	_, err = Parse([]byte("[gate]\nrepeats = 1\nmax_waiver_days = 0\n"), "recallgate.toml")
	if !errors.As(err, &ie) || ie.Line != 3 || ie.Field != "gate.max_waiver_days" {
		t.Errorf("max_waiver_days 0: %v", err)
	}
}

// TestPolicyChangesContextRules: the final-context rules are policy keys
// like the others: a head that loosens max_facts_lost or sets the context
// means (whole set or segment) shows each change, base value first.
func TestPolicyChangesContextRules(t *testing.T) {
	base := mustParse(t, "[gate]\nmax_context_recall_drop = 0.1\n[retriever]\ntype = \"builtin\"\ncorpus = \"c\"\n")
	head := mustParse(t, `[gate]
max_facts_lost = 3
max_evidence_drop = 0.2
[[gate.segment]]
name = "jargon"
max_facts_lost = 1
max_context_recall_drop = 0.5
[retriever]
type = "builtin"
corpus = "c"
`)
	var got []string
	for _, c := range PolicyChanges(base, head) {
		got = append(got, c.Key+" "+c.Base+" → "+c.Head)
	}
	want := []string{"max_context_recall_drop 0.10 → off", "max_evidence_drop off → 0.20", "max_facts_lost 0 → 3",
		"segment.jargon none → max_context_recall_drop=0.50 max_facts_lost=1"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for cfg, want := range map[string]string{
		"[gate]\nmax_facts_lost = -1\n":                         "recallgate.toml:2: gate.max_facts_lost: must not be negative",
		"[gate]\n\nmax_context_recall_drop = 1.5\n":             "recallgate.toml:3: gate.max_context_recall_drop: must be within 0–1",
		"[gate]\nmax_evidence_drop = -0.1\n":                    "recallgate.toml:2: gate.max_evidence_drop: must be within 0–1",
		"[[gate.segment]]\nname = \"x\"\nmax_facts_lost = -2\n": "recallgate.toml:3: gate.segment[0].max_facts_lost: must not be negative",
	} {
		_, err := Parse([]byte(cfg), "recallgate.toml")
		if err == nil || !gate.IsInput(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", cfg, err, want)
		}
	}
}

// TestPolicyChangesContextBudget: a head that sets another [report]
// context_tokens (the budget recallgate packs a context under, which
// decides which facts reach the packed context) has it listed as a policy
// change: the base commit's budget judges, and the reader sees the change.
func TestPolicyChangesContextBudget(t *testing.T) {
	base := mustParse(t, "[retriever]\ntype = \"builtin\"\ncorpus = \"c\"\n")
	head := mustParse(t, "[report]\ncontext_tokens = 50\n[retriever]\ntype = \"builtin\"\ncorpus = \"c\"\n")
	var got []string
	for _, c := range PolicyChanges(base, head) {
		got = append(got, c.Key+" "+c.Base+" → "+c.Head)
	}
	if want := "report.context_tokens 2000 → 50"; strings.Join(got, "\n") != want {
		t.Errorf("changes %q, want %q", got, want)
	}
}

// TestEveryRuleIsAPolicyKey: every registered rule set in [gate] (and in a
// [[gate.segment]] where the registry allows it) is read into the
// thresholds and named as a policy change, from the rule registry alone.
func TestEveryRuleIsAPolicyKey(t *testing.T) {
	const retriever = "baseline = \"b.jsonl\"\n[retriever]\ntype = \"builtin\"\ncorpus = \"c\"\n"
	base := mustParse(t, retriever)
	for _, r := range gate.Rules() {
		value, want := "0.25", "0.25"
		if r.IsCount() {
			value, want = "7", "7"
		}
		text := retriever + "[gate]\n" + r.Key + " = " + value + "\n"
		if r.Segments {
			text += "[[gate.segment]]\nname = \"s\"\n" + r.Key + " = " + value + "\n"
		}
		head := mustParse(t, text)
		if v, on := r.Setting(&head.Thresholds); !on || fmt.Sprint(v) != value {
			t.Errorf("%s = %s read as %v (on %v)", r.Key, value, v, on)
		}
		var got []string
		for _, c := range PolicyChanges(base, head) {
			got = append(got, c.Key+"="+c.Head)
		}
		wantKeys := []string{r.Key + "=" + want}
		if r.Segments {
			wantKeys = append(wantKeys, gate.PolicySegmentKey+"s="+r.Key+"="+want)
		}
		if strings.Join(got, " ") != strings.Join(wantKeys, " ") {
			t.Errorf("%s: changes %q, want %q", r.Key, got, wantKeys)
		}
	}
}

// TestEveryRuleKeyIsKnown: every registered rule is a key of [gate] and,
// where the registry allows it, of [[gate.segment]], for the unknown-key
// message and the type errors alone (read from the registry, with no
// field of its own): a misspelt rule is offered the rule, a value of the
// wrong type names the rule's line and the shape its value takes, a rule
// segments may not set is an unknown key there.
func TestEveryRuleKeyIsKnown(t *testing.T) {
	for _, r := range gate.Rules() {
		shape := "a number (no quotes)"
		if r.IsCount() {
			shape = "a whole number (no quotes)"
		}
		tables := map[string]string{"[gate]\n": "gate."}
		if r.Segments {
			tables["[[gate.segment]]\nname = \"s\"\n"] = "gate.segment."
		}
		for table, field := range tables {
			line := strings.Count(table, "\n") + 1
			_, err := Parse([]byte(table+r.Key+" = \"x\"\n"), "r.toml")
			if want := fmt.Sprintf("r.toml:%d: %s%s: must be %s", line, field, r.Key, shape); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s as a string in %q: %v, want %s…", r.Key, table, err, want)
			}
			typo := r.Key[:2] + r.Key[3:]
			_, err = Parse([]byte(table+typo+" = 1\n"), "r.toml")
			if want := fmt.Sprintf("r.toml:%d: %s%s: unknown key; did you mean %s?", line, field, typo, r.Key); err == nil || err.Error() != want {
				t.Errorf("%s misspelt in %q: %v, want %s", r.Key, table, err, want)
			}
		}
		if !r.Segments {
			_, err := Parse([]byte("[[gate.segment]]\nname = \"s\"\n"+r.Key+" = 1\n"), "r.toml")
			if want := fmt.Sprintf("r.toml:3: gate.segment.%s: unknown key", r.Key); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s in a segment: %v, want %s…", r.Key, err, want)
			}
		}
	}
}
