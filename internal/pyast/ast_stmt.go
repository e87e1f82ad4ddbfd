package pyast

// A Module is a parsed source file (CPython's ast.Module), with its line
// table and comments. It spans the whole source.
type Module struct {
	span
	Body     []Stmt
	Comments []Comment // every comment, in order
	File     *File
}

// A Comment is one # comment, up to but excluding the line break.
type Comment struct {
	Slash Pos    // where the # is
	Text  string // the comment, # included
}

// Pos returns the offset of the #.
func (c Comment) Pos() Pos { return c.Slash }

// End returns the offset just after the comment.
func (c Comment) End() Pos { return c.Slash + Pos(len(c.Text)) }

// FunctionDef is a def or async def statement. Its span starts at its first
// decorator; DefPos is where CPython's lineno points (def, or async).
type FunctionDef struct {
	span
	DefPos        Pos
	IsAsync       bool // CPython's AsyncFunctionDef
	Name          string
	NamePos       Pos
	DecoratorList []Expr
	TypeParams    []TypeParam
	Args          *Arguments
	Returns       Expr // nil without ->
	Body          []Stmt
}

// ClassDef is a class statement. Its span starts at its first decorator;
// ClassPos is where the class keyword is.
type ClassDef struct {
	span
	ClassPos      Pos
	Name          string
	NamePos       Pos
	DecoratorList []Expr
	TypeParams    []TypeParam
	Bases         []Expr
	Keywords      []*Keyword
	Body          []Stmt
}

// Return is return [value].
type Return struct {
	span
	Value Expr
}

// Delete is del targets.
type Delete struct {
	span
	Targets []Expr
}

// Assign is targets[0] = targets[1] = ... = value.
type Assign struct {
	span
	Targets []Expr
	Value   Expr
}

// TypeAlias is type name[type_params] = value (PEP 695).
type TypeAlias struct {
	span
	Name       *Name
	TypeParams []TypeParam
	Value      Expr
}

// AugAssign is target op= value.
type AugAssign struct {
	span
	Target Expr
	Op     Op
	Value  Expr
}

// AnnAssign is target: annotation [= value]. Simple reports whether the
// target is a name without parentheses.
type AnnAssign struct {
	span
	Target     Expr
	Annotation Expr
	Value      Expr
	Simple     bool
}

// For is a for or async for loop.
type For struct {
	span
	IsAsync bool // CPython's AsyncFor
	Target  Expr
	Iter    Expr
	Body    []Stmt
	Orelse  []Stmt
}

// While is a while loop.
type While struct {
	span
	Test   Expr
	Body   []Stmt
	Orelse []Stmt
}

// If is an if statement; an elif is an If alone in Orelse, starting at
// the elif.
type If struct {
	span
	Test   Expr
	Body   []Stmt
	Orelse []Stmt
}

// With is a with or async with statement.
type With struct {
	span
	IsAsync bool // CPython's AsyncWith
	Items   []*WithItem
	Body    []Stmt
}

// Match is a match statement.
type Match struct {
	span
	Subject Expr
	Cases   []*MatchCase
}

// Raise is raise [exc [from cause]].
type Raise struct {
	span
	Exc, Cause Expr
}

// Try is a try statement; with except* handlers (CPython's TryStar) IsStar
// is set.
type Try struct {
	span
	IsStar    bool
	Body      []Stmt
	Handlers  []*ExceptHandler
	Orelse    []Stmt
	Finalbody []Stmt
}

// Assert is assert test [, msg].
type Assert struct {
	span
	Test, Msg Expr
}

// Import is import names.
type Import struct {
	span
	Names []*Alias
}

// ImportFrom is from module import names, with Level leading dots.
type ImportFrom struct {
	span
	Module    string // dotted, "" for from . import x
	ModulePos Pos    // where Module starts, if not ""
	Names     []*Alias
	Level     int
}

// Global is global names.
type Global struct {
	span
	Names []string
}

// Nonlocal is nonlocal names.
type Nonlocal struct {
	span
	Names []string
}

// ExprStmt is an expression used as a statement (CPython's ast.Expr).
type ExprStmt struct {
	span
	Value Expr
}

// Pass is the pass statement.
type Pass struct{ span }

// Break is the break statement.
type Break struct{ span }

// Continue is the continue statement.
type Continue struct{ span }

