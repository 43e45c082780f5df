package report

import (
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recallgate/recallgate/gate"
)

// VerdictError is the verdict of a run that could not finish (exit 2 or 3).
const VerdictError = string(gate.VerdictError)

// ErrorInfo is why a run could not finish: what an error report says in
// place of a comparison.
type ErrorInfo struct {
	// ExitCode is the run's exit code: 2 (usage, config or input) or 3
	// (a retriever or the machine).
	ExitCode int `json:"exit_code"`
	// Stage is the stage that failed (gate.StageConfig, …); Side base,
	// head or none.
	Stage string `json:"stage"`
	Side  string `json:"side"`
	// Queries are the queries the error names ([] for none).
	Queries []string `json:"queries"`
	// Message is the error; Fix what to do about it.
	Message string `json:"message"`
	Fix     string `json:"fix"`
}

// errorDoc is the JSON document of an error report.
type errorDoc struct {
	Tool    string `json:"tool"`
	Command string `json:"command"`
	Verdict string `json:"verdict"`
	ErrorInfo
	Gate    *GateInfo `json:"gate,omitempty"`
	BaseSHA string    `json:"base_sha,omitempty"`
	HeadSHA string    `json:"head_sha,omitempty"`
}

// stages and sides an error report may name.
var (
	errorStages = []string{gate.StageUsage, gate.StageConfig, gate.StageSet, gate.StageBaseTree, gate.StageRetrieve, gate.StageRunFile,
		gate.StageBaseline, gate.StageCompare, gate.StageReport, gate.StageInterrupt, gate.StageInput, gate.StageInternal}
	errorSides = []string{"base", "head", "none"}
)

// MaxErrorText bounds, in characters, an error report's message and fix:
// an error may quote what a pull request wrote (a run line's 900 KB key, a
// retriever's output), and a longer message would push the cause out of a
// sticky comment cut to GitHub's size limit. The full error is in the log.
const MaxErrorText = 4000

// FromError is the error report of a run of command that ended with err
// and exit code code (2 or 3): the stage, side and queries come from the
// error's chain (describe); the message and the fix are cut to
// MaxErrorText characters.
func FromError(command string, code int, err error) *CompareReport {
	f := describe(err, code == 3)
	return &CompareReport{Tool: "recallgate", Command: command, Verdict: VerdictError, Error: &ErrorInfo{
		ExitCode: code, Stage: f.Stage, Side: f.Side, Queries: list(f.Queries), Message: clip(f.Message, MaxErrorText), Fix: clip(f.Fix, MaxErrorText),
	}}
}

func (r *CompareReport) errorDoc() errorDoc {
	return errorDoc{Tool: r.Tool, Command: r.Command, Verdict: r.Verdict, ErrorInfo: *r.Error, Gate: r.Gate, BaseSHA: r.BaseSHA, HeadSHA: r.HeadSHA}
}

// validate checks an error report read back.
func (d *errorDoc) validate() error {
	if len(d.Command) == 0 || len(d.Command) > 32 || strings.IndexFunc(d.Command, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
		return fmt.Errorf("command %.40q: not a recallgate command", d.Command)
	}
	if d.ExitCode != 2 && d.ExitCode != 3 {
		return fmt.Errorf("exit_code %d: an error report is exit 2 or 3", d.ExitCode)
	}
	if !slices.Contains(errorStages, d.Stage) {
		return fmt.Errorf("stage %q: want one of %v", d.Stage, errorStages)
	}
	if !slices.Contains(errorSides, d.Side) {
		return fmt.Errorf("side %q: want one of %v", d.Side, errorSides)
	}
	if d.Message == "" {
		return fmt.Errorf("message: empty")
	}
	for _, f := range []struct{ key, v string }{{"message", d.Message}, {"fix", d.Fix}} {
		if n := utf8.RuneCountInString(f.v); n > MaxErrorText {
			return fmt.Errorf("%s: %d characters, more than an error report holds (%d)", f.key, n, MaxErrorText)
		}
	}
	if d.Queries == nil {
		d.Queries = []string{}
	}
	if err := plainAll("queries", d.Queries...); err != nil {
		return err
	}
	if err := validateGate(d.Gate); err != nil {
		return err
	}
	return validateSHAs(d.BaseSHA, d.HeadSHA)
}

// errorTitle is the headline's words: "recallgate could not run".
func errorTitle(r *CompareReport, esc func(string) string) string {
	title := "recallgate could not run"
	if l := r.Gate.Label(); l != "" {
		title = "recallgate · " + esc(l) + " could not run"
	}
	return title
}

