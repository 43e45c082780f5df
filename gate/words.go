package gate

import "fmt"

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
