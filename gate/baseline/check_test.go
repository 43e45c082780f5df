package baseline

import (
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

// TestCheckInputs: changed, unrecorded and unknown-now inputs.
func TestCheckInputs(t *testing.T) {
	a, b := "sha256:"+strings.Repeat("a", 64), "sha256:"+strings.Repeat("b", 64)
	c := checkInputs(map[string]string{gate.InputSet: a, gate.InputRetriever: a}, map[string]string{gate.InputSet: b, gate.InputRetriever: a, gate.InputCorpus: a})
	if len(c.Changed) != 1 || c.Changed[0].String() != "set aaaaaaaaaaaa → bbbbbbbbbbbb" || strings.Join(c.Unrecorded, ",") != "corpus" {
		t.Errorf("%+v", c)
	}
	// A corpus recorded then but not known now is not compared.
	if c := checkInputs(map[string]string{gate.InputCorpus: a}, map[string]string{gate.InputSet: a}); len(c.Changed) != 0 || strings.Join(c.Unrecorded, ",") != "set" {
		t.Errorf("%+v", c)
	}
}
