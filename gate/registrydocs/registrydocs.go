// Package registrydocs draws docs/rules.md's generated part from gate's
// metric and rule registries (gate.AllMetrics, gate.Rules): a table of
// every registered metric, then of every registered rule, in registry
// order. TestRegistryDocs keeps the page true; `go generate ./gate`
// rewrites it. It imports only gate.
package registrydocs

import (
	"fmt"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

// Markers of docs/rules.md's generated part: Tables between them.
const (
	Begin = "<!-- begin: generated from the metric and rule registries by `go generate ./gate`; do not edit -->"
	End   = "<!-- end: generated -->"
)

// Tables is docs/rules.md's generated part: a table of every
// registered metric, then of every registered rule, in registry order.
func Tables() string {
	var b strings.Builder
	b.WriteString("| metric | label | depth | better | per query | summarised as |\n|---|---|---|---|---|---|\n")
	for _, m := range gate.AllMetrics() {
		better := "lower"
		if m.Higher {
			better = "higher"
		}
		depth := m.Depth.String()
		if depth == "" {
			depth = "—"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", m.Key, strings.NewReplacer("@0", "@"+m.Depth.String()).Replace(m.Label(gate.Depth{})), depth, better, m.About, m.Summary)
	}
	b.WriteString("\n| rule | kind | metric | default | in segments | value | what it holds |\n|---|---|---|---|---|---|---|\n")
	for _, r := range gate.Rules() {
		seg := "no"
		if r.Segments {
			seg = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s | %s | %s | %s |\n", r.Key, r.Kind, r.Metric.Key, r.Default, seg, r.Config(), r.About)
	}
	return b.String()
}
