package visible

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.mau.fi/util/confusable"
)

// InvisibleRanges are the code points that change how text reads without
// showing themselves: Unicode's Default_Ignorable_Code_Point set (zero-width
// space, joiners, word joiner, soft hyphen, byte-order mark, variation
// selectors, tag characters, Hangul fillers, …), which holds every bidi
// control (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069: the
// Trojan Source characters), and the visible characters drawn blank (the
// braille pattern blank U+2800; the Hangul fillers U+115F, U+1160, U+3164
// and U+FFA0 are in both). Each pair is an inclusive range.
var InvisibleRanges = [][2]rune{
	{0x00AD, 0x00AD}, {0x034F, 0x034F}, {0x061C, 0x061C}, {0x115F, 0x1160},
	{0x17B4, 0x17B5}, {0x180B, 0x180F}, {0x200B, 0x200F}, {0x202A, 0x202E},
	{0x2060, 0x206F}, {0x2800, 0x2800}, {0x3164, 0x3164}, {0xFE00, 0xFE0F}, {0xFEFF, 0xFEFF},
	{0xFFA0, 0xFFA0}, {0xFFF0, 0xFFF8}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A},
	{0xE0000, 0xE0FFF},
}

// IsInvisible reports whether r is in InvisibleRanges.
func IsInvisible(r rune) bool {
	if r < 0x00AD {
		return false
	}
	for _, rg := range InvisibleRanges {
		if r < rg[0] {
			return false
		}
		if r <= rg[1] {
			return true
		}
	}
	return false
}

// IsBidiControl reports whether r is one of the bidi controls, the
// characters that reorder how the text around them is displayed.
func IsBidiControl(r rune) bool {
	return r == 0x061C || r == 0x200E || r == 0x200F || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// shaping reports whether r is a visible character of a script or symbol
// set that joiners and variation selectors act on: not ASCII, not a space,
// not itself invisible.
func shaping(r rune) bool {
	return r >= utf8.RuneSelf && !unicode.IsSpace(r) && !IsInvisible(r)
}

// excused reports whether the invisible rune r, between prev and next (-1
// at either end), does visible work there and is left as written: a
// zero-width joiner or non-joiner between two such characters (Persian,
// Indic scripts, emoji sequences), a variation selector right after one
// (the emoji form of ⚠️). Anywhere else, next to ASCII or at an edge, they
// render as nothing.
func excused(prev, r, next rune) bool {
	switch {
	case r == 0x200C || r == 0x200D:
		return prev >= 0 && next >= 0 && shaping(prev) && shaping(next)
	case r >= 0xFE00 && r <= 0xFE0F:
		return prev >= 0 && shaping(prev)
	}
	return false
}

// VisibleMark is how Visible shows an invisible or control character.
func VisibleMark(r rune) string { return fmt.Sprintf("⟨U+%04X⟩", r) }

// Visible shows every invisible character of s (InvisibleRanges, bidi
// controls included, unless excused by its neighbours) and every control
// character but tab and line breaks as a visible mark such as ⟨U+202E⟩, so
// text from an eval set, a retriever or an untrusted report reads as what
// it is in a comment, a summary, an annotation or a terminal. Invalid
// UTF-8 is left as it is.
func Visible(s string) string {
	if !needsMark(s) {
		return s
	}
	var b strings.Builder
	prev := rune(-1)
	for i, r := range s {
		size := utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, size = utf8.DecodeRuneInString(s[i:])
		}
		next := rune(-1)
		if i+size < len(s) {
			next, _ = utf8.DecodeRuneInString(s[i+size:])
		}
		if marked(prev, r, next) {
			b.WriteString(VisibleMark(r))
		} else {
			b.WriteString(s[i : i+size])
		}
		prev = r
	}
	return b.String()
}

func marked(prev, r, next rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	if unicode.IsControl(r) {
		return true
	}
	return IsInvisible(r) && !excused(prev, r, next)
}

// needsMark is the fast path of Visible: ASCII text without control
// characters has nothing to mark.
func needsMark(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F {
			return true
		}
	}
	return false
}

// InvisibleChar finds the first invisible character of s that Visible
// would mark (bidi controls always): the rune, its byte offset, and
// whether there is one. Names (ids, segments, sources) with one are
// refused: they would read as another name.
func InvisibleChar(s string) (rune, int, bool) {
	prev := rune(-1)
	for i, r := range s {
		if IsInvisible(r) {
			next := rune(-1)
			if j := i + utf8.RuneLen(r); j < len(s) {
				next, _ = utf8.DecodeRuneInString(s[j:])
			}
			if !excused(prev, r, next) {
				return r, i, true
			}
		}
		prev = r
	}
	return 0, 0, false
}

// LookAlikeRanges are the visible characters that read as others: the
// no-break and wide spaces (they read as a space) and the full-width ASCII
// forms U+FF01–U+FF5E (ｄ reads as d). FoldName folds them; VisibleID marks
// them. Each pair is an inclusive range, in order.
var LookAlikeRanges = [][2]rune{
	{0x00A0, 0x00A0}, {0x2000, 0x200A}, {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}, {0xFF01, 0xFF5E},
}

// IsLookAlike reports whether r is in LookAlikeRanges.
func IsLookAlike(r rune) bool {
	for _, rg := range LookAlikeRanges {
		if r < rg[0] {
			return false
		}
		if r <= rg[1] {
			return true
		}
	}
	return false
}

