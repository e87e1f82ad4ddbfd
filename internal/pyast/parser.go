package pyast

import (
	"fmt"
	"math"
	"strings"
)

// maxDepth bounds the parser's recursion over nested expressions (unary
// chains, conditional and lambda chains, brackets), as CPython's parser
// stack limit does, so hostile input is an error and never exhausts the
// stack.
const maxDepth = 3000

// A SyntaxError is a reason the source is not valid Python 3.13, and where:
// Line and Col are 1-based, Col counting bytes.
type SyntaxError struct {
	Filename  string
	Line, Col int
	Msg       string
}

// Error returns "file:line:col: msg".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s: %s", Position{Filename: e.Filename, Line: e.Line, Column: e.Col}, e.Msg)
}

// Parse parses src, a Python source file read as UTF-8 (a byte-order mark
// is skipped; an encoding declaration is not acted upon), and returns its
// syntax tree, or a *SyntaxError naming filename. It never panics: an
// internal error becomes a SyntaxError at the token being parsed.
func Parse(filename string, src []byte) (*Module, error) {
	mod, _, err := parse(filename, src)
	return mod, err
}

// parse is Parse, also returning how many tokens the parser consumed,
// re-reading after a backtrack included, for the test of linearity.
func parse(filename string, src []byte) (mod *Module, steps int, err error) {
	if len(src) > math.MaxInt32 {
		return nil, 0, &SyntaxError{Filename: filename, Line: 1, Col: 1, Msg: "source too large"}
	}
	text := string(src)
	start := 0
	if len(text) >= 3 && text[:3] == "\xef\xbb\xbf" {
		start = 3
	}
	file := newFile(filename, text)
	p := &parser{src: text, file: file}
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		mod = nil
		if b, ok := r.(bailout); ok {
			err = b.err
			return
		}
		// Catching bug panics matters when reading many files: report the
		// place, as golang.org/x/mod/modfile does.
		pos := Pos(0)
		if p.toks != nil {
			pos = p.pos()
		}
		err = p.syntaxError(pos, fmt.Sprintf("internal error: %v", r))
	}()
	p.s = newScanner(text, start)
	p.toks = p.s.more(make([]token, 0, 512))
	p.tok = p.toks[0].kind
	body := p.file_()
	return &Module{span: span{0, Pos(len(text))}, Body: body, Comments: p.s.comments, File: file}, p.steps, nil
}

// A parser is a recursive-descent parser. It reads tokens from the scanner
// into a window that it empties as it goes, except during a tentative
// parse, which may go back; it backtracks only at a statement's start
// (match, parenthesized with), so parsing is linear in the number of
// tokens and memory holds only the tree.
type parser struct {
	src     string
	file    *File
	s       *scanner
	toks    []token // the window: tokens read and not yet dropped
	i       int     // index in toks of the current token
	tok     tokKind // toks[i].kind
	marks   int     // tentative parses in progress: toks may not be emptied
	prevEnd Pos     // end of the last token consumed, NEWLINE, INDENT and DEDENT aside
	depth   int
	steps   int // tokens consumed, counting those read again after a backtrack
	a       arena
}

// bailout carries a syntax error up the parser's stack, to Parse or to a
// tentative parse.
type bailout struct{ err *SyntaxError }

func (p *parser) syntaxError(pos Pos, msg string) *SyntaxError {
	at := p.file.Position(pos)
	return &SyntaxError{Filename: p.file.name, Line: at.Line, Col: at.Column, Msg: msg}
}

// errorf stops parsing with a syntax error at pos; if the scanner stopped
// at the current token, its error is reported instead, being the cause.
func (p *parser) errorf(pos Pos, format string, args ...any) {
	if p.tok == tError && p.s.err != nil {
		pos, format, args = Pos(p.s.err.pos), "%s", []any{p.s.err.msg}
	}
	panic(bailout{p.syntaxError(pos, fmt.Sprintf(format, args...))})
}

// invalid stops parsing at the current token with CPython's plain message.
func (p *parser) invalid() {
	p.errorf(p.pos(), "invalid syntax")
}

// pos returns the offset of the current token.
func (p *parser) pos() Pos { return Pos(p.toks[p.i].pos) }

