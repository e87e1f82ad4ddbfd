package pyast

import (
	"strconv"
	"strings"
	"sync"

	"golang.org/x/text/unicode/runenames"
)

// lookupName resolves the name of a \N{name} escape as Python's
// unicodedata.lookup does, ignoring case: Unicode character names, the
// names Unicode derives from code points (CJK UNIFIED IDEOGRAPH-4E00,
// HANGUL SYLLABLE GA) and the aliases of control and format characters.
// The table is built on first use, since few sources use \N.
func lookupName(name string) (rune, bool) {
	name = strings.ToUpper(name)
	for _, a := range algorithmic {
		if hex, ok := strings.CutPrefix(name, a.prefix); ok {
			v, err := strconv.ParseUint(hex, 16, 32)
			if err != nil || len(hex) < 4 || len(hex) > 5 {
				return 0, false
			}
			r := rune(v)
			return r, strings.HasPrefix(runenames.Name(r), a.range_)
		}
	}
	namesOnce.Do(buildNames)
	r, ok := names[name]
	return r, ok
}

// algorithmic are the names runenames gives as a range ("<CJK Ideograph>")
// and Unicode spells as a prefix and the code point in hex.
var algorithmic = []struct{ prefix, range_ string }{
	{"CJK UNIFIED IDEOGRAPH-", "<CJK Ideograph"},
	{"TANGUT IDEOGRAPH-", "<Tangut Ideograph"},
}

var (
	namesOnce sync.Once
	names     map[string]rune
)

func buildNames() {
	names = make(map[string]rune, 48000)
	for r := rune(0); r <= 0x10FFFF; r++ {
		if n := runenames.Name(r); n != "" && n[0] != '<' {
			names[n] = r
		}
	}
	// Hangul syllables are named from their jamo (Unicode 3.12).
	lead := strings.Split("G GG N D DD R M B BB S SS  J JJ C K T P H", " ")
	vowel := strings.Split("A AE YA YAE EO E YEO YE O WA WAE OE YO U WEO WE WI YU EU YI I", " ")
	tail := strings.Split(" G GG GS N NJ NH D L LG LM LB LS LT LP LH M B BS S SS NG J C K T P H", " ")
	for l, ls := range lead {
		for v, vs := range vowel {
			for t, ts := range tail {
				names["HANGUL SYLLABLE "+ls+vs+ts] = rune(0xAC00 + (l*21+v)*28 + t)
			}
		}
	}
	for _, line := range strings.Split(aliases, "\n") {
		code, list, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		v, _ := strconv.ParseUint(code, 16, 32)
		for _, a := range strings.Split(list, "/") {
			names[a] = rune(v)
		}
	}
	for i := 1; i <= 256; i++ {
		r := rune(0xFE00 + i - 1)
		if i > 16 {
			r = rune(0xE0100 + i - 17)
		}
		names["VS"+strconv.Itoa(i)] = r
	}
}

// aliases are Unicode's NameAliases for control and format characters
// (which have no name of their own, or are known by an abbreviation).
const aliases = `0000 NULL/NUL
0001 START OF HEADING/SOH
0002 START OF TEXT/STX
0003 END OF TEXT/ETX
0004 END OF TRANSMISSION/EOT
0005 ENQUIRY/ENQ
0006 ACKNOWLEDGE/ACK
0007 ALERT/BEL
0008 BACKSPACE/BS
0009 CHARACTER TABULATION/HORIZONTAL TABULATION/HT/TAB
000A LINE FEED/NEW LINE/END OF LINE/LF/NL/EOL
000B LINE TABULATION/VERTICAL TABULATION/VT
000C FORM FEED/FF
000D CARRIAGE RETURN/CR
000E SHIFT OUT/LOCKING-SHIFT ONE/SO
000F SHIFT IN/LOCKING-SHIFT ZERO/SI
0010 DATA LINK ESCAPE/DLE
0011 DEVICE CONTROL ONE/DC1
0012 DEVICE CONTROL TWO/DC2
0013 DEVICE CONTROL THREE/DC3
0014 DEVICE CONTROL FOUR/DC4
0015 NEGATIVE ACKNOWLEDGE/NAK
0016 SYNCHRONOUS IDLE/SYN
0017 END OF TRANSMISSION BLOCK/ETB
0018 CANCEL/CAN
0019 END OF MEDIUM/EOM
001A SUBSTITUTE/SUB
001B ESCAPE/ESC
001C INFORMATION SEPARATOR FOUR/FILE SEPARATOR/FS
001D INFORMATION SEPARATOR THREE/GROUP SEPARATOR/GS
001E INFORMATION SEPARATOR TWO/RECORD SEPARATOR/RS
001F INFORMATION SEPARATOR ONE/UNIT SEPARATOR/US
0020 SP
007F DELETE/DEL
0080 PADDING CHARACTER/PAD
0081 HIGH OCTET PRESET/HOP
0082 BREAK PERMITTED HERE/BPH
0083 NO BREAK HERE/NBH
0084 INDEX/IND
0085 NEXT LINE/NEL
0086 START OF SELECTED AREA/SSA
0087 END OF SELECTED AREA/ESA
0088 CHARACTER TABULATION SET/HORIZONTAL TABULATION SET/HTS
0089 CHARACTER TABULATION WITH JUSTIFICATION/HORIZONTAL TABULATION WITH JUSTIFICATION/HTJ
008A LINE TABULATION SET/VERTICAL TABULATION SET/VTS
008B PARTIAL LINE FORWARD/PARTIAL LINE DOWN/PLD
008C PARTIAL LINE BACKWARD/PARTIAL LINE UP/PLU
008D REVERSE LINE FEED/REVERSE INDEX/RI
008E SINGLE SHIFT TWO/SINGLE-SHIFT-2/SS2
008F SINGLE SHIFT THREE/SINGLE-SHIFT-3/SS3
0090 DEVICE CONTROL STRING/DCS
0091 PRIVATE USE ONE/PRIVATE USE-1/PU1
0092 PRIVATE USE TWO/PRIVATE USE-2/PU2
0093 SET TRANSMIT STATE/STS
0094 CANCEL CHARACTER/CCH
0095 MESSAGE WAITING/MW
0096 START OF GUARDED AREA/START OF PROTECTED AREA/SPA
0097 END OF GUARDED AREA/END OF PROTECTED AREA/EPA
0098 START OF STRING/SOS
0099 SINGLE GRAPHIC CHARACTER INTRODUCER/SGC
009A SINGLE CHARACTER INTRODUCER/SCI
009B CONTROL SEQUENCE INTRODUCER/CSI
009C STRING TERMINATOR/ST
009D OPERATING SYSTEM COMMAND/OSC
009E PRIVACY MESSAGE/PM
009F APPLICATION PROGRAM COMMAND/APC
00A0 NBSP
00AD SHY
034F CGJ
061C ALM
180E MVS
200B ZWSP
200C ZWNJ
200D ZWJ
200E LRM
200F RLM
202A LRE
202B RLE
202C PDF
202D LRO
202E RLO
202F NNBSP
205F MMSP
2060 WJ
2066 LRI
2067 RLI
2068 FSI
2069 PDI
FEFF BYTE ORDER MARK/BOM/ZWNBSP`
