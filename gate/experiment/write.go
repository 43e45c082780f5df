package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/report"
)

// Renderers are the experiment's output formats, the default first.
var Renderers = report.NewRenderers("an experiment",
	report.Renderer[*Report]{Format: report.Text, Write: writeText},
	report.Renderer[*Report]{Format: report.JSON, Write: func(w io.Writer, r *Report) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}},
	report.Renderer[*Report]{Format: report.Markdown, Write: writeMarkdown},
	report.Renderer[*Report]{Format: report.HTML, Write: writeHTML},
)

// Formats are the experiment's output formats, in the order help lists them.
var Formats = Renderers.Formats()

// ParseFormat accepts one of Formats ("md" is short for markdown).
func ParseFormat(s string) (report.Format, error) { return Renderers.Parse(s) }

// Write renders the report in format f.
func Write(w io.Writer, r *Report, f report.Format) error { return Renderers.Write(w, r, f) }

// WriteFiles writes the report in format f to out (or s.Stdout when out
// is ""), and its JSON to jsonOut when given, each by report.WriteTo's
// rules.
func WriteFiles(s atomicfile.Streams, r *Report, f report.Format, out, jsonOut string) error {
	if jsonOut != "" {
		if err := report.WriteTo(s, jsonOut, func(w io.Writer) error { return Write(w, r, report.JSON) }); err != nil {
			return err
		}
	}
	return report.WriteTo(s, out, func(w io.Writer) error { return Write(w, r, f) })
}

// ReadReport reads an experiment's JSON report back. It may come from a
// pull request's job, so it is parsed, not trusted: at most
// report.MaxReportBytes, no unknown fields or duplicate keys, the tool and
// command recallgate's, one variant a name, and no name or id carrying a
// control character. Every renderer escapes the text that remains.
func ReadReport(rd io.Reader, name string) (*Report, error) {
	data, err := gate.ReadAllLimited(rd, name, "report", report.MaxReportBytes)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := gate.DecodeStrict(data, &r); err != nil {
		return nil, &gate.InputError{File: name, Err: fmt.Errorf("read experiment report: %w", err)}
	}
	if err := r.validate(); err != nil {
		return nil, &gate.InputError{File: name, Err: fmt.Errorf("experiment report refused: %w", err)}
	}
	return &r, nil
}

// validate checks what the renderers rely on.
func (r *Report) validate() error {
	if r.Tool != "recallgate" || r.Command != "experiment" {
		return fmt.Errorf("not a recallgate experiment report (tool %.40q, command %.40q)", r.Tool, r.Command)
	}
	if len(r.Variants) == 0 {
		return errors.New("no variants")
	}
	names := map[string]bool{}
	for _, v := range r.Variants {
		if names[v.Name] {
			return fmt.Errorf("variant %.60q twice", v.Name)
		}
		names[v.Name] = true
		if v.Name == "" || hasControl(v.Name) {
			return fmt.Errorf("variant name %.60q: empty or a control character", v.Name)
		}
		for _, id := range slices.Concat(v.Regressed, v.Improved, v.ZeroRecall.New, v.ZeroRecall.Recovered) {
			if hasControl(id) {
				return fmt.Errorf("variant %.60q: query id %.60q holds a control character", v.Name, id)
			}
		}
		if err := report.ValidateBounds(v.Bound, r.Depth); err != nil {
			return fmt.Errorf("variant %.60q: %w", v.Name, err)
		}
		if !slices.Contains([]string{string(gate.Pass), string(gate.Fail), string(gate.Inconclusive)}, v.Gate.Verdict) || v.Gate.Pass != (v.Gate.Verdict == string(gate.Pass)) {
			return fmt.Errorf("variant %.60q: gate verdict %.20q", v.Name, v.Gate.Verdict)
		}
	}
	if err := r.validateFusion(names); err != nil {
		return err
	}
	for _, s := range r.Segments {
		if len(s.Recall) != len(r.Variants) {
			return fmt.Errorf("segment %.60q: %d recall values for %d variants", s.Label, len(s.Recall), len(r.Variants))
		}
		for _, w := range s.Winners {
			if !names[w] {
				return fmt.Errorf("segment %.60q: winner %.60q is no variant", s.Label, w)
			}
		}
	}
	return nil
}

// hasControl reports a control character (a line break, an escape).
func hasControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }) >= 0
}