func (*FunctionDef) stmtNode() {}
func (*ClassDef) stmtNode()    {}
func (*Return) stmtNode()      {}
func (*Delete) stmtNode()      {}
func (*Assign) stmtNode()      {}
func (*TypeAlias) stmtNode()   {}
func (*AugAssign) stmtNode()   {}
func (*AnnAssign) stmtNode()   {}
func (*For) stmtNode()         {}
func (*While) stmtNode()       {}
func (*If) stmtNode()          {}
func (*With) stmtNode()        {}
func (*Match) stmtNode()       {}
func (*Raise) stmtNode()       {}
func (*Try) stmtNode()         {}
func (*Assert) stmtNode()      {}
func (*Import) stmtNode()      {}
func (*ImportFrom) stmtNode()  {}
func (*Global) stmtNode()      {}
func (*Nonlocal) stmtNode()    {}
func (*ExprStmt) stmtNode()    {}
func (*Pass) stmtNode()        {}
func (*Break) stmtNode()       {}
func (*Continue) stmtNode()    {}

// Comprehension is one for clause of a comprehension, with its if clauses
// (CPython gives it no position; here it spans from for, or async, to its
// last condition).
type Comprehension struct {
	span
	Target  Expr
	Iter    Expr
	Ifs     []Expr
	IsAsync bool
}

// ExceptHandler is one except or except* clause.
type ExceptHandler struct {
	span
	Type    Expr   // nil for a bare except
	Name    string // after as, or ""
	NamePos Pos
	Body    []Stmt
}

// Arguments are the parameters of a def or lambda. Defaults belong to the
// last len(Defaults) of PosOnlyArgs and Args; KwDefaults parallels
// KwOnlyArgs, nil where there is none. CPython gives it no position; here
// it spans the parameters (empty where there are none).
type Arguments struct {
	span
	PosOnlyArgs []*Arg
	Args        []*Arg
	VarArg      *Arg
	KwOnlyArgs  []*Arg
	KwDefaults  []Expr
	KwArg       *Arg
	Defaults    []Expr
}

// Arg is one parameter: its name and annotation.
type Arg struct {
	span
	Arg        string
	Annotation Expr
}

// Keyword is one keyword argument name=value, or **value with Arg "".
type Keyword struct {
	span
	Arg   string
	Value Expr
}

// Alias is one name of an import: name [as asname]; Name may be dotted,
// or "*".
type Alias struct {
	span
	Name   string
	AsName string
}

// WithItem is one context manager of a with statement: context_expr [as
// optional_vars].
type WithItem struct {
	span
	ContextExpr  Expr
	OptionalVars Expr
}

// MatchCase is one case of a match statement.
type MatchCase struct {
	span
	Pattern Pattern
	Guard   Expr
	Body    []Stmt
}

// MatchValue matches by equality with a literal or dotted name.
type MatchValue struct {
	span
	Value Expr
}

// MatchSingleton matches None, True or False by identity.
type MatchSingleton struct {
	span
	Value ConstKind // ConstNone, ConstTrue or ConstFalse
}

// MatchSequence matches a sequence: [p, q, *rest] or (p, q) or p, q.
type MatchSequence struct {
	span
	Patterns []Pattern
}

// MatchMapping matches a mapping: {key: pattern, **rest}.
type MatchMapping struct {
	span
	Keys     []Expr
	Patterns []Pattern
	Rest     string // "" without **rest
}

// MatchClass matches a class: cls(p, q, attr=pattern).
type MatchClass struct {
	span
	Cls         Expr
	Patterns    []Pattern
	KwdAttrs    []string
	KwdPatterns []Pattern
}

// MatchStar is *name in a sequence pattern; Name is "" for *_.
type MatchStar struct {
	span
	Name string
}

// MatchAs is pattern as name, a capture (Pattern nil), or the wildcard _
// (both nil and "").
type MatchAs struct {
	span
	Pattern Pattern
	Name    string
}

// MatchOr is p | q | ...
type MatchOr struct {
	span
	Patterns []Pattern
}

func (*MatchValue) patternNode()     {}
func (*MatchSingleton) patternNode() {}
func (*MatchSequence) patternNode()  {}
func (*MatchMapping) patternNode()   {}
func (*MatchClass) patternNode()     {}
func (*MatchStar) patternNode()      {}
func (*MatchAs) patternNode()        {}
func (*MatchOr) patternNode()        {}

// TypeVar is a type parameter T, T: bound or T = default.
type TypeVar struct {
	span
	Name         string
	Bound        Expr
	DefaultValue Expr
}

// ParamSpec is a type parameter **P.
type ParamSpec struct {
	span
	Name         string
	DefaultValue Expr
}

// TypeVarTuple is a type parameter *Ts.
type TypeVarTuple struct {
	span
	Name         string
	DefaultValue Expr
}

func (*TypeVar) typeParamNode()      {}
func (*ParamSpec) typeParamNode()    {}
func (*TypeVarTuple) typeParamNode() {}
