package pyast

import (
	"fmt"
	"sort"
)

// A Pos is a byte offset into the source a Module was parsed from: 0 is the
// first byte (a byte-order mark included). Use File.Position for a line and
// column.
type Pos int

// A Position is a Pos made readable: the file name given to Parse, the byte
// offset, the line (1-based) and the column (1-based, in bytes, as go/token
// counts them: a tab or a multi-byte character is as many columns as it has
// bytes).
type Position struct {
	Filename string
	Offset   int
	Line     int
	Column   int
}

// String returns "file:line:col", or "line:col" without a file name.
func (p Position) String() string {
	if p.Filename == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Column)
	}
	return fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column)
}

// A File is the line table of one source: where each line starts. Lines
// end at "\n", "\r\n" or a lone "\r", as Python reads them.
type File struct {
	name  string
	size  int
	lines []int // offset of the first byte of each line; lines[0] == 0
}

// newFile builds the line table of src in one pass.
func newFile(name, src string) *File {
	f := &File{name: name, size: len(src), lines: make([]int, 1, len(src)/32+1)}
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\n':
			f.lines = append(f.lines, i+1)
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			f.lines = append(f.lines, i+1)
		}
	}
	return f
}

// Name returns the file name given to Parse.
func (f *File) Name() string { return f.name }

// Size returns the length of the source in bytes.
func (f *File) Size() int { return f.size }

// LineCount returns the number of lines: one more than the number of line
// breaks.
func (f *File) LineCount() int { return len(f.lines) }

// LineStart returns the offset of the first byte of line (1-based); it
// panics if line is out of range, as go/token's does.
func (f *File) LineStart(line int) Pos {
	if line < 1 || line > len(f.lines) {
		panic(fmt.Sprintf("pyast: line %d out of range [1, %d]", line, len(f.lines)))
	}
	return Pos(f.lines[line-1])
}

// Position returns the line and column of p; an offset outside the source is
// clamped to it.
func (f *File) Position(p Pos) Position {
	off := int(p)
	if off < 0 {
		off = 0
	}
	if off > f.size {
		off = f.size
	}
	i := sort.SearchInts(f.lines, off+1) - 1
	return Position{Filename: f.name, Offset: off, Line: i + 1, Column: off - f.lines[i] + 1}
}

// tokKind is the kind of a token. Keywords and operators each have their
// own kind, so the parser switches on kinds and never compares text, except
// for the soft keywords (match, case, type, _), which are names.
type tokKind uint8

const (
	tEOF tokKind = iota
	tError
	tNewline
	tIndent
	tDedent
	tName
	tNumber
	tString
	tFStringStart
	tFStringMiddle
	tFStringEnd

	// Operators and delimiters.
	tLpar       // (
	tRpar       // )
	tLsqb       // [
	tRsqb       // ]
	tLbrace     // {
	tRbrace     // }
	tColon      // :
	tComma      // ,
	tSemi       // ;
	tPlus       // +
	tMinus      // -
	tStar       // *
	tSlash      // /
	tVbar       // |
	tAmper      // &
	tLess       // <
	tGreater    // >
	tEqual      // =
	tDot        // .
	tPercent    // %
	tTilde      // ~
	tCircumflex // ^
	tAt         // @
	tExclaim    // !
	tEqEqual    // ==
	tNotEqual   // !=
	tLessEqual  // <=
	tGreaterEqual
	tLeftShift   // <<
	tRightShift  // >>
	tDoubleStar  // **
	tDoubleSlash // //
	tArrow       // ->
	tColonEqual  // :=
	tEllipsis    // ...
	tPlusEqual
	tMinEqual
	tStarEqual
	tSlashEqual
	tPercentEqual
	tAmperEqual
	tVbarEqual
	tCircumflexEqual
	tAtEqual
	tLeftShiftEqual
	tRightShiftEqual
	tDoubleStarEqual
	tDoubleSlashEqual

	// Hard keywords.
	tFalse
	tNone
	tTrue
	tAnd
	tAs
	tAssert
	tAsync
	tAwait
	tBreak
	tClass
	tContinue
	tDef
	tDel
	tElif
	tElse
	tExcept
	tFinally
	tFor
	tFrom
	tGlobal
	tIf
	tImport
	tIn
	tIs
	tLambda
	tNonlocal
	tNot
	tOr
	tPass
	tRaise
	tReturn
	tTry
	tWhile
	tWith
	tYield
)

