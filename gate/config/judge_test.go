package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestJudgeTable: the [judge] table read, defaulted and refused by
// file:line and key, with a did-you-mean for a misspelt key.
func TestJudgeTable(t *testing.T) {
	c, err := Parse([]byte("[gate]\nmin_judge_agreement = 0.6\nmin_judge_overlap = 40\n[judge]\nname = \"llm\"\ntype = \"command\"\ncommand = [\"python3\", \"judge.py\"]\nguideline_file = \"guide.md\"\n"), filepath.Join("cfg", "r.toml"))
	if err != nil {
		t.Fatal(err)
	}
	j := c.Judge
	if j == nil || j.Name != "llm" || j.Concurrency != 1 || j.Timeout.Seconds() != 60 || j.GuidelineFile != filepath.Join("cfg", "guide.md") || j.Dir != "cfg" || j.Sum == "" {
		t.Errorf("judge %+v", j)
	}
	if a := c.Thresholds.MinJudgeAgreement; a == nil || *a != 0.6 || c.Thresholds.MinJudgeOverlap != 40 {
		t.Errorf("policy %+v", c.Thresholds)
	}
	if c, _ := Parse([]byte("[judge]\nname = \"api\"\ntype = \"http\"\nurl = \"http://127.0.0.1:1/grade\"\n"), "r.toml"); c == nil || c.Judge.Concurrency != 4 {
		t.Errorf("an http judge's default concurrency: %+v", c)
	}
	const cmd = "[judge]\nname = \"llm\"\ntype = \"command\"\ncommand = [\"j\"]\n"
	for _, tc := range []struct{ in, want string }{
		{"[judge]\nname = \"llm\"\ntype = \"command\"\ncomand = [\"j\"]\n", "r.toml:4: judge.comand: unknown key; did you mean command?"},
		{"[judge]\ntype = \"command\"\ncommand = [\"j\"]\n", "r.toml:1: judge.name: required"},
		{"[judge]\nname = \"a b\"\ntype = \"command\"\ncommand = [\"j\"]\n", "r.toml:2: judge.name: \"a b\": a name without spaces"},
		{"[judge]\nname = \"llm\"\ntype = \"grpc\"\n", "r.toml:3: judge.type: unknown judge type \"grpc\""},
		{"[judge]\nname = \"llm\"\ntype = \"command\"\n", "r.toml:1: judge.command: required for a command judge"},
		{"[judge]\nname = \"llm\"\ntype = \"http\"\n", "r.toml:1: judge.url: required for an http judge"},
		{cmd + "url = \"http://x\"\n", "r.toml:5: judge.url: only an http judge takes it"},
		{cmd + "env = [\"GITHUB_TOKEN\"]\n", "r.toml:5: judge.env: GITHUB_TOKEN is one of the runner's credentials"},
		{cmd + "guideline = \"x\"\nguideline_file = \"g.md\"\n", "r.toml:6: judge.guideline_file: give the guideline as text or as a file, not both"},
		{cmd + "concurrency = -1\n", "r.toml:5: judge.concurrency: must not be negative"},
		{cmd + "concurrency = 4\n", "r.toml:5: judge.concurrency: 4: a command judge answers one line at a time"},
		{"[gate]\nmin_judge_agreement = 1.5\n", "r.toml:2: gate.min_judge_agreement: a Cohen's kappa within -1 and 1"},
		{"[gate]\nmin_judge_overlap = 0\n", "r.toml:2: gate.min_judge_overlap: must be at least 1"},
		{"[gate]\nmin_judge_agrement = 0.5\n", "r.toml:2: gate.min_judge_agrement: unknown key; did you mean min_judge_agreement?"},
	} {
		_, err := Parse([]byte(tc.in), "r.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s", tc.in, err, tc.want)
		}
	}
}
