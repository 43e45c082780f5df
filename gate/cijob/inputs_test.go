package cijob

import (
	"errors"
	"flag"
	"strings"
	"testing"
)

// getenvOf reads a map as the environment.
func getenvOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestInputsFlagsWinOverVariables(t *testing.T) {
	fs := flag.NewFlagSet("ci", flag.ContinueOnError)
	read := Flags(fs)
	if err := fs.Parse([]string{"--mode", "pr", "--comment", "on-change"}); err != nil {
		t.Fatal(err)
	}
	in, err := read(getenvOf(map[string]string{"RECALLGATE_CONFIG": "ci/gate.toml", "RECALLGATE_MODE": "drift", "RECALLGATE_FAIL_ON_REGRESSION": "false", "RECALLGATE_ACCEPT_CHANGED_INPUTS": "true"}))
	if err != nil || in.Config != "ci/gate.toml" || in.Mode != "pr" || in.Comment != "on-change" || in.FailOnRegression || in.JUnit != "recallgate-junit.xml" || !in.AcceptChangedInputs {
		t.Fatalf("inputs %+v, %v", in, err)
	}
	for vars, want := range map[string]string{
		"RECALLGATE_MODE=nightly":                "RECALLGATE_MODE (--mode) must be pr, drift or auto",
		"RECALLGATE_COMMENT=sometimes":           "RECALLGATE_COMMENT",
		"RECALLGATE_FAIL_ON_REGRESSION=yes!":     "RECALLGATE_FAIL_ON_REGRESSION (--fail-on-regression) must be true or false",
		"RECALLGATE_BASE_RESULTS=b.jsonl":        "go together",
		"RECALLGATE_NAME=a\nb":                   "RECALLGATE_NAME",
		"RECALLGATE_ACCEPT_CHANGED_INPUTS=maybe": "RECALLGATE_ACCEPT_CHANGED_INPUTS (--accept-changed-inputs) must be true or false",
	} {
		k, v, _ := strings.Cut(vars, "=")
		_, err := ReadInputs(getenvOf(map[string]string{k: v}))
		var ie *InvalidInputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", vars, err, want)
		}
	}
}
