package pyast

// Inspect traverses the tree rooted at node in depth-first order, as
// go/ast.Inspect does: it calls f(node); if that returns true, it inspects
// each child in source order, then calls f(nil). Children come in the
// order they are written: a decorator before its def, a conditional's
// body before its test, keyword arguments among positional ones. Inspect
// keeps its own stack, so a deep tree (a + b + ... of a million terms)
// costs no Go stack.
func Inspect(node Node, f func(Node) bool) {
	if node == nil || isNilNode(node) {
		return
	}
	stack := []Node{node}
	var kids []Node
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == nil {
			f(nil)
			continue
		}
		if !f(n) {
			continue
		}
		stack = append(stack, nil)
		kids = appendChildren(kids[:0], n)
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
}

// Children returns the children of n in source order, the order Inspect
// visits them.
func Children(n Node) []Node {
	return appendChildren(nil, n)
}

// appendChildren appends the non-nil children of n in source order.
func appendChildren(dst []Node, n Node) []Node {
	add := func(x Node) {
		if x != nil && !isNilNode(x) {
			dst = append(dst, x)
		}
	}
	exprs := func(xs []Expr) {
		for _, x := range xs {
			add(x)
		}
	}
	stmts := func(xs []Stmt) {
		for _, x := range xs {
			dst = append(dst, x)
		}
	}
	tparams := func(xs []TypeParam) {
		for _, x := range xs {
			dst = append(dst, x)
		}
	}
	switch n := n.(type) {
	case *Module:
		stmts(n.Body)
	case *FunctionDef:
		exprs(n.DecoratorList)
		tparams(n.TypeParams)
		add(n.Args)
		add(n.Returns)
		stmts(n.Body)
	case *ClassDef:
		exprs(n.DecoratorList)
		tparams(n.TypeParams)
		dst = argsInOrder(dst, n.Bases, n.Keywords)
		stmts(n.Body)
	case *Return:
		add(n.Value)
	case *Delete:
		exprs(n.Targets)
	case *Assign:
		exprs(n.Targets)
		add(n.Value)
	case *TypeAlias:
		add(n.Name)
		tparams(n.TypeParams)
		add(n.Value)
	case *AugAssign:
		add(n.Target)
		add(n.Value)
	case *AnnAssign:
		add(n.Target)
		add(n.Annotation)
		add(n.Value)
	case *For:
		add(n.Target)
		add(n.Iter)
		stmts(n.Body)
		stmts(n.Orelse)
	case *While:
		add(n.Test)
		stmts(n.Body)
		stmts(n.Orelse)
	case *If:
		add(n.Test)
		stmts(n.Body)
		stmts(n.Orelse)
	case *With:
		for _, it := range n.Items {
			dst = append(dst, it)
		}
		stmts(n.Body)
	case *Match:
		add(n.Subject)
		for _, c := range n.Cases {
			dst = append(dst, c)
		}
	case *Raise:
		add(n.Exc)
		add(n.Cause)
	case *Try:
		stmts(n.Body)
		for _, h := range n.Handlers {
			dst = append(dst, h)
		}
		stmts(n.Orelse)
		stmts(n.Finalbody)
	case *Assert:
		add(n.Test)
		add(n.Msg)
	case *Import:
		for _, a := range n.Names {
			dst = append(dst, a)
		}
	case *ImportFrom:
		for _, a := range n.Names {
			dst = append(dst, a)
		}
	case *ExprStmt:
		add(n.Value)
	case *Global, *Nonlocal, *Pass, *Break, *Continue:

	case *BoolOp:
		exprs(n.Values)
	case *NamedExpr:
		add(n.Target)
		add(n.Value)
	case *BinOp:
		add(n.Left)
		add(n.Right)
	case *UnaryOp:
		add(n.Operand)
	case *Lambda:
		add(n.Args)
		add(n.Body)
	case *IfExp:
		add(n.Body)
		add(n.Test)
		add(n.Orelse)
	case *Dict:
		for i, v := range n.Values {
			add(n.Keys[i])
			add(v)
		}
	case *Set:
		exprs(n.Elts)
	case *ListComp:
		add(n.Elt)
		dst = comprehensions(dst, n.Generators)
	case *SetComp:
		add(n.Elt)
		dst = comprehensions(dst, n.Generators)
	case *GeneratorExp:
		add(n.Elt)
		dst = comprehensions(dst, n.Generators)
	case *DictComp:
		add(n.Key)
		add(n.Value)
		dst = comprehensions(dst, n.Generators)
	case *Await:
		add(n.Value)
	case *Yield:
		add(n.Value)
	case *YieldFrom:
		add(n.Value)
	case *Compare:
		add(n.Left)
		exprs(n.Comparators)
	case *Call:
		add(n.Func)
		dst = argsInOrder(dst, n.Args, n.Keywords)
	case *FormattedValue:
		add(n.Value)
		add(n.FormatSpec)
	case *JoinedStr:
		exprs(n.Values)
	case *Attribute:
		add(n.Value)
	case *Subscript:
		add(n.Value)
		add(n.Slice)
	case *Starred:
		add(n.Value)
	case *List:
		exprs(n.Elts)
	case *Tuple:
		exprs(n.Elts)
	case *Slice:
		add(n.Lower)
		add(n.Upper)
		add(n.Step)
	case *Constant, *Name:

	case *Comprehension:
		add(n.Target)
		add(n.Iter)
		exprs(n.Ifs)
	case *ExceptHandler:
		add(n.Type)
		stmts(n.Body)
	case *Arguments:
		dst = params(dst, n)
	case *Arg:
		add(n.Annotation)
	case *Keyword:
		add(n.Value)
	case *Alias:
	case *WithItem:
		add(n.ContextExpr)
		add(n.OptionalVars)
	case *MatchCase:
		add(n.Pattern)
		add(n.Guard)
		stmts(n.Body)
	case *MatchValue:
		add(n.Value)
	case *MatchSequence:
		for _, x := range n.Patterns {
			dst = append(dst, x)
		}
	case *MatchMapping:
		for i, k := range n.Keys {
			add(k)
			dst = append(dst, n.Patterns[i])
		}
	case *MatchClass:
		add(n.Cls)
		for _, x := range n.Patterns {
			dst = append(dst, x)
		}
		for _, x := range n.KwdPatterns {
			dst = append(dst, x)
		}
	case *MatchAs:
		add(n.Pattern)
	case *MatchOr:
		for _, x := range n.Patterns {
			dst = append(dst, x)
		}
	case *MatchSingleton, *MatchStar:
	case *TypeVar:
		add(n.Bound)
		add(n.DefaultValue)
	case *ParamSpec:
		add(n.DefaultValue)
	case *TypeVarTuple:
		add(n.DefaultValue)
	}
	return dst
}