// keywords maps each hard keyword to its kind.
var keywords = map[string]tokKind{
	"False": tFalse, "None": tNone, "True": tTrue, "and": tAnd, "as": tAs,
	"assert": tAssert, "async": tAsync, "await": tAwait, "break": tBreak,
	"class": tClass, "continue": tContinue, "def": tDef, "del": tDel,
	"elif": tElif, "else": tElse, "except": tExcept, "finally": tFinally,
	"for": tFor, "from": tFrom, "global": tGlobal, "if": tIf,
	"import": tImport, "in": tIn, "is": tIs, "lambda": tLambda,
	"nonlocal": tNonlocal, "not": tNot, "or": tOr, "pass": tPass,
	"raise": tRaise, "return": tReturn, "try": tTry, "while": tWhile,
	"with": tWith, "yield": tYield,
}

// keyword returns the kind of the name s: a keyword's, else tName.
func keyword(s string) tokKind {
	if len(s) < 2 || len(s) > 8 || s[0] < 'F' || s[0] > 'y' {
		return tName
	}
	switch s {
	case "False":
		return tFalse
	case "None":
		return tNone
	case "True":
		return tTrue
	case "and":
		return tAnd
	case "as":
		return tAs
	case "assert":
		return tAssert
	case "async":
		return tAsync
	case "await":
		return tAwait
	case "break":
		return tBreak
	case "class":
		return tClass
	case "continue":
		return tContinue
	case "def":
		return tDef
	case "del":
		return tDel
	case "elif":
		return tElif
	case "else":
		return tElse
	case "except":
		return tExcept
	case "finally":
		return tFinally
	case "for":
		return tFor
	case "from":
		return tFrom
	case "global":
		return tGlobal
	case "if":
		return tIf
	case "import":
		return tImport
	case "in":
		return tIn
	case "is":
		return tIs
	case "lambda":
		return tLambda
	case "nonlocal":
		return tNonlocal
	case "not":
		return tNot
	case "or":
		return tOr
	case "pass":
		return tPass
	case "raise":
		return tRaise
	case "return":
		return tReturn
	case "try":
		return tTry
	case "while":
		return tWhile
	case "with":
		return tWith
	case "yield":
		return tYield
	}
	return tName
}

// tokNames spells operators, delimiters and keywords as Python writes them,
// for error messages.
var tokNames = map[tokKind]string{
	tEOF: "end of file", tNewline: "newline", tIndent: "indent", tDedent: "dedent",
	tName: "name", tNumber: "number", tString: "string", tFStringStart: "f-string",
	tFStringMiddle: "f-string text", tFStringEnd: "end of f-string",
	tLpar: "(", tRpar: ")", tLsqb: "[", tRsqb: "]", tLbrace: "{", tRbrace: "}",
	tColon: ":", tComma: ",", tSemi: ";", tPlus: "+", tMinus: "-", tStar: "*",
	tSlash: "/", tVbar: "|", tAmper: "&", tLess: "<", tGreater: ">", tEqual: "=",
	tDot: ".", tPercent: "%", tTilde: "~", tCircumflex: "^", tAt: "@", tExclaim: "!",
	tEqEqual: "==", tNotEqual: "!=", tLessEqual: "<=", tGreaterEqual: ">=",
	tLeftShift: "<<", tRightShift: ">>", tDoubleStar: "**", tDoubleSlash: "//",
	tArrow: "->", tColonEqual: ":=", tEllipsis: "...", tPlusEqual: "+=",
	tMinEqual: "-=", tStarEqual: "*=", tSlashEqual: "/=", tPercentEqual: "%=",
	tAmperEqual: "&=", tVbarEqual: "|=", tCircumflexEqual: "^=", tAtEqual: "@=",
	tLeftShiftEqual: "<<=", tRightShiftEqual: ">>=", tDoubleStarEqual: "**=",
	tDoubleSlashEqual: "//=",
}

func init() {
	for s, k := range keywords {
		tokNames[k] = s
	}
}

// String spells the kind for error messages.
func (k tokKind) String() string {
	if s, ok := tokNames[k]; ok {
		return s
	}
	return fmt.Sprintf("token(%d)", int(k))
}

// A token is one lexical token: its kind and the byte span [pos, end) of its
// text. NEWLINE, INDENT and DEDENT may be empty spans.
type token struct {
	kind     tokKind
	pos, end int32
}
