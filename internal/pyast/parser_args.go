package pyast

// parameters parses the parameters of a def (up to ')') or of a lambda (up
// to ':', without annotations), with CPython's rules: / after at least one
// parameter and before *, no parameter without a default after one with a
// default (before *), a bare * followed by a named parameter, ** last.
func (p *parser) parameters(term tokKind) *Arguments {
	lambda := term == tColon
	start := p.pos()
	a := &Arguments{}
	seenSlash, seenStar, seenDefault := false, false, false
	bare := Pos(-1)
	for p.tok != term {
		switch p.tok {
		case tSlash:
			switch {
			case seenSlash:
				p.errorf(p.pos(), "/ may appear only once")
			case seenStar:
				p.errorf(p.pos(), "/ must be ahead of *")
			case len(a.Args) == 0:
				p.errorf(p.pos(), "at least one parameter must precede /")
			}
			seenSlash = true
			a.PosOnlyArgs, a.Args = a.Args, nil
			p.next()
		case tStar:
			if seenStar {
				p.errorf(p.pos(), "* may appear only once")
			}
			seenStar = true
			at := p.pos()
			p.next()
			if p.tok == tComma || p.tok == term {
				bare = at
				break
			}
			a.VarArg = p.param(lambda, true)
			if p.tok == tEqual {
				p.errorf(p.pos(), "var-positional parameter cannot have default value")
			}
		case tDoubleStar:
			p.next()
			a.KwArg = p.param(lambda, false)
			if p.tok == tEqual {
				p.errorf(p.pos(), "var-keyword parameter cannot have default value")
			}
			if p.got(tComma) && p.tok != term {
				p.errorf(p.pos(), "parameters cannot follow var-keyword parameter")
			}
			if p.tok != term {
				p.invalid()
			}
			continue
		case tName:
			arg := p.param(lambda, false)
			var def Expr
			if p.got(tEqual) {
				def = p.expression()
			}
			switch {
			case seenStar:
				a.KwOnlyArgs = append(a.KwOnlyArgs, arg)
				a.KwDefaults = append(a.KwDefaults, def)
			case def != nil:
				a.Args = append(a.Args, arg)
				a.Defaults = append(a.Defaults, def)
				seenDefault = true
			case seenDefault:
				p.errorf(arg.Pos(), "parameter without a default follows parameter with a default")
			default:
				a.Args = append(a.Args, arg)
			}
		default:
			p.invalid()
		}
		if !p.got(tComma) {
			break
		}
	}
	if p.tok != term {
		p.invalid()
	}
	if bare >= 0 && len(a.KwOnlyArgs) == 0 {
		p.errorf(bare, "named arguments must follow bare *")
	}
	a.span = span{start, start}
	if p.prevEnd > start {
		a.end = p.prevEnd
	}
	return a
}

// param parses a name and, for a def, its annotation; *args may be
// annotated with a starred expression (*args: *Ts).
func (p *parser) param(lambda, star bool) *Arg {
	start := p.pos()
	name, _ := p.ident()
	var ann Expr
	if !lambda && p.got(tColon) {
		if star {
			ann = p.starExpression()
		} else {
			ann = p.expression()
		}
	}
	a := p.a.args.new()
	*a = Arg{span{start, p.prevEnd}, name, ann}
	return a
}

// callArgs parses a call's arguments after its '(' at lpar, and the ')':
// positional arguments and *iterables in args, name=value and **mappings
// in keywords. With genexp, a sole argument followed by for makes a
// generator expression spanning the parentheses.
func (p *parser) callArgs(lpar Pos, genexp bool) ([]Expr, []*Keyword) {
	argMark, kwMark := len(p.a.exprs.items), len(p.a.kws.items)
	seenKw, seenDStar := false, false
	for p.tok != tRpar {
		start := p.pos()
		switch {
		case p.tok == tStar:
			if seenDStar {
				p.errorf(start, "iterable argument unpacking follows keyword argument unpacking")
			}
			p.next()
			v := p.expression()
			p.a.exprs.push(&Starred{span{start, p.prevEnd}, v, Load})
		case p.tok == tDoubleStar:
			p.next()
			v := p.expression()
			p.a.kws.push(p.keyword(start, "", v))
			seenDStar = true
		case p.tok == tName && p.peek(1) == tEqual:
			name := p.text()
			p.next()
			p.next()
			v := p.expression()
			p.a.kws.push(p.keyword(start, name, v))
			seenKw = true
		default:
			e := p.namedExpression()
			if p.startsComprehension() {
				gens := p.comprehensions()
				if !genexp || len(p.a.exprs.items) > argMark || len(p.a.kws.items) > kwMark || p.tok != tRpar {
					p.errorf(e.Pos(), "Generator expression must be parenthesized")
				}
				p.next()
				return []Expr{&GeneratorExp{span{lpar, p.prevEnd}, e, gens}}, nil
			}
			switch {
			case p.tok == tEqual:
				p.errorf(e.Pos(), `expression cannot contain assignment, perhaps you meant "=="?`)
			case seenDStar:
				p.errorf(e.Pos(), "positional argument follows keyword argument unpacking")
			case seenKw:
				p.errorf(e.Pos(), "positional argument follows keyword argument")
			}
			p.a.exprs.push(e)
		}
		if !p.got(tComma) {
			break
		}
	}
	p.expect(tRpar)
	return p.a.exprs.pop(argMark), p.a.kws.pop(kwMark)
}

