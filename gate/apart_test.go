package gate

import "testing"

// TestFixedApart: three decimals unless the value would read as its
// limit while it differs (#50 item 4: 0.02027 against 0.020).
func TestFixedApart(t *testing.T) {
	for _, c := range []struct {
		v, limit float64
		prec     int
		want     string
	}{
		{0.02027, 0.02, 3, "0.0203"},
		{0.0196, 0.02, 3, "0.0196"},
		{0.0204, 0.02, 3, "0.0204"},
		{0.020000004, 0.02, 3, "0.020000004"},
		{0.02, 0.02, 3, "0.020"},
		{0.5, 0.02, 3, "0.500"},
		{0.0234, 0.02, 3, "0.023"},
		{-0.0001, 0.05, 3, "0.000"},
		{2.004, 2, 2, "2.004"},
		{0.3996, 0.4, 3, "0.3996"},
	} {
		if got := FixedApart(c.v, c.limit, c.prec); got != c.want {
			t.Errorf("FixedApart(%v, %v, %d) = %q, want %q", c.v, c.limit, c.prec, got, c.want)
		}
	}
}
