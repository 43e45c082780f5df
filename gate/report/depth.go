package report

// DepthInfo is the pair of depths.
type DepthInfo struct {
	Candidates int `json:"candidates"`
	Context    int `json:"context"`
	// Defaults names the depths ("candidates", "context") that are the
	// defaults because no config was read; absent otherwise.
	Defaults []string `json:"defaults,omitempty"`
}

// Note is what the report adds after the depths (depthNote).
func (d DepthInfo) Note() string { return depthNote(d.Defaults) }

// depthNote is what a report adds after its depths when some are the
// defaults because no config was read (defaults: "candidates",
// "context"): " (defaults; no --config)" for both, naming the one
// otherwise; "" for none.
func depthNote(defaults []string) string {
	switch {
	case len(defaults) == 0:
		return ""
	case len(defaults) > 1:
		return " (defaults; no --config)"
	case defaults[0] == "candidates":
		return " (N the default; no --config)"
	}
	return " (k the default; no --config)"
}
