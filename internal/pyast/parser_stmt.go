package pyast

// compound parses a compound statement other than match.
func (p *parser) compound() Stmt {
	start := p.pos()
	switch p.tok {
	case tAt:
		var decos []Expr
		for p.tok == tAt {
			p.next()
			decos = append(decos, p.namedExpression())
			if p.tok != tNewline {
				p.invalid()
			}
			p.next()
		}
		switch p.tok {
		case tDef:
			return p.funcDef(start, p.pos(), decos, false)
		case tClass:
			return p.classDef(start, decos)
		case tAsync:
			at := p.pos()
			p.next()
			if p.tok == tDef {
				return p.funcDef(start, at, decos, true)
			}
		}
		p.invalid()
	case tDef:
		return p.funcDef(start, start, nil, false)
	case tClass:
		return p.classDef(start, nil)
	case tAsync:
		p.next()
		switch p.tok {
		case tDef:
			return p.funcDef(start, start, nil, true)
		case tFor:
			return p.forStmt(start, true)
		case tWith:
			return p.withStmt(start, true)
		}
		p.invalid()
	case tIf:
		return p.ifStmt()
	case tWhile:
		p.next()
		test := p.namedExpression()
		p.expect(tColon)
		body := p.block()
		orelse := p.elseBlock()
		return &While{span{start, p.prevEnd}, test, body, orelse}
	case tFor:
		return p.forStmt(start, false)
	case tTry:
		return p.tryStmt()
	case tWith:
		return p.withStmt(start, false)
	}
	p.invalid()
	return nil
}

// elseBlock parses an optional else: block.
func (p *parser) elseBlock() []Stmt {
	if !p.got(tElse) {
		return nil
	}
	p.expect(tColon)
	return p.block()
}

// funcDef parses a def from the def keyword; start is where the statement
// starts (its first decorator), defPos where CPython's lineno points.
func (p *parser) funcDef(start, defPos Pos, decos []Expr, async bool) Stmt {
	p.expect(tDef)
	name, namePos := p.ident()
	var tps []TypeParam
	if p.tok == tLsqb {
		tps = p.typeParams()
	}
	p.expect(tLpar)
	args := p.parameters(tRpar)
	p.expect(tRpar)
	var returns Expr
	if p.got(tArrow) {
		returns = p.expression()
	}
	p.expect(tColon)
	body := p.block()
	return &FunctionDef{span: span{start, p.prevEnd}, DefPos: defPos, IsAsync: async, Name: name, NamePos: namePos,
		DecoratorList: decos, TypeParams: tps, Args: args, Returns: returns, Body: body}
}

// classDef parses a class from the class keyword.
func (p *parser) classDef(start Pos, decos []Expr) Stmt {
	classPos := p.expect(tClass)
	name, namePos := p.ident()
	var tps []TypeParam
	if p.tok == tLsqb {
		tps = p.typeParams()
	}
	var bases []Expr
	var kws []*Keyword
	if p.tok == tLpar {
		lpar := p.pos()
		p.next()
		bases, kws = p.callArgs(lpar, false)
	}
	p.expect(tColon)
	body := p.block()
	return &ClassDef{span: span{start, p.prevEnd}, ClassPos: classPos, Name: name, NamePos: namePos,
		DecoratorList: decos, TypeParams: tps, Bases: bases, Keywords: kws, Body: body}
}

// ifStmt parses if/elif/else. The chain is built without recursion, so a
// long elif chain costs no stack.
func (p *parser) ifStmt() Stmt {
	type clause struct {
		start Pos
		test  Expr
		body  []Stmt
	}
	var clauses []clause
	for {
		start := p.pos()
		p.next() // if or elif
		test := p.namedExpression()
		p.expect(tColon)
		clauses = append(clauses, clause{start, test, p.block()})
		if p.tok != tElif {
			break
		}
	}
	orelse := p.elseBlock()
	end := p.prevEnd
	var s *If
	for i := len(clauses) - 1; i >= 0; i-- {
		c := clauses[i]
		s = &If{span{c.start, end}, c.test, c.body, orelse}
		orelse = []Stmt{s}
	}
	return s
}

// forStmt parses a for loop from the for keyword.
func (p *parser) forStmt(start Pos, async bool) Stmt {
	p.expect(tFor)
	target := p.starTargets()
	p.expect(tIn)
	iter := p.starExpressions()
	p.expect(tColon)
	body := p.block()
	orelse := p.elseBlock()
	return &For{span{start, p.prevEnd}, async, target, iter, body, orelse}
}

// tryStmt parses try with except, except* (not both), else and finally.
func (p *parser) tryStmt() Stmt {
	start := p.pos()
	p.next()
	p.expect(tColon)
	body := p.block()
	var handlers []*ExceptHandler
	star := false
	for p.tok == tExcept {
		hstart := p.pos()
		p.next()
		isStar := p.got(tStar)
		if len(handlers) > 0 && isStar != star {
			p.errorf(hstart, "cannot have both 'except' and 'except*' on the same 'try'")
		}
		star = isStar
		h := &ExceptHandler{}
		if isStar || p.tok != tColon {
			h.Type = p.expression()
			if p.got(tAs) {
				h.Name, h.NamePos = p.ident()
			}
		}
		p.expect(tColon)
		h.Body = p.block()
		h.span = span{hstart, p.prevEnd}
		handlers = append(handlers, h)
	}
	var orelse, final []Stmt
	if len(handlers) > 0 {
		orelse = p.elseBlock()
	}
	hasFinally := p.got(tFinally)
	if hasFinally {
		p.expect(tColon)
		final = p.block()
	}
	if len(handlers) == 0 && !hasFinally {
		p.errorf(p.pos(), "expected 'except' or 'finally' block")
	}
	return &Try{span{start, p.prevEnd}, star, body, handlers, orelse, final}
}

