package pyast

// patterns parses the patterns of a case: one pattern, or an open
// sequence p, q, *rest.
func (p *parser) patterns() Pattern {
	start := p.pos()
	first := p.maybeStarPattern()
	if p.tok != tComma {
		if _, ok := first.(*MatchStar); ok {
			p.invalid()
		}
		return first
	}
	pats := []Pattern{first}
	for p.got(tComma) && p.tok != tColon && p.tok != tIf {
		pats = append(pats, p.maybeStarPattern())
	}
	return &MatchSequence{span{start, p.prevEnd}, pats}
}

// maybeStarPattern parses *name, *_ or a pattern.
func (p *parser) maybeStarPattern() Pattern {
	if p.tok != tStar {
		return p.pattern()
	}
	start := p.pos()
	p.next()
	name, _ := p.ident()
	if name == "_" {
		name = ""
	}
	return &MatchStar{span{start, p.prevEnd}, name}
}

// pattern parses an or-pattern, with an optional as name.
func (p *parser) pattern() Pattern {
	p.enter()
	start := p.pos()
	pat := p.orPattern()
	if p.got(tAs) {
		name := p.captureName()
		pat = &MatchAs{span{start, p.prevEnd}, pat, name}
	}
	p.leave()
	return pat
}

// captureName parses the name a pattern binds, which may not be _.
func (p *parser) captureName() string {
	pos := p.pos()
	name, _ := p.ident()
	if name == "_" {
		p.errorf(pos, "cannot use '_' as a target")
	}
	return name
}

func (p *parser) orPattern() Pattern {
	start := p.pos()
	first := p.closedPattern()
	if p.tok != tVbar {
		return first
	}
	pats := []Pattern{first}
	for p.got(tVbar) {
		pats = append(pats, p.closedPattern())
	}
	return &MatchOr{span{start, p.prevEnd}, pats}
}

// closedPattern parses a literal, capture, wildcard, value, group,
// sequence, mapping or class pattern.
func (p *parser) closedPattern() Pattern {
	start := p.pos()
	sp := func() span { return span{start, p.prevEnd} }
	switch p.tok {
	case tNumber, tMinus:
		v := p.signedNumber()
		return &MatchValue{sp(), v}
	case tString, tFStringStart:
		v := p.strings()
		return &MatchValue{sp(), v}
	case tNone, tTrue, tFalse:
		kind := map[tokKind]ConstKind{tNone: ConstNone, tTrue: ConstTrue, tFalse: ConstFalse}[p.tok]
		p.next()
		return &MatchSingleton{sp(), kind}
	case tName:
		if p.soft("_") && p.peek(1) != tDot && p.peek(1) != tLpar {
			p.next()
			return &MatchAs{span: sp()}
		}
		v := p.nameOrAttr()
		if p.tok == tLpar {
			return p.classPattern(start, v)
		}
		if n, ok := v.(*Name); ok {
			return &MatchAs{span: sp(), Name: n.Id}
		}
		return &MatchValue{sp(), v}
	case tLpar:
		p.next()
		if p.got(tRpar) {
			return &MatchSequence{span: sp()}
		}
		first := p.maybeStarPattern()
		if p.tok != tComma {
			if _, ok := first.(*MatchStar); ok {
				p.invalid()
			}
			p.expect(tRpar)
			return first
		}
		pats := []Pattern{first}
		for p.got(tComma) && p.tok != tRpar {
			pats = append(pats, p.maybeStarPattern())
		}
		p.expect(tRpar)
		return &MatchSequence{sp(), pats}
	case tLsqb:
		p.next()
		var pats []Pattern
		for p.tok != tRsqb {
			pats = append(pats, p.maybeStarPattern())
			if !p.got(tComma) {
				break
			}
		}
		p.expect(tRsqb)
		return &MatchSequence{sp(), pats}
	case tLbrace:
		return p.mappingPattern()
	}
	p.invalid()
	return nil
}

// signedNumber parses a number, -number, or a complex literal real±imagj.
func (p *parser) signedNumber() Expr {
	start := p.pos()
	neg := p.got(tMinus)
	if p.tok != tNumber {
		p.invalid()
	}
	num := p.number()
	var real Expr = num
	if neg {
		real = &UnaryOp{span{start, p.prevEnd}, USub, num}
	}
	if p.tok != tPlus && p.tok != tMinus {
		return real
	}
	if num.Kind == ConstImag {
		p.errorf(num.Pos(), "real number required in complex literal")
	}
	op := Add
	if p.tok == tMinus {
		op = Sub
	}
	p.next()
	if p.tok != tNumber {
		p.invalid()
	}
	imag := p.number()
	if imag.Kind != ConstImag {
		p.errorf(imag.Pos(), "imaginary number required in complex literal")
	}
	return &BinOp{span{start, p.prevEnd}, real, op, imag}
}

// nameOrAttr parses a name or dotted name.
func (p *parser) nameOrAttr() Expr {
	start := p.pos()
	id, _ := p.ident()
	var e Expr = &Name{span{start, p.prevEnd}, id, Load}
	for p.got(tDot) {
		name, pos := p.ident()
		e = &Attribute{span{start, p.prevEnd}, e, name, pos, Load}
	}
	return e
}

// classPattern parses cls(p, q, name=r) from the '('.
func (p *parser) classPattern(start Pos, cls Expr) Pattern {
	p.next()
	m := &MatchClass{Cls: cls}
	for p.tok != tRpar {
		if p.tok == tName && p.peek(1) == tEqual {
			name, _ := p.ident()
			p.next()
			m.KwdAttrs = append(m.KwdAttrs, name)
			m.KwdPatterns = append(m.KwdPatterns, p.pattern())
		} else {
			if len(m.KwdAttrs) > 0 {
				p.errorf(p.pos(), "positional patterns follow keyword patterns")
			}
			m.Patterns = append(m.Patterns, p.pattern())
		}
		if !p.got(tComma) {
			break
		}
	}
	p.expect(tRpar)
	m.span = span{start, p.prevEnd}
	return m
}

// mappingPattern parses {key: pattern, **rest}.
func (p *parser) mappingPattern() Pattern {
	start := p.pos()
	p.next()
	m := &MatchMapping{}
	for p.tok != tRbrace {
		if p.got(tDoubleStar) {
			m.Rest = p.captureName()
			p.got(tComma)
			break
		}
		var key Expr
		switch p.tok {
		case tNumber, tMinus:
			key = p.signedNumber()
		case tString, tFStringStart:
			key = p.strings()
		case tNone, tTrue, tFalse:
			key = p.atom()
		case tName:
			key = p.nameOrAttr()
			if _, ok := key.(*Attribute); !ok {
				p.invalid()
			}
		default:
			p.invalid()
		}
		p.expect(tColon)
		m.Keys = append(m.Keys, key)
		m.Patterns = append(m.Patterns, p.pattern())
		if !p.got(tComma) {
			break
		}
	}
	p.expect(tRbrace)
	m.span = span{start, p.prevEnd}
	return m
}