// text returns the current token's text.
func (p *parser) text() string {
	t := p.toks[p.i]
	return p.src[t.pos:t.end]
}

// peek returns the kind of the token k after the current one.
func (p *parser) peek(k int) tokKind {
	for p.i+k >= len(p.toks) {
		p.toks = p.s.more(p.toks)
	}
	return p.toks[p.i+k].kind
}

// next consumes the current token.
func (p *parser) next() {
	t := p.toks[p.i]
	switch t.kind {
	case tEOF, tError:
		return
	case tNewline, tIndent, tDedent:
	default:
		p.prevEnd = Pos(t.end)
	}
	p.i++
	p.steps++
	if p.i == len(p.toks) {
		if p.marks == 0 {
			p.toks, p.i = p.toks[:0], 0
		}
		p.toks = p.s.more(p.toks)
	}
	p.tok = p.toks[p.i].kind
}

// got consumes the current token if it is of kind k.
func (p *parser) got(k tokKind) bool {
	if p.tok == k {
		p.next()
		return true
	}
	return false
}

// expect consumes a token of kind k and returns its offset.
func (p *parser) expect(k tokKind) Pos {
	pos := p.pos()
	if p.tok != k {
		if p.tok == tNewline || p.tok == tEOF || p.tok == tIndent || p.tok == tDedent {
			p.errorf(pos, "expected '%s'", k)
		}
		p.invalid()
	}
	p.next()
	return pos
}

// soft reports whether the current token is the soft keyword w.
func (p *parser) soft(w string) bool {
	return p.tok == tName && p.text() == w
}

// ident consumes a name and returns it and its offset.
func (p *parser) ident() (string, Pos) {
	pos := p.pos()
	if p.tok != tName {
		p.invalid()
	}
	s := p.text()
	p.next()
	return s, pos
}

// enter counts one level of expression nesting.
func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.errorf(p.pos(), "too many nested expressions")
	}
}

func (p *parser) leave() { p.depth-- }

// try runs f as a tentative parse: if it stops with a syntax error, the
// parser goes back to where it was and try reports false.
func (p *parser) try(f func()) (ok bool) {
	i, prevEnd, depth := p.i, p.prevEnd, p.depth
	ne, ns, nk := len(p.a.exprs.items), len(p.a.stmts.items), len(p.a.kws.items)
	nsp, npc := len(p.a.strParts.items), len(p.a.pieces.items)
	p.marks++
	defer func() {
		p.marks--
		if r := recover(); r != nil {
			if _, isBail := r.(bailout); !isBail {
				panic(r)
			}
			p.i, p.prevEnd, p.depth = i, prevEnd, depth
			p.a.exprs.items = p.a.exprs.items[:ne]
			p.a.stmts.items = p.a.stmts.items[:ns]
			p.a.kws.items = p.a.kws.items[:nk]
			p.a.strParts.items = p.a.strParts.items[:nsp]
			p.a.pieces.items = p.a.pieces.items[:npc]
			p.tok = p.toks[i].kind
			ok = false
		}
	}()
	f()
	return true
}

// file_ parses statements up to the end of the file.
func (p *parser) file_() []Stmt {
	mark := len(p.a.stmts.items)
	for p.tok != tEOF {
		p.statement()
	}
	return p.a.stmts.pop(mark)
}

// statement parses one compound statement or one line of simple ones, and
// pushes them on the statement stack.
func (p *parser) statement() {
	switch p.tok {
	case tDef, tAt, tClass, tIf, tWhile, tFor, tTry, tWith, tAsync:
		p.a.stmts.push(p.compound())
		return
	case tName:
		if p.soft("match") {
			if s := p.match(); s != nil {
				p.a.stmts.push(s)
				return
			}
		}
	case tIndent:
		p.errorf(p.pos(), "unexpected indent")
	case tDedent, tNewline:
		p.invalid()
	}
	p.simpleStmts()
}

// block parses the suite after a compound statement's colon: an indented
// block, or simple statements on the same line.
func (p *parser) block() []Stmt {
	mark := len(p.a.stmts.items)
	if p.tok != tNewline {
		p.simpleStmts()
		return p.a.stmts.pop(mark)
	}
	p.next()
	if p.tok != tIndent {
		p.errorf(p.pos(), "expected an indented block")
	}
	p.next()
	for p.tok != tDedent {
		if p.tok == tEOF || p.tok == tError {
			p.invalid()
		}
		p.statement()
	}
	p.next()
	return p.a.stmts.pop(mark)
}

