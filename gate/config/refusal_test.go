package config

import (
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

func TestRefusalTables(t *testing.T) {
	c, err := Parse([]byte(`
[refusal]
min_score = 0.42
[gate]
max_false_answers_increase = 1
max_false_refusals_increase = 2
[[gate.segment]]
name = "billing"
max_false_refusals_increase = 0
[retriever]
type = "file"
path = "run.jsonl"
[head.refusal]
min_score = 0.5
`), "r.toml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Refusal[0].MinScore == nil || *c.Refusal[0].MinScore != 0.42 || c.Refusal[1].MinScore == nil || *c.Refusal[1].MinScore != 0.5 {
		t.Errorf("refusal %v %v", c.Refusal[0], c.Refusal[1])
	}
	th := c.Thresholds
	if th.MaxFalseAnswersIncrease != 1 || th.MaxFalseRefusalsIncrease != 2 || th.Segments[0].MaxFalseRefusalsIncrease == nil || *th.Segments[0].MaxFalseRefusalsIncrease != 0 {
		t.Errorf("thresholds %+v", th)
	}
	if c, err := Parse([]byte("[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n"), "r.toml"); err != nil || c.Refusal[0].MinScore != nil || c.Refusal[1].MinScore != nil {
		t.Errorf("no [refusal]: %v %v", c.Refusal, err)
	}
}

func TestRefusalErrors(t *testing.T) {
	for body, want := range map[string]string{
		"[refusal]\nmin_score = \"high\"\n":                                  `r.toml:2: refusal.min_score: must be a number (no quotes); got the string "high"`,
		"[refusal]\n":                                                        "r.toml:1: refusal.min_score: required",
		"[refusal]\nmin_scor = 0.4\n":                                        "r.toml:2: refusal.min_scor: unknown key; did you mean min_score?",
		"[refusal]\nmin_score = nan\n":                                       "r.toml:2: refusal.min_score: must be a number",
		"[head.refusal]\nmin_score = inf\n":                                  "r.toml:2: head.refusal.min_score: must be a number",
		"[gate]\nmax_false_answers_increase = -1\n":                          "r.toml:2: gate.max_false_answers_increase: must not be negative",
		"\n[gate]\nmax_false_refusals_increase = -2\n":                       "r.toml:3: gate.max_false_refusals_increase: must not be negative",
		"[[gate.segment]]\nname = \"x\"\nmax_false_refusals_increase = -1\n": "r.toml:3: gate.segment[0].max_false_refusals_increase: must not be negative",
	} {
		_, err := Parse([]byte(body), "r.toml")
		if err == nil || !strings.Contains(err.Error(), want) || !gate.IsInput(err) {
			t.Errorf("%q: err = %v, want %q", body, err, want)
		}
	}
}

// TestRefusalPolicy: the refusal rules are policy keys, so a change that
// relaxes them is shown and judged by the base commit's values.
func TestRefusalPolicy(t *testing.T) {
	base, err := Parse([]byte("[gate]\n"), "r.toml")
	if err != nil {
		t.Fatal(err)
	}
	head, err := Parse([]byte("[gate]\nmax_false_refusals_increase = 5\n"), "r.toml")
	if err != nil {
		t.Fatal(err)
	}
	ch := PolicyChanges(base, head)
	if len(ch) != 1 || ch[0] != (gate.PolicyChange{Key: gate.RuleFalseRefusals, Base: "0", Head: "5"}) {
		t.Errorf("changes %+v", ch)
	}
}
