package gate

import (
	"fmt"
	"strings"
)

// Plural picks the singular or plural form for n ("1 query", "2 queries").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// JoinFirst joins up to n ids with ", " and says how many were left out.
func JoinFirst(ids []string, n int) string {
	if len(ids) == 0 {
		return "none"
	}
	out := ""
	for i, id := range ids {
		if i == n {
			return fmt.Sprintf("%s, …and %d more", out, len(ids)-n)
		}
		if i > 0 {
			out += ", "
		}
		out += id
	}
	return out
}

// SayOr says a list as a sentence does: "a, b or c" ("a" for one).
func SayOr(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
