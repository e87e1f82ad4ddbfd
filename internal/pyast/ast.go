// Package pyast tokenizes and parses Python 3 source into a syntax tree with
// positions, for reading code pinbot never runs.
//
// It reads the grammar of Python 3.13 (PEP 617's grammar, PEP 701's
// f-strings, PEP 695 type parameters and PEP 696 defaults, match
// statements) and builds the tree CPython's ast module documents: the same
// node kinds and field names, Go-cased (ast.Attribute's attr is
// Attribute.Attr, ast.alias is Alias). The differences from CPython's tree
// are listed on the types: async definitions and loops are the plain node
// with IsAsync set, TryStar is Try with IsStar, ast.Expr is ExprStmt, a
// string Constant keeps its literal parts, and definitions record where the
// def or class keyword is.
//
// Every node has Pos and End, byte offsets into the source with the
// meaning CPython gives lineno/col_offset and end_lineno/end_col_offset
// (a parenthesized expression's node excludes its parentheses; a statement
// ends at its last token), except that a decorated definition starts at its
// first decorator, so that children always lie within their parents.
// Module.File turns an offset into a line and column.
//
// Parse never panics and never runs code: invalid input, Python 2 syntax
// included, is a *SyntaxError naming the file, line and column. Input is
// treated as hostile: nesting beyond CPython-like limits is an error, and
// time and memory grow linearly with the size of the source.
package pyast

// A Node is any node of the syntax tree. Pos is the offset of its first
// byte, End the offset just after its last.
type Node interface {
	Pos() Pos
	End() Pos
}

// An Expr is an expression node (CPython's ast.expr).
type Expr interface {
	Node
	exprNode()
}

// A Stmt is a statement node (CPython's ast.stmt).
type Stmt interface {
	Node
	stmtNode()
}

// A Pattern is a pattern of a match statement's case (CPython's ast.pattern).
type Pattern interface {
	Node
	patternNode()
}

// A TypeParam is a PEP 695 type parameter: *TypeVar, *ParamSpec or
// *TypeVarTuple (CPython's ast.type_param).
type TypeParam interface {
	Node
	typeParamNode()
}

// span is the [pos, end) byte range every node records.
type span struct {
	pos, end Pos
}

// Pos returns the offset of the node's first byte.
func (s *span) Pos() Pos { return s.pos }

// End returns the offset just after the node's last byte.
func (s *span) End() Pos { return s.end }

// An ExprContext says how an expression is used: loaded, assigned to, or
// deleted (CPython's Load, Store, Del).
type ExprContext uint8

// The expression contexts.
const (
	Load ExprContext = iota
	Store
	Del
)

// String returns CPython's name of the context.
func (c ExprContext) String() string {
	switch c {
	case Store:
		return "Store"
	case Del:
		return "Del"
	}
	return "Load"
}

// An Op is an operator: of BinOp and AugAssign (Add ... FloorDiv), UnaryOp
// (Invert ... USub), BoolOp (And, Or) or Compare (Eq ... NotIn).
type Op uint8

// The operators, named as CPython names their classes.
const (
	Add Op = iota + 1
	Sub
	Mult
	MatMult
	Div
	Mod
	Pow
	LShift
	RShift
	BitOr
	BitXor
	BitAnd
	FloorDiv

	Invert
	Not
	UAdd
	USub

	And
	Or

	Eq
	NotEq
	Lt
	LtE
	Gt
	GtE
	Is
	IsNot
	In
	NotIn
)

var opNames = [...]string{"", "Add", "Sub", "Mult", "MatMult", "Div", "Mod", "Pow", "LShift", "RShift",
	"BitOr", "BitXor", "BitAnd", "FloorDiv", "Invert", "Not", "UAdd", "USub", "And", "Or",
	"Eq", "NotEq", "Lt", "LtE", "Gt", "GtE", "Is", "IsNot", "In", "NotIn"}

// String returns CPython's name of the operator ("Add", "NotIn").
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "Op?"
}

// A ConstKind is the type of a Constant's value.
type ConstKind uint8

// The kinds of constants. Numbers keep their literal text (underscores and
// base prefixes included) in Value; strings and bytes their decoded value.
const (
	ConstNone ConstKind = iota
	ConstTrue
	ConstFalse
	ConstEllipsis
	ConstInt
	ConstFloat
	ConstImag // an imaginary literal such as 2j
	ConstStr
	ConstBytes
)

// BoolOp is a chain of the same boolean operator: a or b or c.
type BoolOp struct {
	span
	Op     Op // And or Or
	Values []Expr
}

// NamedExpr is an assignment expression: target := value.
type NamedExpr struct {
	span
	Target *Name
	Value  Expr
}

// BinOp is a binary operation: left op right.
type BinOp struct {
	span
	Left  Expr
	Op    Op
	Right Expr
}

// UnaryOp is a unary operation: not x, -x, +x, ~x.
type UnaryOp struct {
	span
	Op      Op // Invert, Not, UAdd or USub
	Operand Expr
}

// Lambda is lambda args: body.
type Lambda struct {
	span
	Args *Arguments
	Body Expr
}

// IfExp is a conditional expression: body if test else orelse.
type IfExp struct {
	span
	Test, Body, Orelse Expr
}

// Dict is a dict display. A nil key marks a **mapping unpacked in place.
type Dict struct {
	span
	Keys   []Expr
	Values []Expr
}

// Set is a set display.
type Set struct {
	span
	Elts []Expr
}

