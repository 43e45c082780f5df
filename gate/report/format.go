package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

// Format names an output format.
type Format string

// The output formats. Each is registered once, in formats; what it
// renders is the Renderers tables that list it.
const (
	Text     Format = "text"
	JSON     Format = "json"
	Markdown Format = "markdown"
	// JUnit is JUnit XML: one test case per query, regressions as failures.
	JUnit Format = "junit"
	// Benchmark is github-action-benchmark's customBiggerIsBetter JSON.
	Benchmark Format = "benchmark"
	// HTML is one self-contained page with a sortable, filterable table.
	HTML Format = "html"
)

// formats is the format registry: every format once, with the other names
// --format takes for it, in the order help texts list them.
var formats = []struct {
	name    Format
	aliases []string
}{
	{Text, nil},
	{JSON, nil},
	{Markdown, []string{"md"}},
	{JUnit, []string{"xml"}},
	{Benchmark, nil},
	{HTML, nil},
}

// Formats are every output format, in the order help texts list them.
var Formats = func() []Format {
	out := make([]Format, len(formats))
	for i, f := range formats {
		out[i] = f.name
	}
	return out
}()

// FormatList is Formats as a sentence says it: "text, json, … or html".
func FormatList() string { return sayList(Formats) }

// ParseFormat accepts the name of any registered format, or another name
// of one ("md" is short for markdown); "" is text.
func ParseFormat(s string) (Format, error) {
	if s == "" {
		return Text, nil
	}
	if f, ok := lookupFormat(s); ok {
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, FormatList())
}

// lookupFormat finds a format by its name or another name, in any case.
func lookupFormat(s string) (Format, bool) {
	s = strings.ToLower(s)
	for _, f := range formats {
		if string(f.name) == s || slices.Contains(f.aliases, s) {
			return f.name, true
		}
	}
	return "", false
}

// sayList says formats as a sentence: "a, b or c".
func sayList(fs []Format) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return gate.SayOr(names)
}

// Renderer draws one kind of document in one format.
type Renderer[T any] struct {
	Format Format
	Write  func(w io.Writer, doc T) error
}

// Renderers are how one kind of document (a comparison, a scorecard, an
// experiment, a history) is drawn: one Renderer a registered format, the
// first the default that "" names. A command parses --format with Parse,
// says the formats with List and writes with Write; none switches on a
// format.
type Renderers[T any] struct {
	doc  string
	list []Renderer[T]
}

// documents are the Renderers tables made, by the document they draw:
// what each format renders (Renders).
var documents = map[string][]Format{}

// NewRenderers makes the table of a document's formats, in the order help
// texts list them. A format that is not registered, or listed twice, is a
// programming error: it panics when the package loads.
func NewRenderers[T any](doc string, list ...Renderer[T]) *Renderers[T] {
	if len(list) == 0 {
		panic("report: " + doc + " has no format")
	}
	if _, ok := documents[doc]; ok {
		panic("report: " + doc + " has two tables of formats")
	}
	r := &Renderers[T]{doc: doc, list: list}
	for i, x := range list {
		if !slices.Contains(Formats, x.Format) || x.Write == nil {
			panic(fmt.Sprintf("report: %s: format %q is not registered", doc, x.Format))
		}
		if slices.ContainsFunc(list[:i], func(y Renderer[T]) bool { return y.Format == x.Format }) {
			panic(fmt.Sprintf("report: %s: format %q twice", doc, x.Format))
		}
	}
	documents[doc] = r.Formats()
	return r
}

// Renders lists the documents format f draws, sorted.
func Renders(f Format) []string {
	var out []string
	for doc, fs := range documents {
		if slices.Contains(fs, f) {
			out = append(out, doc)
		}
	}
	slices.Sort(out)
	return out
}

// Formats are the table's formats, the default first.
func (r *Renderers[T]) Formats() []Format {
	out := make([]Format, len(r.list))
	for i, x := range r.list {
		out[i] = x.Format
	}
	return out
}

// Default is the format "" names.
func (r *Renderers[T]) Default() Format { return r.list[0].Format }

// Has reports whether the table draws format f.
func (r *Renderers[T]) Has(f Format) bool {
	return slices.ContainsFunc(r.list, func(x Renderer[T]) bool { return x.Format == f })
}

// List says the table's formats as a sentence: "text, json, … or html".
func (r *Renderers[T]) List() string { return sayList(r.Formats()) }

// Parse accepts the name (or another name) of one of the table's formats;
// "" is the default.
func (r *Renderers[T]) Parse(s string) (Format, error) {
	if s == "" {
		return r.Default(), nil
	}
	if f, ok := lookupFormat(s); ok && r.Has(f) {
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, r.List())
}

// Write draws doc in format f ("" is the default).
func (r *Renderers[T]) Write(w io.Writer, doc T, f Format) error {
	if f == "" {
		f = r.Default()
	}
	for _, x := range r.list {
		if x.Format == f {
			return x.Write(w, doc)
		}
	}
	return fmt.Errorf("format %s does not render %s (want %s)", f, r.doc, r.List())
}

// Choices say the table's formats as a usage line does: "text|json|html".
func (r *Renderers[T]) Choices() string {
	names := make([]string, len(r.list))
	for i, x := range r.list {
		names[i] = string(x.Format)
	}
	return strings.Join(names, "|")
}
