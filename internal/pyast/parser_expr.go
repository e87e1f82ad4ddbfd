package pyast

// startsExpr reports whether the current token can start an expression,
// a starred one included.
func (p *parser) startsExpr() bool {
	switch p.tok {
	case tName, tNumber, tString, tFStringStart, tLpar, tLsqb, tLbrace, tMinus, tPlus, tTilde,
		tStar, tNot, tLambda, tAwait, tNone, tTrue, tFalse, tEllipsis:
		return true
	}
	return false
}

// starExpressions parses star_expression (',' star_expression)* [','],
// a Tuple when there is a comma.
func (p *parser) starExpressions() Expr {
	start := p.pos()
	first := p.starExpression()
	if p.tok != tComma {
		return first
	}
	mark := len(p.a.exprs.items)
	p.a.exprs.push(first)
	for p.got(tComma) && p.startsExpr() {
		p.a.exprs.push(p.starExpression())
	}
	return p.tuple(start, mark)
}

// tuple makes a Tuple of the expressions pushed since mark.
func (p *parser) tuple(start Pos, mark int) *Tuple {
	t := p.a.tuples.new()
	*t = Tuple{span{start, p.prevEnd}, p.a.exprs.pop(mark), Load}
	return t
}

// starExpression parses '*' bitwise_or | expression.
func (p *parser) starExpression() Expr {
	if p.tok == tStar {
		start := p.pos()
		p.next()
		v := p.binary(1)
		return &Starred{span{start, p.prevEnd}, v, Load}
	}
	return p.expression()
}

// starNamedExpression parses '*' bitwise_or | named_expression, an element
// of a display.
func (p *parser) starNamedExpression() Expr {
	if p.tok == tStar {
		start := p.pos()
		p.next()
		v := p.binary(1)
		return &Starred{span{start, p.prevEnd}, v, Load}
	}
	return p.namedExpression()
}

// namedExpression parses NAME ':=' expression | expression.
func (p *parser) namedExpression() Expr {
	if p.tok == tName && p.peek(1) == tColonEqual {
		start := p.pos()
		id := p.text()
		p.next()
		target := &Name{span{start, p.prevEnd}, id, Store}
		p.next()
		v := p.expression()
		return &NamedExpr{span{start, p.prevEnd}, target, v}
	}
	e := p.expression()
	if p.tok == tColonEqual {
		p.errorf(e.Pos(), "cannot use assignment expressions with %s", exprName(e))
	}
	return e
}

// unparenthesizedWalrus reports whether e, parsed from start, is an
// assignment expression without parentheses, which may not be a dict key
// or a slice bound.
func unparenthesizedWalrus(e Expr, start Pos) bool {
	_, ok := e.(*NamedExpr)
	return ok && e.Pos() == start
}

// endsExpr reports whether a token after an atom ends the expression it is
// in: no operator, trailer or string can follow to extend it.
func endsExpr(k tokKind) bool {
	switch k {
	case tComma, tRpar, tRsqb, tRbrace, tColon, tEqual, tNewline, tSemi, tFor, tAs, tEOF:
		return true
	}
	return false
}

// expression parses a conditional expression, a lambda, or a disjunction.
func (p *parser) expression() Expr {
	p.depth++
	if p.depth > maxDepth {
		p.errorf(p.pos(), "too many nested expressions")
	}
	var e Expr
	switch {
	case (p.tok == tName || p.tok == tNumber || p.tok == tString) && endsExpr(p.peek(1)):
		// A lone name, number or string (an argument, an element, the
		// right-hand side of an assignment) skips the ten levels of
		// operator precedence it would go through to the same atom.
		e = p.atom()
	case p.tok == tLambda:
		e = p.lambda()
	default:
		start := p.pos()
		e = p.disjunction()
		if p.got(tIf) {
			test := p.disjunction()
			p.expect(tElse)
			orelse := p.expression()
			e = &IfExp{span{start, p.prevEnd}, test, e, orelse}
		}
	}
	p.depth--
	return e
}

func (p *parser) lambda() Expr {
	start := p.pos()
	p.next()
	args := p.parameters(tColon)
	p.expect(tColon)
	body := p.expression()
	return &Lambda{span{start, p.prevEnd}, args, body}
}