// ListComp is a list comprehension: [elt for ...].
type ListComp struct {
	span
	Elt        Expr
	Generators []*Comprehension
}

// SetComp is a set comprehension: {elt for ...}.
type SetComp struct {
	span
	Elt        Expr
	Generators []*Comprehension
}

// DictComp is a dict comprehension: {key: value for ...}.
type DictComp struct {
	span
	Key, Value Expr
	Generators []*Comprehension
}

// GeneratorExp is a generator expression: (elt for ...). As the sole
// argument of a call, f(x for x in y), it spans the call's parentheses.
type GeneratorExp struct {
	span
	Elt        Expr
	Generators []*Comprehension
}

// Await is await value.
type Await struct {
	span
	Value Expr
}

// Yield is yield [value].
type Yield struct {
	span
	Value Expr // nil for a bare yield
}

// YieldFrom is yield from value.
type YieldFrom struct {
	span
	Value Expr
}

// Compare is a chain of comparisons: left op1 c1 op2 c2 ...
type Compare struct {
	span
	Left        Expr
	Ops         []Op
	Comparators []Expr
}

// Call is a call: func(args, keywords). Args holds positional arguments
// and *iterables (as Starred), Keywords name=value and **mappings.
type Call struct {
	span
	Func     Expr
	Args     []Expr
	Keywords []*Keyword
}

// FormattedValue is one replacement field of an f-string, {value!r:spec}.
type FormattedValue struct {
	span
	Value Expr
	// Conversion is 's', 'r' or 'a' after a !, or 0 for none (CPython's
	// -1); {x=} without a conversion or spec implies 'r', as in CPython.
	Conversion byte
	FormatSpec *JoinedStr // nil without a spec
}

// JoinedStr is an f-string, or the implicit concatenation of strings of
// which at least one is an f-string. Values are *Constant (literal text,
// adjacent pieces merged, empty ones dropped) and *FormattedValue, in
// order. Parts are the literals as written; a format spec's JoinedStr has
// none.
type JoinedStr struct {
	span
	Values []Expr
	Parts  []StrPart
}

// Constant is a literal: a number, string, bytes, True, False, None or
// Ellipsis. CPython's kind ("u" for a u-prefixed string) is Parts[0].Prefix.
type Constant struct {
	span
	Kind ConstKind
	// Value is the decoded value of a string (UTF-8; lone surrogates from
	// \ud800-style escapes are encoded as WTF-8; bytes of invalid UTF-8 in
	// the source are kept) or of bytes (any bytes), the literal text of a
	// number, and empty otherwise.
	Value string
	Parts []StrPart // for ConstStr and ConstBytes: the literals concatenated
}

// A StrPart is one string literal as written, of the one or more that
// implicit concatenation joins ("a" 'b').
type StrPart struct {
	Pos, End         Pos    // the literal, prefix and quotes included
	BodyPos, BodyEnd Pos    // the text between the quotes
	Prefix           string // as written: "", "r", "b", "Rb", "f", ...
	Quote            string // ', ", ''' or """
	// Escapes reports whether the body holds a backslash: an escape
	// sequence, a line continuation, or in a raw literal a backslash kept.
	Escapes bool
	// Multiline reports whether the body holds a line break.
	Multiline bool
}

// Attribute is value.attr.
type Attribute struct {
	span
	Value   Expr
	Attr    string
	AttrPos Pos // where the attribute's name starts
	Ctx     ExprContext
}

// Subscript is value[slice].
type Subscript struct {
	span
	Value Expr
	Slice Expr // a *Slice, a *Tuple of several, or any expression
	Ctx   ExprContext
}

// Starred is *value, in a call, a display or an assignment target.
type Starred struct {
	span
	Value Expr
	Ctx   ExprContext
}

// Name is an identifier, as written (CPython would apply NFKC to it).
type Name struct {
	span
	Id  string
	Ctx ExprContext
}

// List is a list display or an assignment target [a, b].
type List struct {
	span
	Elts []Expr
	Ctx  ExprContext
}

// Tuple is a tuple, with or without its parentheses.
type Tuple struct {
	span
	Elts []Expr
	Ctx  ExprContext
}

// Slice is lower:upper:step inside a subscript; any part may be nil.
type Slice struct {
	span
	Lower, Upper, Step Expr
}

func (*BoolOp) exprNode()         {}
func (*NamedExpr) exprNode()      {}
func (*BinOp) exprNode()          {}
func (*UnaryOp) exprNode()        {}
func (*Lambda) exprNode()         {}
func (*IfExp) exprNode()          {}
func (*Dict) exprNode()           {}
func (*Set) exprNode()            {}
func (*ListComp) exprNode()       {}
func (*SetComp) exprNode()        {}
func (*DictComp) exprNode()       {}
func (*GeneratorExp) exprNode()   {}
func (*Await) exprNode()          {}
func (*Yield) exprNode()          {}
func (*YieldFrom) exprNode()      {}
func (*Compare) exprNode()        {}
func (*Call) exprNode()           {}
func (*FormattedValue) exprNode() {}
func (*JoinedStr) exprNode()      {}
func (*Constant) exprNode()       {}
func (*Attribute) exprNode()      {}
func (*Subscript) exprNode()      {}
func (*Starred) exprNode()        {}
func (*Name) exprNode()           {}
func (*List) exprNode()           {}
func (*Tuple) exprNode()          {}
func (*Slice) exprNode()          {}
