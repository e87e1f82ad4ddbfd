package pyast

// A slab hands out values of T from chunks, so that a tree of many small
// nodes costs few allocations. Chunks grow from 8 to 512 values, so that a
// small file wastes little; every node stays live as long as the tree.
type slab[T any] struct {
	buf []T
	n   int
}

// new returns a pointer to a zero T.
func (s *slab[T]) new() *T {
	if len(s.buf) == 0 {
		s.n = min(max(2*s.n, 8), 512)
		s.buf = make([]T, s.n)
	}
	p := &s.buf[0]
	s.buf = s.buf[1:]
	return p
}

// take returns a slice of n zero values whose capacity is n, so that an
// append to it cannot reach its neighbours.
func (s *slab[T]) take(n int) []T {
	if n > 64 {
		return make([]T, n)
	}
	if n > len(s.buf) {
		s.n = min(max(2*s.n, 64), 1024)
		s.buf = make([]T, s.n)
	}
	out := s.buf[:n:n]
	s.buf = s.buf[n:]
	return out
}

// A stack holds the elements of the lists being parsed, nested lists on top
// of the lists they are in; pop copies a finished list out, exactly sized.
type stack[T any] struct {
	items []T
	mem   slab[T]
}

func (s *stack[T]) push(x T) { s.items = append(s.items, x) }

// pop returns the elements pushed since mark (a length of items), nil if
// none, and removes them.
func (s *stack[T]) pop(mark int) []T {
	n := len(s.items) - mark
	if n <= 0 {
		return nil
	}
	out := s.mem.take(n)
	copy(out, s.items[mark:])
	clear(s.items[mark:])
	s.items = s.items[:mark]
	return out
}

// An arena allocates the parser's most frequent nodes and lists.
type arena struct {
	names      slab[Name]
	consts     slab[Constant]
	attrs      slab[Attribute]
	calls      slab[Call]
	subscripts slab[Subscript]
	binops     slab[BinOp]
	keywords   slab[Keyword]
	args       slab[Arg]
	tuples     slab[Tuple]
	exprStmts  slab[ExprStmt]
	assigns    slab[Assign]
	parts      slab[StrPart]

	exprs    stack[Expr]
	stmts    stack[Stmt]
	kws      stack[*Keyword]
	strParts stack[StrPart]
	pieces   stack[piece]
}

func (a *arena) name(pos, end Pos, id string, ctx ExprContext) *Name {
	n := a.names.new()
	*n = Name{span{pos, end}, id, ctx}
	return n
}
