package gate

import (
	"strconv"
	"strings"
)

// FixedApart is v with prec decimals, or with as many more (up to 12) as
// it takes not to read as limit does at that precision when the two
// differ: a drop of 0.02027 against a limit of 0.020 is "0.0203", not
// "0.020", so a rule's reason shows which side of its limit it is on.
// A value that rounds to zero has no minus sign.
func FixedApart(v, limit float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	for d := prec; v != limit && d <= 12; d++ {
		s = strconv.FormatFloat(v, 'f', d, 64)
		if s != strconv.FormatFloat(limit, 'f', d, 64) {
			break
		}
	}
	if strings.Trim(s, "-0.") == "" {
		return strings.TrimPrefix(s, "-")
	}
	return s
}