// FoldName is s as a reader sees it, for telling apart names that must
// not read the same: invisible characters dropped (excused ones too),
// full-width ASCII forms (U+FF01–U+FF5E) turned into ASCII, and the wide
// and no-break spaces into a space (LookAlikeRanges). It is the part of
// Unicode's NFKC that makes two ids look alike; letters that merely
// resemble others (Cyrillic а and Latin a) are not folded.
func FoldName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case IsInvisible(r):
			return -1
		case r >= 0xFF01 && r <= 0xFF5E:
			return r - 0xFEE0
		case IsLookAlike(r):
			return ' '
		}
		return r
	}, s)
}

// VisibleID is Visible for an id (a query's, a document's, a chunk's),
// wherever a report shows one: besides what Visible marks, the characters
// that would make it read as another id are marked the same way (⟨U+0020⟩):
// white space at either end ("d01 " would read as d01), and, anywhere, the
// look-alikes of LookAlikeRanges ("ｄ01" reads as d01) and the letters of
// other scripts drawn as ASCII (Unicode's confusables, UTS #39: Cyrillic
// ԁ in "ԁ01" reads as d) in an id that has ASCII letters or digits or
// reads wholly as ASCII; an id in its own script ("документ") is left as
// written. Line breaks and
// tabs at either end are marked too; inside, they are left to the
// renderer's flattening. So are combining marks on an ASCII letter or
// digit ("cafe\u0301", the decomposed form of café): the renderer draws
// them as the precomposed letter of another id, so they are shown as
// marks; marks on other scripts' letters are left as written.
func VisibleID(s string) string {
	v := Visible(s)
	asASCII := readsAsASCIIID(s)
	if !idNeedsMark(v, asASCII) {
		return v
	}
	rs := []rune(v)
	lo, hi := 0, len(rs)
	for lo < hi && unicode.IsSpace(rs[lo]) {
		lo++
	}
	for hi > lo && unicode.IsSpace(rs[hi-1]) {
		hi--
	}
	var b strings.Builder
	onASCII := false // r follows an ASCII letter or digit, or marks that do
	for i, r := range rs {
		mark := unicode.Is(unicode.Mn, r)
		if i < lo || i >= hi || IsLookAlike(r) || mark && onASCII || asASCII && DrawnAsASCII(r) {
			b.WriteString(VisibleMark(r))
		} else {
			b.WriteRune(r)
		}
		onASCII = r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) || mark && onASCII
	}
	return b.String()
}

// idNeedsMark is VisibleID's fast path: an id that neither starts nor ends
// with white space and holds no look-alike (a character drawn as ASCII
// counts when asASCII: readsAsASCIIID) has nothing more to mark.
func idNeedsMark(v string, asASCII bool) bool {
	if v == "" {
		return false
	}
	first, _ := utf8.DecodeRuneInString(v)
	last, _ := utf8.DecodeLastRuneInString(v)
	if unicode.IsSpace(first) || unicode.IsSpace(last) {
		return true
	}
	other := false // a character drawn as ASCII
	for _, r := range v {
		if r >= 0x00A0 && IsLookAlike(r) || r >= 0x0300 && unicode.Is(unicode.Mn, r) {
			return true
		}
		other = other || DrawnAsASCII(r)
	}
	return other && asASCII
}

// Skeleton is Unicode's confusable skeleton of s (UTS #39, from
// Unicode's confusables table): two strings with the same skeleton read
// alike (Cyrillic с and Latin c, m and rn). It is a key to compare, never
// text to show. This package is the one importer of the table's module.
func Skeleton(s string) string { return confusable.Skeleton(s) }

// DrawnAsASCII reports whether r, not ASCII, is drawn as ASCII characters:
// its confusable skeleton (UTS #39) is printable ASCII (Cyrillic а as a,
// ԁ as d, Greek ο as o, the en dash as -). The brackets of VisibleMark are
// not: they only frame a mark.
func DrawnAsASCII(r rune) bool {
	if r < utf8.RuneSelf || r == '⟨' || r == '⟩' || unicode.Is(unicode.Mn, r) {
		return false
	}
	sk := Skeleton(string(r))
	for i := 0; i < len(sk); i++ {
		if sk[i] <= ' ' || sk[i] >= 0x7F {
			return false
		}
	}
	return sk != ""
}

// readsAsASCIIID reports whether an id's characters drawn as ASCII make
// it read as another id: it mixes them with ASCII letters ("сhunk8"), or
// every letter of it is ASCII or drawn as ASCII ("ԁ01", "сор" reads as
// cop: UTS #39's whole-script confusables). An id in another script with
// a few letters that look Latin ("документ-7") does not.
func readsAsASCIIID(s string) bool {
	whole := true
	for _, r := range s {
		if r < utf8.RuneSelf && unicode.IsLetter(r) {
			return true
		}
		whole = whole && (r < utf8.RuneSelf || !unicode.IsLetter(r) || DrawnAsASCII(r))
	}
	return whole
}

// ShowName quotes a name for a message that must show what it holds: the
// name with its invisible characters marked, and, when it is not plain
// ASCII, its ASCII-escaped form too ("ｑ1" (\uff511)).
func ShowName(s string) string {
	out := `"` + Visible(s) + `"`
	if needsMark(s) {
		q := strconv.QuoteToASCII(s)
		out += " (" + q[1:len(q)-1] + ")"
	}
	return out
}