// simpleStmts parses simple statements separated by semicolons, up to the
// end of the line, and pushes them on the statement stack.
func (p *parser) simpleStmts() {
	for {
		p.a.stmts.push(p.simpleStmt())
		if !p.got(tSemi) || p.tok == tNewline {
			break
		}
	}
	if p.tok != tNewline {
		p.invalid()
	}
	p.next()
}

func (p *parser) simpleStmt() Stmt {
	start := p.pos()
	sp := func() span { return span{start, p.prevEnd} }
	switch p.tok {
	case tPass:
		p.next()
		return &Pass{sp()}
	case tBreak:
		p.next()
		return &Break{sp()}
	case tContinue:
		p.next()
		return &Continue{sp()}
	case tReturn:
		p.next()
		var v Expr
		if p.startsExpr() {
			v = p.starExpressions()
		}
		return &Return{sp(), v}
	case tRaise:
		p.next()
		var exc, cause Expr
		if p.startsExpr() {
			exc = p.expression()
			if p.got(tFrom) {
				cause = p.expression()
			}
		}
		return &Raise{sp(), exc, cause}
	case tGlobal, tNonlocal:
		kind := p.tok
		p.next()
		var names []string
		for {
			n, _ := p.ident()
			names = append(names, n)
			if !p.got(tComma) {
				break
			}
		}
		if kind == tGlobal {
			return &Global{sp(), names}
		}
		return &Nonlocal{sp(), names}
	case tDel:
		p.next()
		targets := p.delTargets()
		return &Delete{sp(), targets}
	case tAssert:
		p.next()
		test := p.expression()
		var msg Expr
		if p.got(tComma) {
			msg = p.expression()
		}
		return &Assert{sp(), test, msg}
	case tImport:
		return p.importName()
	case tFrom:
		return p.importFrom()
	case tName:
		if p.peek(1) == tName && p.soft("type") {
			return p.typeAlias()
		}
	}
	return p.exprOrAssign(start)
}

// exprOrAssign parses an expression statement or an assignment of any kind.
func (p *parser) exprOrAssign(start Pos) Stmt {
	var first Expr
	if p.tok == tYield {
		first = p.yieldExpr()
	} else {
		first = p.starExpressions()
	}
	sp := func() span { return span{start, p.prevEnd} }
	switch p.tok {
	case tColon:
		switch first.(type) {
		case *Name, *Attribute, *Subscript:
		case *Tuple:
			p.errorf(first.Pos(), "only single target (not tuple) can be annotated")
		case *List:
			p.errorf(first.Pos(), "only single target (not list) can be annotated")
		default:
			p.errorf(first.Pos(), "illegal target for annotation")
		}
		p.setContext(first, Store)
		p.next()
		ann := p.expression()
		var v Expr
		if p.got(tEqual) {
			v = p.annotatedRHS()
		}
		_, simple := first.(*Name)
		return &AnnAssign{sp(), first, ann, v, simple && first.Pos() == start}
	case tEqual:
		targets := []Expr{first}
		var value Expr
		for p.got(tEqual) {
			value = p.annotatedRHS()
			if p.tok == tEqual {
				targets = append(targets, value)
			}
		}
		for _, t := range targets {
			p.setContext(t, Store)
		}
		a := p.a.assigns.new()
		*a = Assign{sp(), targets, value}
		return a
	}
	if op, ok := augOps[p.tok]; ok {
		switch first.(type) {
		case *Name, *Attribute, *Subscript:
		default:
			p.errorf(first.Pos(), "'%s' is an illegal expression for augmented assignment", exprName(first))
		}
		p.setContext(first, Store)
		p.next()
		v := p.annotatedRHS()
		return &AugAssign{sp(), first, op, v}
	}
	e := p.a.exprStmts.new()
	*e = ExprStmt{sp(), first}
	return e
}