func (p *parser) disjunction() Expr {
	start := p.pos()
	x := p.conjunction()
	if p.tok != tOr {
		return x
	}
	vals := []Expr{x}
	for p.got(tOr) {
		vals = append(vals, p.conjunction())
	}
	return &BoolOp{span{start, p.prevEnd}, Or, vals}
}

func (p *parser) conjunction() Expr {
	start := p.pos()
	x := p.inversion()
	if p.tok != tAnd {
		return x
	}
	vals := []Expr{x}
	for p.got(tAnd) {
		vals = append(vals, p.inversion())
	}
	return &BoolOp{span{start, p.prevEnd}, And, vals}
}

func (p *parser) inversion() Expr {
	if p.tok != tNot {
		return p.comparison()
	}
	start := p.pos()
	p.next()
	p.enter()
	x := p.inversion()
	p.leave()
	return &UnaryOp{span{start, p.prevEnd}, Not, x}
}

func (p *parser) comparison() Expr {
	start := p.pos()
	x := p.binary(1)
	var ops []Op
	var cmps []Expr
	for {
		var op Op
		switch p.tok {
		case tEqEqual:
			op = Eq
		case tNotEqual:
			op = NotEq
		case tLess:
			op = Lt
		case tLessEqual:
			op = LtE
		case tGreater:
			op = Gt
		case tGreaterEqual:
			op = GtE
		case tIn:
			op = In
		case tIs:
			op = Is
			if p.peek(1) == tNot {
				op = IsNot
				p.next()
			}
		case tNot:
			if p.peek(1) != tIn {
				break
			}
			op = NotIn
			p.next()
		}
		if op == 0 {
			break
		}
		p.next()
		ops = append(ops, op)
		cmps = append(cmps, p.binary(1))
	}
	if ops == nil {
		return x
	}
	return &Compare{span{start, p.prevEnd}, x, ops, cmps}
}

// binop returns the operator of a binary-operator token and its precedence,
// from | (1) to the multiplicative operators (6); 0 for other tokens.
func binop(k tokKind) (Op, int) {
	switch k {
	case tVbar:
		return BitOr, 1
	case tCircumflex:
		return BitXor, 2
	case tAmper:
		return BitAnd, 3
	case tLeftShift:
		return LShift, 4
	case tRightShift:
		return RShift, 4
	case tPlus:
		return Add, 5
	case tMinus:
		return Sub, 5
	case tStar:
		return Mult, 6
	case tSlash:
		return Div, 6
	case tDoubleSlash:
		return FloorDiv, 6
	case tPercent:
		return Mod, 6
	case tAt:
		return MatMult, 6
	}
	return 0, 0
}

// binary parses left-associative binary operators of precedence minPrec
// and above by precedence climbing: a long a + b + c chain loops instead of
// recursing.
func (p *parser) binary(minPrec int) Expr {
	start := p.pos()
	x := p.factor()
	for {
		op, prec := binop(p.tok)
		if prec == 0 || prec < minPrec {
			return x
		}
		p.next()
		y := p.binary(prec + 1)
		b := p.a.binops.new()
		*b = BinOp{span{start, p.prevEnd}, x, op, y}
		x = b
	}
}

func (p *parser) factor() Expr {
	var op Op
	switch p.tok {
	case tPlus:
		op = UAdd
	case tMinus:
		op = USub
	case tTilde:
		op = Invert
	default:
		return p.power()
	}
	start := p.pos()
	p.next()
	p.enter()
	x := p.factor()
	p.leave()
	return &UnaryOp{span{start, p.prevEnd}, op, x}
}

func (p *parser) power() Expr {
	start := p.pos()
	var x Expr
	if p.tok == tAwait {
		p.next()
		v := p.primary()
		x = &Await{span{start, p.prevEnd}, v}
	} else {
		x = p.primary()
	}
	if p.tok != tDoubleStar {
		return x
	}
	p.next()
	p.enter()
	y := p.factor()
	p.leave()
	return &BinOp{span{start, p.prevEnd}, x, Pow, y}
}

