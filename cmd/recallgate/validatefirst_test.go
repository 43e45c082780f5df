package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestValidateAsksTheFirstQuery: validate --config sends the started
// service the set's first query after the preflight and says how many
// hits it answered; a service whose index is empty (its docs folder
// holds nothing) answers the preflight, and validate says the first
// query found no hits: a warning (exit 0), an error under --strict
// (exit 3).
func TestValidateAsksTheFirstQuery(t *testing.T) {
	f, _ := serviceRepo(t, startTable)
	cfg := filepath.Join(f.dir, "recallgate.toml")
	code, out, errs := rg(t, "validate", "--config", cfg)
	if code != 0 || !strings.Contains(out, "ok: retriever (this checkout) answered q1 with 2 hits\n") {
		t.Errorf("validate over the twelve documents: exit %d, want 0 and q1's two hits\n%s\n%s", code, out, errs)
	}
	for i := 1; i <= 12; i++ {
		if err := os.Remove(filepath.Join(f.dir, "docs", "d"+twoDigits(i)+".txt")); err != nil {
			t.Fatal(err)
		}
	}
	empty := regexp.MustCompile(`warning: retriever \(this checkout\): http://127\.0\.0\.1:\d+/search \(the service started by python3 service\.py [^)]*\) answered q1 with no hits: is its index empty\?`)
	code, out, errs = rg(t, "validate", "--config", cfg)
	if code != 0 || !empty.MatchString(out) {
		t.Errorf("validate over an empty service: exit %d, want 0 and a warning that q1 found nothing\n%s\n%s", code, out, errs)
	}
	code, out, errs = rg(t, "validate", "--config", cfg, "--strict")
	if code != 3 || !strings.Contains(errs, "answered q1 with no hits: is its index empty?") {
		t.Errorf("validate --strict over an empty service: exit %d, want 3\n%s\n%s", code, out, errs)
	}
	if code, _, errs := rg(t, "validate", "--set", filepath.Join(f.dir, "set.jsonl"), "--strict"); code != 2 || !strings.Contains(errs, "give --config") {
		t.Errorf("validate --strict without --config: exit %d, want 2\n%s", code, errs)
	}
}

// TestValidateNamesWhatItStarted: on a pull-request branch with one
// [retriever], validate names the service it started as the checkout's
// retriever, never "base side"; with --base-ref it starts each side's
// service, the base commit's in that commit's tree, and names each.
func TestValidateNamesWhatItStarted(t *testing.T) {
	f, dump := serviceRepo(t, startTable)
	f.git("checkout", "-q", "-b", "change")
	f.edit("service.py", "CAP = 50", "CAP = 1")
	f.commit("search: answer one hit")
	cfg := filepath.Join(f.dir, "recallgate.toml")
	code, out, errs := rg(t, "validate", "--config", cfg)
	if code != 0 || strings.Contains(out, "base side") || !regexp.MustCompile(`(?m)^ok: retriever \(this checkout\): http://127\.0\.0\.1:\d+/search .* answered the preflight query$`).MatchString(out) ||
		!strings.Contains(out, "ok: retriever (this checkout) answered q1 with 1 hit\n") {
		t.Errorf("validate with one [retriever]: exit %d, want the checkout's retriever named\n%s\n%s", code, out, errs)
	}
	code, out, errs = rg(t, "validate", "--config", cfg, "--base-ref", f.base)
	for _, want := range []string{"ok: base side (the tree of commit " + f.base[:12] + ") answered q1 with 2 hits\n", "ok: head side (this checkout) answered q1 with 1 hit\n"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("validate --base-ref: exit %d, want %q\n%s\n%s", code, want, out, errs)
		}
	}
	checkNoneLeft(t, dumps(t, dump))
}

// twoDigits is i as two digits.
func twoDigits(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }
