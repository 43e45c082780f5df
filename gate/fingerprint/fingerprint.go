// Package fingerprint holds the hashes recallgate writes: a fingerprint
// ("sha256:" and 64 hex digits) checked and shortened for reports, and the
// short sum (16 hex digits of a length-prefixed hash) a drift baseline
// records of a query's text and of a document. It imports only the
// standard library.
package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// Short is a fingerprint as reports show it: its first 12 hex digits,
// without the "sha256:" prefix.
func Short(fp string) string {
	fp = strings.TrimPrefix(fp, "sha256:")
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}

// ShortSum is the first 16 hex digits of the hash of the length-prefixed
// parts (each "len:part", as fmt's "%d:%s" writes it): a query's text hash
// (gate.TextHash) and a document's (corpus.DocHash) as a baseline records
// them.
func ShortSum(parts ...string) string {
	n := 0
	for _, part := range parts {
		n += len(part) + 21
	}
	b := make([]byte, 0, n)
	for _, part := range parts {
		b = AppendLenPrefixed(b, part)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// AppendLenPrefixed appends "len:part" to b, as fmt's "%d:%s" writes it.
// A hash is fed through a buffer this fills, which its caller reuses:
// io.WriteString would copy each part into a new slice, since a SHA-256
// hash has no WriteString.
func AppendLenPrefixed(b []byte, part string) []byte {
	b = append(strconv.AppendInt(b, int64(len(part)), 10), ':')
	return append(b, part...)
}

// IsShortSum reports whether s is a ShortSum (a corpus.DocHash or a
// gate.TextHash): 16 lowercase hex digits.
func IsShortSum(s string) bool {
	return len(s) == 16 && Valid("sha256:"+s+strings.Repeat("0", 48))
}

// Valid reports whether s is a fingerprint as recallgate writes them:
// "sha256:" and 64 lowercase hex digits.
func Valid(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
