package report

import (
	"io"
	"slices"
	"strings"
	"testing"
)

// Every registered format renders at least one document, and each
// document's table says its formats in the help texts' words.
func TestFormatRegistry(t *testing.T) {
	for _, f := range Formats {
		if len(Renders(f)) == 0 {
			t.Errorf("format %s renders nothing", f)
		}
	}
	if got, want := Renders(JUnit), []string{"a comparison", "an error report"}; !slices.Equal(got, want) {
		t.Errorf("Renders(junit) = %q, want %q", got, want)
	}
	for _, c := range []struct{ got, want string }{
		{Comparisons.List(), "text, json, markdown, junit, benchmark or html"},
		{Scorecards.List(), "text, json, markdown or benchmark"},
		{Scorecards.Choices(), "text|json|markdown|benchmark"},
		{ErrorReports.List(), FormatList()},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestRenderersParse(t *testing.T) {
	for in, want := range map[string]Format{"": Text, "MD": Markdown, "benchmark": Benchmark} {
		if got, err := Scorecards.Parse(in); err != nil || got != want {
			t.Errorf("Scorecards.Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	_, err := Scorecards.Parse("xml")
	if err == nil || err.Error() != `unknown format "xml" (want text, json, markdown or benchmark)` {
		t.Errorf("Scorecards.Parse(xml) = %v", err)
	}
	var b strings.Builder
	if err := Scorecards.Write(&b, nil, HTML); err == nil || !strings.Contains(err.Error(), "format html does not render a scorecard") {
		t.Errorf("Scorecards.Write(html) = %v", err)
	}
}

// A table naming a format the registry lacks, or one format twice, is
// refused when the package loads.
func TestNewRenderersRefuses(t *testing.T) {
	w := func(io.Writer, int) error { return nil }
	for name, list := range map[string][]Renderer[int]{
		"unregistered": {{Text, w}, {"pdf", w}},
		"twice":        {{Text, w}, {Text, w}},
		"none":         nil,
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("NewRenderers(%s) did not panic", name)
				}
				delete(documents, "test "+name)
			}()
			NewRenderers("test "+name, list...)
		})
	}
}
