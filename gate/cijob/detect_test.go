package cijob

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/cli"
)

// TestCIsDetect: the first CI whose variable is set runs, with the inputs
// (a bad one a usage error handed to the job), a CI without flags refuses
// them, and in no CI the usage error names every CI's variables.
func TestCIsDetect(t *testing.T) {
	var ran []string
	var gotErr error
	ci := func(name, variable, noFlags string) CI {
		return CI{Name: name, Variables: variable + "=true", NoFlags: noFlags,
			Detect: func(getenv func(string) string) bool { return getenv(variable) == "true" },
			Run: func(_ context.Context, in Inputs, inErr error) error {
				ran, gotErr = append(ran, name+":"+in.Mode), inErr
				return nil
			}}
	}
	table := CIs{ci("Alpha CI", "ALPHA", "Alpha takes no flags"), ci("Beta CI", "BETA", "")}
	inputs := func(getenv func(string) string) (Inputs, error) {
		if getenv("RECALLGATE_MODE") == "bad" {
			return Inputs{Mode: "bad"}, errors.New("RECALLGATE_MODE bad")
		}
		return Inputs{Mode: "pr"}, nil
	}
	for _, tc := range []struct {
		name   string
		env    map[string]string
		nflags int
		ran    string
		err    string
	}{
		{"both set: the first wins", map[string]string{"ALPHA": "true", "BETA": "true"}, 0, "Alpha CI:", ""},
		{"beta with inputs", map[string]string{"BETA": "true"}, 1, "Beta CI:pr", ""},
		{"alpha refuses flags", map[string]string{"ALPHA": "true"}, 1, "", "Alpha takes no flags"},
		{"none", map[string]string{"BETA": "false"}, 0, "", "recallgate ci runs inside a CI job and neither is set here: Alpha CI (ALPHA=true) or Beta CI (BETA=true); on your machine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran = nil
			err := table.Run(context.Background(), getenvOf(tc.env), tc.nflags, inputs)
			var ue *cli.UsageError
			switch {
			case tc.err == "" && err != nil, tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &ue)):
				t.Errorf("err %v, want a usage error with %q", err, tc.err)
			case strings.Join(ran, ",") != tc.ran:
				t.Errorf("ran %q, want %q", ran, tc.ran)
			}
		})
	}
	// A bad input reaches the job as a usage error, to publish.
	ran = nil
	if err := table.Run(context.Background(), getenvOf(map[string]string{"BETA": "true", "RECALLGATE_MODE": "bad"}), 0, inputs); err != nil || len(ran) != 1 {
		t.Fatalf("bad input: %v, ran %q", err, ran)
	}
	if ue := new(cli.UsageError); !errors.As(gotErr, &ue) || !strings.Contains(gotErr.Error(), "RECALLGATE_MODE bad") {
		t.Errorf("the job got %v, want a usage error", gotErr)
	}
}