var augOps = map[tokKind]Op{
	tPlusEqual: Add, tMinEqual: Sub, tStarEqual: Mult, tAtEqual: MatMult, tSlashEqual: Div,
	tPercentEqual: Mod, tAmperEqual: BitAnd, tVbarEqual: BitOr, tCircumflexEqual: BitXor,
	tLeftShiftEqual: LShift, tRightShiftEqual: RShift, tDoubleStarEqual: Pow, tDoubleSlashEqual: FloorDiv,
}

// annotatedRHS parses the right-hand side of an assignment: a yield
// expression or star expressions.
func (p *parser) annotatedRHS() Expr {
	if p.tok == tYield {
		return p.yieldExpr()
	}
	return p.starExpressions()
}

// typeAlias parses type Name[params] = value.
func (p *parser) typeAlias() Stmt {
	start := p.pos()
	p.next()
	id, pos := p.ident()
	name := &Name{span{pos, p.prevEnd}, id, Store}
	var tps []TypeParam
	if p.tok == tLsqb {
		tps = p.typeParams()
	}
	p.expect(tEqual)
	v := p.expression()
	return &TypeAlias{span{start, p.prevEnd}, name, tps, v}
}

// importName parses import a.b as c, d.
func (p *parser) importName() Stmt {
	start := p.pos()
	p.next()
	var names []*Alias
	for {
		names = append(names, p.alias(true))
		if !p.got(tComma) {
			break
		}
	}
	return &Import{span{start, p.prevEnd}, names}
}

// alias parses name [as asname] of an import; the name of import (not of
// from-import) may be dotted.
func (p *parser) alias(dotted bool) *Alias {
	start := p.pos()
	var name string
	if dotted {
		name = p.dottedName()
	} else {
		name, _ = p.ident()
	}
	asname := ""
	if p.got(tAs) {
		asname, _ = p.ident()
	}
	return &Alias{span{start, p.prevEnd}, name, asname}
}

// dottedName parses a.b.c; the name is the source text when it holds no
// spaces, else the names joined with dots.
func (p *parser) dottedName() string {
	name, start := p.ident()
	if p.tok != tDot {
		return name
	}
	parts := []string{name}
	contiguous := true
	for p.tok == tDot {
		end := p.prevEnd
		contiguous = contiguous && p.pos() == end
		p.next()
		contiguous = contiguous && p.pos() == end+1
		part, _ := p.ident()
		parts = append(parts, part)
	}
	if contiguous {
		return p.src[start:p.prevEnd]
	}
	return strings.Join(parts, ".")
}

// importFrom parses from ..mod import (a as b, c).
func (p *parser) importFrom() Stmt {
	start := p.pos()
	p.next()
	level := 0
	for p.tok == tDot || p.tok == tEllipsis {
		if p.tok == tDot {
			level++
		} else {
			level += 3
		}
		p.next()
	}
	module, modPos := "", Pos(0)
	if p.tok == tName {
		modPos = p.pos()
		module = p.dottedName()
	} else if level == 0 {
		p.invalid()
	}
	p.expect(tImport)
	var names []*Alias
	if p.tok == tStar {
		pos := p.pos()
		p.next()
		names = []*Alias{{span{pos, p.prevEnd}, "*", ""}}
		return &ImportFrom{span{start, p.prevEnd}, module, modPos, names, level}
	}
	paren := p.got(tLpar)
	for {
		names = append(names, p.alias(false))
		if !p.got(tComma) {
			break
		}
		if paren && p.tok == tRpar {
			break
		}
		if !paren && p.tok != tName {
			p.errorf(p.pos(), "trailing comma not allowed without surrounding parentheses")
		}
	}
	if paren {
		p.expect(tRpar)
	}
	return &ImportFrom{span{start, p.prevEnd}, module, modPos, names, level}
}

// delTargets parses the targets of del: names, attributes, subscripts and
// tuples or lists of them, up to the end of the statement.
func (p *parser) delTargets() []Expr {
	var ts []Expr
	for {
		e := p.primary()
		p.setContext(e, Del)
		ts = append(ts, e)
		if !p.got(tComma) || p.tok == tSemi || p.tok == tNewline {
			break
		}
	}
	if p.tok != tSemi && p.tok != tNewline {
		p.invalid()
	}
	return ts
}
