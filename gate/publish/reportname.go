package publish

import "strings"

// ReportName is the JSON report file of one CI step: recallgate-report.json
// with the step's (or job's) name and the gate's label (its name or config
// path, "" for the root recallgate.toml) in it when known, each reduced to
// letters, digits and . _ - (at most 64 bytes each), so two gate steps
// never share one file.
func ReportName(step, gate string) string {
	name := "recallgate-report"
	last := ""
	for _, part := range []string{step, gate} {
		if p := fileSafe(part); p != "" && p != last {
			name += "-" + p
			last = p
		}
	}
	return name + ".json"
}

// fileSafe keeps letters, digits, . _ and -, turning the rest into _, at
// most 64 bytes.
func fileSafe(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
	s = strings.Trim(s, ".")
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}