// primary parses an atom and its trailers: .name, (args) and [slices].
func (p *parser) primary() Expr {
	start := p.pos()
	x := p.atom()
	for {
		switch p.tok {
		case tDot:
			p.next()
			name, namePos := p.ident()
			a := p.a.attrs.new()
			*a = Attribute{span{start, p.prevEnd}, x, name, namePos, Load}
			x = a
		case tLpar:
			lpar := p.pos()
			p.next()
			args, kws := p.callArgs(lpar, true)
			c := p.a.calls.new()
			*c = Call{span{start, p.prevEnd}, x, args, kws}
			x = c
		case tLsqb:
			p.next()
			s := p.slices()
			p.expect(tRsqb)
			sub := p.a.subscripts.new()
			*sub = Subscript{span{start, p.prevEnd}, x, s, Load}
			x = sub
		default:
			return x
		}
	}
}

// slices parses what is between a subscript's brackets.
func (p *parser) slices() Expr {
	start := p.pos()
	first := p.slice()
	if p.tok != tComma {
		if _, ok := first.(*Starred); ok {
			return &Tuple{span{start, p.prevEnd}, []Expr{first}, Load}
		}
		return first
	}
	mark := len(p.a.exprs.items)
	p.a.exprs.push(first)
	for p.got(tComma) && p.tok != tRsqb {
		p.a.exprs.push(p.slice())
	}
	return p.tuple(start, mark)
}

// slice parses lower:upper:step, a starred expression or a named
// expression.
func (p *parser) slice() Expr {
	start := p.pos()
	if p.tok == tStar {
		p.next()
		v := p.expression()
		return &Starred{span{start, p.prevEnd}, v, Load}
	}
	var lower, upper, step Expr
	if p.tok != tColon {
		lower = p.namedExpression()
		if p.tok != tColon {
			return lower
		}
		if unparenthesizedWalrus(lower, start) {
			p.invalid()
		}
	}
	p.next()
	if p.tok != tColon && p.tok != tComma && p.tok != tRsqb {
		upper = p.expression()
	}
	if p.got(tColon) && p.tok != tComma && p.tok != tRsqb {
		step = p.expression()
	}
	return &Slice{span{start, p.prevEnd}, lower, upper, step}
}

// atom parses a name, a literal or a bracketed display.
func (p *parser) atom() Expr {
	start := p.pos()
	switch p.tok {
	case tName:
		id := p.text()
		p.next()
		return p.a.name(start, p.prevEnd, id, Load)
	case tNumber:
		return p.number()
	case tString, tFStringStart:
		return p.strings()
	case tTrue, tFalse, tNone, tEllipsis:
		kind := ConstEllipsis
		switch p.tok {
		case tTrue:
			kind = ConstTrue
		case tFalse:
			kind = ConstFalse
		case tNone:
			kind = ConstNone
		}
		p.next()
		c := p.a.consts.new()
		*c = Constant{span: span{start, p.prevEnd}, Kind: kind}
		return c
	case tLpar:
		return p.parenAtom()
	case tLsqb:
		return p.listAtom()
	case tLbrace:
		return p.braceAtom()
	}
	p.invalid()
	return nil
}

// number makes a Constant of a number token.
func (p *parser) number() *Constant {
	start := p.pos()
	text := p.text()
	p.next()
	kind := ConstInt
	switch {
	case text[len(text)-1]|0x20 == 'j':
		kind = ConstImag
	case len(text) > 1 && text[0] == '0' && (text[1]|0x20 == 'x' || text[1]|0x20 == 'o' || text[1]|0x20 == 'b'):
	default:
		for i := 0; i < len(text); i++ {
			if c := text[i]; c == '.' || c == 'e' || c == 'E' {
				kind = ConstFloat
				break
			}
		}
	}
	c := p.a.consts.new()
	*c = Constant{span: span{start, p.prevEnd}, Kind: kind, Value: text}
	return c
}

// parenAtom parses (), a parenthesized expression (returned as is), a
// tuple or a generator expression.
func (p *parser) parenAtom() Expr {
	start := p.pos()
	p.next()
	if p.got(tRpar) {
		return &Tuple{span{start, p.prevEnd}, nil, Load}
	}
	if p.tok == tYield {
		y := p.yieldExpr()
		p.expect(tRpar)
		return y
	}
	first := p.starNamedExpression()
	_, starred := first.(*Starred)
	switch {
	case p.startsComprehension():
		if starred {
			p.errorf(first.Pos(), "cannot use starred expression here")
		}
		gens := p.comprehensions()
		p.expect(tRpar)
		return &GeneratorExp{span{start, p.prevEnd}, first, gens}
	case p.tok == tComma:
		mark := len(p.a.exprs.items)
		p.a.exprs.push(first)
		for p.got(tComma) && p.tok != tRpar {
			p.a.exprs.push(p.starNamedExpression())
		}
		p.expect(tRpar)
		return p.tuple(start, mark)
	}
	if starred {
		p.errorf(first.Pos(), "cannot use starred expression here")
	}
	p.expect(tRpar)
	return first
}