func (p *parser) keyword(start Pos, name string, v Expr) *Keyword {
	k := p.a.keywords.new()
	*k = Keyword{span{start, p.prevEnd}, name, v}
	return k
}

// starTargets parses the targets of a for loop or comprehension: primaries
// and starred primaries, so that the 'in' after them is not read as a
// comparison.
func (p *parser) starTargets() Expr {
	start := p.pos()
	first := p.starTarget()
	if p.tok != tComma {
		return first
	}
	elts := []Expr{first}
	for p.got(tComma) && p.tok != tIn {
		elts = append(elts, p.starTarget())
	}
	return &Tuple{span{start, p.prevEnd}, elts, Store}
}

// starTarget parses one assignment target: *target or a primary.
func (p *parser) starTarget() Expr {
	if p.tok == tStar {
		start := p.pos()
		p.next()
		if p.tok == tStar {
			p.invalid()
		}
		v := p.starTarget()
		return &Starred{span{start, p.prevEnd}, v, Store}
	}
	e := p.primary()
	p.setContext(e, Store)
	return e
}

// setContext marks e as assigned to (Store) or deleted (Del), and checks
// that it can be: names, attributes, subscripts, and tuples and lists of
// targets, starred ones too when assigned to.
func (p *parser) setContext(e Expr, ctx ExprContext) {
	switch n := e.(type) {
	case *Name:
		n.Ctx = ctx
	case *Attribute:
		n.Ctx = ctx
	case *Subscript:
		n.Ctx = ctx
	case *Starred:
		if ctx == Del {
			p.errorf(n.Pos(), "cannot delete starred")
		}
		n.Ctx = ctx
		p.setContext(n.Value, ctx)
	case *Tuple:
		n.Ctx = ctx
		for _, x := range n.Elts {
			p.setContext(x, ctx)
		}
	case *List:
		n.Ctx = ctx
		for _, x := range n.Elts {
			p.setContext(x, ctx)
		}
	default:
		if ctx == Del {
			p.errorf(e.Pos(), "cannot delete %s", exprName(e))
		}
		p.errorf(e.Pos(), "cannot assign to %s", exprName(e))
	}
}

// exprName names the kind of e for error messages, as CPython does.
func exprName(e Expr) string {
	switch n := e.(type) {
	case *Attribute:
		return "attribute"
	case *Subscript:
		return "subscript"
	case *Starred:
		return "starred"
	case *Name:
		return "name"
	case *List:
		return "list"
	case *Tuple:
		return "tuple"
	case *Lambda:
		return "lambda"
	case *Call:
		return "function call"
	case *BoolOp, *BinOp, *UnaryOp:
		return "expression"
	case *GeneratorExp:
		return "generator expression"
	case *Yield, *YieldFrom:
		return "yield expression"
	case *Await:
		return "await expression"
	case *ListComp:
		return "list comprehension"
	case *SetComp:
		return "set comprehension"
	case *DictComp:
		return "dict comprehension"
	case *Dict:
		return "dict literal"
	case *Set:
		return "set display"
	case *JoinedStr, *FormattedValue:
		return "f-string expression"
	case *Constant:
		switch n.Kind {
		case ConstNone:
			return "None"
		case ConstTrue:
			return "True"
		case ConstFalse:
			return "False"
		case ConstEllipsis:
			return "ellipsis"
		}
		return "literal"
	case *Compare:
		return "comparison"
	case *IfExp:
		return "conditional expression"
	case *NamedExpr:
		return "named expression"
	}
	return "expression"
}