// withStmt parses a with statement from the with keyword. Parenthesized
// items, with (a as b, c):, are tried first, as in CPython's grammar; if
// that fails the parenthesis opens the first item's expression.
func (p *parser) withStmt(start Pos, async bool) Stmt {
	p.expect(tWith)
	var items []*WithItem
	if p.tok == tLpar {
		var got []*WithItem
		if p.try(func() {
			p.next()
			for {
				got = append(got, p.withItem())
				if !p.got(tComma) || p.tok == tRpar {
					break
				}
			}
			p.expect(tRpar)
			if p.tok != tColon {
				p.invalid()
			}
		}) {
			items = got
		}
	}
	if items == nil {
		for {
			items = append(items, p.withItem())
			if !p.got(tComma) {
				break
			}
		}
	}
	p.expect(tColon)
	body := p.block()
	return &With{span{start, p.prevEnd}, async, items, body}
}

func (p *parser) withItem() *WithItem {
	start := p.pos()
	e := p.expression()
	var vars Expr
	if p.got(tAs) {
		vars = p.starTarget()
		if p.tok != tComma && p.tok != tRpar && p.tok != tColon {
			p.invalid()
		}
	}
	return &WithItem{span{start, p.prevEnd}, e, vars}
}

// match parses a match statement, or returns nil if the statement starting
// with the name match is not one (match = 1, match(x), print(match)): the
// header "match subject:" followed by a line break decides, as in CPython.
func (p *parser) match() Stmt {
	switch p.peek(1) {
	case tName, tNumber, tString, tFStringStart, tLpar, tLsqb, tLbrace, tMinus, tPlus, tTilde,
		tStar, tNot, tLambda, tAwait, tNone, tTrue, tFalse, tEllipsis:
	default:
		return nil
	}
	start := p.pos()
	var subject Expr
	if !p.try(func() {
		p.next()
		subject = p.subjectExpr()
		if p.tok != tColon || p.peek(1) != tNewline {
			p.invalid()
		}
	}) {
		return nil
	}
	p.next() // :
	p.next() // NEWLINE
	if p.tok != tIndent {
		p.errorf(p.pos(), "expected an indented block")
	}
	p.next()
	var cases []*MatchCase
	for p.tok != tDedent {
		if !p.soft("case") {
			p.invalid()
		}
		cases = append(cases, p.caseBlock())
	}
	p.next()
	return &Match{span{start, p.prevEnd}, subject, cases}
}

// subjectExpr parses a match subject: a named expression, or a tuple of
// star-named expressions.
func (p *parser) subjectExpr() Expr {
	start := p.pos()
	first := p.starNamedExpression()
	if p.tok != tComma {
		if _, ok := first.(*Starred); ok {
			p.invalid()
		}
		return first
	}
	elts := []Expr{first}
	for p.got(tComma) && p.startsExpr() {
		elts = append(elts, p.starNamedExpression())
	}
	return &Tuple{span{start, p.prevEnd}, elts, Load}
}

// caseBlock parses case patterns [if guard]: block.
func (p *parser) caseBlock() *MatchCase {
	start := p.pos()
	p.next()
	pat := p.patterns()
	var guard Expr
	if p.got(tIf) {
		guard = p.namedExpression()
	}
	p.expect(tColon)
	body := p.block()
	return &MatchCase{span{start, p.prevEnd}, pat, guard, body}
}

// typeParams parses [T: bound = default, *Ts, **P].
func (p *parser) typeParams() []TypeParam {
	p.expect(tLsqb)
	var tps []TypeParam
	for {
		start := p.pos()
		switch p.tok {
		case tStar:
			p.next()
			name, _ := p.ident()
			if p.tok == tColon {
				p.errorf(p.pos(), "cannot use bound with TypeVarTuple")
			}
			var def Expr
			if p.got(tEqual) {
				def = p.starExpression()
			}
			tps = append(tps, &TypeVarTuple{span{start, p.prevEnd}, name, def})
		case tDoubleStar:
			p.next()
			name, _ := p.ident()
			if p.tok == tColon {
				p.errorf(p.pos(), "cannot use bound with ParamSpec")
			}
			var def Expr
			if p.got(tEqual) {
				def = p.expression()
			}
			tps = append(tps, &ParamSpec{span{start, p.prevEnd}, name, def})
		default:
			name, _ := p.ident()
			var bound, def Expr
			if p.got(tColon) {
				bound = p.expression()
			}
			if p.got(tEqual) {
				def = p.expression()
			}
			tps = append(tps, &TypeVar{span{start, p.prevEnd}, name, bound, def})
		}
		if !p.got(tComma) || p.tok == tRsqb {
			break
		}
	}
	p.expect(tRsqb)
	return tps
}
