package input

// ASCIISpace marks the bytes strings.Fields would split an ASCII line on.
var ASCIISpace = [256]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

// Fields6 splits a line on ASCII white space into up to six fields without
// allocating; n counts every field seen, up to seven.
func Fields6(line []byte) (f [6][]byte, n int) {
	start := -1
	for i, c := range line {
		if c <= ' ' && ASCIISpace[c] {
			if start >= 0 {
				if n < 6 {
					f[n] = line[start:i]
				}
				n++
				if n == 7 {
					return f, n
				}
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		if n < 6 {
			f[n] = line[start:]
		}
		n++
	}
	return f, n
}

// Fields6Fast splits the common shape, six fields apart by single spaces,
// in one tight pass; anything else (tabs, runs of blanks, control bytes,
// more or fewer fields) is left to fields6's general loop, which gives the
// same fields for the lines this one accepts.
func Fields6Fast(line []byte) (f [6][]byte, ok bool) {
	i := 0
	for k := 0; k < 6; k++ {
		start := i
		for i < len(line) && line[i] > ' ' {
			i++
		}
		if i == start {
			return f, false
		}
		f[k] = line[start:i]
		if k < 5 {
			if i >= len(line) || line[i] != ' ' {
				return f, false
			}
			i++
		}
	}
	return f, i == len(line)
}