// isNilNode reports whether x is a nil pointer held in a non-nil interface
// (an absent optional child stored as a typed nil).
func isNilNode(x Node) bool {
	switch v := x.(type) {
	case *Module:
		return v == nil
	case *Arguments:
		return v == nil
	case *JoinedStr:
		return v == nil
	case *Name:
		return v == nil
	}
	return false
}

// argsInOrder appends a call's (or class's) positional and keyword
// arguments in the order they are written.
func argsInOrder(dst []Node, args []Expr, kws []*Keyword) []Node {
	i, j := 0, 0
	for i < len(args) || j < len(kws) {
		if j >= len(kws) || i < len(args) && args[i].Pos() < kws[j].Pos() {
			dst = append(dst, args[i])
			i++
		} else {
			dst = append(dst, kws[j])
			j++
		}
	}
	return dst
}

func comprehensions(dst []Node, gens []*Comprehension) []Node {
	for _, g := range gens {
		dst = append(dst, g)
	}
	return dst
}

// params appends parameters and their defaults in source order.
func params(dst []Node, a *Arguments) []Node {
	positional := len(a.PosOnlyArgs) + len(a.Args)
	firstDefault := positional - len(a.Defaults)
	k := 0
	for _, list := range [][]*Arg{a.PosOnlyArgs, a.Args} {
		for _, arg := range list {
			dst = append(dst, arg)
			if k >= firstDefault {
				dst = append(dst, a.Defaults[k-firstDefault])
			}
			k++
		}
	}
	if a.VarArg != nil {
		dst = append(dst, a.VarArg)
	}
	for i, arg := range a.KwOnlyArgs {
		dst = append(dst, arg)
		if i < len(a.KwDefaults) && a.KwDefaults[i] != nil {
			dst = append(dst, a.KwDefaults[i])
		}
	}
	if a.KwArg != nil {
		dst = append(dst, a.KwArg)
	}
	return dst
}