// listAtom parses a list display or comprehension.
func (p *parser) listAtom() Expr {
	start := p.pos()
	p.next()
	if p.got(tRsqb) {
		return &List{span{start, p.prevEnd}, nil, Load}
	}
	first := p.starNamedExpression()
	if p.startsComprehension() {
		if _, ok := first.(*Starred); ok {
			p.errorf(first.Pos(), "iterable unpacking cannot be used in comprehension")
		}
		gens := p.comprehensions()
		p.expect(tRsqb)
		return &ListComp{span{start, p.prevEnd}, first, gens}
	}
	mark := len(p.a.exprs.items)
	p.a.exprs.push(first)
	for p.got(tComma) && p.tok != tRsqb {
		p.a.exprs.push(p.starNamedExpression())
	}
	p.expect(tRsqb)
	return &List{span{start, p.prevEnd}, p.a.exprs.pop(mark), Load}
}

// braceAtom parses a dict or set display or comprehension.
func (p *parser) braceAtom() Expr {
	start := p.pos()
	p.next()
	if p.got(tRbrace) {
		return &Dict{span{start, p.prevEnd}, nil, nil}
	}
	if p.tok == tDoubleStar {
		p.next()
		v := p.binary(1)
		return p.dictRest(start, []Expr{nil}, []Expr{v})
	}
	firstPos := p.pos()
	first := p.starNamedExpression()
	_, starred := first.(*Starred)
	if p.tok == tColon && !starred && !unparenthesizedWalrus(first, firstPos) {
		p.next()
		v := p.expression()
		if p.startsComprehension() {
			gens := p.comprehensions()
			p.expect(tRbrace)
			return &DictComp{span{start, p.prevEnd}, first, v, gens}
		}
		return p.dictRest(start, []Expr{first}, []Expr{v})
	}
	if p.startsComprehension() {
		if starred {
			p.errorf(first.Pos(), "iterable unpacking cannot be used in comprehension")
		}
		gens := p.comprehensions()
		p.expect(tRbrace)
		return &SetComp{span{start, p.prevEnd}, first, gens}
	}
	elts := []Expr{first}
	for p.got(tComma) && p.tok != tRbrace {
		elts = append(elts, p.starNamedExpression())
	}
	p.expect(tRbrace)
	return &Set{span{start, p.prevEnd}, elts}
}

// dictRest parses the items of a dict display after the first.
func (p *parser) dictRest(start Pos, keys, values []Expr) Expr {
	for p.got(tComma) && p.tok != tRbrace {
		if p.got(tDoubleStar) {
			keys = append(keys, nil)
			values = append(values, p.binary(1))
			continue
		}
		k := p.expression()
		p.expect(tColon)
		keys = append(keys, k)
		values = append(values, p.expression())
	}
	p.expect(tRbrace)
	return &Dict{span{start, p.prevEnd}, keys, values}
}

// startsComprehension reports whether a for clause starts here.
func (p *parser) startsComprehension() bool {
	return p.tok == tFor || p.tok == tAsync && p.peek(1) == tFor
}

// comprehensions parses one or more for clauses with their conditions.
func (p *parser) comprehensions() []*Comprehension {
	var gens []*Comprehension
	for p.startsComprehension() {
		start := p.pos()
		async := p.got(tAsync)
		p.next()
		target := p.starTargets()
		p.expect(tIn)
		iter := p.disjunction()
		var ifs []Expr
		for p.got(tIf) {
			ifs = append(ifs, p.disjunction())
		}
		gens = append(gens, &Comprehension{span{start, p.prevEnd}, target, iter, ifs, async})
	}
	return gens
}

// yieldExpr parses yield [star_expressions] or yield from expression.
func (p *parser) yieldExpr() Expr {
	start := p.pos()
	p.next()
	if p.got(tFrom) {
		v := p.expression()
		return &YieldFrom{span{start, p.prevEnd}, v}
	}
	var v Expr
	if p.startsExpr() {
		v = p.starExpressions()
	}
	return &Yield{span{start, p.prevEnd}, v}
}
