package gate

import (
	"fmt"
	"strings"
)

//go:generate go test -run TestRegistryDocs -write-docs .

// Markers of docs/rules.md's generated part: RegistryDocs between them.
const (
	DocsBegin = "<!-- begin: generated from the metric and rule registries by `go generate ./gate`; do not edit -->"
	DocsEnd   = "<!-- end: generated -->"
)

// RegistryDocs is docs/rules.md's generated part: a table of every
// registered metric, then of every registered rule, in registry order.
func RegistryDocs() string {
	var b strings.Builder
	b.WriteString("| metric | label | depth | better | per query | summarised as |\n|---|---|---|---|---|---|\n")
	for _, m := range metrics {
		better := "lower"
		if m.Higher {
			better = "higher"
		}
		depth := m.Depth.String()
		if depth == "" {
			depth = "—"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", m.Key, strings.NewReplacer("@0", "@"+m.Depth.String()).Replace(m.Label(Depth{})), depth, better, m.About, m.Summary)
	}
	b.WriteString("\n| rule | kind | metric | default | in segments | value | what it holds |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rules {
		seg := "no"
		if r.Segments {
			seg = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s | %s | %s | %s |\n", r.Key, r.Kind, r.Metric.Key, r.Default, seg, r.Config(), r.About)
	}
	return b.String()
}
