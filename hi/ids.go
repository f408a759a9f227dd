package hi

import (
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// sameParticipant reports whether a and b name the same participant: participant ids are
// compared after Unicode NFKC normalisation and case folding, so "Ana", "ANA" and "Ａｎａ"
// (full-width) are one person, who is asked, and can vote, once.
func sameParticipant(a, b string) bool { return participantKey(a) == participantKey(b) }

// participantKey is the form participant ids are compared in: NFKC, then case folded, then
// NFKC again (folding can undo a normalisation).
func participantKey(id string) string {
	return norm.NFKC.String(cases.Fold().String(norm.NFKC.String(id)))
}

// hiddenRune reports a code point that shows nothing or changes how text around it shows:
// controls, format characters (zero-width spaces and joiners, bidi controls, soft hyphens),
// variation selectors and other default-ignorable code points. An id holding one could pass
// for another id on screen.
func hiddenRune(r rune) bool {
	switch {
	case unicode.IsControl(r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Variation_Selector, r),
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r), r == '\u3164', r == '\uffa0', r == '\u115f', r == '\u1160':
		return true
	}
	return false
}

// confusable maps letters of other scripts that look like a Latin letter or digit to it (the
// common cases of Unicode TR39's confusables, after case folding). Two ids whose skeletons
// are equal while their keys differ look the same to a person.
var confusable = strings.NewReplacer(
	// Cyrillic
	"а", "a", "в", "b", "е", "e", "ё", "e", "һ", "h", "і", "i", "ї", "i", "ј", "j", "к", "k", "м", "m", "н", "h",
	"о", "o", "р", "p", "с", "c", "т", "t", "у", "y", "х", "x", "ѕ", "s", "ԁ", "d", "ԛ", "q", "ԝ", "w", "ӏ", "l",
	// Greek
	"α", "a", "β", "b", "ε", "e", "η", "n", "ι", "i", "κ", "k", "ν", "v", "ο", "o", "ρ", "p", "τ", "t", "υ", "u",
	"χ", "x", "γ", "y", "ϲ", "c",
	// Armenian and others often used to imitate Latin
	"օ", "o", "ս", "u", "ց", "g", "հ", "h", "ո", "n",
	// Latin look-alikes of digits and each other
	"0", "o", "1", "l", "ı", "i", "ǀ", "l", "ɑ", "a", "ɡ", "g",
)

// skeleton is an id's key with look-alike letters mapped to the letters they imitate.
func skeleton(key string) string { return confusable.Replace(key) }

// idProblem checks a participant id against the ids before it (their keys and skeletons,
// each mapped to the id as spelt), returning the problem, or "" when the id is distinct; a
// distinct id is added to both maps.
func idProblem(id string, keys map[string]string, skeletons map[string]string) string {
	if strings.IndexFunc(id, hiddenRune) >= 0 {
		return "contains an invisible or control character"
	}
	k := participantKey(id)
	if prev, ok := keys[k]; ok {
		if prev == id {
			return "duplicate participant " + strconv.Quote(id)
		}
		return "duplicate participant " + strconv.Quote(id) + " (the same as " + strconv.Quote(prev) + " once normalised)"
	}
	if prev, ok := skeletons[skeleton(k)]; ok {
		return "participant " + strconv.Quote(id) + " looks like " + strconv.Quote(prev) + "; use ids a person can tell apart"
	}
	keys[k] = id
	skeletons[skeleton(k)] = id
	return ""
}
