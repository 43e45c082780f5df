package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// TestValid: "sha256:" and 64 lowercase hex digits, nothing else.
func TestValid(t *testing.T) {
	a := "sha256:" + strings.Repeat("a", 64)
	for s, want := range map[string]bool{a: true, "sha256:" + strings.Repeat("A", 64): false, a[:70]: false, strings.TrimPrefix(a, "sha256:"): false} {
		if Valid(s) != want {
			t.Errorf("Valid(%q) = %v", s, !want)
		}
	}
}

// TestShortSumIsLenPrefixed pins the bytes a baseline's text and document
// hashes are made of ("len:part" for each part, as fmt's "%d:%s" writes
// it): a change here would read every stored baseline as edited.
func TestShortSumIsLenPrefixed(t *testing.T) {
	parts := []string{"q1", "", "Ünïcode text with: colons", strings.Repeat("x", 70000)}
	var b strings.Builder
	for _, p := range parts {
		fmt.Fprintf(&b, "%d:%s", len(p), p)
	}
	sum := sha256.Sum256([]byte(b.String()))
	if got, want := ShortSum(parts...), hex.EncodeToString(sum[:])[:16]; got != want {
		t.Errorf("ShortSum = %s, want %s", got, want)
	}
}
