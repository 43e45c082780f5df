package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestValidateSaysWhatTheSetCanCatch: validate says the smallest mean
// recall drop the user's own set can call significant, in the one
// set-size wording the README and the reports use. Ten answerable
// queries: four with one gold document, six with two; six must move the
// same way (2/2^6 < 0.05, 2/2^5 is not), the six smallest steps are 1/2
// each, so 6 × 0.5 / 10 = 0.300. Three queries can call nothing.
func TestValidateSaysWhatTheSetCanCatch(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		gold := fmt.Sprintf(`{"d%02d":1}`, i)
		if i > 4 {
			gold = fmt.Sprintf(`{"d%02d":1,"e%02d":2}`, i, i)
		}
		fmt.Fprintf(&b, `{"id":"q%02d","query":"question %d","gold":%s}`+"\n", i, i, gold)
	}
	b.WriteString(`{"id":"q11","query":"no answer","gold":{},"unanswerable":true}` + "\n")
	set := write(t, dir, "set.jsonl", b.String())
	code, out, errs := rg(t, "validate", "--set", set)
	for _, want := range []string{
		"health: only 10 answerable queries: one query flipping moves mean recall by 0.100; about thirty queries catch large drops, fifty to two hundred the small ones\n",
		"power: the smallest mean recall drop these 10 answerable queries can call significant is 0.300 (6 queries each losing one of their relevant gold documents, sign-flip p < 0.05)\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("validate: exit %d, want %q\n%s\n%s", code, want, out, errs)
		}
	}
	few := write(t, dir, "few.jsonl", strings.Join(strings.SplitAfter(b.String(), "\n")[:3], ""))
	if code, out, _ := rg(t, "validate", "--set", few); code != 0 || !strings.Contains(out, "power: no drop can be significant on 3 answerable queries: not even all of them moving the same way reaches p < 0.05") {
		t.Errorf("validate on three queries: exit %d\n%s", code, out)
	}
	for _, doc := range []string{"../../README.md", "../../docs/set.md"} {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		if flat := strings.ToLower(strings.Join(strings.Fields(string(text)), " ")); !strings.Contains(flat, "about thirty catch large drops, fifty to two hundred the small ones") || strings.Contains(flat, "thirty is plenty") {
			t.Errorf("%s does not give the one set-size wording", doc)
		}
	}
}