// errorWhere says where it failed: "exit 3 · stage retrieve · head side ·
// queries q1, q2".
func errorWhere(e *ErrorInfo, esc func(string) string) string {
	parts := []string{fmt.Sprintf("exit %d", e.ExitCode), "stage " + e.Stage}
	if e.Side != "none" && e.Side != "" {
		parts = append(parts, e.Side+" side")
	}
	if len(e.Queries) > 0 {
		ids := mapIDs(e.Queries, esc)
		parts = append(parts, plural(len(ids), "query ", "queries ")+gate.JoinFirst(ids, 10))
	}
	return strings.Join(parts, " · ")
}

func errorText(w io.Writer, r *CompareReport) error {
	e := r.Error
	_, err := fmt.Fprintf(w, "%s: error (the run did not finish: no verdict, nothing scored)\n  %s\n  error: %s\n  fix: %s\n",
		errorTitle(r, terminal), errorWhere(e, terminal), terminal(e.Message), terminal(e.Fix))
	return err
}

func errorMarkdown(w io.Writer, r *CompareReport) error {
	e := r.Error
	var b strings.Builder
	fmt.Fprintf(&b, "### ⚠️ %s\n\n", errorTitle(r, EscapeMarkdown))
	fmt.Fprintf(&b, "The run ended with an error (%s), so there is no verdict: no query was scored and no earlier result stands.\n\n", errorWhere(e, mdCode))
	fmt.Fprintf(&b, "- **cause:** %s\n- **fix:** %s\n", EscapeMarkdown(flatten(e.Message)), EscapeMarkdown(flatten(e.Fix)))
	if r.HeadSHA != "" {
		fmt.Fprintf(&b, "\nCommit: %s\n", r.HeadSHA)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func errorJUnit(w io.Writer, r *CompareReport) error {
	e := r.Error
	type junitError struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string     `xml:"name,attr"`
		Classname string     `xml:"classname,attr"`
		Error     junitError `xml:"error"`
	}
	type suite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Properties []junitProperty `xml:"properties>property"`
		Case       testcase        `xml:"testcase"`
	}
	type suites struct {
		XMLName  xml.Name `xml:"testsuites"`
		Name     string   `xml:"name,attr"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Suite    suite    `xml:"testsuite"`
	}
	msg := xmlSafe(fmt.Sprintf("%s: %s", errorWhere(e, gate.Visible), flatten(e.Message)))
	doc := suites{Name: "recallgate", Tests: 1, Errors: 1, Suite: suite{
		Name: "recallgate " + xmlSafe(r.Command), Tests: 1, Errors: 1,
		Properties: []junitProperty{{"verdict", VerdictError}, {"exit_code", fmt.Sprint(e.ExitCode)}, {"stage", e.Stage}, {"side", e.Side}},
		Case: testcase{Name: "recallgate could not run", Classname: "recallgate.run", Error: junitError{
			Message: clip(msg, 500), Type: e.Stage, Text: xmlSafe(fmt.Sprintf("%s\nerror: %s\nfix: %s", errorWhere(e, gate.Visible), e.Message, e.Fix)),
		}},
	}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// xmlSafe drops the characters XML 1.0 cannot hold (control characters
// but tab and line feed) and shows invisible ones.
func xmlSafe(s string) string {
	return gate.Visible(strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, s))
}

var errorPage = template.Must(template.New("error").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>body{font:15px/1.5 system-ui,sans-serif;margin:2em auto;max-width:60em;padding:0 1em}h1{font-size:1.4em}dt{font-weight:bold}dd{margin:0 0 .8em 0;white-space:pre-wrap}</style>
</head><body>
<h1>⚠ {{.Title}}</h1>
<p>The run ended with an error, so there is no verdict: no query was scored and no earlier result stands.</p>
<dl><dt>where</dt><dd>{{.Where}}</dd><dt>cause</dt><dd>{{.Message}}</dd><dt>fix</dt><dd>{{.Fix}}</dd></dl>
</body></html>
`))

func errorHTML(w io.Writer, r *CompareReport) error {
	e := r.Error
	return errorPage.Execute(w, struct{ Title, Where, Message, Fix string }{
		errorTitle(r, gate.Visible), errorWhere(e, gate.Visible), gate.Visible(e.Message), gate.Visible(e.Fix)})
}

// errorJSON writes an error report's JSON document. A benchmark file gets
// it too: no trend point, and a chart tool reading it fails loudly instead
// of charting a zero.
func errorJSON(w io.Writer, r *CompareReport) error { return writeJSON(w, r.errorDoc()) }

// ErrorReports are the formats of the report of a run that could not
// finish: every format a comparison has.
var ErrorReports = NewRenderers("an error report",
	Renderer[*CompareReport]{Text, errorText},
	Renderer[*CompareReport]{JSON, errorJSON},
	Renderer[*CompareReport]{Markdown, errorMarkdown},
	Renderer[*CompareReport]{JUnit, errorJUnit},
	Renderer[*CompareReport]{Benchmark, errorJSON},
	Renderer[*CompareReport]{HTML, errorHTML},
)
