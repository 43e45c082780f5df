package label

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

// ErrExportFormat is returned by Export for a format it does not write.
var ErrExportFormat = errors.New("export format")

// Export writes the set's labels in format: "qrels" (TREC: `qid 0 docid
// grade`, every judged document, zeros included, queries in the set's
// order and documents sorted) or "jsonl" (the set's own lines). It
// returns a line for each query qrels cannot carry (unanswerable, or
// nothing judged yet).
func Export(w io.Writer, set *gate.Set, format string) (left []string, err error) {
	bw := bufio.NewWriter(w)
	switch format {
	case "qrels":
		for _, q := range set.Queries {
			// Every judged document: gold holds the relevant ones, the
			// judgements and decisions the ones judged 0 as well.
			judged := q.GradesByDoc()
			for d := range q.Gold {
				judged[d] = nil
			}
			for d := range q.Adjudicated {
				judged[d] = nil
			}
			if q.Unanswerable || len(judged) == 0 {
				why := "nothing judged yet"
				if q.Unanswerable {
					why = "unanswerable, which qrels cannot say"
				}
				left = append(left, fmt.Sprintf("%s: %s; left out of the qrels", q.ID, why))
				continue
			}
			docs := make([]string, 0, len(judged))
			for d := range judged {
				if strings.ContainsAny(q.ID+d, " \t") {
					return nil, fmt.Errorf("query %q, document %q: qrels columns are split on white space, and this id holds some", gate.ClipID(q.ID), gate.ClipID(d))
				}
				docs = append(docs, d)
			}
			sort.Strings(docs)
			for _, d := range docs {
				fmt.Fprintf(bw, "%s 0 %s %d\n", q.ID, d, q.Gold[d])
			}
		}
	case "jsonl":
		for _, q := range set.Queries {
			line, err := q.MarshalLine()
			if err != nil {
				return nil, fmt.Errorf("query %s: %w", q.ID, err)
			}
			bw.Write(line)
			bw.WriteByte('\n')
		}
	default:
		return nil, fmt.Errorf("%w %q: want qrels or jsonl", ErrExportFormat, format)
	}
	return left, bw.Flush()
}
