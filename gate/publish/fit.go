package publish

import (
	"fmt"
	"strings"
)

// Fit shortens a Markdown body to at most limit bytes: it cuts at a line
// break, closes any <details> left open and ends with a line saying how
// many lines were left out and where the full report is (where, e.g. "the
// job summary and the JSON report").
func Fit(body string, limit int, where string) string {
	if len(body) <= limit {
		return body
	}
	lines := strings.SplitAfter(body, "\n")
	note := func(n int) string {
		return fmt.Sprintf("\n…and %d more lines: the full report is in %s.\n", n, where)
	}
	kept, size, open := 0, 0, 0
	for i, l := range lines {
		closing := strings.Repeat("\n</details>\n", open+strings.Count(l, "<details>")-strings.Count(l, "</details>"))
		if size+len(l)+len(closing)+len(note(len(lines)-i))+16 > limit {
			break
		}
		size += len(l)
		open += strings.Count(l, "<details>") - strings.Count(l, "</details>")
		kept = i + 1
	}
	out := strings.Join(lines[:kept], "")
	out += note(len(lines) - kept)
	out += strings.Repeat("\n</details>\n", max(open, 0))
	return out
}
