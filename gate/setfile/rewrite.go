package setfile

import (
	"fmt"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

// ReplaceQueryLines is data (a JSONL set file's bytes) with the line of
// each query of qs (Query.Line) replaced by its MarshalLine, every other
// byte as it was: the one way a set file is rewritten (the labelling
// page, the judge).
func ReplaceQueryLines(data []byte, qs ...*gate.Query) ([]byte, error) {
	lines := strings.SplitAfter(string(data), "\n")
	for _, q := range qs {
		if q.Line < 1 || q.Line > len(lines) {
			return nil, fmt.Errorf("query %s: line %d is not in the file", q.ID, q.Line)
		}
		line, err := q.MarshalLine()
		if err != nil {
			return nil, err
		}
		nl := ""
		if strings.HasSuffix(lines[q.Line-1], "\n") {
			nl = "\n"
		}
		lines[q.Line-1] = string(line) + nl
	}
	return []byte(strings.Join(lines, "")), nil
}
